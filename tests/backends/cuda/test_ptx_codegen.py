"""PTX produced without a GPU: every op lowers and the PTX assembles with ptxas for sm_90a; the
instructions that make kernels fast are there (128-bit vector accesses, warp shuffles, mma.sync);
``.loc`` lines map the PTX back to the kernel's Python lines; ``tile.gpu`` shows the layouts."""

from __future__ import annotations

import inspect
import re

import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas
from kernellab.backends.cuda.compiler import compile_to_ptx
from kernellab.backends.cuda.lower.context import LOWERINGS
from kernellab.backends.cuda.lower.module import ModuleLowering  # noqa: F401  (registers the lowerings)
from kernellab.errors import CompilationError
from kernellab.ir.ops import OPS
from kernellab.ir.ops.registry import kernel_ops
from tests.filecheck import filecheck
from tests.ir.catalog import build_catalog
from tests.kernels import tutorials

needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
D16 = {"divisibility": 16}


def compile_cuda(fn, signature, constexprs, arg_attrs=None, arch="sm_90a", **options):
    return kl.compile(fn, signature=signature, constexprs=constexprs, target=f"cuda:{arch}",
                      arg_attrs=arg_attrs or {}, **options)


def instructions(ptx: str, opcode: str) -> list[str]:
    return [line.strip() for line in ptx.splitlines() if re.search(rf"\b{re.escape(opcode)}\b", line)]


# ---- every op ---------------------------------------------------------------------------------------

def test_every_op_has_a_lowering():
    assert set(OPS) <= set(LOWERINGS), f"ops without a CUDA lowering: {sorted(set(OPS) - set(LOWERINGS))}"



@needs_ptxas
def test_the_every_op_catalog_assembles_for_sm_90a():
    module, used = build_catalog()
    assert used == kernel_ops()
    for op in module.walk():
        if op.name == "inline_asm":
            op.attrs["pack"] = 1  # the catalog's constraints list one register per element
    metadata: dict = {}
    stages = compile_to_ptx(module, {"num_warps": 4}, metadata, arch="sm_90a")
    result = ptxas.assemble(stages["ptx"], "sm_90a")
    assert result.cubin.startswith(b"\x7fELF")
    assert metadata["name"] == "catalog" and metadata["threads_per_block"] == 128
    assert metadata["arg_types"] == ["*fp32", "*i32", "i32", "fp32"]
    assert metadata["shared"] > 0
    assert set(metadata["compile_seconds"]) >= {"tile.gpu", "llvm", "ptx"}
    for needle in ("vprintf", "__assertfail", "atom.global", "shfl.sync", "bar.sync"):
        assert needle in stages["ptx"], needle


# ---- vector accesses ------------------------------------------------------------------------------

ADD_SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}


@needs_ptxas
def test_vector_add_uses_128_bit_accesses_when_the_mask_allows():
    attrs = {"x_ptr": D16, "y_ptr": D16, "output_ptr": D16, "n_elements": D16}
    kernel = compile_cuda(tutorials.add_kernel, ADD_SIGNATURE, {"BLOCK_SIZE": 1024}, attrs)
    ptx = kernel.asm["ptx"]
    assert kernel.metadata["cubin_from"] == "ptxas"
    filecheck(ptx, """
        CHECK: .maxntid 128
        CHECK: ld.global.v4.b32
        CHECK: ld.global.v4.b32
        CHECK: st.global.v4.b32
    """)
    assert len(instructions(ptx, "ld.global.v4.b32")) == 4  # 8 floats per thread, two arrays
    assert not instructions(ptx, "ld.global.b32")
    assert "#blocked<sizePerThread=[4], threadsPerWarp=[32], warpsPerCTA=[4], order=[0]>" in kernel.asm["tile.gpu"]


@needs_ptxas
def test_a_mask_of_unknown_alignment_gives_scalar_accesses():
    attrs = {"x_ptr": D16, "y_ptr": D16, "output_ptr": D16}
    ptx = compile_cuda(tutorials.add_kernel, ADD_SIGNATURE, {"BLOCK_SIZE": 1024}, attrs).asm["ptx"]
    assert not instructions(ptx, "ld.global.v4.b32")
    assert len(instructions(ptx, "ld.global.b32")) == 16


