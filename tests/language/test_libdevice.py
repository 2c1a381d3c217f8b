"""libdevice as a module: Triton's names and paths, its libdevice.bc symbols, a lowering for
every function on every target, Python numbers and refused half tensors (every function's
values on every target: test_libdevice_all.py)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError
from kernellab.ir.mathfns import MATH
from kernellab.language.extra import libdevice
from tests.language.test_libdevice_all import kernel1

N = 64


@kl.jit
def pow_scalar_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, libdevice.pow(tl.load(x_ptr + offs, mask=mask), 3.0), mask=mask)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_of_a_python_number(launch, inputs, dtype) -> None:
    x = inputs.uniform(N, 0.1, 4.0, dtype)
    cubed = inputs.poisoned(N, dtype)
    launch(pow_scalar_kernel, (1,), x, cubed, N, BLOCK=N)
    rtol = 2e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(cubed, (x.astype(np.float64) ** 3).astype(dtype), rtol=rtol)


@kl.jit
def pow_mixed_kernel(x_ptr, e_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, libdevice.pow(x, tl.load(e_ptr + offs, mask=mask)), mask=mask)


@pytest.mark.parametrize("exponent_dtype", [np.float16, np.int64])
def test_mixed_operands_are_promoted_together(launch, inputs, exponent_dtype) -> None:
    # as Triton's extern calls: (fp32, fp16) is not a signature of pow, (fp32, fp32) is
    x = inputs.uniform(N, 0.5, 2.0)
    e = inputs.uniform(N, -3.0, 3.0).astype(exponent_dtype)
    out = inputs.poisoned(N)
    launch(pow_mixed_kernel, (1,), x, e, out, N, BLOCK=N)
    np.testing.assert_allclose(out, (x.astype(np.float64) ** e.astype(np.float64)).astype(np.float32), rtol=2e-6)


def test_a_half_tensor_is_refused_with_the_signatures(monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x = np.ones(N, np.float16)
    with pytest.raises(CompilationError, match=r"tanh expects fp32, fp64 tensors, got fp16.*x.to\(tl.float32\)"):
        kernel1[(1,)](x, np.zeros(N, np.float16), N, FN=libdevice.tanh, BLOCK=N)


def test_every_declared_function_is_in_libdevice_and_tl_math_ones_are_shared() -> None:
    for fn in MATH.values():
        assert getattr(libdevice, fn.name).__name__ == fn.name
        if "math" in fn.modules:
            assert getattr(tl.math, fn.name) is getattr(libdevice, fn.name) is getattr(tl, fn.name)


# Triton 3.6's triton.language.extra.libdevice (dir() of the module: its CUDA and HIP functions)
TRITON_LIBDEVICE = """
    abs acos acosh add_rd add_rn add_ru add_rz asin asinh atan atan2 atanh brev byte_perm cbrt ceil clz
    copysign cos cosh cospi cyl_bessel_i0 cyl_bessel_i1 div_rd div_rn div_ru div_rz double2float_rd
    double2float_rn double2float_ru double2float_rz double2hiint double2int_rd double2int_rn double2int_ru
    double2int_rz double2ll_rd double2ll_rn double2ll_ru double2ll_rz double2loint double2uint_rd
    double2uint_rn double2uint_ru double2uint_rz double2ull_rd double2ull_rn double2ull_ru double2ull_rz
    double_as_longlong erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fast_cosf fast_dividef fast_exp10f
    fast_expf fast_log10f fast_log2f fast_logf fast_powf fast_sinf fast_tanf fast_tanhf fdim ffs finitef
    float2int_rd float2int_rn float2int_ru float2int_rz float2ll_rd float2ll_rn float2ll_ru float2ll_rz
    float2uint_rd float2uint_rn float2uint_ru float2uint_rz float2ull_rd float2ull_rn float2ull_ru
    float2ull_rz float_as_int float_as_uint floor fma fma_rd fma_rn fma_ru fma_rz fmod hadd hiloint2double
    hypot ilogb int2double_rn int2float_rd int2float_rn int2float_ru int2float_rz int_as_float isfinited isinf
    isnan j0 j1 jn ldexp lgamma ll2double_rd ll2double_rn ll2double_ru ll2double_rz ll2float_rd ll2float_rn
    ll2float_ru ll2float_rz llrint llround log log10 log1p log2 logb longlong_as_double mul24 mul_rd mul_rn
    mul_ru mul_rz mulhi nearbyint nextafter norm3d norm4d normcdf normcdfinv popc pow rcbrt rcp64h rcp_rd
    rcp_rn rcp_ru rcp_rz remainder rhadd rhypot rint rnorm3d rnorm4d round rsqrt rsqrt_rn sad saturatef scalbn
    signbit sin sinh sinpi sqrt sqrt_rd sqrt_rn sqrt_ru sqrt_rz sub_rd sub_rn sub_ru sub_rz tan tanh tgamma
    trunc uint2double_rn uint2float_rd uint2float_rn uint2float_ru uint2float_rz uint_as_float ull2double_rd
    ull2double_rn ull2double_ru ull2double_rz ull2float_rd ull2float_rn ull2float_ru ull2float_rz y0 y1 yn
""".split()


def test_libdevice_has_every_name_of_tritons() -> None:
    import kernellab.language.extra.cuda.libdevice as cuda_path

    assert len(TRITON_LIBDEVICE) == 198
    assert [n for n in TRITON_LIBDEVICE if not hasattr(libdevice, n)] == []
    assert [n for n in TRITON_LIBDEVICE if getattr(cuda_path, n) is not getattr(libdevice, n)] == []


def test_every_libdevice_symbol_exists_in_libdevice_bc() -> None:
    """Each signature's __nv_ symbol (Triton's table) is a function of the libdevice.10.bc the
    CUDA target links, so no kernel calls a missing function."""
    import llvmlite.binding as llvm

    from kernellab.backends.cuda.ptx import libdevice_path

    try:
        path = libdevice_path()
    except FileNotFoundError:
        pytest.skip("no libdevice.10.bc on this machine")
    defined = {f.name for f in llvm.parse_bitcode(path.read_bytes()).functions if not f.is_declaration}
    symbols = {symbol for fn in MATH.values() for symbol in fn.nv.values()}
    assert len(symbols) > 300
    assert sorted(symbols - defined) == []


def test_every_function_has_a_lowering_on_every_target() -> None:
    """The host needs an intrinsic, a libm name or an expansion; CUDA a libdevice symbol for
    each signature, an instruction, or its own code (fast_tanhf: tanh.approx)."""
    from kernellab.backends.cuda.lower.math import NATIVE_INTRINSICS
    from kernellab.backends.llvm.math import EXPANSIONS

    assert [n for n, fn in MATH.items() if fn.expand and n not in EXPANSIONS] == []
    cuda_gaps = [n for n, fn in MATH.items()
                 if set(fn.nv) != set(fn.signatures) and fn.intrinsic not in NATIVE_INTRINSICS
                 and n != "fast_tanhf"]
    assert cuda_gaps == []
