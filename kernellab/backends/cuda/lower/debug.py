"""Debugging and escape hatches: ``device_print`` (``vprintf``), ``device_assert``
(``__assertfail``), barriers, assumptions and ``inline_asm_elementwise``."""

from __future__ import annotations

import re

import llvmlite.ir as ir

from ....ir.core import Op
from ....ir.types import PointerType, element_of
from ..layouts.linear import Layout
from . import cluster
from .context import FunctionLowering, TileVal, is_tile, lowering
from .nvvm import inline_asm, register_constraint
from .types import F64, GENERIC_PTR, I8, I32, I64, VOID, is_float, is_unsigned, llvm_type


def _string(ctx: FunctionLowering, text: str) -> ir.Value:
    """A generic pointer to a NUL-terminated global string (one global per distinct text)."""
    module = ctx.module.llmod
    cache = ctx.module.strings
    found = cache.get(text)
    if found is None:
        data = bytearray(text.encode("utf-8")) + b"\0"
        ty = ir.ArrayType(I8, len(data))
        found = ir.GlobalVariable(module, ty, f"str.{len(cache)}", addrspace=1)
        found.global_constant = True
        found.linkage = "internal"
        found.initializer = ir.Constant(ty, data)
        cache[text] = found
    return ctx.builder.addrspacecast(found, GENERIC_PTR)


