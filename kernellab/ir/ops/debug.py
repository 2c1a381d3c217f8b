"""Debugging, hints, barriers and inline assembly."""

from __future__ import annotations

from .checks import require
from .registry import NEEDS_CTX, PURE, declare


def _print(values, *, prefix, hex, ctx, op):
    ctx.print(prefix, list(values), hex, op)


declare("print", operands=["values*"], results=0, attrs=[("prefix", "str", ""), ("hex", "bool", False)],
        traits=(NEEDS_CTX,), reference=_print, doc="device_print: prefix then each value, per program")


def _assert(cond, *, message, ctx, op):
    ctx.check(cond, message, op)


declare("assert", operands=["cond"], results=0, attrs=[("message", "str", "")], traits=(NEEDS_CTX,),
        reference=_assert, doc="device_assert: fail where cond is false")


def _nothing(*args, **kwargs):
    return None


declare("barrier", results=0, reference=_nothing, doc="debug_barrier: all threads of a program meet here")
declare("assume", operands=["cond"], results=0, reference=_nothing,
        doc="the compiler may assume cond holds (tl.assume)")


def _hint(x, *, multiple_of, max_contiguous, max_constancy):
    return x


def _verify_hint(op):
    require(op.result.type is op.operands[0].type, "hint keeps the type", op)


declare("hint", operands=["x"], attrs=[("multiple_of", "ints", ()), ("max_contiguous", "ints", ()),
                                       ("max_constancy", "ints", ())],
        traits=(PURE,), verify=_verify_hint, reference=_hint,
        doc="x, with facts for the compiler: multiple_of / max_contiguous / max_constancy per dim")


def _inline_asm(args, *, asm, constraints, pure, pack):
    raise NotImplementedError(
        "inline_asm_elementwise cannot run here: its assembly is for a GPU target. "
        "Run this kernel on a CUDA device, or replace the inline assembly with tl operations "
        "for the interpreter and the CPU target.")


declare("inline_asm", operands=["args*"], results=-1, attrs=[("asm", "str"), ("constraints", "str"),
                                                             ("pure", "bool", True), ("pack", "int", 1)],
        reference=_inline_asm, doc="inline_asm_elementwise: target assembly applied per element (pack at a time)")
