"""Structured control flow: ``if`` (and early returns), ``for`` over ranges, unrolled static
loops, ``while``.

* A compile-time condition lowers only the branch taken.
* A scalar tensor condition builds an ``if`` op; the variables a branch assigns that are read
  afterwards are yielded (a variable assigned in only one branch cannot be read after).  They
  must have one type on both paths, except that a Python number meeting a tensor becomes a
  constant of the tensor's type (``total = 0`` before, ``total = x * 1.5`` in a branch).
* ``for`` over ``range``/``tl.range`` builds a ``for`` op; ``tl.static_range`` and tuples are
  unrolled with the loop variable bound to each compile-time item.
* Loop-carried variables are those a loop body assigns that exist before the loop and are
  read later; they must keep their type.  Aggregates (``tl.core._aggregate``), which
  compile-time methods change in place, are copied into each region; a loop carries those its
  body reads, unless it leaves them unchanged (``aggregates.py``).
"""

from __future__ import annotations

import ast
import builtins
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import language
from ..ir import types as T
from ..ir.core import Block, Value
from ..language.compat import LoopCondition
from ..language.core import constexpr, tensor
from ..language.semantics import SemanticError
from .aggregates import LoopRegion, drop_unchanged
from .analysis import contains_return, names_assigned
from .base import NOT_RETURNED, LoweringBase, error_message
from .names import MISSING
from .plans import Mismatch, clone, materialize, plan_of, rebuild, same_value, slot_names, slot_types, unify
from .python_builtins import sequence_items
from .values import describe, holds_aggregate, truth, unwrap

# Options of tl.range that become attributes of the ``for`` op.
RANGE_OPTIONS = ("num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer", "flatten", "warp_specialize",
                 "disable_licm")


@dataclass
class RangeLoop:
    """The bounds and options of a ``for`` over ``range``/``tl.range``."""

    lower: Any
    upper: Any
    step: Any
    attrs: dict[str, Any] = field(default_factory=dict)


def _range_arguments(arg1, arg2=None, step=None, **options) -> tuple[Any, Any, Any, dict]:
    lower, upper = (constexpr(0), arg1) if arg2 is None or unwrap(arg2) is None else (arg1, arg2)
    step = constexpr(1) if step is None or unwrap(step) is None else step
    return lower, upper, step, options


def _iterator_kind(callee: Any) -> str | None:
    """'range', 'tl.range' or 'tl.static_range' if ``callee`` is one of those loop iterators."""
    if callee is builtins.range:
        return "range"
    for name in ("range", "static_range"):
        iterator = getattr(language, name, None)
        if iterator is not None and callee is iterator:
            return "tl." + name
    return None


