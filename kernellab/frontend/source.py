"""The Python source of a jit function: its file, its absolute line numbers and its AST.

Source comes from ``inspect.getsource`` (dedented); every AST node's line and column are
mapped back to the file (``KernelSource.location``), so the ops built from a node carry the
position a user sees in their editor or notebook cell.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ir.core import Location
from .analysis import hoist_returns

JIT_ATTR = "__kernellab_jit__"


def is_jit(obj: Any) -> bool:
    """Whether ``obj`` is a jit function (anything marked ``__kernellab_jit__ = True``)."""
    return getattr(obj, JIT_ATTR, False) is True


def python_function(jit: Any) -> Callable:
    """The plain Python function behind a jit object."""
    return jit.fn


def jit_name(jit: Any) -> str:
    """The name a jit function is known by (``.name`` if it has one, else ``fn.__name__``)."""
    name = getattr(jit, "name", None)
    return name if isinstance(name, str) and name else python_function(jit).__name__


@dataclass
class KernelSource:
    """A jit function's parsed source.

    ``tree`` is the ``FunctionDef``; ``body`` is its body with early returns restructured
    (``analysis.hoist_returns``) and the docstring removed.  ``first_line`` is the file line of
    the source's first line and ``indent`` the columns ``textwrap.dedent`` removed.
    """

    file: str
    first_line: int
    indent: int
    text: str
    tree: ast.FunctionDef
    body: list[ast.stmt]
    cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def location(self, node: ast.AST) -> Location:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        return Location(self.file, self.first_line + line - 1, col + self.indent)


# Parsed sources by code object (weakly: a redefined notebook function frees the old entry).
_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def load_source(jit: Any) -> KernelSource:
    """The parsed source of ``jit`` (cached per Python code object)."""
    fn = python_function(jit)
    key = fn.__code__
    found = _SOURCES.get(key)
    if found is None:
        found = _parse(fn, jit_name(jit))
        _SOURCES[key] = found
    return found


def source_text(jit: Any) -> str:
    """The source text of a jit function (dedented)."""
    return load_source(jit).text


def _parse(fn: Callable, name: str) -> KernelSource:
    try:
        lines, first_line = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as error:
        raise TypeError(f"cannot read the source of `{name}` ({error}); kernels must be defined in a file "
                        "or a notebook cell, not with exec() or in an interactive prompt") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = _removed_indent(raw, text)
    module = ast.parse(text)
    tree = next((node for node in module.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if not isinstance(tree, ast.FunctionDef):
        raise TypeError(f"`{name}` is not a plain `def` function; kernels must be `def` functions")
    return KernelSource(file, max(first_line, 1), indent, text, tree, hoist_returns(_without_docstring(tree.body)))


def _removed_indent(raw: str, dedented: str) -> int:
    for raw_line, line in zip(raw.splitlines(), dedented.splitlines()):
        if line.strip():
            return len(raw_line) - len(line)
    return 0


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


__all__ = ["KernelSource", "load_source", "source_text", "is_jit", "jit_name", "python_function", "JIT_ATTR"]
