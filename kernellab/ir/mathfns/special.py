"""Special functions: the error function family, gamma, and Bessel functions.

numpy has none of these, Python's ``math`` has ``erf``, ``erfc``, ``gamma`` and ``lgamma``; the
others' references are written here from their definitions (Newton-Halley inversion of
``erfc``, the Bessel functions' series, integrals and recurrences), to near double precision
(the tests check them against mpmath where it is installed)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from . import math_function
from .refs import elementwise

_TL = ("math", "libdevice")
_SQRT_PI = math.sqrt(math.pi)
_RSQRT2_HI = 0.7071067811865476
_RSQRT2_LO = -4.833646656726457e-17  # 1/sqrt(2) - _RSQRT2_HI
LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # fdlibm's: 32 bits + the rest
TINY_ERFC = 2.0 ** -930  # erfcinv below this solves in log space (erfc's values lose their bits)


# ---- error functions ----------------------------------------------------------------------------

def _erf_solve(a: float) -> float:
    """x >= 0 with erf(x) = a, for 0 <= a <= 0.5 (Halley's iteration from the series' first term)."""
    x = a * _SQRT_PI / 2
    for _ in range(6):
        r = (math.erf(x) - a) * _SQRT_PI / 2 * math.exp(x * x)
        x -= r / (1 + x * r)
    return x


def erfc_guess(c: float) -> float:
    """A first x with erfc(x) = c (0 < c <= 0.5), from erfc(x) ~ exp(-x^2) / (x sqrt(pi))."""
    big = -math.log(c)
    return math.sqrt(max(big - 0.5 * math.log(math.pi * big), 0.05))


def _erfc_solve(c: float) -> float:
    """x >= 0 with erfc(x) = c, for 0 < c <= 0.5 (Halley's iteration)."""
    if c < TINY_ERFC:
        return _erfc_solve_tiny(c)
    x = erfc_guess(c)
    for _ in range(8):
        half = math.exp(x * x / 2)
        r = -((math.erfc(x) - c) * half) * half * _SQRT_PI / 2
        x -= r / (1 + x * r)
    return x


def _erfc_solve_tiny(c: float) -> float:
    """x with erfc(x) = c where erfc(x) nears the subnormal range (only a few bits there):
    Newton's iteration on log erfc(x) = log(erfcx(x)) - x^2 = log(c), with x^2 as hi + lo and
    log(c) = log(m) + e ln2 (c = m 2^e, ln2 split so that e * LN2_HI is exact)."""
    m, e = math.frexp(c)
    big, small = e * LN2_HI, e * LN2_LO + math.log(m)
    x = erfc_guess(c)
    for _ in range(6):
        hi = x * x
        scaled = _erfcx(x)
        g = ((-hi - big) - _square_error(x, hi) - small) + math.log(scaled)
        x += g * scaled * _SQRT_PI / 2  # d/dx log erfc(x) = -2 / (sqrt(pi) erfcx(x))
    return x


def _erfinv(y: float) -> float:
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    if y == 0:
        return y
    a = abs(y)
    x = _erf_solve(a) if a <= 0.5 else _erfc_solve(1 - a)
    return math.copysign(x, y)


def _erfcinv(y: float) -> float:
    if math.isnan(y) or y < 0 or y > 2:
        return math.nan
    if y == 0:
        return math.inf
    if y == 2:
        return -math.inf
    if 0.5 <= y <= 1.5:
        return _erfinv(1 - y)
    return _erfc_solve(y) if y < 0.5 else -_erfc_solve(2 - y)


def _exp_of_square(x: float) -> float:
    """exp(x*x) with x*x's rounding error put back (exp(hi) * (1 + lo))."""
    hi = x * x
    lo = math.fma(x, x, -hi) if hasattr(math, "fma") else _square_error(x, hi)
    return math.exp(hi) * (1 + lo)


def _square_error(x: float, hi: float) -> float:
    from fractions import Fraction
    return float(Fraction(x) ** 2 - Fraction(hi))


def _erfcx(x: float) -> float:
    """exp(x^2) erfc(x): directly below 3, by erfc's continued fraction above."""
    if math.isnan(x):
        return x
    if x < 0:
        if x < -26.7:
            return math.inf
        return 2 * _exp_of_square(x) - _erfcx(-x)
    if x < 3:
        return _exp_of_square(x) * math.erfc(x)
    if x > 1e9:
        return 1 / _SQRT_PI / x  # x * sqrt(pi) would overflow near f64's largest values
    t = x
    for k in range(300, 0, -1):
        t = x + (k / 2) / t
    return 1 / (_SQRT_PI * t)


def _normcdf(x: float) -> float:
    """erfc(-x / sqrt(2)) / 2 with -x / sqrt(2) carried to double-double precision."""
    if math.isnan(x):
        return x
    hi = -x * _RSQRT2_HI
    from fractions import Fraction
    lo = float(Fraction(-x) * Fraction(_RSQRT2_HI) - Fraction(hi)) - x * _RSQRT2_LO if math.isfinite(hi) else 0.0
    return 0.5 * (math.erfc(hi) - lo * 2 / _SQRT_PI * math.exp(-hi * hi))


def _normcdfinv(p: float) -> float:
    return -math.sqrt(2) * _erfcinv(2 * p)


# ---- gamma ------------------------------------------------------------------------------------------

def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # the poles
        return math.inf
    except OverflowError:
        return math.inf


def _tgamma(x: float) -> float:
    if x == 0:
        return math.copysign(math.inf, x)
    try:
        return math.gamma(x)
    except ValueError:  # negative integers and -inf
        return math.nan
    except OverflowError:  # large x, or a tiny x where gamma(x) ~ 1 / x
        return math.copysign(math.inf, x)


# ---- Bessel functions ---------------------------------------------------------------------------

def _hankel(n: int, x: float) -> tuple[float, float]:
    """J_n(x), Y_n(x) for large x from Hankel's asymptotic expansion."""
    mu = 4.0 * n * n
    p, q, term = 1.0, 0.0, 1.0
    for k in range(1, 16):
        term *= (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        if k % 2:
            q += term * (-1) ** (k // 2)
        else:
            p += term * (-1) ** (k // 2)
    chi = x - (n / 2 + 0.25) * math.pi
    scale = math.sqrt(2 / (math.pi * x))
    return scale * (p * math.cos(chi) - q * math.sin(chi)), scale * (p * math.sin(chi) + q * math.cos(chi))


def _j_miller(n: int, x: float) -> float:
    """J_n(x), x > 0, by Miller's backward recurrence normalized with J_0 + 2 sum J_2k = 1."""
    top = 2 * ((n + int(x) + 30 + int(3 * math.sqrt(n + x))) // 2)
    later, current, wanted, total = 0.0, 1e-300, 0.0, 0.0
    for k in range(top, 0, -1):
        earlier = 2 * k / x * current - later
        later, current = current, earlier
        if k - 1 == n:
            wanted = current
        if (k - 1) % 2 == 0:
            total += current if k - 1 == 0 else 2 * current
        if abs(current) > 1e250:
            later, current, wanted, total = later * 1e-250, current * 1e-250, wanted * 1e-250, total * 1e-250
    return wanted / total


def _j_series(n: int, x: float) -> float:
    """J_n(x) = sum_k (-1)^k (x/2)^(n+2k) / (k! (n+k)!), for |x| <= 2 (terms fall fast)."""
    half = x / 2
    term = math.exp(n * math.log(half) - math.lgamma(n + 1)) if n else 1.0
    total = 0.0
    for k in range(1, 30):
        total += term
        term *= -half * half / (k * (n + k))
    return total


def _bessel_j(n: int, x: float) -> float:
    if math.isnan(x):
        return x
    sign = (-1) ** (n % 2) if (n < 0) != (x < 0) else 1
    n, x = abs(n), abs(x)
    if math.isinf(x):
        return 0.0
    if x == 0:
        return 1.0 if n == 0 else 0.0
    if x <= 2:
        return sign * _j_series(n, x)
    return sign * (_hankel(n, x)[0] if x > 50 + n * n else _j_miller(n, x))


@lru_cache(maxsize=64)
def _legendre(count: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(count)


def _integral(f, low: float, high: float, pieces: int) -> float:
    """Gauss-Legendre with 40 nodes on each of ``pieces`` equal parts of [low, high] (numpy's
    nodes lose accuracy beyond about a hundred)."""
    nodes, weights = _legendre(40)
    total = 0.0
    for start, end in zip(np.linspace(low, high, pieces + 1)[:-1], np.linspace(low, high, pieces + 1)[1:]):
        t = (end - start) / 2 * nodes + (end + start) / 2
        total += float((end - start) / 2 * np.dot(weights, f(t)))
    return total


def _y01(x: float) -> tuple[float, float]:
    """Y_0(x), Y_1(x) for x > 0: the series (and the Wronskian) below 1, else Bessel's integrals
    Y_n(x) = 1/pi int_0^pi sin(x sin t - n t) dt - 1/pi int_0^inf (e^nt + (-1)^n e^-nt) e^(-x sinh t) dt."""
    if x > 50:
        return _hankel(0, x)[1], _hankel(1, x)[1]
    j0, j1 = _bessel_j(0, x), _bessel_j(1, x)
    if x < 1:
        quarter, term, harmonic, total = x * x / 4, 1.0, 0.0, 0.0
        for k in range(1, 30):
            term *= -quarter / (k * k)
            harmonic += 1 / k
            total -= harmonic * term
        y0 = 2 / math.pi * ((math.log(x) - math.log(2) + 0.5772156649015329) * j0 + total)  # x / 2 may round
        return y0, (j1 * y0 - 2 / (math.pi * x)) / j0
    pieces = 2 + int(x) // 8  # up to 50
    end = math.asinh(800 / x) + 1
    y0 = (_integral(lambda t: np.sin(x * np.sin(t)), 0, math.pi, pieces)
          - 2 * _integral(lambda t: np.exp(-x * np.sinh(t)), 0, end, 6)) / math.pi
    y1 = (_integral(lambda t: np.sin(x * np.sin(t) - t), 0, math.pi, pieces)
          - 2 * _integral(lambda t: np.sinh(t) * np.exp(-x * np.sinh(t)), 0, end, 6)) / math.pi
    return y0, y1


def _bessel_y(n: int, x: float) -> float:
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return 0.0
    sign = (-1) ** (n % 2) if n < 0 else 1
    n = abs(n)
    earlier, current = _y01(x)
    if n == 0:
        return earlier
    for k in range(1, n):
        earlier, current = current, 2 * k / x * current - earlier
        if math.isinf(current):
            break
    return sign * current


def _bessel_i(n: int, x: float) -> float:
    """I_n(x) = 1/(2 pi) int_0^2pi e^(x cos t) cos(n t) dt by the trapezoid rule (exact to
    rounding for a periodic integrand), scaled by e^|x| in two halves."""
    if math.isnan(x) or x == 0:
        return x if math.isnan(x) or n else 1.0
    a = abs(x)
    if a < 1:  # the series: (x/2)^n / n! * sum_k (x^2/4)^k / (k! (n+k)!/n!)
        quarter, term, total = a * a / 4, 1.0, 0.0
        for k in range(1, 20):
            total += term
            term *= quarter / (k * (k + n))
        value = total * (a / 2) ** n / math.factorial(n)
        return -value if n % 2 and x < 0 else value
    if a > 720:  # beyond f64's range (I_n(x) ~ e^x / sqrt(2 pi x))
        return math.inf if n == 0 or x > 0 else -math.inf
    count = int(a + 12 * math.sqrt(a)) + 48
    t = 2 * np.pi * np.arange(count) / count
    mean = math.fsum(np.exp(-2 * a * np.sin(t / 2) ** 2) * np.cos(n * t)) / count  # cos t - 1, without cancellation
    half = math.exp(a / 2)
    value = half * (half * mean)
    return -value if n % 2 and x < 0 else value


def _bessel_order(f):
    """jn / yn: libdevice returns NaN for a negative order (libdevice's __nv_jn, __nv_yn)."""
    def run(n, x):
        return math.nan if n < 0 else f(int(n), float(x))
    return elementwise(run)


def _order_signatures():
    return {("i32", "f32"): "f32", ("i32", "f64"): "f64"}


_erf_ufunc = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    return np.asarray(_erf_ufunc(np.asarray(x, np.float64)), np.float64)


math_function("erf", _erf, "the error function", c_name="erf", modules=_TL)
math_function("erfc", elementwise(math.erfc), "1 - erf(x), accurate where erf(x) is near 1", c_name="erfc")
math_function("erfinv", elementwise(_erfinv), "the inverse of erf", expand=True)
math_function("erfcinv", elementwise(_erfcinv), "the inverse of erfc", expand=True)
math_function("erfcx", elementwise(_erfcx), "the scaled complementary error function exp(x^2) erfc(x)",
              expand=True)
math_function("normcdf", elementwise(_normcdf), "the standard normal distribution function", expand=True)
math_function("normcdfinv", elementwise(_normcdfinv), "the inverse of normcdf", expand=True)
math_function("lgamma", elementwise(_lgamma), "log |gamma(x)|", c_name="lgamma")
math_function("tgamma", elementwise(_tgamma), "the gamma function", c_name="tgamma")
math_function("j0", elementwise(lambda x: _bessel_j(0, x)), "the Bessel function of the first kind J0", c_name="j0")
math_function("j1", elementwise(lambda x: _bessel_j(1, x)), "the Bessel function of the first kind J1", c_name="j1")
math_function("y0", elementwise(lambda x: _bessel_y(0, x)), "the Bessel function of the second kind Y0",
              c_name="y0")
math_function("y1", elementwise(lambda x: _bessel_y(1, x)), "the Bessel function of the second kind Y1",
              c_name="y1")
math_function("jn", _bessel_order(_bessel_j), "the Bessel function of the first kind of order x, J_x(y) "
              "(NaN for x < 0)",
              signatures=_order_signatures(), c_name="jn")
math_function("yn", _bessel_order(_bessel_y), "the Bessel function of the second kind of order x, Y_x(y) "
              "(NaN for x < 0)",
              signatures=_order_signatures(), c_name="yn")
math_function("cyl_bessel_i0", elementwise(lambda x: _bessel_i(0, x)), "the modified Bessel function I0",
              expand=True)
math_function("cyl_bessel_i1", elementwise(lambda x: _bessel_i(1, x)), "the modified Bessel function I1",
              expand=True)
