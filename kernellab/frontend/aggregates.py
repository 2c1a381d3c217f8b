"""Aggregates (``tl.core._aggregate``) in the visitor: their attributes and methods.

An aggregate's fields read as the values they hold.  Its methods, reached through an instance
or the class, are what Triton makes of them:

* a jit method reached through an instance is called with the instance as ``self`` (a jit
  function reached through the class, or a static one, is an ordinary jit function);
* any other method (plain, static or class method) is compile-time code the kernel may call
  with kernel values, given ``_semantic`` when it takes it; it may change the aggregate's fields
  (assignments in the kernel itself may not);
* ``constexpr_function``s and builtins defined in the class are called as they are elsewhere.

Compile-time code changes an aggregate in place, so a region (a branch of an ``if``, a loop
body) works on copies of the aggregates in scope (``plans.clone``), and what it changed is
found by comparing IR values (``plans.same_value``); a loop carries the aggregates its body
reads and drops those it passes through unchanged (:func:`drop_unchanged`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from ..ir.core import Block, Op, Value, replace_all_uses
from ..language.aggregate import field_names, is_aggregate, is_aggregate_class
from ..language.core import is_builtin, is_constexpr_function
from .plans import Plan, slot_types
from .source import is_jit


@dataclass(frozen=True)
class AggregateMember:
    """A method reached through an aggregate or its class: a jit method bound to ``receiver``,
    or compile-time code (``receiver`` None) that kernels may call."""

    function: Any
    receiver: Any = None


def member(holder: Any, name: str) -> Any:
    """``holder.name`` where ``holder`` is an aggregate or an aggregate class."""
    value = getattr(holder, name)
    if is_aggregate(holder) and name in field_names(type(holder)):
        return value
    if is_jit(value):
        static = isinstance(inspect.getattr_static(holder, name, None), staticmethod)
        return AggregateMember(value, holder) if is_aggregate(holder) and not static else value
    if is_builtin(value) or is_constexpr_function(value) or not inspect.isroutine(value):
        return value
    return AggregateMember(value)


def is_aggregate_holder(value: Any) -> bool:
    return is_aggregate(value) or is_aggregate_class(value)


@dataclass
class LoopRegion:
    """A loop region's block, where its carried values start among the block's arguments, and
    its terminator with where they start among its operands (the ``for`` body: after the
    induction variable, in its ``yield``; the ``while`` blocks: from the first argument, in the
    ``condition`` after the condition itself and in the ``yield``)."""

    block: Block
    arg_offset: int
    terminator: Op
    operand_offset: int


def drop_unchanged(carried: list[str], plans: list[Plan], in_place: list[str], inits: list[Value],
                   regions: list[LoopRegion]) -> tuple[list[str], list[Plan], list[Value]]:
    """The loop-carried names, plans and initial values without the aggregates of ``in_place``
    that the loop passes through unchanged (each of their slots yielded back as its own block
    argument, by the last region's terminator): their block arguments become the initial values."""
    groups: dict[str, range] = {}
    start = 0
    for name, plan in zip(carried, plans):
        count = len(slot_types(plan))
        if name in in_place:
            groups[name] = range(start, start + count)
        start += count
    body = regions[-1]
    unchanged = {name for name, group in groups.items()
                 if all(body.terminator.operands[body.operand_offset + i] is body.block.args[body.arg_offset + i]
                        for i in group)}
    dropped = {i for name in unchanged for i in groups[name]}
    for region in regions:
        _drop_slots(region, dropped, inits)
    kept = [i for i, name in enumerate(carried) if name not in unchanged]
    return [carried[i] for i in kept], [plans[i] for i in kept], [v for i, v in enumerate(inits) if i not in dropped]


def _drop_slots(region: LoopRegion, dropped: set[int], inits: list[Value]) -> None:
    if not dropped:
        return
    args = region.block.args
    for i in sorted(dropped):
        replace_all_uses(region.block, args[region.arg_offset + i], inits[i])
    args[region.arg_offset:] = [a for i, a in enumerate(args[region.arg_offset:]) if i not in dropped]
    for index, arg in enumerate(args):
        arg.index = index
    terminator, offset = region.terminator, region.operand_offset
    terminator.operands = terminator.operands[:offset] + \
        [v for i, v in enumerate(terminator.operands[offset:]) if i not in dropped]
    terminator.segments = (*terminator.segments[:-1], terminator.segments[-1] - len(dropped))


__all__ = ["AggregateMember", "member", "is_aggregate_holder", "LoopRegion", "drop_unchanged"]
