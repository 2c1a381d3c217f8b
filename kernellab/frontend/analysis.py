"""Static facts about a kernel's AST that lowering needs: which names a piece of code reads or
assigns (loop-carried values, values an ``if`` must yield) and where it returns (early returns
are restructured so that every ``return`` ends its function)."""

from __future__ import annotations

import ast
from collections.abc import Iterable


def names_loaded(nodes: Iterable[ast.AST]) -> frozenset[str]:
    """Every name read anywhere in ``nodes`` (``x`` in ``x + 1``, ``x += 1``...)."""
    found: set[str] = set()
    for node in nodes:
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                found.add(child.id)
            elif isinstance(child, ast.AugAssign) and isinstance(child.target, ast.Name):
                found.add(child.target.id)
    return frozenset(found)


def names_assigned(nodes: Iterable[ast.AST]) -> list[str]:
    """Every name assigned anywhere in ``nodes``, in order of first assignment."""
    found: dict[str, None] = {}
    for node in nodes:
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                found.setdefault(child.id, None)
    return list(found)


def contains_return(node: ast.AST | list[ast.stmt]) -> bool:
    nodes = node if isinstance(node, list) else [node]
    return any(isinstance(child, ast.Return) for n in nodes for child in ast.walk(n))


def always_returns(body: list[ast.stmt]) -> bool:
    """Whether every path through ``body`` ends in a ``return``."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return always_returns(last.body) and always_returns(last.orelse)
    return False


def hoist_returns(body: list[ast.stmt]) -> list[ast.stmt]:
    """Restructure early returns so that structured control flow can express them.

    For an ``if`` that returns on some path, the statements after it move into each of its
    branches that does not already return; the ``if`` becomes the last statement of its block,
    and every ``return`` ends its function::

        if c:                      if c:
            return a        ->         return a
        x = f()                    else:
        return x                       x = f()
                                       return x

    Loops are left alone (a ``return`` inside a loop is reported when lowering).
    """
    out: list[ast.stmt] = []
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.Return):
            out.append(stmt)
            return out  # statements after a return never run
        if not (isinstance(stmt, ast.If) and contains_return(stmt)):
            out.append(stmt)
            continue
        rest = body[index + 1:]
        out.append(_if_with_rest(stmt, rest))
        return out
    return out


def _if_with_rest(stmt: ast.If, rest: list[ast.stmt]) -> ast.If:
    then = stmt.body if always_returns(stmt.body) else stmt.body + rest
    orelse = stmt.orelse if always_returns(stmt.orelse) else stmt.orelse + rest
    new = ast.If(test=stmt.test, body=hoist_returns(then), orelse=hoist_returns(orelse))
    return ast.copy_location(new, stmt)


__all__ = ["names_loaded", "names_assigned", "contains_return", "always_returns", "hoist_returns"]
