"""NVVM intrinsics and inline PTX, declared once per LLVM module."""

from __future__ import annotations

from collections.abc import Sequence

import llvmlite.ir as ir

from .types import F32, I1, I32, I64, VOID

FULL_MASK = -1  # all 32 lanes take part in a shuffle


class Nvvm:
    """Declares intrinsics (and libdevice functions) on first use and calls them."""

    def __init__(self, module: ir.Module):
        self.module = module
        self.libdevice_used: set[str] = set()

    def declare(self, name: str, ret: ir.Type, args: Sequence[ir.Type]) -> ir.Function:
        found = self.module.globals.get(name)
        if found is not None:
            return found
        return ir.Function(self.module, ir.FunctionType(ret, list(args)), name)

    def call(self, builder: ir.IRBuilder, name: str, ret: ir.Type, values: Sequence[ir.Value]) -> ir.Value:
        fn = self.declare(name, ret, [v.type for v in values])
        if name.startswith("__nv_"):
            self.libdevice_used.add(name)
        return builder.call(fn, list(values))

    def sreg(self, builder: ir.IRBuilder, name: str) -> ir.Value:
        """``%tid.x``, ``%ctaid.y``, ``%nctaid.z`` ... as an i32."""
        return self.call(builder, f"llvm.nvvm.read.ptx.sreg.{name}", I32, [])

    def barrier(self, builder: ir.IRBuilder) -> None:
        """``bar.sync 0``: every thread of the CTA waits here."""
        self.call(builder, "llvm.nvvm.barrier0", VOID, [])

    def shuffle(self, builder: ir.IRBuilder, kind: str, value: ir.Value, lane: ir.Value | int) -> ir.Value:
        """``shfl.sync.{bfly,idx,up,down}.b32`` of an i32 or f32 value."""
        lane_value = ir.Constant(I32, lane) if isinstance(lane, int) else lane
        clamp = 0 if kind == "up" else 31
        suffix = "f32" if value.type == F32 else "i32"
        return self.call(builder, f"llvm.nvvm.shfl.sync.{kind}.{suffix}", value.type,
                         [ir.Constant(I32, FULL_MASK), value, lane_value, ir.Constant(I32, clamp)])


def inline_asm(builder: ir.IRBuilder, text: str, constraints: str, results: Sequence[ir.Type],
               args: Sequence[ir.Value], side_effect: bool = True) -> list[ir.Value]:
    """Emit inline PTX; returns its outputs (one per ``=`` constraint)."""
    if not results:
        ret: ir.Type = VOID
    elif len(results) == 1:
        ret = results[0]
    else:
        ret = ir.LiteralStructType(list(results))
    asm = ir.InlineAsm(ir.FunctionType(ret, [a.type for a in args]), text, constraints, side_effect=side_effect)
    out = builder.call(asm, list(args))
    if not results:
        return []
    if len(results) == 1:
        return [out]
    return [builder.extract_value(out, i) for i in range(len(results))]


def pass_through(builder: ir.IRBuilder, text: str, values: Sequence[ir.Value]) -> list[ir.Value]:
    """Inline PTX ``text`` with ``values`` passing through it unchanged (each output tied to its
    input): whatever writes them happens before it, whatever reads the results after it."""
    constraints = ",".join([f"={register_constraint(v.type)}" for v in values] + [str(i) for i in range(len(values))])
    return inline_asm(builder, text, constraints, [v.type for v in values], list(values))


def register_constraint(ty: ir.Type) -> str:
    """The inline-asm register class of an LLVM scalar type."""
    if ty == I1:
        return "b"
    if isinstance(ty, ir.IntType):
        return {8: "h", 16: "h", 32: "r", 64: "l"}[ty.width]
    if ty == F32:
        return "f"
    if isinstance(ty, ir.DoubleType):
        return "d"
    if isinstance(ty, ir.PointerType):
        return "l"
    if str(ty) in ("half", "bfloat"):
        return "h"
    raise TypeError(f"no inline-asm register class for {ty}")


def as_i32(builder: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """Bits of a <=32-bit value zero-extended into an i32."""
    ty = value.type
    if ty == I32:
        return value
    if isinstance(ty, ir.IntType):
        return builder.zext(value, I32)
    if ty == F32:
        return builder.bitcast(value, I32)
    if str(ty) in ("half", "bfloat"):
        return builder.zext(builder.bitcast(value, ir.IntType(16)), I32)
    raise TypeError(f"cannot move {ty} through a 32-bit register")


def from_i32(builder: ir.IRBuilder, value: ir.Value, ty: ir.Type) -> ir.Value:
    """The inverse of :func:`as_i32`."""
    if ty == I32:
        return value
    if isinstance(ty, ir.IntType):
        return builder.trunc(value, ty)
    if ty == F32:
        return builder.bitcast(value, F32)
    if str(ty) in ("half", "bfloat"):
        return builder.bitcast(builder.trunc(value, ir.IntType(16)), ty)
    raise TypeError(f"cannot move {ty} through a 32-bit register")


def split_words(builder: ir.IRBuilder, value: ir.Value) -> list[ir.Value]:
    """A scalar as a list of i32 words (64-bit values give two)."""
    ty = value.type
    if isinstance(ty, ir.PointerType):
        value = builder.ptrtoint(value, I64)
        ty = I64
    if isinstance(ty, ir.DoubleType):
        value = builder.bitcast(value, I64)
        ty = I64
    if ty == I64:
        low = builder.trunc(value, I32)
        high = builder.trunc(builder.lshr(value, ir.Constant(I64, 32)), I32)
        return [low, high]
    return [as_i32(builder, value)]


def join_words(builder: ir.IRBuilder, words: list[ir.Value], ty: ir.Type) -> ir.Value:
    """The inverse of :func:`split_words`."""
    if len(words) == 1:
        return from_i32(builder, words[0], ty)
    wide = builder.or_(builder.zext(words[0], I64), builder.shl(builder.zext(words[1], I64), ir.Constant(I64, 32)))
    if isinstance(ty, ir.PointerType):
        return builder.inttoptr(wide, ty)
    if isinstance(ty, ir.DoubleType):
        return builder.bitcast(wide, ty)
    return wide


def build_vector(builder: ir.IRBuilder, values: Sequence[ir.Value]) -> ir.Value:
    """``<n x T>`` holding ``values`` (all of one type)."""
    vector = ir.Constant(ir.VectorType(values[0].type, len(values)), ir.Undefined)
    for i, v in enumerate(values):
        vector = builder.insert_element(vector, v, ir.Constant(I32, i))
    return vector


def pack_i32(builder: ir.IRBuilder, elements: Sequence[ir.Value]) -> ir.Value:
    """Elements of one type filling 32 bits as one i32 (the first in the low bits): a tensor-core
    register (two f16, four i8, one f32)."""
    if len(elements) == 1:
        return builder.bitcast(elements[0], I32)
    return builder.bitcast(build_vector(builder, elements), I32)


def unpack_i32(builder: ir.IRBuilder, word: ir.Value, element: ir.Type, count: int) -> list[ir.Value]:
    """The inverse of :func:`pack_i32`."""
    vector = builder.bitcast(word, ir.VectorType(element, count))
    return [builder.extract_element(vector, ir.Constant(I32, i)) for i in range(count)]
