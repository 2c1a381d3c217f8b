"""Gaps found by running Triton 3.6's unit tests through ``kernellab.as_triton``
(bench/triton_unit/run.sh): each test here is kernellab's own check of one behaviour those
tests rely on."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.runtime import jit as jit_module

KERNEL_TEXT = textwrap.dedent("""
    @kl.jit
    def scaled(x_ptr, out_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * FACTOR)
    """)


def _exec_kernel(factor: str):
    text = KERNEL_TEXT.replace("FACTOR", factor)  # a caller holding the text, as a test helper does
    namespace: dict = {}
    exec(text, {"kl": kl, "tl": tl}, namespace)  # noqa: S102 - what is tested
    return namespace["scaled"]


def test_exec_defined_kernel_compiles_from_the_executed_text(host_target):
    kernel = _exec_kernel("3")
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    kernel[(1,)](x, out, 8)
    np.testing.assert_array_equal(out, x * 3)
    assert "* 3" in kernel.src


def test_exec_defined_kernel_and_helper_from_one_text(host_target):
    text = textwrap.dedent("""
        @kl.jit
        def combine(a, b):
            return a + b

        if True:
            @kl.jit
            def total(x_ptr, N: tl.constexpr):
                offs = tl.arange(0, N)
                tl.store(x_ptr + offs, tl.reduce(tl.load(x_ptr + offs), 0, combine) + offs)
        """)  # held by this frame: both functions are made again from their own defs
    namespace: dict = {"kl": kl, "tl": tl}
    exec(text, namespace)  # noqa: S102 - what is tested
    x = np.ones(8, np.float32)
    namespace["total"][(1,)](x, 8)
    np.testing.assert_array_equal(x, 8 + np.arange(8))
    assert namespace["combine"].src == "def combine(a, b):\n    return a + b"


def test_exec_defined_kernel_without_its_text_says_why(host_target):
    code = compile(KERNEL_TEXT.replace("FACTOR", "5"), "<string>", "exec")
    scope: dict = {"kl": kl, "tl": tl}
    eval(code, scope)  # noqa: S307 - no frame holds this text (KERNEL_TEXT, with FACTOR, makes other bytecode)
    with pytest.raises(TypeError, match="cannot read the source of `scaled`"):
        scope["scaled"][(1,)](np.zeros(8, np.float32), np.zeros(8, np.float32), 8)


def test_runtime_jit_module_has_the_names_triton_helpers_import():
    table = jit_module.type_canonicalisation_dict
    assert table["float32"] == "fp32" and table["bool"] == "u1" and table["float8_e4m3fn"] == "fp8e4nv"
    assert table["float8e4b8"] == table["float8_e4m3fnuz"] == "fp8e4b8" and table["half"] == "fp16"
    assert all(table[spelling] == spelling for spelling in table.values())
    assert all(tl.str_to_ty(spelling, None) is not None for spelling in set(table.values()) - {"void"})
    assert jit_module.reinterpret is kl.reinterpret and jit_module.TensorWrapper is kl.TensorWrapper


def test_mxfp4_rounds_to_nearest_even_and_saturates():
    torch = pytest.importorskip("torch")
    from kernellab.tools.mxfp import MXFP4Tensor

    values = torch.tensor([0.25, 0.3, 0.75, 1.25, 2.5, 5.0, -0.0, -7.0, float("inf"), 6.0])
    fp4 = MXFP4Tensor(values)
    expected = torch.tensor([0.0, 0.5, 1.0, 1.0, 2.0, 4.0, -0.0, -6.0, 6.0, 6.0])
    assert torch.equal(fp4.to(torch.float32), expected)
    assert fp4.data[6] == 0b1000 and torch.signbit(fp4.to(torch.float32)[6])
    codes = MXFP4Tensor(size=(5, 7)).random()
    for dim, shape in ((0, (3, 7)), (1, (5, 4)), (-1, (5, 4))):
        packed = codes.to_packed_tensor(dim)
        assert tuple(packed.shape) == shape
        assert torch.equal(codes.unpack_packed_tensor(packed, dim, (5, 7)), codes.data)
    with pytest.raises(AssertionError):
        codes.to_packed_tensor(2)


def test_e8m0_scales_are_powers_of_two_with_one_nan():
    torch = pytest.importorskip("torch")
    from kernellab.tools.mxfp import MXScaleTensor

    scales = MXScaleTensor(torch.tensor([1.0, 0.5, 2.0 ** 100, 3.0, 0.0, -2.0, float("nan"), float("inf")]))
    assert scales.data.tolist() == [127, 126, 227, 128, 255, 255, 255, 255]  # 3.0: floor(log2), as Triton's
    assert scales.to(torch.float32)[:3].tolist() == [1.0, 0.5, 2.0 ** 100]
    assert torch.isnan(scales.to(torch.float32)[4:]).all()


def test_e8m0_random_scales_lie_between_the_values_low_and_high():
    """Triton's ``random(low, high)`` bounds are values (its test_mxfp8_mxfp4_matmul_tma passes
    ``high=64.0``): the codes of their powers of two, log2 truncated toward zero."""
    torch = pytest.importorskip("torch")
    from kernellab.tools.mxfp import MXScaleTensor

    drawn = MXScaleTensor(size=(2000,)).random(low=0.3, high=64.0)
    assert set(drawn.data.tolist()) == set(range(126, 134))  # 2**-1 .. 2**6
    values = drawn.to(torch.float32)
    assert float(values.min()) == 0.5 and float(values.max()) == 64.0
    everything = MXScaleTensor(size=(20000,)).random()
    assert int(everything.data.min()) == 0 and int(everything.data.max()) == 254


@kl.jit
def _shape_checked(out_ptr, N: tl.constexpr):
    values = tl.full([N], 7, tl.int32)
    tl.static_assert(values.shape == [N])
    tl.static_assert(values[None, :].shape == [1, N])
    tl.static_assert(values.shape + [1] == [N, 1])
    tl.store(out_ptr + tl.arange(0, N), values)


def test_static_assert_compares_a_shape_with_a_list(host_target):
    out = np.zeros(16, np.int32)
    _shape_checked[(1,)](out, 16)
    np.testing.assert_array_equal(out, 7)


@kl.jit
def _bump(a_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(a_ptr + offs, tl.load(a_ptr + offs) + 2)


def test_pre_run_hooks_see_every_launchs_arguments(host_target):
    seen = []
    kernel = kl.jit(_bump.fn)
    kernel.add_pre_run_hook(lambda a, *rest, **kwargs: (seen.append(rest), a.fill(0)))
    a = np.ones(4, np.int32)
    kernel[(1,)](a, 4)
    np.testing.assert_array_equal(a, 2)
    a[:] = 1
    kernel.run(a, 4, grid=(1,), warmup=False)
    np.testing.assert_array_equal(a, 2)
    kernel.run(a, 4, grid=(1,), warmup=True)  # compiles only: no hook
    assert seen == [(4,), (4,)]
    with pytest.raises(TypeError, match="must be callable"):
        kernel.add_pre_run_hook(3)


@kl.jit
def _reads_nothing(x_ptr, n, BLOCK: tl.constexpr):
    pass


def test_kernel_that_reads_none_of_its_arguments_launches_again(host_target):
    x = np.zeros(4, np.float32)
    _reads_nothing[(1,)](x, 4, 32)
    _reads_nothing[(1,)](x, 5, 32)


def test_pruning_every_config_says_so_in_tritons_words(host_target):
    @kl.autotune(configs=[kl.Config({"BLOCK": 32}), kl.Config({"BLOCK": 64})], key=["n"],
                 prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: []})
    @kl.jit
    def pruned(x_ptr, n, BLOCK: tl.constexpr):
        pass

    with pytest.raises(kl.TritonError) as caught:
        pruned[(1,)](np.zeros(4, np.float32), 4)
    assert str(caught.value) == ("Autotuner error: No valid autotuner configs after pruning. "
                                 "`early_config_prune` should return at least one config.")


@kl.jit
def _to_fp8_bits(x_ptr, out_ptr, n, FP8: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x.to(FP8).to(tl.uint8, bitcast=True), mask=offs < n)


@kl.jit
def _from_fp8_bits(bits_ptr, out_ptr, FP8: tl.constexpr):
    offs = tl.arange(0, 256)
    tl.store(out_ptr + offs, tl.load(bits_ptr + offs).to(FP8, bitcast=True).to(tl.float32))


FP8_TYPES = [tl.float8e4nv, tl.float8e5, tl.float8e4b8, tl.float8e5b16]


def _edge_floats() -> np.ndarray:
    """Every f16 value, the fp8 rounding boundaries around them, infinities, NaN, f32 subnormals."""
    halves = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    rng = np.random.default_rng(5)
    wide = (rng.standard_normal(20000) * 2.0 ** rng.integers(-30, 20, 20000)).astype(np.float32)
    tiny = np.array([1e-40, -1e-40, 2.0 ** -126, 1e30, -1e30, np.inf, -np.inf, np.nan], np.float32)
    return np.concatenate([halves, np.nextafter(halves, np.float32(np.inf)), wide, tiny])


def _run(kernel, grid, *args, target: str, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", target)
    kernel[grid](*args)


@pytest.mark.parametrize("fp8", FP8_TYPES, ids=lambda t: t.name)
def test_fp8_conversions_on_cpu_match_the_interpreter(fp8, monkeypatch):
    x = _edge_floats()
    got = {}
    for target in ("interpret", "cpu"):
        bits = np.zeros(x.size, np.uint8)
        _run(_to_fp8_bits, (kl.cdiv(x.size, 1024),), x, bits, x.size, fp8, 1024, target=target, monkeypatch=monkeypatch)
        back = np.zeros(256, np.float32)
        _run(_from_fp8_bits, (1,), np.arange(256, dtype=np.uint8), back, fp8, target=target, monkeypatch=monkeypatch)
        got[target] = bits, back
    (ref_bits, ref_back), (cpu_bits, cpu_back) = got["interpret"], got["cpu"]
    np.testing.assert_array_equal(np.isnan(cpu_back), np.isnan(ref_back))
    np.testing.assert_array_equal(cpu_back[~np.isnan(ref_back)], ref_back[~np.isnan(ref_back)])
    decoded_ref, decoded_cpu = ref_back[ref_bits], ref_back[cpu_bits]  # NaN codes compare as NaN
    same = (decoded_ref == decoded_cpu) | (np.isnan(decoded_ref) & np.isnan(decoded_cpu))
    same &= np.signbit(decoded_ref) == np.signbit(decoded_cpu)
    assert same.all(), f"first mismatch at {x[~same][:5]}: interpreter {ref_bits[~same][:5]} cpu {cpu_bits[~same][:5]}"


def test_a_constexpr_listed_in_do_not_specialize_is_refused(host_target):
    @kl.jit(do_not_specialize=["N"])
    def kernel(x_ptr, N: tl.constexpr):
        tl.store(x_ptr, N)

    with pytest.raises(kl.CompilationError, match="N marked as constexpr and listed in do_not_specialize"):
        kernel[(1,)](np.zeros(1, np.int32), 5)
    with pytest.raises(kl.CompilationError, match="N marked as constexpr and listed in do_not_specialize"):
        kl.compile(kl.compiler.ASTSource(fn=kernel, signature={"x_ptr": "*i32"}, constexprs={"N": 5}))


@kl.autotune(configs=[kl.Config({"B": 8})], key=[])
@kl.jit
def decorated_twice(x_ptr, B: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, B), 1.0)


def test_the_def_line_is_what_line_info_counts_from():
    """Triton's interpreter API ``kernel.rewrite()`` / ``kernel.rewriter.def_file_lineno``: the
    file line of the ``def`` below the decorators, where the kernel's source locations start."""
    jit = decorated_twice.fn
    assert jit.rewrite() is jit.fn
    def_line = jit.fn.__code__.co_firstlineno + 2  # the autotune and jit decorators above it
    assert jit.rewriter.def_file_lineno == def_line and jit.rewriter.filename == __file__
    ir = jit.warmup(np.zeros(8, np.float32), grid=(1,), B=8).asm["tile"]
    assert f"{__file__}" in ir and f":{def_line}:" in ir


def test_tritons_filecheck_helper_runs_kernellabs_filecheck():
    from kernellab.testing.filecheck import run_filecheck

    run_filecheck("ok", "func @k\n  %0 = load\n  store\n", "CHECK: func @k\nCHECK-NEXT: load\nCHECK: store")
    with pytest.raises(ValueError, match="mismatch: CHECK-NOT"):
        run_filecheck("mismatch", "load\nload\n", "CHECK: load\nCHECK-NOT: load")
