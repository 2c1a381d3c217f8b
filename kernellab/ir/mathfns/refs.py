"""Helpers the references share: float64 evaluation, Python functions made elementwise, and
exact rounding of a rational number to f32/f64 in any of the four IEEE rounding modes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover  (fractions imports decimal: read it only when used)
    from fractions import Fraction

MODES = ("rn", "rz", "rd", "ru")
_FORMATS = {np.dtype(np.float32): (24, -126, 127), np.dtype(np.float64): (53, -1022, 1023)}


def wide(f: Callable) -> Callable:
    """``f`` evaluated on float64 copies of its float arguments (a more accurate f32 reference;
    the result is rounded to the signature's type afterwards)."""
    def run(*args):
        return f(*(np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in args))
    run.__name__ = getattr(f, "__name__", "reference")
    return run


def elementwise(f: Callable, dtype=np.float64) -> Callable:
    """A Python scalar function applied elementwise (numpy's broadcasting), results as ``dtype``."""
    def run(*args):
        arrays = np.broadcast_arrays(*(np.asarray(a) for a in args))
        out = np.empty(arrays[0].shape, dtype)
        for index in np.ndindex(out.shape):
            out[index] = f(*(a[index].item() for a in arrays))
        return out
    run.__name__ = getattr(f, "__name__", "reference")
    return run


def float_of(x: float) -> float:
    return float(x)


def cvt_nan(source: str, bits: int) -> int:
    """What the GPU's float -> integer ``cvt`` gives for NaN (PTX ISA 9.0, cvt): 0 from an f32 to
    a 32-bit integer, else the integer with only its top bit set (INT_MIN; for unsigned types
    (MAXINT >> 1) + 1, the same bits), returned as the signed type's value."""
    return 0 if source == "f32" and bits == 32 else -(1 << (bits - 1))


def _split(q: Fraction, bits: int, emin: int) -> tuple[int, Fraction, int]:
    """``|q| * 2**scale`` as its integer part and fraction, with ``scale`` putting the unit in
    the last place of ``q``'s precision (subnormals keep ``emin``'s quantum)."""
    from fractions import Fraction

    a = abs(q)
    exponent = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** exponent > a:
        exponent -= 1
    scale = bits - 1 - max(exponent, emin)
    scaled = a * Fraction(2) ** scale
    whole = scaled.numerator // scaled.denominator
    return whole, scaled - whole, scale


def round_exact(q: Fraction, dtype, mode: str, sticky: int = 0) -> float:
    """The value ``q`` (plus an infinitesimal of sign ``sticky``: a result known only to lie
    just above or below ``q``) rounded to ``dtype`` in ``mode``; overflow gives inf or the
    largest finite value as IEEE says.  A zero result is +0 (callers set the sign of zero)."""
    from fractions import Fraction

    bits, emin, emax = _FORMATS[np.dtype(dtype)]
    negative = q < 0 or (q == 0 and sticky < 0)
    if q == 0 and sticky == 0:
        return 0.0
    whole, rest, scale = _split(q, bits, emin) if q != 0 else (0, Fraction(0), bits - 1 - emin)
    sticky = -sticky if negative else sticky  # now relative to the magnitude
    if rest == 0 and sticky < 0:
        whole, rest = whole - 1, Fraction(1)  # just below an integer: rest is 1 - epsilon
    inexact = rest != 0 or sticky != 0
    away = (mode == "ru" and not negative) or (mode == "rd" and negative)
    if mode == "rn":
        half = Fraction(1, 2)
        up = rest > half or (rest == half and (sticky > 0 or (sticky == 0 and whole % 2 == 1)))
    else:
        up = inexact and away
    magnitude = Fraction(whole + (1 if up else 0)) / Fraction(2) ** scale
    largest = (2 - Fraction(2) ** (1 - bits)) * Fraction(2) ** emax
    if magnitude > largest:
        magnitude_value = float("inf") if mode == "rn" or away else float(largest)
    else:
        magnitude_value = float(magnitude)
    return -magnitude_value if negative else magnitude_value


# ---- fused multiply-add, exactly, vectorized --------------------------------------------------------

def _two_sum(a, b):
    s = a + b
    virtual = s - a
    return s, (a - (s - virtual)) + (b - virtual)


def _two_product(a, b):
    """a * b as p + e exactly (Dekker's product with Veltkamp's splitting)."""
    p = a * b

    def split(x):
        scaled = 134217729.0 * x  # 2**27 + 1
        high = scaled - (scaled - x)
        return high, x - high

    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s, e):
    """s + e rounded to odd: s where exact, else the neighbour of the pair with an odd last bit."""
    even = (s.view(np.int64) & 1) == 0
    toward = np.nextafter(s, np.where(e > 0, np.inf, -np.inf))
    return np.where((e != 0) & even, toward, s)


def fma(a, b, c) -> np.ndarray:
    """a * b + c rounded once, for f32 or f64 arrays (Boldo and Melquiond's emulation: exact
    product and sum, the low parts added rounding to odd, then one rounding to nearest).  Values
    where the error terms would overflow or underflow take the exact rational path."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v) for v in (a, b, c)))
    if a.ndim == 0:
        return fma(a.reshape(1), b.reshape(1), c.reshape(1)).reshape(())
    dtype = a.dtype
    x, y, z = (v.astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        if dtype == np.float32:  # the product is exact in f64: one sum, rounded to odd, then to f32
            s, e = _two_sum(x * y, z)
            return np.where(np.isfinite(e), _round_to_odd(s, e), s).astype(np.float32)
        ph, pl = _two_product(x, y)
        uh, ul = _two_sum(z, ph)
        out = uh + _round_to_odd(*_two_sum(ul, pl))
        scale = np.abs(x * y)
        safe = (np.isfinite(out) & np.isfinite(scale) & (scale < 2.0 ** 995) & (np.abs(x) < 2.0 ** 995)
                & (np.abs(y) < 2.0 ** 995) & ((scale > 2.0 ** -960) | (x == 0) | (y == 0)))
        finite = np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
        out = np.where(finite, out, x * y + z)  # infinities and NaNs: as IEEE arithmetic says
    for index in zip(*np.nonzero(~safe & finite)):
        out[index] = _exact_fma(float(x[index]), float(y[index]), float(z[index]))
    return out


def _exact_fma(a: float, b: float, c: float) -> float:
    from fractions import Fraction

    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return (a * b) + c  # IEEE's sign of an exact zero sum (round to nearest)
    return round_exact(exact, np.float64, "rn")
