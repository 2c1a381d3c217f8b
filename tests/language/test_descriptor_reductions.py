"""``desc.atomic_add`` ... ``desc.atomic_xor``: a block combined into memory element by element,
atomically, through descriptors made in the kernel and passed from the host; what falls outside
the tensor is dropped, and unsupported element types are compile errors at the call's line.
The element types are the target's (its backend's capabilities): fp16 and bf16 min and max
only on CUDA from sm_90 on, as Triton's tensor-memory-accelerator reductions."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import backends
from kernellab.backends.cuda import ptxas
from kernellab.errors import CompilationError
from kernellab.ir import types as T
from kernellab.tools.tensor_descriptor import TensorDescriptor


@kl.jit
def reduce_blocks(desc, out, src, M, N, BM: tl.constexpr, BN: tl.constexpr, KIND: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    value = tl.load(src + rows * N + cols, mask=(rows < M) & (cols < N), other=0)
    if desc is None:
        desc = tl.make_tensor_descriptor(out, [M, N], [N, 1], [BM, BN])
    offsets = [tl.program_id(0) * BM, tl.program_id(1) * BN]
    if KIND == "add":
        desc.atomic_add(offsets, value)
    elif KIND == "min":
        desc.atomic_min(offsets, value)
    elif KIND == "max":
        desc.atomic_max(offsets, value)
    elif KIND == "and":
        desc.atomic_and(offsets, value)
    elif KIND == "or":
        desc.atomic_or(offsets, value)
    else:
        desc.atomic_xor(offsets, value)


NUMPY = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
         "xor": np.bitwise_xor}


@pytest.mark.parametrize("made_in", ["kernel", "host"])
@pytest.mark.parametrize("kind, dtype", [("add", np.float32), ("add", np.int32), ("add", np.float16),
                                         ("min", np.int32), ("max", np.int64), ("and", np.uint32),
                                         ("or", np.int64), ("xor", np.int32)])
def test_each_kind_combines_the_block(host_target, kind, dtype, made_in) -> None:
    rng = np.random.default_rng(7)
    m, n, bm, bn = 12, 40, 8, 16  # edge blocks stick out of the tensor: those elements are dropped
    src = (rng.standard_normal((m, n)) * 50).astype(dtype)
    out = (rng.standard_normal((m, n)) * 50).astype(dtype)
    want = NUMPY[kind](out, src)
    desc = TensorDescriptor.from_tensor(out, [bm, bn]) if made_in == "host" else None
    reduce_blocks[(2, 3)](desc, out, src, m, n, BM=bm, BN=bn, KIND=kind)
    np.testing.assert_allclose(out, want, rtol=1e-3 if dtype == np.float16 else 0)


@pytest.mark.parametrize("kind, dtype", [("min", np.float32), ("and", np.float32), ("add", np.int64),
                                         ("xor", np.int16), ("min", np.float16), ("max", np.float16)])
def test_unsupported_element_types_are_compile_errors(host_target, kind, dtype) -> None:
    out = np.zeros((8, 16), dtype)
    with pytest.raises(CompilationError, match=f"desc.atomic_{kind} does not support") as error:
        reduce_blocks[(1, 1)](None, out, out.copy(), 8, 16, BM=8, BN=16, KIND=kind)
    line = reduce_blocks.fn.__code__.co_firstlineno
    assert f":{line + 9 + 2 * list(NUMPY).index(kind)}:" in str(error.value)


@kl.jit
def reduce_wrong_shape(out, BM: tl.constexpr):
    desc = tl.make_tensor_descriptor(out, [BM, 16], [16, 1], [BM, 16])
    desc.atomic_add([0, 0], tl.zeros([BM, 8], tl.float32))


def test_the_value_has_the_block_shape(host_target) -> None:
    with pytest.raises(CompilationError, match=r"block shape \[8, 16\], got \[8, 8\]"):
        reduce_wrong_shape[(1,)](np.zeros((8, 16), np.float32), BM=8)


def test_16_bit_float_min_and_max_are_cuda_sm_90_facts() -> None:
    """One declaration per backend: every target takes Triton's element-wise set; CUDA adds fp16
    and bf16 min and max from sm_90 on."""
    cuda = backends.capabilities("cuda")
    for facts, arch in [(backends.capabilities("interpret"), None), (backends.capabilities("cpu"), None),
                        (cuda, "sm_80"), (cuda, "sm_89"), (cuda, None)]:
        table = facts.descriptor_reduce_types(arch)
        assert T.f16 not in table["min"] and T.bf16 not in table["max"] and T.f16 in table["add"]
    for arch in ("sm_90", "sm_90a", "sm_100a"):
        table = cuda.descriptor_reduce_types(arch)
        assert {T.f16, T.bf16} <= table["min"] & table["max"]
        assert T.f32 not in table["min"] and T.i64 not in table["add"] and T.f16 not in table["and"]


def _compile_reduce(kind: str, dtype: str, arch: str):
    return kl.compile(reduce_blocks, signature={"out": f"*{dtype}", "src": f"*{dtype}", "M": "i32", "N": "i32"},
                      constexprs={"desc": None, "BM": 8, "BN": 16, "KIND": kind}, target=f"cuda:{arch}")


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
@pytest.mark.parametrize("kind", ["min", "max"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_16_bit_float_min_and_max_are_compare_and_swap_loops_on_sm_90(kind, dtype) -> None:
    """PTX has no 16-bit float min/max atom: each element is a loop of ``atom.cas.b16`` whose new
    value is ``min``/``max`` of what memory held and the element; ptxas assembles it."""
    kernel = _compile_reduce(kind, dtype, "sm_90a")
    ptx = kernel.asm["ptx"]
    element = "f16" if dtype == "fp16" else "bf16"
    assert f"{kind}.{element} next" in ptx and "atom.global.relaxed.gpu.cas.b16" in ptx
    assert kernel.metadata["registers"] > 0


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_16_bit_float_min_is_a_compile_error_before_sm_90(dtype) -> None:
    with pytest.raises(CompilationError, match=f"desc.atomic_min does not support {dtype} elements on cuda:sm_80"):
        _compile_reduce("min", dtype, "sm_80")


@kl.jit
def reduce_many(desc, out, src, M, N, BM: tl.constexpr, BN: tl.constexpr, KIND: tl.constexpr):
    """Program (i, j, k) combines source ``k``'s block (i, j) into ``out``: the sources race."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    value = tl.load(src + tl.program_id(2) * M * N + rows * N + cols, mask=(rows < M) & (cols < N), other=0)
    if desc is None:
        desc = tl.make_tensor_descriptor(out, [M, N], [N, 1], [BM, BN])
    offsets = [tl.program_id(0) * BM, tl.program_id(1) * BN]
    if KIND == "min":
        desc.atomic_min(offsets, value)
    else:
        desc.atomic_max(offsets, value)


@pytest.mark.gpu
@pytest.mark.parametrize("made_in", ["kernel", "host"])
@pytest.mark.parametrize("kind", ["min", "max"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_float_min_and_max_on_the_gpu(made_in, kind, dtype) -> None:
    """Against torch on fresh random data: edge blocks stick out of the tensor (dropped), and
    eight sources race on every element."""
    torch = pytest.importorskip("torch")
    torch_dtype = getattr(torch, dtype)
    m, n, bm, bn, sources = 40, 72, 16, 32, 8
    src = (torch.randn((sources, m, n), device="cuda") * 100).to(torch_dtype)
    out = (torch.randn((m, n), device="cuda") * 100).to(torch_dtype)
    combine = torch.amin if kind == "min" else torch.amax
    want = combine(torch.cat([src, out[None]]), dim=0)
    desc = TensorDescriptor.from_tensor(out, [bm, bn]) if made_in == "host" else None
    reduce_many[(kl.cdiv(m, bm), kl.cdiv(n, bn), sources)](desc, out, src, m, n, BM=bm, BN=bn, KIND=kind)
    torch.cuda.synchronize()
    assert torch.equal(out, want)
