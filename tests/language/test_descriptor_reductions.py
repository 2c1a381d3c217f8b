"""``desc.atomic_add`` ... ``desc.atomic_xor``: a block combined into memory element by element,
atomically, through descriptors made in the kernel and passed from the host; what falls outside
the tensor is dropped, and unsupported element types are compile errors at the call's line."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError
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
                                         ("xor", np.int16)])
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
