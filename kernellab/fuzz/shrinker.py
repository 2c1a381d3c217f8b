"""Shrink a failing program: delete parts, outputs and statements, replace expressions by
smaller ones of the same dtype and kind, shorten loops and the grid, while the failure persists.

``shrink(program, fails)`` tries candidates biggest cut first and keeps the first that still
fails, until none does (or the budget of checks is spent).  Every candidate stays well typed:
a node is only replaced by one of its own sub-expressions, or by an earlier variable, with the
same dtype and kind and at least the same exactness.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from .program import Assign, Dot, Expr, Load, Loop, Program, Statement, Store, Var, defines, uses


def without_dead_code(program: Program) -> Program:
    """``program`` without the statements no store depends on."""
    needed: set[str] = set()
    kept: list[Statement] = []
    for statement in reversed(program.body):
        name = defines(statement)
        if isinstance(statement, Store) or name in needed:
            kept.append(statement)
            needed |= uses(statement)
    return dataclasses.replace(program, body=list(reversed(kept)))


def _with_body(program: Program, body: list[Statement]) -> Program:
    return without_dead_code(dataclasses.replace(program, body=body))


def _parts(program: Program) -> list[str]:
    seen: list[str] = []
    for statement in program.body:
        name = statement.name if isinstance(statement, Store) else statement.var.name
        prefix = name.split("_", 1)[0] + "_"
        if prefix not in seen:
            seen.append(prefix)
    return seen


def _owner(statement: Statement) -> str:
    name = statement.name if isinstance(statement, Store) else statement.var.name
    return name.split("_", 1)[0] + "_"


def _paths(expr: Expr, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], Expr]]:
    yield path, expr
    for k, child in enumerate(expr.children()):
        yield from _paths(child, path + (k,))


def _replace(expr: Expr, path: tuple[int, ...], new: Expr) -> Expr:
    if not path:
        return new
    children = list(expr.children())
    children[path[0]] = _replace(children[path[0]], path[1:], new)
    return expr.with_children(tuple(children))


def _fits(new: Expr, old: Expr) -> bool:
    return new is not old and new.dtype == old.dtype and new.kind == old.kind and (new.exact or not old.exact) \
        and not (old.product is False and new.product)


def _smaller_exprs(expr: Expr, earlier: list[Var]) -> Iterator[Expr]:
    """Variants of ``expr`` with one node replaced by a descendant or an earlier variable."""
    for path, node in _paths(expr):
        if isinstance(node, Var):
            continue
        for _, sub in list(_paths(node))[1:]:
            if _fits(sub, node):
                yield _replace(expr, path, sub)
        for var in earlier:
            if _fits(var, node) and not isinstance(node, Dot):
                yield _replace(expr, path, var)


def candidates(program: Program) -> Iterator[Program]:
    body = program.body
    parts = _parts(program)
    if len(parts) > 1:
        for part in parts:
            yield _with_body(program, [s for s in body if _owner(s) != part])
    stores = [k for k, s in enumerate(body) if isinstance(s, Store)]
    if len(stores) > 1:
        for k in stores:
            yield _with_body(program, body[:k] + body[k + 1:])
    if program.grid > 1:
        yield dataclasses.replace(program, grid=1, m=min(program.m, program.bm))
    if program.n > 1:
        yield dataclasses.replace(program, n=1)
    yield from _statement_candidates(program)


def _statement_candidates(program: Program) -> Iterator[Program]:
    body = program.body
    earlier: list[Var] = []
    for k, statement in enumerate(body):
        if isinstance(statement, Loop):
            yield _with_body(program, body[:k] + [Assign(statement.var, statement.init)] + body[k + 1:])
            if statement.trips > 1:
                yield _with_body(program, body[:k] + [dataclasses.replace(statement, trips=1)] + body[k + 1:])
        elif isinstance(statement, (Assign, Store)):
            for expr in _smaller_exprs(statement.expr, [v for v in earlier if v.name != defines(statement)]):
                yield _with_body(program, body[:k] + [dataclasses.replace(statement, expr=expr)] + body[k + 1:])
        if isinstance(statement, (Load, Assign, Loop)) and statement.var.kind != "W":
            earlier.append(statement.var)


def shrink(program: Program, fails: Callable[[Program], bool], budget: int = 400) -> tuple[Program, int]:
    """The smallest variant of ``program`` found that still ``fails``, and the checks made."""
    current = without_dead_code(program)
    if not fails(current):
        current = program
    checks = 0
    improved = True
    while improved and checks < budget:
        improved = False
        for candidate in candidates(current):
            checks += 1
            if fails(candidate):
                current, improved = candidate, True
                break
            if checks >= budget:
                break
    return current, checks
