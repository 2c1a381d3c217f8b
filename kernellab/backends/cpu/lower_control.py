"""Program ids and structured control flow: ``for``, ``if``, ``while``, ``call``.

Loops become countable LLVM loops (an i64 trip counter, the induction variable computed from
it) so that LLVM can reason about them; carried values live in slots (:mod:`.slots`).
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import PointerType, TileType, element_of
from ..llvm.loops import annotate_latch
from .emitter import Emitter
from .llvm_types import I64, i64, is_signed, llvm_type
from .lower_memory import call_types, call_values, from_call_values, is_block_like
from .slots import OffsetSlot, ScalarSlot, new_slot, offset_step, uniform_step, write_all
from .table import lowering
from .tiles import Tile


@lowering("program_id")
def lower_program_id(em: Emitter, op: Op, args: list) -> list:
    return [em.pids[op.attrs["axis"]]]


@lowering("num_programs")
def lower_num_programs(em: Emitter, op: Op, args: list) -> list:
    return [em.nprogs[op.attrs["axis"]]]


def _trip_count(em: Emitter, lo: ll.Value, hi: ll.Value, step: ll.Value) -> ll.Value:
    """len(range(lo, hi, step)) in i64 (0 for step 0)."""
    b = em.b
    zero, one = i64(0), i64(1)
    up = b.icmp_signed(">", step, zero)
    span = b.select(up, b.sub(hi, lo), b.sub(lo, hi))
    magnitude = b.select(up, step, b.sub(zero, step))
    safe = b.select(b.icmp_signed("==", magnitude, zero), one, magnitude)
    count = b.sdiv(b.add(span, b.sub(safe, one)), safe)
    positive = b.and_(b.icmp_signed(">", span, zero), b.icmp_signed(">", magnitude, zero))
    return b.select(positive, count, zero)


@lowering("for")
def lower_for(em: Emitter, op: Op, args: list) -> list:
    lower, upper, step, init = op.opdef.group(op, args)
    body = op.regions[0]
    iv_type = op.operands[0].type
    signed = is_signed(iv_type)
    lo, hi, st = (em.to_i64(v, signed) for v in (lower, upper, step))
    trips = _trip_count(em, lo, hi, st)
    yield_op = body.terminator
    slots = []
    for k, (value, result) in enumerate(zip(init, op.results)):
        slots.append(_carried_slot(em, value, result.type, body.args[k + 1], yield_op.operands[k]))
        if not isinstance(slots[-1], OffsetSlot):
            slots[-1].write(em, value)
    iv_lty = llvm_type(iv_type)

    def iteration(i: ll.Value) -> None:
        iv = em.b.add(lo, em.b.mul(i, st))
        iv = em.b.trunc(iv, iv_lty) if iv_lty != I64 else iv
        _, yielded = em.lower_block(body, [iv] + [s.read(em) for s in slots])
        _advance_offsets(em, slots, yield_op)
        write_all(em, slots, yielded)
    em.loop(trips, iteration, name="for", hints=op)
    return [s.read(em) for s in slots]


def _carried_slot(em: Emitter, init, ty, body_arg, yielded):
    """The slot of one loop-carried value: an offset slot for a tile advanced by a uniform step."""
    if isinstance(ty, TileType):
        found = uniform_step(em, body_arg, yielded)
        if found is not None:
            kind, _ = found
            elem = element_of(ty)
            offset_ty = I64 if kind == "addptr" else llvm_type(elem)
            slot = ScalarSlot(em.alloca(offset_ty), offset_ty)
            slot.write(em, ll.Constant(offset_ty, 0))
            base = init if isinstance(init, Tile) else init
            return OffsetSlot(base, slot, kind, elem, ty.shape)
    return new_slot(em, ty, like=init)


def _advance_offsets(em: Emitter, slots, yield_op: Op) -> None:
    for k, slot in enumerate(slots):
        if not isinstance(slot, OffsetSlot):
            continue
        body_arg = yield_op.parent.args[k + 1]
        kind, step = uniform_step(em, body_arg, yield_op.operands[k])
        signed = True
        if not isinstance(step, int):
            signed = not element_of(step.type).is_int_unsigned() if not isinstance(step.type, PointerType) else True
        slot.advance(em, offset_step(em, kind, step, slot.offset.lty, signed))


@lowering("if")
def lower_if(em: Emitter, op: Op, args: list) -> list:
    cond = em.as_bool(args[0])
    then_block, else_block = op.regions
    if not op.results:
        with em.b.if_else(cond) as (then, otherwise):
            with then:
                em.lower_block(then_block, [])
            with otherwise:
                em.lower_block(else_block, [])
        return []
    slots: list = [None] * len(op.results)

    def branch(block) -> None:
        _, values = em.lower_block(block, [])
        for k, (result, value) in enumerate(zip(op.results, values)):
            if slots[k] is None:
                slots[k] = new_slot(em, result.type, like=value)
        write_all(em, slots, values)
    with em.b.if_else(cond) as (then, otherwise):
        with then:
            branch(then_block)
        with otherwise:
            branch(else_block)
    return [s.read(em) for s in slots]


@lowering("while")
def lower_while(em: Emitter, op: Op, args: list) -> list:
    before, after = op.regions
    carried = [new_slot(em, v.type, like=a) for v, a in zip(op.operands, args)]
    write_all(em, carried, args)
    forwarded: list = [None] * len(op.results)
    head = em.fn.append_basic_block("while.head")
    loop_body = em.fn.append_basic_block("while.body")
    done = em.fn.append_basic_block("while.done")
    em.b.branch(head)
    em.b.position_at_end(head)
    _, values = em.lower_block(before, [s.read(em) for s in carried])
    cond, rest = values[0], values[1:]
    for k, (result, value) in enumerate(zip(op.results, rest)):
        if forwarded[k] is None:
            forwarded[k] = new_slot(em, result.type, like=value)
    write_all(em, forwarded, rest)
    em.b.cbranch(em.as_bool(cond), loop_body, done)
    em.b.position_at_end(loop_body)
    _, yielded = em.lower_block(after, [s.read(em) for s in forwarded])
    write_all(em, carried, yielded)
    annotate_latch(em.b.branch(head), op)
    em.b.position_at_end(done)
    return [s.read(em) for s in forwarded]


@lowering("call")
def lower_call(em: Emitter, op: Op, args: list) -> list:
    callee = em.ml.callee(op.attrs["callee"], op)
    actual = []
    for value, lowered in zip(op.operands, args):
        if isinstance(value.type, TileType):
            actual.append(em.materialize(lowered).ptr)
        elif is_block_like(value.type):
            actual += call_values(value.type, lowered)
        elif isinstance(lowered, Tile) or not isinstance(lowered, ll.Value):
            raise em.error(op, f"cannot pass a {value.type.ir} to a non-inlined function on the CPU target")
        else:
            actual.append(lowered)
    outs, out_ptrs = [], []
    for result in op.results:
        if is_block_like(result.type):  # one slot per component
            parts = [ScalarSlot(em.alloca(t), t) for t in call_types(result.type)]
            outs.append(parts)
            out_ptrs += [p.ptr for p in parts]
        else:
            slot = new_slot(em, result.type)
            outs.append(slot)
            out_ptrs.append(slot.buffer.ptr if hasattr(slot, "buffer") else slot.ptr)
    em.b.call(callee, actual + list(em.pids) + list(em.nprogs) + [em.status] + out_ptrs)
    return [from_call_values(r.type, [p.read(em) for p in s]) if isinstance(s, list) else s.read(em)
            for r, s in zip(op.results, outs)]
