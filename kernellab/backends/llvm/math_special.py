"""Shared expansions of the libdevice functions no C math library has (for targets without
libdevice: the host): sinpi/cospi, the norms, the inverse error functions, erfcx, normcdf and
the modified Bessel functions.  f32 is computed in f64 and rounded once; the recipes follow
the references in ``ir/mathfns`` (Halley's iteration on erf/erfc, series and asymptotic
expansions), calling the target's own erf, erfc, exp, log, sin, cos, hypot and cbrt."""

from __future__ import annotations

import math

import llvmlite.ir as ll

from ...ir.mathfns.special import LN2_HI, LN2_LO, TINY_ERFC
from .math import Signature, call_math, expansion
from .math_bits import I32, I64, const
from .target import F32, F64, ScalarTarget

_SQRT_PI = math.sqrt(math.pi)
_RSQRT2_HI = 0.7071067811865476
_RSQRT2_LO = -4.833646656726457e-17


def in_f64(compute):
    """Run ``compute(t, values)`` in f64 and round an f32 call's result once."""
    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        single = values[0].type == F32
        wide = [t.b.fpext(v, F64) if v.type == F32 else v for v in values]
        out = compute(t, wide)
        return t.b.fptrunc(out, F32) if single else out
    return lower


class _F:
    """f64 arithmetic on one builder, written as expressions."""

    def __init__(self, t: ScalarTarget):
        self.t, self.b = t, t.b

    def c(self, value: float) -> ll.Constant:
        return const(F64, value)

    def fma(self, a, b, c):
        return self.t.intrinsic("fma", [a, b, c])

    def fn(self, name: str, *values):
        return call_math(self.t, name, list(values))

    def lt(self, a, b):
        return self.b.fcmp_ordered("<", a, b)

    def select(self, cond, a, b):
        return self.b.select(cond, a, b)

    def abs(self, x):
        return self.t.intrinsic("fabs", [x])

    def copysign(self, x, sign):
        return self.t.intrinsic("copysign", [x, sign])

    def finite(self, x):
        return self.lt(self.abs(x), self.c(math.inf))


# ---- sinpi, cospi -----------------------------------------------------------------------------

def _sinpi_cospi(want_cos: bool):
    def compute(t: ScalarTarget, values: list) -> ll.Value:
        f, b, x = _F(t), t.b, values[0]
        reduced = f.select(f.lt(f.abs(x), f.c(2.0 ** 53)), x, f.c(0.0))  # beyond: even integers
        n = t.intrinsic("rint", [b.fmul(reduced, f.c(2.0))])
        rest = b.fsub(reduced, b.fmul(n, f.c(0.5)))  # exact, |rest| <= 1/4
        quarter = b.fsub(n, b.fmul(t.intrinsic("floor", [b.fmul(n, f.c(0.25))]), f.c(4.0)))
        quadrant = b.fptosi(quarter, I32)
        if want_cos:
            quadrant = b.and_(b.add(quadrant, const(I32, 1)), const(I32, 3))
        angle = b.fmul(rest, f.c(math.pi))
        s, c = f.fn("sin", angle), f.fn("cos", angle)
        out = f.select(b.icmp_signed("==", quadrant, const(I32, 0)), s,
                       f.select(b.icmp_signed("==", quadrant, const(I32, 1)), c,
                                f.select(b.icmp_signed("==", quadrant, const(I32, 2)), b.fneg(s), b.fneg(c))))
        zero = f.c(0.0) if want_cos else f.copysign(f.c(0.0), x)
        out = f.select(b.fcmp_ordered("==", out, f.c(0.0)), zero, out)
        return f.select(f.finite(x), out, f.c(math.nan))
    return compute


expansion("sinpi")(in_f64(_sinpi_cospi(False)))
expansion("cospi")(in_f64(_sinpi_cospi(True)))


# ---- norms and reciprocals ------------------------------------------------------------------------