class ControlFlowLowering(LoweringBase):
    # ---- conditions ----
    def scalar_condition(self, cond: tensor, what: str) -> tensor:
        if cond.type.is_block() and cond.numel.value == 1:  # as Triton: its one element, with a warning
            warnings.warn(f"the condition of {what} is a one-element tile ({cond.type.ir}), not a scalar; "
                          "its element is used: write `(cond).item()` to say so", UserWarning, stacklevel=2)
            cond = self.sem.unsplat(cond)
        if cond.type.is_block():
            raise SemanticError(f"the condition of {what} must be a scalar, but it is a tile ({cond.type.ir}); "
                                "use tl.where(cond, x, y) to choose elementwise, or reduce the tile first "
                                "(e.g. tl.max(c, 0) != 0)")
        return self.sem.to_bool(cond)

    def lower_region(self, lower: Callable[[], Any]) -> tuple[Block, Any]:
        """Run ``lower`` with a new block as the insertion point; returns the block and what
        ``lower`` returned."""
        block = Block()
        with self.builder.at_end(block):
            return block, lower()

    def finish_if(self, cond: tensor, then_block: Block, else_block: Block,
                  pairs: list[tuple[Any, Any, Mismatch]]) -> list[Any]:
        """Build an ``if`` op over two lowered branches that yields, for each (then value,
        else value, mismatch message) pair, one merged value; returns the merged values."""
        plans = [unify(a, b, mismatch) for a, b, mismatch in pairs]
        for block, side in ((then_block, 0), (else_block, 1)):
            with self.builder.at_end(block):
                handles = [h for plan, pair in zip(plans, pairs)
                           for h in materialize(self.sem, plan, pair[side], pair[2])]
                self.builder.yield_(handles)
        types = [t for plan in plans for t in slot_types(plan)]
        op = self.builder.create("if", [cond.handle], types, regions=[then_block, else_block])
        results = iter(op.results)
        return [rebuild(plan, results) for plan in plans]

    # ---- if ----
    def visit_If(self, node: ast.If) -> None:
        cond = self.visit(node.test)
        if not isinstance(cond, tensor):
            self.visit_statements(node.body if truth(cond) else node.orelse, self.live_out)
            return
        cond = self.scalar_condition(cond, "an `if`")
        if contains_return(node):
            self.returning_if(cond, node)
        else:
            self.branching_if(cond, node)

    def lower_branch(self, body: list[ast.stmt], before: tuple[dict, dict], live: frozenset[str]) -> tuple[dict, dict]:
        """Lower one branch from the names in scope before the ``if``; returns the names in
        scope after it (and those made unavailable)."""
        self.scope, self.unavailable = _copied(before[0]), dict(before[1])
        self.visit_statements(body, live)
        return self.scope, self.unavailable

    def branching_if(self, cond: tensor, node: ast.If) -> None:
        before = (dict(self.scope), dict(self.unavailable))
        live, line = self.live_out, self.line_of(node)
        then_block, (then_scope, then_unavailable) = self.lower_region(
            lambda: self.lower_branch(node.body, before, live))
        else_block, (else_scope, else_unavailable) = self.lower_region(
            lambda: self.lower_branch(node.orelse, before, live))
        changed = _changed_names(before[0], then_scope, else_scope)
        yielded = [n for n in changed if n in live and n in then_scope and n in else_scope]
        results = self.finish_if(cond, then_block, else_block,
                                 [(then_scope[n], else_scope[n], self.branch_mismatch(n, line)) for n in yielded])
        self.scope, self.unavailable = before[0], {**then_unavailable, **else_unavailable}
        for name in changed:
            reason = self.unavailable.get(name) or self.one_branch_message(name, line, then_scope, else_scope)
            self.forget(name, reason)
        for name, value in zip(yielded, results):
            self.assign(name, value)

    def branch_mismatch(self, name: str, line: int) -> Mismatch:
        def message(a: str, b: str) -> str:  # Triton's words first
            return (f"Mismatched type for {name} between then block ({a}) and else block ({b}) of the `if` at line "
                    f"{line}; a variable must have one type after an `if` with a run-time condition (convert one "
                    "side with .to(...))")
        return message

    @staticmethod
    def one_branch_message(name: str, line: int, then_scope: dict, else_scope: dict) -> str:
        if (name in then_scope) != (name in else_scope):
            which = "`if`" if name in then_scope else "`else`"
            return (f"`{name}` is assigned only in the {which} branch of the `if` at line {line}, so it has no "
                    "value on the other path; assign it before the `if` (or in both branches) to use it after")
        return f"`{name}` changes inside the `if` at line {line} and is not available after it"

    def returning_if(self, cond: tensor, node: ast.If) -> None:
        """An ``if`` whose branches return (early returns were moved into tail position):
        the branches yield their return values and the ``if`` returns them."""
        before_scope, before_unavailable = dict(self.scope), dict(self.unavailable)

        def branch(body: list[ast.stmt]) -> Callable[[], Any]:
            def lower() -> Any:
                self.scope, self.unavailable = _copied(before_scope), dict(before_unavailable)
                self.returned = NOT_RETURNED
                self.visit_statements(body, frozenset())
                value = constexpr(None) if self.returned is NOT_RETURNED else self.returned
                self.returned = NOT_RETURNED
                return value
            return lower

        def mismatch(a: str, b: str) -> str:  # Triton's words first
            return f"Inconsistent return types: {a} and {b}; every return of `{self.name}` must give the same type"

        then_block, then_value = self.lower_region(branch(node.body))
        else_block, else_value = self.lower_region(branch(node.orelse))
        try:
            results = self.finish_if(cond, then_block, else_block, [(then_value, else_value, mismatch)])
        except SemanticError as error:  # at the return that disagrees with the first (as Triton's)
            returns = [n for n in ast.walk(ast.Module(body=node.orelse, type_ignores=[])) if isinstance(n, ast.Return)]
            raise self.error(returns[-1] if returns else node, error_message(error)) from None
        self.scope, self.unavailable = before_scope, before_unavailable
        self.returned = results[0]

    # ---- for ----
    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            raise SemanticError("`for ... else` is not supported in kernels")
        iterator = self.loop_iterator(node.iter)
        if isinstance(iterator, RangeLoop):
            self.range_loop(node, iterator)
        else:
            self.static_loop(node, iterator)

    def loop_iterator(self, node: ast.expr) -> RangeLoop | list:
        """A ``RangeLoop`` for range/tl.range, the items for tl.static_range and tuples."""
        if isinstance(node, ast.Call):
            kind = _iterator_kind(unwrap(self.visit(node.func)))
            if kind is not None:
                args = self.elements(node.args)
                kwargs = {k.arg: self.visit(k.value) for k in node.keywords}
                return self.range_iterator(kind, args, kwargs)
        value = self.visit(node)
        if isinstance(value, tensor) or not isinstance(unwrap(value), (tuple, list)):
            raise SemanticError(f"a kernel `for` loop must iterate over range(...), tl.range(...), "
                                f"tl.static_range(...) or a tuple, not {describe(value)}")
        return list(sequence_items(value))

    def range_iterator(self, kind: str, args: list, kwargs: dict) -> RangeLoop | list:
        if kind == "range" and kwargs:
            raise SemanticError("range() takes no keyword arguments; use tl.range(...) for loop options")
        try:
            lower, upper, step, options = _range_arguments(*args, **kwargs)
        except TypeError as error:
            raise SemanticError(f"wrong arguments to {kind}(): {error}") from None
        allowed = RANGE_OPTIONS if kind == "tl.range" else ()
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise SemanticError(f"{kind}() has no option(s) {unknown}; its options are {list(allowed)}")
        if kind == "tl.static_range":
            return self.static_range_items(lower, upper, step)
        attrs = {key: unwrap(value) for key, value in options.items() if unwrap(value) is not None}
        return RangeLoop(lower, upper, step, attrs)

    @staticmethod
    def static_range_items(lower: Any, upper: Any, step: Any) -> list:
        bounds = (lower, upper, step)
        if any(isinstance(b, tensor) or not isinstance(unwrap(b), int) for b in bounds):
            shown = ", ".join(f"a runtime {b.type.ir}" if isinstance(b, tensor) else repr(unwrap(b)) for b in bounds)
            raise SemanticError(f"tl.static_range bounds must be compile-time integers (tl.constexpr), got "
                                f"({shown}); use tl.range for bounds known only when the kernel runs")
        if unwrap(step) == 0:
            raise SemanticError("tl.static_range() step must not be zero")
        return [constexpr(i) for i in range(unwrap(lower), unwrap(upper), unwrap(step))]

    def static_loop(self, node: ast.For, items: list) -> None:
        """Unroll: lower the body once per item, the target bound to the item."""
        live = self.live_out | self.loads(node.body)
        self.loop_depth += 1
        try:
            for item in items:
                self.assign_target(node.target, item)
                self.visit_statements(node.body, live)
        finally:
            self.loop_depth -= 1

    # ---- comprehensions ----
    def visit_ListComp(self, node: ast.ListComp) -> tuple:
        """``[f(x) for x in T if c]``, unrolled at compile time over what a static loop takes (a
        tuple, tl.static_range, a range of compile-time bounds); conditions are compile-time.
        As in Triton the result is a tuple.  The targets do not outlive the comprehension."""
        saved = dict(self.scope), dict(self.unavailable)
        results: list = []
        try:
            self.comprehension(node.generators, node.elt, results)
        finally:
            self.scope, self.unavailable = saved
        return tuple(results)

    def comprehension(self, generators: list[ast.comprehension], elt: ast.expr, results: list) -> None:
        if not generators:
            results.append(self.visit(elt))
            return
        first = generators[0]
        if first.is_async:
            raise SemanticError("`async for` is not supported in kernels")
        for item in self.comprehension_items(first.iter):
            self.assign_target(first.target, item)
            if all(self.compile_time_condition(test) for test in first.ifs):
                self.comprehension(generators[1:], elt, results)

    def comprehension_items(self, node: ast.expr) -> list:
        iterator = self.loop_iterator(node)
        if isinstance(iterator, RangeLoop):
            if iterator.attrs:
                raise SemanticError("a comprehension is unrolled at compile time: iterate over "
                                    "tl.static_range(...), a range of compile-time bounds or a tuple")
            return self.static_range_items(iterator.lower, iterator.upper, iterator.step)
        return iterator

    def compile_time_condition(self, node: ast.expr) -> bool:
        cond = self.visit(node)
        if isinstance(cond, tensor):
            raise SemanticError("a comprehension's `if` must be a compile-time condition, not a kernel tensor "
                                f"({cond.type.ir}); use tl.where to choose elementwise")
        return truth(cond)

    def range_loop(self, node: ast.For, loop: RangeLoop) -> None:
        if not isinstance(node.target, ast.Name):
            raise SemanticError("the target of a range loop must be a single name")
        target = node.target.id
        lower, upper, step = self.loop_bounds(loop)
        carried, in_place = self.carried_names(node.body, exclude={target})
        before = (dict(self.scope), dict(self.unavailable))
        plans = self.carry_plans(carried)
        types, names = _slots(carried, plans)
        body = Block([lower.type] + types, [target] + names)
        with self.builder.at_end(body):
            self.bind_carried(carried, plans, body.args[1:])
            self.assign(target, tensor(body.args[0], lower.type))
            self.loop_body(node.body, self.live_out | self.loads(node.body))
            yielded = self.builder.yield_(self.carry_out(carried, plans))
        inits = self.carry_in(carried, plans, before[0])
        carried, plans, inits = drop_unchanged(carried, plans, in_place, inits, [LoopRegion(body, 1, yielded, 0)])
        types = [t for plan in plans for t in slot_types(plan)]
        op = self.builder.create("for", [lower.handle, upper.handle, step.handle, inits], types, loop.attrs,
                                 regions=[body], grouped=True)
        self.leave_loop(node, before, carried, plans, op.results, target)

    def loop_bounds(self, loop: RangeLoop) -> tuple[tensor, tensor, tensor]:
        """The bounds as scalars of one integer type: i64 if any needs 64 bits, else i32."""
        bounds = (loop.lower, loop.upper, loop.step)
        for bound in bounds:
            self.check_bound(bound)
        if not isinstance(loop.step, tensor) and unwrap(loop.step) == 0:
            raise SemanticError("range() step must not be zero")
        wide = any(b.dtype.primitive_bitwidth == 64 if isinstance(b, tensor)
                   else not -2**31 <= unwrap(b) < 2**31 for b in bounds)
        iv_type = T.i64 if wide else T.i32
        lower, upper, step = (self.sem.cast(b, iv_type) if isinstance(b, tensor)
                              else self.sem.scalar_constant(unwrap(b), iv_type) for b in bounds)
        return lower, upper, step

    @staticmethod
    def check_bound(bound: Any) -> None:
        if isinstance(bound, tensor):
            if bound.type.is_block() or not bound.dtype.is_int():
                raise SemanticError(f"range bounds must be integer scalars, got {bound.type.ir}")
            return
        if not isinstance(unwrap(bound), int) or isinstance(unwrap(bound), bool):
            raise SemanticError(f"range bounds must be integers, got {describe(bound)}")

    # ---- while ----
    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            raise SemanticError("`while ... else` is not supported in kernels")
        carried, in_place = self.carried_names(node.body, exclude=set(), extra=self.loads([node.test]))
        before = (dict(self.scope), dict(self.unavailable))
        plans = self.carry_plans(carried)
        types, names = _slots(carried, plans)
        before_block, after_block = Block(types, names), Block(types, names)
        with self.builder.at_end(before_block):
            self.bind_carried(carried, plans, before_block.args)
            cond = self.visit(node.test)
            attrs = {}
            if isinstance(cond, LoopCondition):  # while tl.condition(c, disable_licm=...)
                attrs = {"disable_licm": cond.disable_licm}
                cond = cond.value
            if not isinstance(cond, tensor):
                self.scope, self.unavailable = before
                if not truth(cond):
                    return
                raise SemanticError("this `while` condition is always true at compile time and kernels cannot "
                                    "`break`, so the loop would never end")
            cond = self.scalar_condition(cond, "a `while` loop")
            condition = self.builder.create("condition", [cond.handle, list(before_block.args)], grouped=True)
        with self.builder.at_end(after_block):
            self.scope, self.unavailable = dict(before[0]), dict(before[1])
            self.bind_carried(carried, plans, after_block.args)
            self.loop_body(node.body, self.live_out | self.loads(node.body) | self.loads([node.test]))
            yielded = self.builder.yield_(self.carry_out(carried, plans))
        inits = self.carry_in(carried, plans, before[0])
        carried, plans, inits = drop_unchanged(carried, plans, in_place, inits, [
            LoopRegion(before_block, 0, condition, 1), LoopRegion(after_block, 0, yielded, 0)])
        types = [t for plan in plans for t in slot_types(plan)]
        op = self.builder.create("while", inits, types, attrs, regions=[before_block, after_block])
        self.leave_loop(node, before, carried, plans, op.results, None)

    # ---- loop-carried values ----
    def carried_names(self, body: list[ast.stmt], exclude: set[str], extra: frozenset[str] = frozenset()
                      ) -> tuple[list[str], list[str]]:
        """Names the body assigns that exist before the loop and are read in the loop or after,
        then the names of aggregates it reads without assigning (compile-time code may change
        them in place); returns both, and the latter apart."""
        read = self.loads(body) | extra | self.live_out
        assigned = [n for n in names_assigned(body) if n in self.scope and n in read and n not in exclude]
        in_place = sorted(n for n in self.loads(body) | extra if n in self.scope and n not in exclude
                          and n not in assigned and holds_aggregate(self.scope[n]))
        return assigned + in_place, in_place

    def carry_plans(self, carried: list[str]) -> list:
        return [plan_of(self.scope[name], numbers_as_slots=True) for name in carried]

    def carry_in(self, carried: list[str], plans: list, scope: dict[str, Any]) -> list[Value]:
        """The loop's initial values (built at the insertion point, just before the loop op)."""
        return [h for name, plan in zip(carried, plans)
                for h in materialize(self.sem, plan, scope[name], self.loop_mismatch(name))]

    def bind_carried(self, carried: list[str], plans: list, args: list[Value]) -> None:
        values = iter(args)
        for name, plan in zip(carried, plans):
            self.assign(name, rebuild(plan, values))

    def carry_out(self, carried: list[str], plans: list) -> list[Value]:
        return [h for name, plan in zip(carried, plans)
                for h in materialize(self.sem, plan, self.lookup(name),
                                     self.loop_mismatch(name, self.assigned_line.get(name)))]

    @staticmethod
    def loop_mismatch(name: str, line: int | None = None) -> Mismatch:
        where = f" (at line {line})" if line else ""

        def message(before: str, inside: str) -> str:
            return (f"loop-carried variable `{name}` changes type from {before} to {inside} inside the loop{where}; "
                    "a variable assigned in a loop must keep the type it has before the loop: initialize it with "
                    "that type (e.g. tl.zeros(shape, dtype=...)) or convert with .to(...)")
        return message

    def loop_body(self, body: list[ast.stmt], live: frozenset[str]) -> None:
        self.loop_depth += 1
        try:
            self.visit_statements(body, live)
        finally:
            self.loop_depth -= 1

    def leave_loop(self, node: ast.stmt, before: tuple[dict, dict], carried: list[str], plans: list,
                   results: list[Value], target: str | None) -> None:
        """After a loop: carried names take the loop's results; names first assigned inside
        the loop and the loop variable cannot be read after it."""
        self.scope, self.unavailable = before
        line = self.line_of(node)
        for name in names_assigned(node.body):
            if name in carried:
                continue
            if name in before[0]:
                self.forget(name, f"`{name}` changes inside the loop at line {line} and is not available after it")
            else:
                self.forget(name, f"`{name}` is first assigned inside the loop at line {line}, so it has no value "
                                  "after the loop; assign it before the loop to use it after")
        if target is not None:
            self.forget(target, f"the loop variable `{target}` of the loop at line {line} is not available after the "
                                "loop; keep the value you need in a variable assigned before the loop")
        values = iter(results)
        for name, plan in zip(carried, plans):
            self.assign(name, rebuild(plan, values))


def _slots(carried: list[str], plans: list) -> tuple[list, list[str]]:
    """The types and name hints of the IR values that carry ``carried``."""
    types = [t for plan in plans for t in slot_types(plan)]
    names = [n for name, plan in zip(carried, plans) for n in slot_names(plan, name)]
    return types, names


def _copied(scope: dict[str, Any]) -> dict[str, Any]:
    """A region's scope: the names of ``scope``, their aggregates copied (``plans.clone``)."""
    return {name: clone(value) for name, value in scope.items()}


def _changed_names(before: dict[str, Any], then_scope: dict[str, Any], else_scope: dict[str, Any]) -> list[str]:
    """Names whose value after either branch is not the one they had before the ``if``."""
    names = dict.fromkeys(list(then_scope) + list(else_scope) + list(before))
    return [n for n in names
            if not same_value(then_scope.get(n, MISSING), before.get(n, MISSING))
            or not same_value(else_scope.get(n, MISSING), before.get(n, MISSING))]


__all__ = ["ControlFlowLowering", "RangeLoop", "RANGE_OPTIONS"]
