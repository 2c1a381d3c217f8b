"""Checking Tile IR against the op declarations and SSA rules.

``verify(module)`` checks, op by op and in this order: the op is registered; its operand groups
match the declaration (segments); required attributes are present, every attribute is declared
and of the declared kind; the result and region counts; every block ends in the terminator its
region needs (``return`` for a function body, ``condition`` for a ``while``'s before-region,
``yield`` elsewhere) and terminators appear only last; SSA: each operand is defined before its
use and visible (defined in this block or an enclosing one, block arguments included, never in
a sibling region); ``call`` targets exist with matching argument and result types; ``return``
matches the function's result types; finally the op's own ``verify`` hook.

The first problem found raises :class:`~kernellab.ir.ops.registry.VerifyError`, whose message
names the function, the op and its source location.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import Block, Function, Module, Op, Value, defined_values
from .ops import OPS, TERMINATOR, Arity, AttrKind, OpDef, VerifyError
from .types import Type


def attr_fits(kind: AttrKind, value: Any) -> bool:
    """Whether ``value`` is an attribute of ``kind`` (the printer and parser agree on these).
    Attributes are plain Python values: numpy scalars are not (they would not print back)."""
    if isinstance(value, np.generic):
        return False
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if kind is AttrKind.INT:
        return is_int
    if kind is AttrKind.FLOAT:
        return isinstance(value, float)
    if kind is AttrKind.NUMBER:
        return isinstance(value, (int, float))
    if kind is AttrKind.BOOL:
        return isinstance(value, bool)
    if kind is AttrKind.STR:
        return isinstance(value, str)
    if kind is AttrKind.TYPE:
        return isinstance(value, Type)
    item_kind = AttrKind.INT if kind is AttrKind.INTS else AttrKind.STR
    return isinstance(value, (tuple, list)) and all(attr_fits(item_kind, v) for v in value)


def is_literal(value: Any) -> bool:
    """Whether ``value`` is a free-form literal the printer writes and the parser reads back."""
    if isinstance(value, (tuple, list)):
        return all(is_literal(v) for v in value)
    return isinstance(value, (bool, int, float, str, Type)) and not isinstance(value, np.generic)


def verify(target: Module | Function, module: Module | None = None) -> None:
    """Raise :class:`VerifyError` at the first broken rule.  A lone function's ``call`` targets
    are checked only when its ``module`` is given."""
    if isinstance(target, Module):
        _check_literals(target.attrs, "module attribute")
        for function in target.functions.values():
            _FunctionVerifier(function, target).run()
        return
    _FunctionVerifier(target, module).run()


def _types(values: list[Value]) -> str:
    return "(" + ", ".join(v.type.ir for v in values) + ")"


def _type_list(types: list[Type]) -> str:
    return "(" + ", ".join(t.ir for t in types) + ")"


def expected_terminator(owner: Op | Function, region_index: int) -> str:
    """The terminator a region must end in."""
    if isinstance(owner, Function):
        return "return"
    return "condition" if owner.name == "while" and region_index == 0 else "yield"


class _FunctionVerifier:
    def __init__(self, function: Function, module: Module | None):
        self.function = function
        self.module = module
        self.scopes: list[set[int]] = []
        self.seen: set[int] = set()
        self.defined_here = {id(v) for v in defined_values(function.body)}

    def fail(self, message: str, op: Op | None = None) -> VerifyError:
        return VerifyError(f"in @{self.function.name}: {message}", op)

    def run(self) -> None:
        fn = self.function
        if [a.type for a in fn.args] != list(fn.arg_types):
            raise self.fail(f"arguments {_types(fn.args)} differ from the declared {_type_list(fn.arg_types)}")
        if len(fn.arg_attrs) != len(fn.args):
            raise self.fail(f"{len(fn.arg_attrs)} argument attribute dicts for {len(fn.args)} arguments")
        _check_literals(fn.attrs, f"attribute of @{fn.name}")
        for index, attrs in enumerate(fn.arg_attrs):
            _check_literals(attrs, f"attribute of argument {index} of @{fn.name}")
        self.block(fn.body, fn, 0)

    # ---- blocks ----
    def block(self, block: Block, owner: Op | Function, region_index: int) -> None:
        self.scopes.append({id(a) for a in block.args})
        self.seen.update(id(a) for a in block.args)
        for position, op in enumerate(block.ops):
            if op.parent is not block:
                raise self.fail("op's parent link does not point at the block holding it", op)
            self.op(op)
            if op.name in OPS and OPS[op.name].has(TERMINATOR) and position != len(block.ops) - 1:
                raise self.fail(f"terminator {op.name} must be the last op of its block, but "
                                f"{len(block.ops) - 1 - position} op(s) follow it", op)
            self.scopes[-1].update(id(r) for r in op.results)
            self.seen.update(id(r) for r in op.results)
        self.scopes.pop()
        self.terminator(block, owner, region_index)

    def terminator(self, block: Block, owner: Op | Function, region_index: int) -> None:
        wanted = expected_terminator(owner, region_index)
        where = f"the body of @{owner.name}" if isinstance(owner, Function) else \
            f"region {region_index} of {owner.name}"
        anchor = owner if isinstance(owner, Op) else None
        last = block.terminator
        if last is None:
            raise self.fail(f"{where} is empty; it must end in {wanted}", anchor)
        if last.name != wanted:
            raise self.fail(f"{where} must end in {wanted}, but ends in {last.name}", last)

    # ---- ops ----
    def op(self, op: Op) -> None:
        opdef = OPS.get(op.name)
        if opdef is None:
            raise self.fail(f"unknown op {op.name!r} (not in the op registry)", op)
        self.segments(op, opdef)
        self.attrs(op, opdef)
        if opdef.results >= 0 and len(op.results) != opdef.results:
            raise self.fail(f"{op.name} has {opdef.results} result(s), got {len(op.results)}", op)
        if len(op.regions) != opdef.regions:
            raise self.fail(f"{op.name} has {opdef.regions} region(s), got {len(op.regions)}", op)
        for index, operand in enumerate(op.operands):
            self.visible(op, index, operand)
        for index, region in enumerate(op.regions):
            if region.parent is not op:
                raise self.fail(f"region {index}'s parent link does not point at its op", op)
            self.block(region, op, index)
        if op.name == "call":
            self.call(op)
        if op.name == "return" and op.parent is self.function.body:
            self.return_(op)
        self.hook(op, opdef)

    def segments(self, op: Op, opdef: OpDef) -> None:
        names = [s.name for s in opdef.operands]
        if len(op.segments) != len(opdef.operands):
            raise self.fail(f"{op.name} declares operand groups {names}, but the op has "
                            f"{len(op.segments)} segment(s) {list(op.segments)}", op)
        for spec, count in zip(opdef.operands, op.segments):
            if not _arity_allows(spec.arity, count):
                raise self.fail(f"operand group {spec.name} ({spec.arity.value}) of {op.name} has "
                                f"{count} value(s)", op)
        if sum(op.segments) != len(op.operands):
            raise self.fail(f"segments {list(op.segments)} of {op.name} add up to {sum(op.segments)}, but "
                            f"it has {len(op.operands)} operand(s)", op)

    def attrs(self, op: Op, opdef: OpDef) -> None:
        for spec in opdef.attrs:
            if spec.required and spec.name not in op.attrs:
                raise self.fail(f"{op.name} needs the attribute {spec.name} ({spec.kind.value})", op)
        for name, value in op.attrs.items():
            spec = opdef.attr_spec(name)
            if spec is None:
                allowed = ", ".join(a.name for a in opdef.attrs) or "none"
                raise self.fail(f"{op.name} has no attribute {name!r} (it has: {allowed})", op)
            if not attr_fits(spec.kind, value):
                raise self.fail(f"attribute {name} of {op.name} must be {spec.kind.value}, got {value!r}", op)

    def visible(self, op: Op, index: int, value: Value) -> None:
        key = id(value)
        if any(key in scope for scope in self.scopes):
            return
        what = f"operand {index} ({value.name_hint or 'unnamed'}: {value.type.ir}) of {op.name}"
        if key not in self.defined_here:
            reason = "is not defined in this function (its defining op was erased, or it belongs to another one)"
        elif key in self.seen:
            reason = "is defined in a region that does not enclose this use"
        else:
            reason = "is used before it is defined"
        raise self.fail(f"{what} {reason}", op)

    def call(self, op: Op) -> None:
        if self.module is None:
            return
        name = op.attrs.get("callee")
        callee = self.module.functions.get(name)
        if callee is None:
            known = ", ".join("@" + n for n in self.module.functions)
            raise self.fail(f"call to undefined function @{name} (the module has: {known})", op)
        if [v.type for v in op.operands] != list(callee.arg_types):
            raise self.fail(f"call to @{name} passes {_types(op.operands)}, but it takes "
                            f"{_type_list(callee.arg_types)}", op)
        if [v.type for v in op.results] != list(callee.result_types):
            raise self.fail(f"call to @{name} expects results {_types(op.results)}, but it returns "
                            f"{_type_list(callee.result_types)}", op)

    def return_(self, op: Op) -> None:
        expected = list(self.function.result_types)
        if [v.type for v in op.operands] != expected:
            raise self.fail(f"return gives {_types(op.operands)}, but the function returns "
                            f"{_type_list(expected)}", op)

    def hook(self, op: Op, opdef: OpDef) -> None:
        if opdef.verify is None:
            return
        try:
            opdef.verify(op)
        except VerifyError as error:
            wrapped = self.fail(str(error))
            wrapped.op = op
            raise wrapped from None
        except Exception as error:  # a hook tripping over malformed IR is still a verify failure
            raise self.fail(f"{op.name} is malformed ({type(error).__name__}: {error})", op) from error


def _check_literals(attrs: dict[str, Any], what: str) -> None:
    for name, value in attrs.items():
        if not is_literal(value):
            raise VerifyError(f"{what} {name} = {value!r} cannot be printed: use int, float, bool, str, a type "
                              "or a list of those")


def _arity_allows(arity: Arity, count: int) -> bool:
    if arity is Arity.ONE:
        return count == 1
    if arity is Arity.OPTIONAL:
        return count in (0, 1)
    return count >= 0


__all__ = ["verify", "attr_fits", "is_literal", "expected_terminator", "VerifyError"]
