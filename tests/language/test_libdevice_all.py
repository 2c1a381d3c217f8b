"""Every libdevice function, with every signature Triton 3.6 gives it, on every target, against
its reference (``kernellab/ir/mathfns/``) on fresh random inputs from its domain plus the
special values (0, -0, inf, nan, subnormals, the integer extremes).  Exact functions (rounding
modes, conversions, bit functions, classification) must match bit for bit; the others within
the ulp (or absolute) tolerance below.  Every kernel compiled here is also built for sm_90a and
assembled by ptxas (tests/ptx_check.py), so the CUDA lowering (libdevice) is checked too."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.ir.mathfns import MATH, in_module
from kernellab.language.extra import libdevice

N = 96
_NUMPY = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "u32": np.uint32, "i64": np.int64,
          "u64": np.uint64}


@kl.jit
def kernel1(a, out, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, FN(tl.load(a + offs, mask=mask)), mask=mask)


@kl.jit
def kernel2(a, b, out, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, FN(tl.load(a + offs, mask=mask), tl.load(b + offs, mask=mask)), mask=mask)


@kl.jit
def kernel3(a, b, c, out, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x, y, z = tl.load(a + offs, mask=mask), tl.load(b + offs, mask=mask), tl.load(c + offs, mask=mask)
    tl.store(out + offs, FN(x, y, z), mask=mask)


@kl.jit
def kernel4(a, b, c, d, out, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x, y = tl.load(a + offs, mask=mask), tl.load(b + offs, mask=mask)
    z, w = tl.load(c + offs, mask=mask), tl.load(d + offs, mask=mask)
    tl.store(out + offs, FN(x, y, z, w), mask=mask)


KERNELS = {1: kernel1, 2: kernel2, 3: kernel3, 4: kernel4}

# ---- each function's domain ---------------------------------------------------------------------

POSITIVE = (1e-3, 100.0)
DOMAINS = {  # name: (low, high) of its float arguments (default: numbers of every magnitude)
    "log": POSITIVE, "log2": POSITIVE, "log10": POSITIVE, "fast_logf": POSITIVE, "fast_log2f": POSITIVE,
    "fast_log10f": POSITIVE, "log1p": (-0.9, 100.0), "acosh": (1.0, 100.0), "atanh": (-0.99, 0.99),
    "asin": (-1.0, 1.0), "acos": (-1.0, 1.0), "erfinv": (-1.0, 1.0), "erfcinv": (0.0, 2.0),
    "normcdfinv": (0.0, 1.0), "lgamma": (0.1, 30.0), "tgamma": (0.1, 30.0), "y0": (0.1, 40.0),
    "y1": (0.1, 40.0), "yn": (0.1, 40.0), "j0": (-40.0, 40.0), "j1": (-40.0, 40.0), "jn": (-40.0, 40.0),
    "exp": (-20.0, 20.0), "exp2": (-20.0, 20.0), "expm1": (-20.0, 20.0), "exp10": (-10.0, 10.0),
    "fast_expf": (-20.0, 20.0), "fast_exp10f": (-10.0, 10.0), "sinh": (-20.0, 20.0), "cosh": (-20.0, 20.0),
    "tan": (-1.5, 1.5), "fast_tanf": (-1.5, 1.5), "pow": (0.1, 10.0), "fast_powf": (0.1, 10.0),
    "cyl_bessel_i0": (-60.0, 60.0), "cyl_bessel_i1": (-60.0, 60.0), "erfcx": (-5.0, 40.0),
    "normcdf": (-30.0, 8.0), "sin": (-10.0, 10.0), "cos": (-10.0, 10.0), "fast_sinf": (-10.0, 10.0),
    "fast_cosf": (-10.0, 10.0), "sinpi": (-1e4, 1e4), "cospi": (-1e4, 1e4), "rcp64h": (-1e3, 1e3),
    "llrint": (-1e6, 1e6), "llround": (-1e6, 1e6), "saturatef": (-0.5, 1.5),
}
SQRT_LIKE = {"sqrt", "sqrt_rn", "sqrt_rz", "sqrt_rd", "sqrt_ru", "rsqrt", "rsqrt_rn"}
INT_DOMAINS = {"pow": (-20, 21), "ldexp": (-160, 160), "scalbn": (-160, 160), "jn": (-5, 11), "yn": (-5, 11)}
NO_SPECIALS = {"fast_sinf", "fast_cosf", "fast_tanf"}  # approximate on CUDA for large arguments only

# ---- tolerances ---------------------------------------------------------------------------------

EXACT = ({"floor", "ceil", "trunc", "round", "rint", "nearbyint", "llrint", "llround", "copysign", "fdim", "fmod",
          "remainder", "nextafter", "ldexp", "scalbn", "ilogb", "logb", "saturatef", "sqrt_rn", "fast_dividef",
          "isnan", "isinf", "signbit", "finitef", "isfinited", "rsqrt_rn", "int2double_rn", "uint2double_rn",
          "hiloint2double", "double2hiint", "double2loint"}
         | {fn.name for fn in in_module("libdevice") if fn.name.endswith(("_rn", "_rz", "_rd", "_ru"))}
         | {fn.name for fn in in_module("libdevice") if "_as_" in fn.name}
         | {fn.name for fn in in_module("libdevice") if all(ty[0] in "iu" for sig in fn.signatures for ty in sig)})
ULPS = {"erfinv": 8, "erfcinv": 8, "normcdfinv": 8, "erfcx": 8, "normcdf": 8, "tgamma": 16, "sinpi": 4,
        "cospi": 4, "cyl_bessel_i0": 64, "cyl_bessel_i1": 64, "rcbrt": 4, "norm3d": 4, "norm4d": 4,
        "rnorm3d": 4, "rnorm4d": 4, "rhypot": 4, "pow": 8, "fast_powf": 8, "exp10": 8, "fast_exp10f": 8}
ABSOLUTE = {"j0", "j1", "y0", "y1", "jn", "yn", "lgamma"}  # near their zeros: an absolute bound
RELATIVE = {"rcp64h": 2.0 ** -20}  # CUDA's rcp.approx.ftz.f64


def _special_floats(dtype) -> list:
    tiny = np.finfo(dtype).smallest_subnormal
    return [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, float(tiny) * 3, -float(tiny) * 5,
            float(np.finfo(dtype).tiny), float(np.finfo(dtype).max), -float(np.finfo(dtype).max)]


def _magnitudes(rng, dtype, n: int) -> np.ndarray:
    """Numbers of every size: sign * (1..2) * 2**k, k across most of the type's exponents."""
    top = 60 if dtype == np.float32 else 200
    return (rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n) * 2.0 ** rng.integers(-top, top, n)).astype(dtype)


