"""The fuzzer's own typing rules and numpy semantics, written from Triton's documentation
independently of ``kernellab.language`` (so a promotion or cast bug there shows up as a
mismatch instead of being copied into the reference).

* Binary promotion (Triton's computation type): f64, else f32, else f16 (f32 for / and %), else
  bf16 when both are bf16 (f32 for / and %, and bf16 with anything else); two ints of one
  signedness give the wider; mixed signedness gives the unsigned type when it is at least as
  wide as the signed one, else the signed one.  Python literals (never of a higher kind than the
  tensor here) take the tensor's type.
* ``tl.maximum``/``tl.minimum`` turn literals into tensors first (int32, f32) and bf16 into f32.
* ``>>`` is arithmetic when its left operand is signed, logical otherwise (after promotion).
* ``/`` on two ints computes in f32.  ``//`` and ``%`` on ints truncate toward zero (C).
* Casts: int -> int wraps; float -> int truncates toward zero, saturates and sends NaN to 0;
  int/float -> float rounds to nearest even.
* ``tl.sum``/``tl.cumsum`` of an integer narrower than 32 bits accumulate in (u)int32; ``tl.cumsum``
  of bf16 in f32; ``tl.max``/``tl.min`` compute narrower floats in f32 and narrower ints in int32.
* Math functions (``tl.exp``, ``tl.sin``...) take f32 and f64 only.
* fp8 (``tl.float8e5``, ``tl.float8e4nv``; arrays passed as ``uint8`` bits through
  ``kernellab.reinterpret``): two of one fp8 type compute in it, two different ones in f16; an fp8
  op widens its operands to f32 exactly, computes there and rounds an fp8 result back to nearest
  even, saturating at the largest finite value (57344, 448; infinities too).  NaN stays NaN.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
DTYPES = INTS + FLOATS
FP8 = ("float8e5", "float8e4nv")  # not in DTYPES: the generator uses them where it asks for them
BOOL = "int1"

NUMPY = {name: np.dtype(name) for name in INTS + ("float16", "float32", "float64")}
NUMPY["bfloat16"] = np.dtype(ml_dtypes.bfloat16)
NUMPY[BOOL] = np.dtype(np.bool_)
NUMPY["float8e5"] = np.dtype(ml_dtypes.float8_e5m2)
NUMPY["float8e4nv"] = np.dtype(ml_dtypes.float8_e4m3fn)

# the language's spelling (``tl.<name>``) of each dtype
TL_NAME = {**{name: name for name in DTYPES + FP8}, BOOL: "int1"}

UNIT_ROUNDOFF = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53,
                 "float8e5": 2.0**-3, "float8e4nv": 2.0**-4}
MAX_FINITE = {"float16": 65504.0, "bfloat16": float(ml_dtypes.finfo(ml_dtypes.bfloat16).max),
              "float32": float(np.finfo(np.float32).max), "float64": float(np.finfo(np.float64).max),
              "float8e5": 57344.0, "float8e4nv": 448.0}
SMALLEST_NORMAL = {"float16": 2.0**-14, "bfloat16": 2.0**-126, "float32": 2.0**-126, "float64": 2.0**-1022,
                   "float8e5": 2.0**-14, "float8e4nv": 2.0**-6}
FLOAT_RANK = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}


def is_float(dtype: str) -> bool:
    return dtype in FLOATS or dtype in FP8


def is_int(dtype: str) -> bool:
    return dtype in INTS


def is_signed(dtype: str) -> bool:
    return dtype.startswith("int") and dtype != BOOL


def bits(dtype: str) -> int:
    return 1 if dtype == BOOL else NUMPY[dtype].itemsize * 8


def promote(a: str, b: str, div_or_mod: bool = False) -> str:
    """The computation type of a binary operation between tensors of dtypes ``a`` and ``b``."""
    if "float64" in (a, b):
        return "float64"
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):
        return "float32" if div_or_mod else "float16"
    if "bfloat16" in (a, b):
        return "bfloat16" if a == b and not div_or_mod else "float32"
    if a in FP8 and b in FP8:
        return a if a == b else "float16"
    if is_signed(a) == is_signed(b):
        return a if bits(a) >= bits(b) else b
    unsigned, signed = (b, a) if is_signed(a) else (a, b)
    return unsigned if bits(unsigned) >= bits(signed) else signed


def promote_with_literal(tensor: str, div_or_mod: bool = False) -> str:
    """A tensor's dtype combined with a Python literal of a kind not above it (an int with any
    tensor, a float with a float tensor): the tensor's, but f32 for / and % on f16/bf16."""
    if div_or_mod and tensor in ("float16", "bfloat16"):
        return "float32"
    return tensor


