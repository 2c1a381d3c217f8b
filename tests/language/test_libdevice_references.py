"""The references numpy and Python's math do not provide (kernellab/ir/mathfns/special.py,
core.py, rounding.py) against independent computations: mpmath at 40 digits where installed,
numpy's own IEEE arithmetic for the round-to-nearest modes.  (Inverses are checked by solving
erfc(x) = y and ncdf(x) = p in log space, so tiny arguments keep their relative precision.)"""

from __future__ import annotations

import numpy as np
import pytest

from kernellab.ir.mathfns import MATH

mp = pytest.importorskip("mpmath")
mp.mp.dps = 40
EPS = np.finfo(np.float64).eps
# 2^-930 and below (erfcinv solves in log space there), down to f64's smallest subnormals
SUBNORMAL = np.array([2.0 ** -930, 2.0 ** -931, 1e-290, 1e-310, 1.5e-323, 1e-323, 5e-324])

# name: (mpmath function, inputs, tolerance in eps: relative, or absolute for the Bessel functions)
CASES = {
    "erfinv": (mp.erfinv, np.linspace(-0.999999, 0.999999, 41), 2),
    "erfcinv": (lambda y: mp.findroot(lambda x: mp.log(mp.erfc(x) / y), mp.sqrt(-mp.log(y)) if y < 1 else 1 - y),
                np.concatenate([np.geomspace(1e-300, 1, 30), np.linspace(1, 1.999, 11), SUBNORMAL]), 2),
    "erfcx": (lambda x: mp.exp(x * x) * mp.erfc(x) if x < 1e4 else (1 - 1 / (2 * x * x) + 3 / (4 * x ** 4)) / (
              x * mp.sqrt(mp.pi)),  # mpmath's erfc overflows there; the series' next term is below 1e-24
              np.concatenate([np.linspace(-20, 1e3, 41), [1e10, 1e300, 2.0 ** 1023, np.finfo(np.float64).max]]), 2),
    "normcdf": (mp.ncdf, np.linspace(-37, 8, 41), 2),
    "normcdfinv": (lambda p: mp.findroot(lambda x: mp.log(mp.ncdf(x) / p), -mp.sqrt(-2 * mp.log(p))),
                   np.concatenate([np.geomspace(1e-300, 0.4, 41), SUBNORMAL]), 2),
    "cyl_bessel_i0": (lambda x: mp.besseli(0, x), np.linspace(-700, 700, 41), 16),
    "cyl_bessel_i1": (lambda x: mp.besseli(1, x), np.linspace(-700, 700, 41), 16),
    "sinpi": (lambda x: mp.sinpi(x), np.linspace(-1e3, 1e3, 41) + 0.1, 2),
    "cospi": (lambda x: mp.cospi(x), np.linspace(-1e3, 1e3, 41) + 0.1, 2),
    "tgamma": (mp.gamma, np.linspace(-20.5, 170, 41), 4),
}
BESSEL = {  # absolute error near the zeros
    "j0": (lambda x: mp.besselj(0, x), np.linspace(-300, 300, 61)),
    "j1": (lambda x: mp.besselj(1, x), np.linspace(-300, 300, 61)),
    "y0": (lambda x: mp.bessely(0, x), np.concatenate([np.geomspace(1e-300, 1, 10), np.linspace(1, 300, 51)])),
    "y1": (lambda x: mp.bessely(1, x), np.concatenate([np.geomspace(1e-100, 1, 10), np.linspace(1, 300, 51)])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_reference_matches_mpmath(name: str) -> None:
    exact, x, tolerance = CASES[name]
    got = MATH[name].reference(x)
    want = np.array([float(exact(mp.mpf(float(v)))) for v in x])
    error = np.abs(got - want) / np.maximum(np.abs(want), np.finfo(np.float64).tiny)
    assert np.all((error <= tolerance * EPS) | (got == want)), f"{name}: worst {error.max() / EPS:.1f} eps"


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_reference_matches_mpmath(name: str) -> None:
    exact, x = BESSEL[name]
    got = MATH[name].reference(x)
    want = np.array([float(exact(mp.mpf(float(v)))) for v in x])
    error = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    assert error.max() <= 64 * EPS, f"{name}: worst {error.max() / EPS:.1f} eps"


@pytest.mark.parametrize("n", [0, 2, 5, 12])
def test_bessel_of_order_n_matches_mpmath(n: int) -> None:
    x = np.linspace(0.5, 60, 41)
    for name, exact in (("jn", mp.besselj), ("yn", mp.bessely)):
        got = MATH[name].reference(np.full(x.shape, n, np.int32), x)
        want = np.array([float(exact(n, mp.mpf(float(v)))) for v in x])
        error = np.abs(got - want) / np.maximum(1.0, np.abs(want))
        assert error.max() <= 256 * EPS, f"{name}({n}, x): worst {error.max() / EPS:.1f} eps"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_to_nearest_references_are_numpys_arithmetic(rng, dtype) -> None:
    """The exact-rational references, in mode rn, agree with the hardware's IEEE arithmetic."""
    a = (rng.standard_normal(200) * 2.0 ** rng.integers(-40, 40, 200)).astype(dtype)
    b = (rng.standard_normal(200) * 2.0 ** rng.integers(-40, 40, 200)).astype(dtype)
    with np.errstate(all="ignore"):
        for name, numpy_result in (("add_rn", a + b), ("mul_rn", a * b), ("sub_rn", a - b),
                                   ("rcp_rn", dtype(1) / a)):
            args = (a,) if name == "rcp_rn" else (a, b)
            np.testing.assert_array_equal(MATH[name].reference(*args).astype(dtype), numpy_result, err_msg=name)
    wide = a.astype(np.float64) * np.float64(1 + 2.0 ** -40)  # not f32 values: rounding happens
    np.testing.assert_array_equal(MATH["double2float_rn"].reference(wide), wide.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_vectorized_fma_rounds_once(rng, dtype) -> None:
    """refs.fma (tl.fma's and fma_rn's reference) against the exact rational result, on random
    operands, nearly cancelling sums, a product that is a tie broken by a tiny c, and zeros."""
    from fractions import Fraction

    from kernellab.ir.mathfns.refs import fma, round_exact

    n, top = 3000, (60 if dtype == np.float32 else 300)
    a, b, c = ((rng.standard_normal(n) * 2.0 ** rng.integers(-top, top, n)).astype(dtype) for _ in range(3))
    c[::2] = (-(a[::2].astype(np.float64) * b[::2]) * (1 + rng.integers(-3, 4, n // 2) * np.finfo(dtype).eps))
    a[:3], b[:3], c[:3] = [-2.5, 1.0, 0.0], [2.0 ** 52 + 1, -1.0, -1.0], [2.0 ** -60, 1.0, 0.0]
    got = fma(a, b, c)
    for x, y, z, value in zip(a.tolist(), b.tolist(), c.tolist(), got.tolist()):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        want = x * y + z if exact == 0 else round_exact(exact, dtype, "rn")
        assert value == want and np.signbit(value) == np.signbit(want), (x, y, z, value, want)


@pytest.mark.parametrize("name", ["jn", "yn"])
def test_a_negative_order_gives_nan(name: str) -> None:
    """As libdevice's __nv_jn / __nv_yn (libdevice user's guide): NaN for n < 0, any x."""
    n = np.array([-1, -2, -7, 0], np.int32)
    got = MATH[name].reference(n, np.full(4, 3.5))
    assert np.isnan(got[:3]).all() and np.isfinite(got[3])
