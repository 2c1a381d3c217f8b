"""Tile IR types as LLVM types on the host, and constants of them.

Scalars map one to one (``f16`` -> ``half``, ``bf16`` -> ``bfloat``, ``i1`` -> ``i1``; unsigned
integers are LLVM integers of the same width, their signedness lives in the Tile IR type);
pointers are opaque ``ptr``.  ``bf16`` is held as its 16 bits in an ``i16`` (llvmlite has no
``bfloat`` type); :func:`widen` and :func:`narrow` convert half types to and from ``f32``, where
all their arithmetic happens.  Tiles have no LLVM type of their own: they live in buffers or are
computed element by element (see :mod:`.tiles`).
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir.types import BITS_ONLY, PointerType, ScalarType, Type
from .fp8 import constant_bits, fp8_format

I1 = ll.IntType(1)
I8 = ll.IntType(8)
I32 = ll.IntType(32)
I64 = ll.IntType(64)
F32 = ll.FloatType()
F64 = ll.DoubleType()
PTR = ll.PointerType()
VOID = ll.VoidType()

I16 = ll.IntType(16)
_FLOATS = {"f16": ll.HalfType(), "bf16": I16, "f32": F32, "f64": F64}


def llvm_type(ty: Type) -> ll.Type:
    """The LLVM type holding one value of the scalar or pointer type ``ty``."""
    if isinstance(ty, PointerType):
        return PTR
    if not isinstance(ty, ScalarType):
        raise TypeError(f"{ty.ir} has no LLVM scalar type")
    if ty.is_fp8():  # its bits (backends/cpu/fp8.py converts them; fp8e4b15 the language converts)
        if ty.ir not in BITS_ONLY:
            fp8_format(ty)
        return I8
    if ty.is_floating():
        return _FLOATS[ty.ir]
    return ll.IntType(ty.primitive_bitwidth)


def store_size(ty: Type) -> int:
    """Bytes one element of ``ty`` occupies in memory (i1: one byte)."""
    if isinstance(ty, PointerType):
        return 8
    return max(1, ty.primitive_bitwidth // 8)


def constant(ty: Type, value) -> ll.Constant:
    """An LLVM constant of scalar type ``ty``."""
    lty = llvm_type(ty)
    if isinstance(ty, ScalarType) and ty.is_fp8():
        return ll.Constant(I8, constant_bits(ty, float(value)))
    if isinstance(ty, ScalarType) and ty.ir == "bf16":
        return ll.Constant(I16, _bf16_bits(float(value)))
    if isinstance(ty, ScalarType) and ty.is_floating():
        return ll.Constant(lty, float(value))
    if isinstance(ty, PointerType):
        return ll.Constant(I64, int(value)).inttoptr(PTR) if value else ll.Constant(PTR, None)
    bits = ty.primitive_bitwidth
    return ll.Constant(lty, int(value) & ((1 << bits) - 1))


def i64(value: int) -> ll.Constant:
    return ll.Constant(I64, value)


def i32(value: int) -> ll.Constant:
    return ll.Constant(I32, value)


def is_float(ty: Type) -> bool:
    return isinstance(ty, ScalarType) and ty.is_floating()


def is_signed(ty: Type) -> bool:
    """Signed integer (i1 compares as unsigned 0/1: treat it as unsigned)."""
    return isinstance(ty, ScalarType) and ty.is_int() and not ty.is_int_unsigned() and not ty.is_bool()


def is_half(ty: Type) -> bool:
    """16-bit floats, computed in f32 and rounded."""
    return isinstance(ty, ScalarType) and ty.ir in ("f16", "bf16")


def _bf16_bits(value: float) -> int:
    import numpy as np

    from ...ir.types import bf16

    return int(np.array(value, dtype=bf16.np_dtype).view(np.uint16))


def compute_type(ty: Type) -> ll.Type:
    """The LLVM type arithmetic on ``ty`` happens in (f32 for half types)."""
    return F32 if is_half(ty) else llvm_type(ty)


def widen(b: ll.IRBuilder, value: ll.Value, ty: Type) -> ll.Value:
    """A stored value of ``ty`` in its compute type (half types -> f32, others unchanged)."""
    if not is_half(ty):
        return value
    if ty.ir == "f16":
        return b.fpext(value, F32)
    return b.bitcast(b.shl(b.zext(value, I32), ll.Constant(I32, 16)), F32)


def narrow(b: ll.IRBuilder, value: ll.Value, ty: Type) -> ll.Value:
    """An f32 value rounded (to nearest even) into the storage of ``ty`` (identity unless half)."""
    if not is_half(ty):
        return value
    if ty.ir == "f16":
        return b.fptrunc(value, ll.HalfType())
    bits = b.bitcast(value, I32)
    lsb = b.and_(b.lshr(bits, ll.Constant(I32, 16)), ll.Constant(I32, 1))
    rounded = b.lshr(b.add(bits, b.add(lsb, ll.Constant(I32, 0x7FFF))), ll.Constant(I32, 16))
    quiet = b.or_(b.lshr(bits, ll.Constant(I32, 16)), ll.Constant(I32, 0x40))
    is_nan = b.fcmp_unordered("uno", value, value)
    return b.trunc(b.select(is_nan, quiet, rounded), I16)
