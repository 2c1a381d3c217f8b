"""The promotion table: every pair of the 13 standard dtypes, as 0-d tensors, as tiles, mixed
scalar/tile, and with Python constants, checked against Triton's rules written out below as
an independent table (not through kernellab's computation_type)."""

from __future__ import annotations

import itertools

import pytest

import kernellab.language as tl
from kernellab.ir import types as T
from kernellab.language.semantics import SemanticError

from .harness import kernel

SIGNED = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
UNSIGNED = {"int1": 1, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}  # int1 is unsigned, as in Triton
FLOATS = ["float16", "bfloat16", "float32", "float64"]
DTYPES = list(SIGNED) + list(UNSIGNED) + FLOATS
assert len(DTYPES) == 13


def expected_type(a: str, b: str, div: bool = False) -> str:
    """Triton's result dtype for two tensor operands (``div``: / or %): written from its rules."""
    if a in FLOATS or b in FLOATS:
        floats = {a, b} & set(FLOATS)
        if "float64" in floats:
            return "float64"
        if "float32" in floats:
            return "float32"
        if "float16" in floats:
            return "float32" if div else "float16"
        # only bf16 is floating: bf16 with bf16 stays bf16 (f32 for / %), bf16 with an integer is f32
        if a == b == "bfloat16" and not div:
            return "bfloat16"
        return "float32"
    bits = {**SIGNED, **UNSIGNED}
    if (a in UNSIGNED) == (b in UNSIGNED):
        return a if bits[a] > bits[b] else b
    unsigned, signed = (a, b) if a in UNSIGNED else (b, a)
    if div:
        return "error"
    return unsigned if bits[unsigned] >= bits[signed] else signed


def dtype(name: str):
    return getattr(tl, name)


def _value(ptr, shape):
    if not shape:
        return tl.load(ptr)
    return tl.load(ptr + tl.arange(0, shape[0]))


CASES = list(itertools.product(DTYPES, DTYPES))
SHAPES = {"scalar-scalar": ((), ()), "tile-tile": ((8,), (8,)), "scalar-tile": ((), (8,))}


@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("a,b", CASES)
def test_add_promotes_like_triton(a: str, b: str, layout: str) -> None:
    shape_a, shape_b = SHAPES[layout]
    with kernel(T.pointer(dtype(a)), T.pointer(dtype(b))) as k:
        x, y = _value(k.args[0], shape_a), _value(k.args[1], shape_b)
        result, swapped = x + y, y + x
    want = expected_type(a, b)
    assert result.dtype is dtype(want), f"{a} + {b}"
    assert result.type is T.with_shape(dtype(want), shape_a or shape_b)
    assert swapped.type is result.type