def _norm(reciprocal: bool):
    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        b = t.b
        if values[0].type == F32:  # squares and sums are (nearly) exact in f64
            wide = [b.fpext(v, F64) for v in values]
            total = b.fmul(wide[0], wide[0])
            for v in wide[1:]:
                total = t.intrinsic("fma", [v, v, total])
            norm = t.intrinsic("sqrt", [total])
            out = b.fdiv(const(F64, 1.0), norm) if reciprocal else norm
            return b.fptrunc(out, F32)
        pairs = [call_math(t, "hypot", values[i:i + 2]) if i + 1 < len(values) else values[i]
                 for i in range(0, len(values), 2)]
        norm = pairs[0] if len(pairs) == 1 else call_math(t, "hypot", pairs)
        return b.fdiv(const(F64, 1.0), norm) if reciprocal else norm
    return lower


expansion("norm3d", "norm4d")(_norm(False))
expansion("rhypot", "rnorm3d", "rnorm4d")(_norm(True))


@expansion("rcbrt")
def _rcbrt(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    def compute(t: ScalarTarget, wide: list) -> ll.Value:
        return t.b.fdiv(const(F64, 1.0), call_math(t, "cbrt", wide))
    return in_f64(compute)(t, values, sig)


# ---- inverse error functions ---------------------------------------------------------------------

def _erf_solve(f: _F, a: ll.Value) -> ll.Value:
    """x with erf(x) = a for 0 <= a <= 0.5: Halley's iteration from a * sqrt(pi) / 2."""
    b = f.b
    x = b.fmul(a, f.c(_SQRT_PI / 2))
    for _ in range(6):
        r = b.fmul(b.fmul(b.fsub(f.fn("erf", x), a), f.c(_SQRT_PI / 2)), f.fn("exp", b.fmul(x, x)))
        x = b.fsub(x, b.fdiv(r, f.fma(x, r, f.c(1.0))))
    return x


def _erfc_start(f: _F, c: ll.Value) -> ll.Value:
    """A first x with erfc(x) = c, from erfc's asymptotic form (``special.erfc_guess``)."""
    b = f.b
    big = b.fneg(f.fn("log", c))
    start = b.fsub(big, b.fmul(f.c(0.5), f.fn("log", b.fmul(big, f.c(math.pi)))))
    return f.t.intrinsic("sqrt", [f.t.intrinsic("maxnum", [start, f.c(0.05)])])


def _erfc_solve(f: _F, c: ll.Value) -> ll.Value:
    """x with erfc(x) = c for 0 < c <= 0.5: Halley's iteration from erfc's asymptotic form."""
    b = f.b
    x = _erfc_start(f, c)
    for _ in range(8):
        half = f.fn("exp", b.fmul(b.fmul(x, x), f.c(0.5)))
        r = b.fmul(b.fmul(b.fmul(b.fsub(f.fn("erfc", x), c), half), half), f.c(-_SQRT_PI / 2))
        x = b.fsub(x, b.fdiv(r, f.fma(x, r, f.c(1.0))))
    return x


def _log_split(f: _F, c: ll.Value) -> tuple[ll.Value, ll.Value]:
    """log(c) = big + small for a positive c (c = m 2^e, m in [0.5, 1): big = e * LN2_HI exactly,
    small = e * LN2_LO + log(m)), subnormal c included (scaled by 2^600 first)."""
    b = f.b
    bits = b.bitcast(b.fmul(c, f.c(2.0 ** 600)), I64)
    field = b.and_(b.lshr(bits, const(I64, 52)), const(I64, 0x7FF))
    exponent = b.sitofp(b.sub(field, const(I64, 1022 + 600)), F64)
    m = b.bitcast(b.or_(b.and_(bits, const(I64, (1 << 52) - 1)), const(I64, 1022 << 52)), F64)
    return b.fmul(exponent, f.c(LN2_HI)), b.fadd(b.fmul(exponent, f.c(LN2_LO)), f.fn("log", m))


def _erfc_solve_tiny(f: _F, c: ll.Value) -> ll.Value:
    """x with erfc(x) = c for c < TINY_ERFC, as ``special._erfc_solve_tiny``: Newton's iteration
    on log(erfcx(x)) - x^2 = log(c), where erfc itself would have only a few bits."""
    b = f.b
    big, small = _log_split(f, c)
    x = _erfc_start(f, c)
    for _ in range(6):
        hi = b.fmul(x, x)
        scaled = f.fn("erfcx", x)
        g = b.fadd(b.fsub(b.fsub(b.fsub(b.fneg(hi), big), f.fma(x, x, b.fneg(hi))), small), f.fn("log", scaled))
        x = f.fma(b.fmul(g, scaled), f.c(_SQRT_PI / 2), x)
    return x


def _erfinv(t: ScalarTarget, values: list) -> ll.Value:
    f, b, y = _F(t), t.b, values[0]
    a = f.abs(y)
    near = _erf_solve(f, f.select(f.lt(a, f.c(0.5)), a, f.c(0.5)))
    tail = _erfc_solve(f, f.select(f.lt(a, f.c(0.5)), f.c(0.5), b.fsub(f.c(1.0), a)))
    x = f.copysign(f.select(b.fcmp_ordered("<=", a, f.c(0.5)), near, tail), y)
    x = f.select(b.fcmp_ordered("==", a, f.c(1.0)), f.copysign(f.c(math.inf), y), x)
    x = f.select(b.fcmp_ordered("==", y, f.c(0.0)), y, x)
    return f.select(b.fcmp_ordered("<=", a, f.c(1.0)), x, f.c(math.nan))


def _erfcinv(t: ScalarTarget, values: list) -> ll.Value:
    f, b, y = _F(t), t.b, values[0]
    middle = b.and_(b.fcmp_ordered(">=", y, f.c(0.5)), b.fcmp_ordered("<=", y, f.c(1.5)))
    offset = b.fsub(f.c(1.0), y)  # exact in the middle range
    near = f.copysign(_erf_solve(f, f.select(middle, f.abs(offset), f.c(0.5))), offset)
    upper = f.lt(f.c(1.0), y)
    c = f.select(upper, b.fsub(f.c(2.0), y), y)
    tail = _erfc_solve(f, f.select(middle, f.c(0.5), c))
    tiny = f.lt(c, f.c(TINY_ERFC))
    tail = f.select(tiny, _erfc_solve_tiny(f, f.select(tiny, c, f.c(TINY_ERFC))), tail)
    x = f.select(middle, near, f.select(upper, b.fneg(tail), tail))
    x = f.select(b.fcmp_ordered("==", y, f.c(0.0)), f.c(math.inf), x)
    x = f.select(b.fcmp_ordered("==", y, f.c(2.0)), f.c(-math.inf), x)
    inside = b.and_(b.fcmp_ordered(">=", y, f.c(0.0)), b.fcmp_ordered("<=", y, f.c(2.0)))
    return f.select(inside, x, f.c(math.nan))


expansion("erfinv")(in_f64(_erfinv))
expansion("erfcinv")(in_f64(_erfcinv))


@expansion("normcdfinv")
def _normcdfinv(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    def compute(t: ScalarTarget, wide: list) -> ll.Value:
        doubled = t.b.fmul(wide[0], const(F64, 2.0))
        return t.b.fmul(_erfcinv(t, [doubled]), const(F64, -math.sqrt(2.0)))
    return in_f64(compute)(t, values, sig)


# ---- erfcx, normcdf -----------------------------------------------------------------------------

def _exp_of_square(f: _F, x: ll.Value) -> ll.Value:
    """exp(x*x) with the square's rounding error put back: exp(hi) * (1 + lo)."""
    hi = f.b.fmul(x, x)
    lo = f.select(f.finite(hi), f.fma(x, x, f.b.fneg(hi)), f.c(0.0))
    return f.b.fmul(f.fn("exp", hi), f.b.fadd(f.c(1.0), lo))


def _erfcx(t: ScalarTarget, values: list) -> ll.Value:
    """exp(x^2) erfc(x): directly below 12, else erfc's asymptotic series (12 terms)."""
    f, b, x = _F(t), t.b, values[0]
    ax = f.abs(x)
    small = f.select(f.lt(ax, f.c(12.0)), ax, f.c(0.0))
    direct = b.fmul(_exp_of_square(f, small), f.fn("erfc", small))
    s = b.fdiv(f.c(0.5), b.fmul(ax, ax))
    series = f.c(1.0)
    for k in range(12, 0, -1):
        series = f.fma(b.fmul(s, f.c(-(2 * k - 1))), series, f.c(1.0))
    asymptotic = b.fdiv(b.fmul(series, f.c(1 / _SQRT_PI)), ax)  # ax * sqrt(pi) overflows near f64's largest
    positive = f.select(f.lt(ax, f.c(12.0)), direct, asymptotic)
    reflected = b.fsub(b.fmul(f.c(2.0), _exp_of_square(f, x)), positive)
    return f.select(f.lt(x, f.c(0.0)), reflected, positive)


def _normcdf(t: ScalarTarget, values: list) -> ll.Value:
    """erfc(-x / sqrt(2)) / 2 with -x / sqrt(2) carried as hi + lo."""
    f, b, x = _F(t), t.b, values[0]
    minus = b.fneg(x)
    hi = b.fmul(minus, f.c(_RSQRT2_HI))
    lo = b.fadd(f.fma(minus, f.c(_RSQRT2_HI), b.fneg(hi)), b.fmul(minus, f.c(_RSQRT2_LO)))
    lo = f.select(f.finite(hi), lo, f.c(0.0))
    slope = b.fmul(f.c(2 / _SQRT_PI), f.fn("exp", b.fneg(b.fmul(hi, hi))))
    return b.fmul(f.c(0.5), b.fsub(f.fn("erfc", hi), b.fmul(lo, slope)))


expansion("erfcx")(in_f64(_erfcx))
expansion("normcdf")(in_f64(_normcdf))


# ---- modified Bessel functions I0, I1 ------------------------------------------------------------

def _bessel_i(order: int):
    """The power series (64 positive terms, no cancellation) up to |x| = 30, Hankel's
    asymptotic expansion (16 terms) above, scaled by e^|x| in two halves."""
    def compute(t: ScalarTarget, values: list) -> ll.Value:
        f, b, x = _F(t), t.b, values[0]
        ax = f.abs(x)
        quarter = b.fmul(b.fmul(ax, ax), f.c(0.25))
        series = f.c(1.0)
        for k in range(64, 0, -1):
            series = f.fma(b.fmul(quarter, f.c(1.0 / (k * (k + order)))), series, f.c(1.0))
        if order:
            series = b.fmul(series, b.fmul(ax, f.c(0.5)))
        u = b.fdiv(f.c(1.0), ax)
        tail = f.c(1.0)
        for k in range(16, 0, -1):
            ratio = (4 * order * order - (2 * k - 1) ** 2) / (8 * k)
            tail = f.fma(b.fmul(u, f.c(-ratio)), tail, f.c(1.0))
        half = f.fn("exp", b.fmul(ax, f.c(0.5)))
        root = b.fmul(t.intrinsic("sqrt", [ax]), f.c(math.sqrt(2 * math.pi)))
        asymptotic = f.select(f.finite(ax), b.fmul(half, b.fdiv(b.fmul(half, tail), root)), ax)
        out = f.select(b.fcmp_ordered("<=", ax, f.c(30.0)), series, asymptotic)
        return f.copysign(out, x) if order else out
    return compute


expansion("cyl_bessel_i0")(in_f64(_bessel_i(0)))
expansion("cyl_bessel_i1")(in_f64(_bessel_i(1)))
