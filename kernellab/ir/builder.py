"""Building Tile IR: one API for the frontend, the language layer, passes and tests.

    builder = Builder()
    fn = builder.function("add", [ptr_f32, i32], arg_names=["x_ptr", "n"])
    with builder.at_end(fn.body), builder.location(loc):
        pid = builder.create("program_id", [], [i32], {"axis": 0}).result
        ...
        builder.create("return", [])

``create`` checks the operand groups against the op's declaration and fills attribute
defaults; full type rules are the verifier's (``kernellab.ir.verifier``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .core import UNKNOWN_LOC, Block, Function, Location, Module, Op, Value
from .ops import OPS, Arity, lookup
from .types import Type


class Builder:
    """Creates ops at an insertion point (the end of a block, or before an op)."""

    def __init__(self, module: Module | None = None):
        self.module = module if module is not None else Module()
        self.block: Block | None = None
        self.before: Op | None = None
        self.loc: Location = UNKNOWN_LOC
        # called with the type of every value made (arguments, results): how the language refuses
        # types the target lacks (SemanticBase.check_target_type); None: every type is taken
        self.type_check: Callable[[Type], None] | None = None

    # ---- insertion points and locations ----
    @contextmanager
    def at_end(self, block: Block) -> Iterator[Builder]:
        saved = (self.block, self.before)
        self.block, self.before = block, None
        try:
            yield self
        finally:
            self.block, self.before = saved

    @contextmanager
    def before_op(self, op: Op) -> Iterator[Builder]:
        saved = (self.block, self.before)
        self.block, self.before = op.parent, op
        try:
            yield self
        finally:
            self.block, self.before = saved

    @contextmanager
    def location(self, loc: Location | None) -> Iterator[Builder]:
        saved = self.loc
        if loc is not None:
            self.loc = loc
        try:
            yield self
        finally:
            self.loc = saved

    # ---- functions ----
    def function(self, name: str, arg_types: Sequence[Type], result_types: Sequence[Type] = (),
                 arg_names: Sequence[str | None] | None = None, attrs: dict[str, Any] | None = None,
                 loc: Location | None = None) -> Function:
        """Add a function with an empty body to the module."""
        if self.type_check is not None:
            for ty in arg_types:
                self.type_check(ty)
        body = Block(list(arg_types), list(arg_names) if arg_names else None)
        function = Function(name, list(arg_types), list(result_types), body, dict(attrs or {}),
                            loc=loc or self.loc)
        return self.module.add(function)

    # ---- ops ----
    def create(self, name: str, operands: Sequence[Value | Sequence[Value] | None] = (),
               result_types: Sequence[Type] = (), attrs: dict[str, Any] | None = None,
               regions: Sequence[Block] = (), loc: Location | None = None, grouped: bool = False) -> Op:
        """Create ``name`` at the insertion point.

        ``operands`` is flat unless ``grouped``: then it has one entry per declared operand group
        (a Value, ``None`` for an absent optional, a list for a variadic group).
        """
        opdef = lookup(name)
        flat, segments = _flatten(opdef, operands, grouped, name)
        unknown = set(attrs or {}) - {a.name for a in opdef.attrs}
        if unknown:
            raise ValueError(f"op {name} has no attribute(s) {sorted(unknown)}")
        filled = opdef.filled_attrs(dict(attrs or {}))
        missing = [a.name for a in opdef.attrs if a.required and a.name not in filled]
        if missing:
            raise ValueError(f"op {name} needs attribute(s) {missing}")
        if opdef.results >= 0 and len(result_types) != opdef.results:
            raise ValueError(f"op {name} has {opdef.results} result(s), got {len(result_types)} type(s)")
        if len(regions) != opdef.regions:
            raise ValueError(f"op {name} has {opdef.regions} region(s), got {len(regions)}")
        if self.type_check is not None:
            for ty in result_types:
                self.type_check(ty)
        op = Op(name, flat, list(result_types), filled, list(regions), loc or self.loc, segments)
        self.insert(op)
        return op

    def insert(self, op: Op) -> Op:
        if self.block is None:
            raise RuntimeError("the builder has no insertion point")
        if self.before is not None:
            return self.block.insert(self.block.ops.index(self.before), op)
        return self.block.append(op)

    # ---- conveniences used everywhere ----
    def constant(self, value: int | float | bool, ty: Type) -> Value:
        return self.create("constant", [], [ty], {"value": value}).result

    def yield_(self, values: Sequence[Value] = ()) -> Op:
        return self.create("yield", [list(values)], grouped=True)

    def return_(self, values: Sequence[Value] = ()) -> Op:
        return self.create("return", [list(values)], grouped=True)


def _flatten(opdef, operands, grouped: bool, name: str) -> tuple[list[Value], tuple[int, ...]]:
    if not grouped:
        simple = all(spec.arity is Arity.ONE for spec in opdef.operands)
        if simple:
            if len(operands) != len(opdef.operands):
                raise ValueError(f"op {name} takes {len(opdef.operands)} operand(s), got {len(operands)}")
            return list(operands), (1,) * len(operands)
        if len(opdef.operands) == 1 and opdef.operands[0].arity is Arity.VARIADIC:
            return list(operands), (len(operands),)
        raise ValueError(f"op {name} has optional or variadic operands: pass grouped=True")
    if len(operands) != len(opdef.operands):
        raise ValueError(f"op {name} has {len(opdef.operands)} operand group(s), got {len(operands)}")
    flat: list[Value] = []
    segments = []
    for spec, group in zip(opdef.operands, operands):
        if spec.arity is Arity.ONE:
            if not isinstance(group, Value):
                raise TypeError(f"op {name} operand {spec.name} must be a Value, got {group!r}")
            flat.append(group)
            segments.append(1)
        elif spec.arity is Arity.OPTIONAL:
            if group is not None:
                flat.append(group)
            segments.append(0 if group is None else 1)
        else:
            group = list(group or [])
            flat.extend(group)
            segments.append(len(group))
    for v in flat:
        if not isinstance(v, Value):
            raise TypeError(f"op {name} got a non-Value operand {v!r}")
    return flat, tuple(segments)


__all__ = ["Builder", "OPS"]