@pytest.mark.parametrize("a,b", CASES)
def test_division_and_modulo_promote_like_triton(a: str, b: str) -> None:
    want = expected_type(a, b, div=True)
    with kernel(T.pointer(dtype(a)), T.pointer(dtype(b))) as k:
        x = tl.load(k.args[0] + tl.arange(0, 4))
        y = tl.load(k.args[1] + tl.arange(0, 4))
        if want == "error":
            with pytest.raises(SemanticError, match="have different signedness"):
                x % y
            with pytest.raises(SemanticError, match="have different signedness"):
                x / y
            return
        assert (x % y).dtype is dtype(want)
        quotient = x / y
        if a in FLOATS or b in FLOATS:
            # float / float: the wider mantissa wins; int / float: the float (after promotion)
            assert quotient.dtype is dtype(want)
        else:
            assert quotient.dtype is tl.float32  # int / int is always a float32 division
        if a not in FLOATS and b not in FLOATS:
            assert (x // y).dtype is dtype(want)
        else:
            with pytest.raises(SemanticError, match="// needs integer operands"):
                x // y


@pytest.mark.parametrize("a,b", CASES)
def test_comparisons_compare_in_the_promoted_type(a: str, b: str) -> None:
    with kernel(T.pointer(dtype(a)), T.pointer(dtype(b))) as k:
        x = tl.load(k.args[0] + tl.arange(0, 4))
        y = tl.load(k.args[1] + tl.arange(0, 4))
        result = x < y
    assert result.type is T.tile(T.i1, (4,))
    compare = next(op for op in k.function.walk() if op.name == "cmp")
    assert compare.operands[0].type.element_ty is dtype(expected_type(a, b))


@pytest.mark.parametrize("a,b", [(a, b) for a, b in CASES if a not in FLOATS and b not in FLOATS])
def test_bitwise_operators_promote_integers(a: str, b: str) -> None:
    with kernel(T.pointer(dtype(a)), T.pointer(dtype(b))) as k:
        x = tl.load(k.args[0] + tl.arange(0, 4))
        y = tl.load(k.args[1] + tl.arange(0, 4))
        for result in (x & y, x | y, x ^ y, x << y, x >> y):
            assert result.dtype is dtype(expected_type(a, b))


@pytest.mark.parametrize("name", FLOATS)
def test_bitwise_operators_reject_floats(name: str) -> None:
    with kernel(T.pointer(dtype(name))) as k:
        x = tl.load(k.args[0] + tl.arange(0, 4))
        with pytest.raises(SemanticError, match="needs integer operands"):
            x & 1


# ---- Python constants -------------------------------------------------------------------------

CONSTANTS = {
    "True": True,  # kind bool
    "7": 7,  # int32
    "-3": -3,  # int32, negative
    "2**31": 2**31,  # uint32
    "2**40": 2**40,  # int64
    "1.5": 1.5,  # float32
    "1e300": 1e300,  # float64
}


def constant_type(value) -> str:
    if isinstance(value, bool):
        return "int1"
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return "int32"
        return "uint32" if value < 2**32 else "int64"
    return "float32" if abs(value) < 3.4e38 else "float64"


def kind(name: str) -> int:
    """bool < integer (signed or unsigned) < float."""
    return 0 if name == "int1" else 2 if name in FLOATS else 1


def expected_with_constant(name: str, value, div: bool = False) -> str:
    """Rule 0: a constant of a kind not above the tensor's takes the tensor's type (f32 for / and %
    on f16/bf16); otherwise the tensor-tensor rules; integer results must hold the constant."""
    ctype = constant_type(value)
    if kind(ctype) <= kind(name):
        result = "float32" if div and name in ("float16", "bfloat16") else name
    else:
        result = expected_type(name, ctype, div)
    if result in FLOATS or result == "error":
        return result
    lo, hi = (0, 2**UNSIGNED[result] - 1) if result in UNSIGNED else (-2**(SIGNED[result] - 1),
                                                                      2**(SIGNED[result] - 1) - 1)
    if result == "int1":
        lo, hi = 0, 1
    return result if lo <= value <= hi else "error"


@pytest.mark.parametrize("constant", list(CONSTANTS))
@pytest.mark.parametrize("name", DTYPES)
def test_python_constants_promote_like_triton(name: str, constant: str) -> None:
    value = CONSTANTS[constant]
    want = expected_with_constant(name, value)
    with kernel(T.pointer(dtype(name))) as k:
        x = tl.load(k.args[0] + tl.arange(0, 4))
        if want == "error":
            with pytest.raises(SemanticError, match="out of range|negative constant"):
                x * value
            return
        for result in (x * value, value * x, x - value, value + x):
            assert result.dtype is dtype(want), f"{name} with {constant}"
            assert result.type.shape == (4,)


@pytest.mark.parametrize("constant", ["7", "1.5"])
@pytest.mark.parametrize("name", DTYPES)
def test_python_constants_with_division(name: str, constant: str) -> None:
    value = CONSTANTS[constant]
    want = expected_with_constant(name, value, div=True)
    with kernel(T.pointer(dtype(name))) as k:
        x = tl.load(k.args[0] + tl.arange(0, 4))
        if want == "error":  # bool % int: Triton's int1 is unsigned, the constant signed
            with pytest.raises(SemanticError, match="have different signedness"):
                x % value
            return
        result = x % value
        assert result.dtype is dtype(want)


def test_constexpr_constants_promote_as_python_numbers() -> None:
    with kernel(T.pointer(T.f16), T.pointer(T.u8)) as k:
        half = tl.load(k.args[0] + tl.arange(0, 4))
        byte = tl.load(k.args[1] + tl.arange(0, 4))
        assert (half * tl.constexpr(2.0)).dtype is tl.float16
        assert (tl.constexpr(3) + byte).dtype is tl.uint8


def test_comparisons_with_constants_compare_as_tensors() -> None:
    """Triton converts a comparison's constant to a tensor first: i8 < 5 compares in int32."""
    with kernel(T.pointer(T.i8), T.pointer(T.f16)) as k:
        small = tl.load(k.args[0] + tl.arange(0, 4))
        half = tl.load(k.args[1] + tl.arange(0, 4))
        assert (small < 5).dtype is tl.int1
        assert (half > 0.5).dtype is tl.int1
    compares = [op for op in k.function.walk() if op.name == "cmp"]
    assert [c.operands[0].type.element_ty for c in compares] == [T.i32, T.f32]


def test_python_constant_types() -> None:
    from kernellab.language.semantics import python_scalar_type

    assert python_scalar_type(True) is T.i1
    assert python_scalar_type(2**31 - 1) is T.i32
    assert python_scalar_type(-2**31) is T.i32
    assert python_scalar_type(2**31) is T.u32
    assert python_scalar_type(2**32) is T.i64
    assert python_scalar_type(-2**63) is T.i64
    assert python_scalar_type(2**63) is T.u64
    assert python_scalar_type(0.0) is T.f32
    assert python_scalar_type(float("inf")) is T.f32
    assert python_scalar_type(float("nan")) is T.f32
    assert python_scalar_type(1e-40) is T.f64  # below f32's normal range
    assert python_scalar_type(1e39) is T.f64
    with pytest.raises(SemanticError, match="does not fit in 64 bits"):
        python_scalar_type(2**64)


def test_fp8_promotion() -> None:
    with kernel(T.pointer(T.f8e4m3), T.pointer(T.f8e5m2)) as k:
        a = tl.load(k.args[0] + tl.arange(0, 4))
        b = tl.load(k.args[1] + tl.arange(0, 4))
        assert (a + a).dtype is tl.float8e4nv
        assert (a + b).dtype is tl.float16
        with pytest.raises(SemanticError, match="cannot combine"):
            a + tl.arange(0, 4)