@kl.jit
def copy_half(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@needs_ptxas
def test_half_precision_moves_eight_elements_per_access():
    kernel = compile_cuda(copy_half, {"x_ptr": "*fp16", "out_ptr": "*fp16"}, {"BLOCK": 2048},
                          {"x_ptr": D16, "out_ptr": D16})
    ptx = kernel.asm["ptx"]
    assert len(instructions(ptx, "ld.global.v4.b32")) == 2  # 16 halves per thread
    assert len(instructions(ptx, "st.global.v4.b32")) == 2
    assert "sizePerThread=[8]" in kernel.asm["tile.gpu"]


# ---- reductions, conversions, dot ------------------------------------------------------------------

SOFTMAX_SIGNATURE = {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
                     "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"}


@needs_ptxas
def test_softmax_reduces_through_warp_shuffles_and_shared_memory():
    attrs = {name: D16 for name in SOFTMAX_SIGNATURE}
    kernel = compile_cuda(tutorials.softmax_kernel, SOFTMAX_SIGNATURE, {"BLOCK_SIZE": 4096, "num_stages": 2}, attrs,
                          num_warps=8)
    ptx = kernel.asm["ptx"]
    shuffles = instructions(ptx, "shfl.sync.bfly.b32")
    assert len(shuffles) == 10  # 5 butterfly steps for the max, 5 for the sum
    assert {s.split(",")[2].strip() for s in shuffles} == {"1", "2", "4", "8", "16"}
    assert instructions(ptx, "bar.sync") and instructions(ptx, "ex2.approx.f32")
    assert len(instructions(ptx, "ld.global.v4.b32")) == 4
    assert kernel.metadata["shared"] > 0


MATMUL_SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                    "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}


@needs_ptxas
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_matmul_uses_tensor_cores(dtype):
    signature = {k: (v.replace("fp16", dtype) if v.startswith("*") else v) for k, v in MATMUL_SIGNATURE.items()}
    constexprs = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
                  "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "ACTIVATION": ""}
    attrs = {k: D16 for k in signature}
    kernel = compile_cuda(tutorials.matmul_kernel, signature, constexprs, attrs, arch="sm_80", num_warps=4)
    ptx = kernel.asm["ptx"]
    kind = "f16" if dtype == "fp16" else "bf16"
    mmas = instructions(ptx, f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32")
    assert len(mmas) == 128  # (128/16) * (128/8) * (64/16) / 4 warps
    assert instructions(ptx, "cp.async.cg.shared.global")  # the operands stream through cp.async rings
    assert not instructions(ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16")
    assert instructions(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16")
    assert instructions(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16")
    assert "#mma<version=2, instr=16x8x16, warpsPerCTA=[2, 2]>" in kernel.asm["tile.gpu"]
    assert kernel.metadata["spills"] == 0


@kl.jit
def fp32_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


@needs_ptxas
def test_fp32_dot_takes_the_fma_path():
    kernel = compile_cuda(fp32_dot, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
                          {"M": 32, "N": 32, "K": 32})
    ptx = kernel.asm["ptx"]
    assert instructions(ptx, "fma.rn.f32") and not instructions(ptx, "mma.sync.aligned.m16n8k16")


# ---- source lines -----------------------------------------------------------------------------------

@needs_ptxas
def test_loc_lines_map_ptx_to_the_kernel_source():
    attrs = {"x_ptr": D16, "y_ptr": D16, "output_ptr": D16, "n_elements": D16}
    kernel = compile_cuda(tutorials.add_kernel, ADD_SIGNATURE, {"BLOCK_SIZE": 1024}, attrs)
    ptx = kernel.asm["ptx"]
    files = dict(re.findall(r'\.file\s+(\d+)\s+"([^"]+)"', ptx))
    assert any(path.endswith("tutorials.py") for path in files.values())
    lines, first = inspect.getsourcelines(tutorials.add_kernel.fn)
    load_line = first + next(i for i, text in enumerate(lines) if "tl.load(x_ptr" in text)
    store_line = first + next(i for i, text in enumerate(lines) if "tl.store" in text)
    loc_lines = {int(m) for m in re.findall(r"\.loc\s+\d+\s+(\d+)\s+\d+", ptx)}
    assert {load_line, store_line} <= loc_lines
    # the .loc before the first vector load names the load's line
    before = ptx[:ptx.index("ld.global.v4.b32")]
    last_loc = re.findall(r"\.loc\s+\d+\s+(\d+)", before)[-1]
    assert int(last_loc) == load_line


# ---- targets, metadata, errors ----------------------------------------------------------------------

@needs_ptxas
def test_ptx_for_another_architecture():
    kernel = compile_cuda(tutorials.add_kernel, ADD_SIGNATURE, {"BLOCK_SIZE": 256}, arch="sm_80", num_warps=2)
    ptx = kernel.asm["ptx"]
    assert ".target sm_80" in ptx and ".maxntid 64" in ptx
    assert kernel.metadata["threads_per_block"] == 64 and kernel.metadata["num_warps"] == 2


@kl.jit
def bad_asm(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [tl.load(x_ptr + offs)], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(out_ptr + offs, y)


def test_inline_asm_with_wrong_constraints_is_a_clear_error():
    with pytest.raises(CompilationError, match="constraints"):
        compile_cuda(bad_asm, {"x_ptr": "*i32", "out_ptr": "*i32"}, {"BLOCK": 128})


@kl.jit
def packed_asm(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("prmt.b32 $0, $1, 0, 0x0123;", "=r,r", [x], dtype=tl.int8, is_pure=True, pack=4)
    tl.store(out_ptr + offs, y)


@needs_ptxas
def test_inline_asm_packs_four_bytes_per_register():
    kernel = compile_cuda(packed_asm, {"x_ptr": "*i8", "out_ptr": "*i8"}, {"BLOCK": 512})
    assert len(instructions(kernel.asm["ptx"], "prmt.b32")) == 1  # 4 bytes per thread, one instance


def test_gpu_stage_prints_one_layout_per_tile():
    module, _ = build_catalog()
    for op in module.walk():
        if op.name == "inline_asm":
            op.attrs["pack"] = 1
    stages = compile_to_ptx(module, {"num_warps": 4}, {}, arch="sm_90a")
    text = stages["tile.gpu"]
    aliases = dict(re.findall(r"^(#L\d+) = (#\w+<.*>)$", text, re.M))
    assert aliases and all(a in text.split("\n", len(aliases))[-1] for a in aliases)
    load_lines = [line for line in text.splitlines() if " = load(" in line]
    assert load_lines and all(re.search(r"// #L\d+", line) for line in load_lines)


@kl.jit
def loop_invariant_index(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = (tl.arange(0, BLOCK) * 5) % 7  # lazy, defined outside the loop
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(n):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


def test_tiles_defined_outside_a_loop_are_computed_before_it():
    kernel = compile_cuda(loop_invariant_index, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 256},
                          num_warps=2)
    llvm = kernel.asm["llvm"]
    header = llvm.index("for.header")
    assert "srem" in llvm[:header] and "srem" not in llvm[header:]


@kl.jit
def _ordered_atomics(p, q, x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 128))
    tl.atomic_max(p + tl.arange(0, 128), x, sem="acquire", scope="cta")
    tl.atomic_add(q + tl.arange(0, 128), x.to(tl.float16), sem="release")
    tl.atomic_xchg(p + tl.arange(0, 128), x)


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_atomics_spell_space_scope_and_ordering_as_triton():
    """``atom.global.<scope>.<sem>.<op>`` (Triton's order, which its tests look for in the PTX)."""
    kernel = kl.compile(_ordered_atomics, signature={"p": "*fp32", "q": "*fp16", "x_ptr": "*fp32"},
                        target="cuda:sm_90a")
    atoms = re.findall(r"atom\.\S+", kernel.asm["ptx"])
    assert atoms == ["atom.global.cta.acquire.max.s32", "atom.global.cta.acquire.min.u32",
                     "atom.global.gpu.release.add.noftz.f16", "atom.global.gpu.acq_rel.exch.b32"]
    assert kernel.metadata["registers"] > 0  # ptxas took them


@kl.jit
def _locked(lock, SEM: tl.constexpr, SCOPE: tl.constexpr):
    while tl.atomic_cas(lock, 0, 1, SEM, SCOPE) == 1:
        pass
    tl.atomic_xchg(lock, 0)


@needs_ptxas
@pytest.mark.parametrize("sem, scope", [(None, None), ("acquire", "cta"), ("release", "gpu"), ("acq_rel", "sys"),
                                        ("relaxed", None)])
def test_compare_and_swap_carries_its_ordering_as_triton_spells_it(sem, scope):
    """``tl.atomic_cas``'s ``sem`` and ``scope`` reach the instruction, ``atom.global.<sem>.<scope>.cas``
    (Triton's order for compare-and-swap; its test_atomic_cas looks for ``atom.global.<sem>``);
    the exchange keeps ``<scope>.<sem>`` as Triton's read-modify-write atomics."""
    kernel = kl.compile(_locked, signature={"lock": "*i32"}, constexprs={"SEM": sem, "SCOPE": scope},
                        target="cuda:sm_90a")
    atoms = re.findall(r"atom\.\S+", kernel.asm["ptx"])
    assert atoms == [f"atom.global.{sem or 'acq_rel'}.{scope or 'gpu'}.cas.b32", "atom.global.gpu.acq_rel.exch.b32"]
    assert kernel.metadata["registers"] > 0


@kl.jit
def _prints(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 128))
    tl.device_print("x", x)
    tl.device_print("s", tl.sum(x, axis=0))
    tl.device_print("grid", tl.reshape(x, (8, 16)), hex=True)
    tl.device_print("h", x.to(tl.int16), hex=True)
    tl.device_print("no arg")


def test_device_print_formats_lines_as_triton_and_the_interpreter():
    """``pid (x, y, z) idx (<indices padded to their dimension's widest>) <prefix><value>``, the
    prefix as the language normalised it (``" x: "``), hexadecimal padded to the element's width,
    a prefix alone without ``idx``: what Triton's test_print expects and what the interpreter's
    ``print_lines`` writes."""
    kernel = kl.compile(_prints, signature={"x_ptr": "*i32"}, target="cuda:sm_90a")
    strings = [bytes(int(v) for v in found.split(",")).rstrip(b"\0").decode()
               for found in re.findall(r"\.b8 \S+\[\d+\] = \{([\d, ]+)\}", kernel.asm["ptx"])]
    assert strings == ["pid (%u, %u, %u) idx (%3u) x: %d\n", "pid (%u, %u, %u) idx () s: %d\n",
                       "pid (%u, %u, %u) idx (%1u, %2u) grid: 0x%08x\n", "pid (%u, %u, %u) idx (%3u) h: 0x%04x\n",
                       "pid (%u, %u, %u) no arg\n"]
