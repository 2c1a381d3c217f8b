"""A forward dataflow solver over one function's structured control flow.

An analysis gives a lattice (``bottom``, ``join``), the fact of each function argument and a
transfer function for ordinary ops; the solver handles the control ops (values flowing into
``for``/``while`` carried arguments from their inits and yields, ``if`` results from both
branches, ``while`` after-arguments and results from the ``condition``) and iterates to a fixed
point, so facts about loop-carried values are sound.  Facts only grow (``join``), so it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...ir.core import Function, Op, Value


@dataclass(frozen=True)
class Analysis:
    bottom: Any
    top: Any
    join: Callable[[Any, Any], Any]
    argument: Callable[[int, Value], Any]
    # transfer(op, fact_of) -> one fact per result (ordinary, non-control ops)
    transfer: Callable[[Op, Callable[[Value], Any]], list]


def solve(function: Function, analysis: Analysis) -> dict[int, Any]:
    """Facts keyed by ``id(value)`` for every value of ``function``."""
    facts: dict[int, Any] = {id(arg): analysis.argument(i, arg) for i, arg in enumerate(function.args)}

    def fact_of(value: Value) -> Any:
        return facts.get(id(value), analysis.bottom)

    changed = True

    def flow(value: Value, fact: Any) -> None:
        nonlocal changed
        old = fact_of(value)
        new = analysis.join(old, fact)
        if new != old:
            facts[id(value)] = new
            changed = True

    while changed:
        changed = False
        for op in function.walk():
            for value, fact in _edges(op, fact_of, analysis):
                flow(value, fact)
    return facts


def _edges(op: Op, fact_of: Callable[[Value], Any], analysis: Analysis) -> list[tuple[Value, Any]]:
    """(value, incoming fact) pairs produced by ``op``."""
    handler = _CONTROL.get(op.name)
    if handler is not None:
        return handler(op, fact_of, analysis)
    edges = list(zip(op.results, analysis.transfer(op, fact_of)))
    for region in op.regions:  # computing regions (reduce, scan): arguments are opaque scalars
        edges.extend((arg, analysis.top) for arg in region.args)
    return edges


def _yielded(block) -> list[Value]:
    terminator = block.terminator
    return list(terminator.operands) if terminator is not None else []


def _for(op: Op, fact_of, analysis: Analysis) -> list:
    body = op.regions[0]
    init = op.operand_group("init")
    yielded = _yielded(body)
    edges = [(body.args[0], analysis.top)]  # the induction variable
    for i, value in enumerate(init):
        carried = [fact_of(value)] + ([fact_of(yielded[i])] if i < len(yielded) else [])
        for fact in carried:
            edges.append((body.args[1 + i], fact))
            edges.append((op.results[i], fact))
    return edges


def _if(op: Op, fact_of, analysis: Analysis) -> list:
    edges = []
    for region in op.regions:
        for result, value in zip(op.results, _yielded(region)):
            edges.append((result, fact_of(value)))
    return edges


def _while(op: Op, fact_of, analysis: Analysis) -> list:
    before, after = op.regions
    edges = []
    for arg, value in zip(before.args, op.operand_group("init")):
        edges.append((arg, fact_of(value)))
    for arg, value in zip(before.args, _yielded(after)):
        edges.append((arg, fact_of(value)))
    forwarded = _yielded(before)[1:]
    for arg, value in zip(after.args, forwarded):
        edges.append((arg, fact_of(value)))
    for result, value in zip(op.results, forwarded):
        edges.append((result, fact_of(value)))
    return edges


def _call(op: Op, fact_of, analysis: Analysis) -> list:
    return [(result, analysis.top) for result in op.results]


_CONTROL = {"for": _for, "if": _if, "while": _while, "call": _call}
