"""Program model and structured control flow.

``for``:  ``for(lower, upper, step, init=[...])`` with one region ``(iv, *carried)`` ending in
          ``yield(*carried')``; runs like Python's ``range(lower, upper, step)`` (step > 0 or
          < 0; 0 is an error) and yields the final carried values.
``if``:   ``if(cond)`` with a then and an else region, each ending in ``yield``.
``while``: ``while(init=[...])`` with a before region ``(*carried)`` ending in
          ``condition(cond, *forwarded)`` and an after region ``(*forwarded)`` ending in
          ``yield(*carried')``; results are the forwarded values when cond is false.
Loop attributes are hints: ``disable_licm`` (both loops) keeps loop-invariant code inside the
loop (kernellab's LICM pass and LLVM's: ``llvm.licm.disable``), ``loop_unroll_factor`` asks
LLVM to unroll a ``for`` that many times (``llvm.loop.unroll.count``).
``call``: calls a function of the module by name.

These have no reference: each backend implements them structurally.
"""

from __future__ import annotations

from ..types import ScalarType, i1, i32
from .checks import require
from .registry import CONTROL, NEEDS_CTX, PURE, TERMINATOR, declare


def _types(values) -> list:
    return [v.type for v in values]


def _verify_for(op):
    lower, upper, step = op.operands[:3]
    require(isinstance(lower.type, ScalarType) and lower.type.is_int(), "for bounds must be integer scalars", op)
    require(lower.type is upper.type is step.type, "for bounds and step must have one type", op)
    body = op.regions[0]
    init = op.operand_group("init")
    require(_types(body.args) == [lower.type] + _types(init), "for region args must be (iv, *init)", op)
    require(_types(op.results) == _types(init), "for results must match init", op)
    _verify_yield_types(op, body, _types(init))


def _verify_yield_types(op, block, expected) -> None:
    terminator = block.terminator
    require(terminator is not None and terminator.name == "yield", "region must end in yield", op)
    require(_types(terminator.operands) == expected,
            f"yield types {[t.ir for t in _types(terminator.operands)]} != {[t.ir for t in expected]}", op)


declare("for", operands=["lower", "upper", "step", "init*"], results=-1, regions=1,
        attrs=[("num_stages", "int", -1), ("loop_unroll_factor", "int", -1), ("flatten", "bool", False),
               ("disallow_acc_multi_buffer", "bool", False), ("warp_specialize", "bool", False),
               ("disable_licm", "bool", False)],
        traits=(CONTROL,), verify=_verify_for, doc="a counted loop with carried values")


def _verify_if(op):
    require(op.operands[0].type is i1, "if condition must be an i1 scalar", op)
    for block in op.regions:
        _verify_yield_types(op, block, _types(op.results))


declare("if", operands=["cond"], results=-1, regions=2, traits=(CONTROL,), verify=_verify_if,
        doc="two-way branch yielding values")


def _verify_while(op):
    before, after = op.regions
    init = op.operand_group("init")
    require(_types(before.args) == _types(init), "while before-region args must match init", op)
    condition = before.terminator
    require(condition is not None and condition.name == "condition", "while before-region ends in condition", op)
    forwarded = _types(condition.operands[1:])
    require(_types(after.args) == forwarded, "while after-region args must match the forwarded values", op)
    require(_types(op.results) == forwarded, "while results must match the forwarded values", op)
    _verify_yield_types(op, after, _types(init))


declare("while", operands=["init*"], results=-1, regions=2, attrs=[("disable_licm", "bool", False)],
        traits=(CONTROL,), verify=_verify_while, doc="loop while the before-region's condition holds")


def _verify_condition(op):
    require(op.operands[0].type is i1, "condition takes an i1 scalar first", op)


declare("condition", operands=["cond", "values*"], results=0, traits=(CONTROL, TERMINATOR),
        verify=_verify_condition, doc="ends a while's before-region")
declare("yield", operands=["values*"], results=0, traits=(CONTROL, TERMINATOR), doc="ends a region")
declare("return", operands=["values*"], results=0, traits=(CONTROL, TERMINATOR), doc="ends a function")
declare("call", operands=["args*"], results=-1, attrs=[("callee", "str")], traits=(CONTROL,),
        doc="call a function of the module")


def _program_id(*, axis, ctx, op):
    return i32.np_dtype.type(ctx.program_id(axis))


def _num_programs(*, axis, ctx, op):
    return i32.np_dtype.type(ctx.num_programs(axis))


def _verify_axis(op):
    require(op.attrs["axis"] in (0, 1, 2), "axis must be 0, 1 or 2", op)
    require(op.result.type is i32, "program ids are i32", op)


declare("program_id", attrs=[("axis", "int")], traits=(PURE, NEEDS_CTX), verify=_verify_axis,
        reference=_program_id, doc="this program's index along a grid axis")
declare("num_programs", attrs=[("axis", "int")], traits=(PURE, NEEDS_CTX), verify=_verify_axis,
        reference=_num_programs, doc="the grid's size along an axis")