def sum_dtype(dtype: str) -> str:
    """The accumulation type of ``tl.sum``/``tl.cumsum`` without a ``dtype`` argument."""
    if is_int(dtype) and bits(dtype) < 32:
        return "int32" if is_signed(dtype) else "uint32"
    return dtype


def extremum_dtype(dtype: str) -> str:
    """What ``tl.max``/``tl.min`` compute in: floats narrower than 32 bits in f32, integers
    narrower than 32 bits in int32 (unsigned ones too)."""
    if bits(dtype) >= 32:
        return dtype
    return "float32" if is_float(dtype) else "int32"


def cumsum_dtype(dtype: str) -> str:
    """``tl.cumsum`` computes bf16 in f32, then as ``tl.sum``."""
    return sum_dtype("float32" if dtype == "bfloat16" else dtype)


def cast(values: np.ndarray, source: str, target: str) -> np.ndarray:
    """``values`` (of numpy dtype ``NUMPY[source]``) converted as ``x.to(target)`` does."""
    out_type = NUMPY[target]
    if source == target:
        return values
    if target == BOOL:
        return values != 0
    if is_float(source) and is_int(target):
        wide = values.astype(np.float64)
        info = np.iinfo(out_type)
        truncated = np.trunc(np.nan_to_num(wide, nan=0.0, posinf=np.inf, neginf=-np.inf))
        below, above = truncated <= info.min, truncated >= float(info.max)
        inside = np.where(below | above, 0.0, truncated)
        result = inside.astype(out_type) if info.bits < 64 else _exact_int(inside, out_type)
        result = np.where(below, out_type.type(info.min), result)
        return np.where(above, out_type.type(info.max), result).astype(out_type)
    if source == BOOL:
        return values.astype(out_type)
    if target in FP8:
        return to_fp8(values, target)
    with np.errstate(over="ignore", invalid="ignore"):
        if target == "bfloat16" and not bf16_cast_is_exact(source):
            return values.astype(np.float64).astype(out_type)  # rounded twice at most: see bf16_cast_is_exact
        if target == "bfloat16":
            return values.astype(np.float32).astype(out_type)
        return values.astype(out_type)


def to_fp8(values: np.ndarray, target: str) -> np.ndarray:
    """Floats rounded to the fp8 type ``target``: to nearest even, saturating (NaN stays NaN)."""
    limit = MAX_FINITE[target]
    with np.errstate(invalid="ignore"):
        return np.clip(np.asarray(values, np.float64), -limit, limit).astype(NUMPY[target])


def _exact_int(values: np.ndarray, out_type: np.dtype) -> np.ndarray:
    """float64 values already inside ``out_type``'s range, as 64-bit integers (exactly)."""
    return np.array([int(v) for v in values.reshape(-1)], dtype=object).astype(out_type).reshape(values.shape)


def bf16_cast_is_exact(source: str) -> bool:
    """Whether the reference rounds ``source -> bf16`` once (through f32, which holds every
    value of these types exactly); from wider types it may round twice, so the fuzzer treats
    those casts as inexact (an error bound instead of equality)."""
    return source in ("float16", "float32", BOOL) or (is_int(source) and bits(source) <= 16)


def literal(value: float | int, dtype: str) -> str:
    """A Python literal of ``value`` for a kernel's source."""
    if is_float(dtype):
        return repr(float(value))
    return str(int(value))