def _float_inputs(rng, name: str, dtype, position: int) -> np.ndarray:
    if name in DOMAINS:
        low, high = DOMAINS[name]
        x = rng.uniform(low, high, N).astype(dtype)
    elif name in SQRT_LIKE:
        x = np.abs(_magnitudes(rng, dtype, N))
    elif name.startswith(("float2", "double2")) and not name.startswith("double2float"):
        bits = 64 if "ll" in name else 32
        x = (rng.uniform(-1.2, 1.2, N) * 2.0 ** bits).astype(dtype)
        x[: N // 4] = (rng.integers(-1000, 1000, N // 4) + 0.5).astype(dtype)  # halfway cases
    else:
        x = _magnitudes(rng, dtype, N)
    if position == 0 and name not in NO_SPECIALS:
        specials = _special_floats(dtype)
        x[: len(specials)] = specials
    return x


def _int_inputs(rng, name: str, ty: str) -> np.ndarray:
    dtype = _NUMPY[ty]
    if name in INT_DOMAINS:
        low, high = INT_DOMAINS[name]
        return rng.integers(low, high, N).astype(dtype)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    extremes = [0, 1, info.max, info.min, info.max - 1, 2 ** 24 + 1 if info.max > 2 ** 24 else 7]
    x[: len(extremes)] = np.array(extremes, dtype=dtype)
    return x


def _inputs(rng, name: str, sig: tuple) -> list:
    return [_float_inputs(rng, name, _NUMPY[ty], i) if ty[0] == "f" else _int_inputs(rng, name, ty)
            for i, ty in enumerate(sig)]


def _ulp(values: np.ndarray) -> np.ndarray:
    return np.spacing(np.abs(values).astype(values.dtype))


def _check(name: str, got: np.ndarray, want: np.ndarray, args: list) -> None:
    both_nan = np.isnan(got) & np.isnan(want) if got.dtype.kind == "f" else np.zeros(got.shape, bool)
    if name in EXACT or got.dtype.kind != "f":
        same = (got == want) | both_nan
        if got.dtype.kind == "f":  # the sign of zero too
            same &= (np.signbit(got) == np.signbit(want)) | both_nan
    else:
        with np.errstate(all="ignore"):
            error = np.abs(got.astype(np.float64) - want.astype(np.float64))
            finite = np.isfinite(want)
            if name in ABSOLUTE:
                bound = 64 * np.finfo(want.dtype).eps * np.maximum(1.0, np.abs(want.astype(np.float64)))
            elif name in RELATIVE:
                bound = RELATIVE[name] * np.abs(want.astype(np.float64))
            else:
                bound = ULPS.get(name, 4) * _ulp(want).astype(np.float64)
            same = both_nan | (got == want) | (finite & (error <= bound))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (f"{name}: {bad.size} of {got.size} differ; first at inputs "
                           f"{[a[bad[0]] for a in args]}: got {got[bad[0]]!r}, want {want[bad[0]]!r}")


# libdevice's names for tl.math builtins (not MathFunctions): Triton's signatures, their references
ALIASES = {
    "abs": ({("i32",): "i32", ("i64",): "i64", ("f32",): "f32", ("f64",): "f64"}, np.abs),
    "fma": ({("f32",) * 3: "f32", ("f64",) * 3: "f64"}, MATH["fma_rn"].reference),
    "div_rn": ({("f32",) * 2: "f32", ("f64",) * 2: "f64"}, np.divide),  # numpy divides in the type, IEEE
}
EXACT |= set(ALIASES)
SIGNATURES = {**{fn.name: fn.signatures for fn in in_module("libdevice")},
              **{name: sigs for name, (sigs, _) in ALIASES.items()}}
CASES = [pytest.param(name, sig, id=f"{name}-{'-'.join(sig)}") for name, sigs in SIGNATURES.items() for sig in sigs]


def _reference(name: str):
    return ALIASES[name][1] if name in ALIASES else MATH[name].reference


@pytest.mark.parametrize("name, sig", CASES)
def test_libdevice_function(launch, rng, name: str, sig: tuple) -> None:
    args = _inputs(rng, name, sig)
    result = _NUMPY[SIGNATURES[name][sig]]
    out = np.zeros(N, result)
    launch(KERNELS[len(sig)], (1,), *args, out, N, FN=getattr(libdevice, name), BLOCK=128)
    with np.errstate(all="ignore"):
        want = np.asarray(_reference(name)(*args)).astype(result)
    _check(name, out, want, args)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["rn", "rz", "rd", "ru"])
def test_fma_in_a_rounding_mode_when_the_sum_cancels(launch, rng, mode: str, dtype) -> None:
    """c = -(a*b rounded): the exact result is the product's rounding error alone (and exact
    zeros, whose sign the mode decides), the hardest case for an emulated fma."""
    a = _magnitudes(rng, dtype, N)
    b = _magnitudes(rng, dtype, N)
    c = (-(a * b)).astype(dtype)
    c[::3] = (-(a[::3] * b[::3]) * (1 + np.finfo(dtype).eps)).astype(dtype)  # nearly cancelling
    a[:4], b[:4], c[:4] = 1.0, 2.0, -2.0  # exact zeros: -0 rounding down, else +0
    out = np.zeros(N, dtype)
    name = f"fma_{mode}"
    launch(kernel3, (1,), a, b, c, out, N, FN=getattr(libdevice, name), BLOCK=128)
    with np.errstate(all="ignore"):
        want = MATH[name].reference(a, b, c)
    _check(name, out, want, [a, b, c])
