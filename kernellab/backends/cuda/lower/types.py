"""Tile IR types as NVPTX LLVM types, and LLVM constants of Tile IR types.

Scalars map to their LLVM types (``bf16`` to LLVM's ``bfloat``, fp8 to ``i8`` bit patterns);
every pointer is an opaque pointer in the global address space (1).  In memory an ``i1`` is
one byte.
"""

from __future__ import annotations

import struct

import llvmlite.ir as ir
import numpy as np

from ....errors import CompilationError
from ....ir.types import PointerType, ScalarType, TileType, Type, element_of


class BFloatType(ir.types._BaseFloatType):
    """LLVM's ``bfloat`` (llvmlite has no such type): constants print as ``0xR`` + 16 bits."""

    null = "0xR0000"
    intrinsic_name = "bf16"

    def __str__(self) -> str:
        return "bfloat"

    def format_constant(self, value) -> str:
        import ml_dtypes

        bits = int(np.array(value, dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
        return f"0xR{bits:04X}"


BFloatType._create_instance()

I1, I8, I16, I32, I64 = (ir.IntType(n) for n in (1, 8, 16, 32, 64))
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()
BF16 = BFloatType()
GLOBAL_PTR = ir.PointerType(addrspace=1)
SHARED_PTR = ir.PointerType(addrspace=3)
GENERIC_PTR = ir.PointerType()
VOID = ir.VoidType()

_SCALARS = {
    "i1": I1, "i8": I8, "i16": I16, "i32": I32, "i64": I64,
    "u8": I8, "u16": I16, "u32": I32, "u64": I64,
    "f8e4m3": I8, "f8e5m2": I8, "f8e4b15": I8, "f16": F16, "bf16": BF16, "f32": F32, "f64": F64,
}


def llvm_type(ty: Type) -> ir.Type:
    """The LLVM type of one element of ``ty`` (a scalar, a pointer, or a tile's element)."""
    element = element_of(ty)
    if isinstance(element, PointerType):
        if element.is_block_ptr():
            raise TypeError("block pointers are lowered as structs of scalars, not as one LLVM value")
        return GLOBAL_PTR
    if isinstance(element, ScalarType) and element.ir in _SCALARS:
        return _SCALARS[element.ir]
    if isinstance(element, ScalarType):
        raise CompilationError(f"{element.name} is not supported on the CUDA target (sm_90+ computes with "
                               "fp8e4nv and fp8e5); cast to one of those, or to f16/bf16/f32")
    raise TypeError(f"type {ty.ir} has no LLVM element type")


def memory_type(ty: Type) -> ir.Type:
    """How an element of ``ty`` is stored in memory (``i1`` as a byte)."""
    element = llvm_type(ty)
    return I8 if element == I1 else element


def bit_width(ty: Type) -> int:
    element = element_of(ty)
    if isinstance(element, PointerType):
        return 64
    return max(8, element.primitive_bitwidth) if element.ir != "i1" else 8


def byte_size(ty: Type) -> int:
    return bit_width(ty) // 8


def is_float(ty: Type) -> bool:
    element = element_of(ty)
    return isinstance(element, ScalarType) and element.is_floating() and not element.is_fp8()


def is_unsigned(ty: Type) -> bool:
    element = element_of(ty)
    return isinstance(element, ScalarType) and (element.is_int_unsigned() or element.ir == "i1")


def constant(ty: Type, value) -> ir.Constant:
    """An LLVM constant of the element type of ``ty``."""
    element = element_of(ty)
    llty = llvm_type(ty)
    if isinstance(element, PointerType):
        return ir.Constant(I64, int(value)).inttoptr(GLOBAL_PTR)
    if element.is_fp8():
        return ir.Constant(I8, int(np.array(value, dtype=element.np_dtype).view(np.uint8)))
    if element.is_floating():
        return ir.Constant(llty, float(value))
    if element.ir == "i1":
        return ir.Constant(I1, 1 if value else 0)
    bits = element.primitive_bitwidth
    wrapped = int(value) & ((1 << bits) - 1)
    return ir.Constant(llty, wrapped - (1 << bits) if wrapped >> (bits - 1) else wrapped)


def float_bits(value: float) -> int:
    """The IEEE bits of an f32 value."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def is_tile(ty: Type) -> bool:
    return isinstance(ty, TileType)