def _format(ty, hex_: bool) -> tuple[str, callable]:
    """printf conversion for one element and how to widen the value for varargs."""
    element = element_of(ty)
    if isinstance(element, PointerType):
        return "%p", lambda b, v: b.ptrtoint(v, I64)
    bits = getattr(element, "primitive_bitwidth", 32)
    if hex_:  # Triton's: zero-padded to the element's width, its bits zero-extended
        digits = max(1, bits // 4)
        conv = f"0x%0{digits}llx" if bits == 64 else f"0x%0{digits}x"
        if is_float(ty):
            return conv, (lambda b, v: b.bitcast(v, I64)) if bits == 64 else (
                lambda b, v: b.zext(b.bitcast(v, ir.IntType(bits)), I32) if bits < 32 else b.bitcast(v, I32))
        return conv, (lambda b, v: b.zext(v, I32)) if bits < 32 else (lambda b, v: v)
    if is_float(ty):
        return "%f", lambda b, v: b.fpext(v, F64) if v.type != F64 else v
    if bits == 64:
        return ("%llu" if is_unsigned(ty) else "%lld"), lambda b, v: v
    conv = "%u" if is_unsigned(ty) else "%d"
    return conv, (lambda b, v: b.zext(v, I32) if is_unsigned(ty) or bits == 1 else b.sext(v, I32)) if bits < 32 else (
        lambda b, v: v)


def _vprintf(ctx: FunctionLowering, text: str, values: list[ir.Value]) -> None:
    b = ctx.builder
    vprintf = ctx.nvvm.declare("vprintf", I32, [GENERIC_PTR, GENERIC_PTR])
    fmt = _string(ctx, text)
    if values:
        struct = ir.LiteralStructType([v.type for v in values])
        slot = ctx.prologue.alloca(struct)
        slot.type = GENERIC_PTR  # opaque, so that each field can be stored through a GEP
        for i, v in enumerate(values):
            b.store(v, b.gep(slot, [I32(0), I32(i)], source_etype=struct))
        args = b.bitcast(slot, GENERIC_PTR)
    else:
        args = ir.Constant(GENERIC_PTR, None)
    b.call(vprintf, [fmt, args])


@lowering("print")
def _print(ctx: FunctionLowering, op: Op, layout) -> None:
    b = ctx.builder
    prefix = op.attrs.get("prefix", "").replace("%", "%%")
    hex_ = bool(op.attrs.get("hex"))
    pids = [cluster.program_id(ctx, axis) for axis in range(3)]
    # Triton's format (the interpreter's print_lines too): the prefix comes verbatim (the
    # language normalises it to " name: "), each index padded to its dimension's widest
    if not op.operands:  # a prefix alone: no idx
        _vprintf(ctx, "pid (%u, %u, %u)" + prefix + "\n", pids)
        return None
    head = "pid (%u, %u, %u) idx ("
    many = len(op.operands) > 1
    for i, value in enumerate(op.operands):
        conv, widen = _format(value.type, hex_)
        tag = f"(operand {i}) " if many else ""
        if not is_tile(value):
            _vprintf(ctx, head + ")" + prefix + tag + conv + "\n", pids + [widen(b, ctx.get(value))])
            continue
        tile = ctx.get(value)
        lay: Layout = tile.layout
        idx = ", ".join(f"%{len(str(max(size - 1, 0)))}u" for size in lay.shape)
        text = head + idx + ")" + prefix + tag + conv + "\n"
        owner = ctx.owner(lay)
        for r in range(lay.num_regs):
            args = pids + ctx.coords(lay, r) + [widen(b, tile.regs[r])]
            if owner is None:
                _vprintf(ctx, text, args)
            else:
                with b.if_then(owner):
                    _vprintf(ctx, text, args)
    return None


@lowering("assert")
def _assert(ctx: FunctionLowering, op: Op, layout) -> None:
    b = ctx.builder
    cond = op.operands[0]
    if is_tile(cond):
        tile = ctx.get(cond)
        ok = tile.regs[0]
        for reg in tile.regs[1:]:
            ok = b.and_(ok, reg)
    else:
        ok = ctx.get(cond)
    if ok.type != ir.IntType(1):
        ok = b.icmp_unsigned("!=", ok, ir.Constant(ok.type, 0))
    fail = ctx.nvvm.declare("__assertfail", VOID, [GENERIC_PTR, GENERIC_PTR, I32, GENERIC_PTR, I64])
    with b.if_then(b.not_(ok)):
        message = _string(ctx, op.attrs.get("message") or "device_assert failed")
        file = _string(ctx, op.loc.file)
        function = _string(ctx, ctx.function.name)
        b.call(fail, [message, file, I32(max(op.loc.line, 0)), function, I64(1)])
    return None


@lowering("barrier")
def _barrier(ctx: FunctionLowering, op: Op, layout) -> None:
    ctx.barrier()
    return None


@lowering("assume")
def _assume(ctx: FunctionLowering, op: Op, layout) -> None:
    cond = op.operands[0]
    if not is_tile(cond):
        ctx.nvvm.call(ctx.builder, "llvm.assume", VOID, [ctx.get(cond)])
    return None


# ---- inline assembly -----------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\$(\d+)")


@lowering("inline_asm")
def _inline_asm(ctx: FunctionLowering, op: Op, layout: Layout | None) -> list:
    """Each asm instance handles ``pack`` elements: an operand narrower than 32 bits packs
    ``32 / bits`` elements per register, wider operands take one register per element."""
    b = ctx.builder
    pack = max(1, int(op.attrs.get("pack", 1)))
    constraints = [c.strip() for c in op.attrs["constraints"].split(",") if c.strip()]
    outputs = [c for c in constraints if c.startswith("=")]
    inputs = [c for c in constraints if not c.startswith("=")]
    result_types = [r.type for r in op.results]
    arg_types = [v.type for v in op.operands]
    out_regs = [_registers_per_instance(t, pack) for t in result_types]
    in_regs = [_registers_per_instance(t, pack) for t in arg_types]
    if len(outputs) != sum(out_regs) or len(inputs) != sum(in_regs):
        raise ctx.error(f"inline_asm constraints {op.attrs['constraints']!r} list {len(outputs)} output(s) and "
                        f"{len(inputs)} input(s); with pack={pack} the results need {sum(out_regs)} and the arguments "
                        f"{sum(in_regs)} (elements under 32 bits share a 32-bit register)", op)
    count = layout.num_regs if layout is not None else 1
    if count % pack:
        raise ctx.error(f"inline_asm pack={pack} does not divide the {count} elements a thread holds", op)
    args = [ctx.get(v, layout) if is_tile(v) else ctx.get(v) for v in op.operands]

    def elements(value, i: int) -> list[ir.Value]:
        if isinstance(value, TileVal):
            return value.regs[i:i + pack]
        return [value] * pack

    results: list[list[ir.Value]] = [[] for _ in op.results]
    out_llvm = [_register_type(t, pack) for t in result_types]
    for start in range(0, count, pack):
        operands = []
        for value, ty in zip(args, arg_types):
            operands += _pack_elements(b, elements(value, start), ty)
        flat_types = []
        for ty, n in zip(out_llvm, out_regs):
            flat_types += [ty] * n
        outs = inline_asm(b, op.attrs["asm"], ",".join(outputs + inputs), flat_types, operands,
                          side_effect=not op.attrs.get("pure", True))
        i = 0
        for k, (ty, n) in enumerate(zip(result_types, out_regs)):
            results[k] += _unpack_elements(b, outs[i:i + n], ty, pack)
            i += n
    if layout is None:
        return [r[0] for r in results]
    return [TileVal(layout, r) for r in results]


def _bits(ty) -> int:
    element = element_of(ty)
    return 64 if isinstance(element, PointerType) else max(1, element.primitive_bitwidth)


def _registers_per_instance(ty, pack: int) -> int:
    bits = _bits(ty)
    if bits < 32:
        per = 32 // bits
        return (pack + per - 1) // per
    return pack


def _register_type(ty, pack: int) -> ir.Type:
    return I32 if _bits(ty) < 32 else llvm_type(ty)


def _pack_elements(b: ir.IRBuilder, values: list[ir.Value], ty) -> list[ir.Value]:
    bits = _bits(ty)
    if bits >= 32:
        return values
    per = 32 // bits
    words = []
    for i in range(0, len(values), per):
        chunk = values[i:i + per]
        word = ir.Constant(I32, 0)
        for j, v in enumerate(chunk):
            raw = b.zext(b.bitcast(v, ir.IntType(bits)) if is_float(ty) else v, I32)
            word = b.or_(word, b.shl(raw, ir.Constant(I32, j * bits))) if j else b.or_(word, raw)
        words.append(word)
    return words


def _unpack_elements(b: ir.IRBuilder, words: list[ir.Value], ty, pack: int) -> list[ir.Value]:
    bits = _bits(ty)
    if bits >= 32:
        return words
    per = 32 // bits
    out = []
    element = llvm_type(ty)
    for k in range(pack):
        word = words[k // per]
        raw = b.trunc(b.lshr(word, ir.Constant(I32, (k % per) * bits)), ir.IntType(bits))
        out.append(b.bitcast(raw, element) if is_float(ty) else raw)
    return out


__all__ = ["register_constraint", "_PLACEHOLDER"]
