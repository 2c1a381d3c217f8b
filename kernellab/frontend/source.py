"""The Python source of a jit function: its file, its absolute line numbers and its AST.

Source comes from the lines ``linecache`` holds for the function's file (or notebook cell),
from the code object's first line to the end of its indented block, dedented; every AST node's
line and column are mapped back to the file (``KernelSource.location``), so the ops built from a
node carry the position a user sees in their editor or notebook cell.  Finding the block's end
by indentation costs microseconds where ``inspect.getsourcelines`` tokenizes (milliseconds, the
larger part of a cached first launch in a new process); whenever that shortcut is in doubt
(the text does not parse, or misses lines holding the function's code) ``inspect`` decides.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ir.core import Location
from .analysis import hoist_returns

JIT_ATTR = "__kernellab_jit__"

# CPython 3.11 keeps ast.parse's node-building depth in state shared by threads (gh-106905): two
# threads parsing at once can fail with "SystemError: AST constructor recursion depth mismatch"
# (FlagGems compiles kernels from several threads).  kernellab's parses take turns.
_PARSE_LOCK = threading.Lock()


def parse_python(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(text, filename)``, one thread at a time."""
    with _PARSE_LOCK:
        return ast.parse(text, filename)


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
    code_file: str = field(default="", repr=False)  # the file of the code object it was parsed for

    def location(self, node: ast.AST) -> Location:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        return Location(self.file, self.first_line + line - 1, col + self.indent)

    def position(self, loc: Location) -> tuple[int, int]:
        """Where ``loc`` (a location in this source) is as Triton's messages count: the line from
        the ``def`` (1), the column in the dedented source."""
        def_line = self.first_line + self.tree.lineno - 1
        return loc.line - def_line + 1, loc.col - self.indent


# Parsed sources by code object (weakly: a redefined notebook function frees the old entry).  Code
# objects compare equal across files, so an entry also says which file it was parsed for: the same
# function text at the same line of another file must not get the first file's source and lines.
_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def load_source(jit: Any) -> KernelSource:
    """The parsed source of ``jit`` (cached per Python code object and file)."""
    fn = python_function(jit)
    found = parsed_source(fn)
    if found is None:
        found = _parse(fn, jit_name(jit))
        found.code_file = fn.__code__.co_filename
        _SOURCES[fn.__code__] = found
    return found


def parsed_source(fn: Callable) -> KernelSource | None:
    """The parsed source of ``fn`` if this process has parsed it, else None (never parses)."""
    found = _SOURCES.get(fn.__code__)
    if found is not None and found.code_file and found.code_file != fn.__code__.co_filename:
        return None
    return found


def source_text(jit: Any) -> str:
    """The source text of a jit function (dedented)."""
    return load_source(jit).text


def _parse(fn: Callable, name: str) -> KernelSource:
    found = _block_by_indentation(fn)
    if found is None:
        found = _block_by_inspect(fn, name)
    file, first_line, raw, module = found
    text = textwrap.dedent(raw)
    indent = _removed_indent(raw, text)
    if module is None:
        module = parse_python(text)
    tree = next((node for node in module.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if not isinstance(tree, ast.FunctionDef):
        raise TypeError(f"`{name}` is not a plain `def` function; kernels must be `def` functions")
    return KernelSource(file, max(first_line, 1), indent, text, tree, hoist_returns(_without_docstring(tree.body)))


def _block_by_inspect(fn: Callable, name: str) -> tuple[str, int, str, None]:
    try:
        lines, first_line = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as error:
        raise TypeError(f"cannot read the source of `{name}` ({error}); kernels must be defined in a file "
                        "or a notebook cell, not with exec() or in an interactive prompt") from None
    return file, first_line, "".join(lines), None


def _block_by_indentation(fn: Callable) -> tuple[str, int, str, ast.Module] | None:
    """(file, first line, text, parsed text) of ``fn``'s ``def`` (decorators included): from the
    code's first line to the last line before the first statement indented no deeper than the
    ``def``.  None when that text does not parse to the function, or ends before a line the
    code object runs (then ``inspect`` reads the source)."""
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_filename or code.co_filename.endswith((".pyc", ".pyo")):
        return None
    linecache.checkcache(code.co_filename)  # as inspect does: a file edited since is read again
    lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    first = code.co_firstlineno
    if not 1 <= first <= len(lines):
        return None
    end = _block_end(lines, first - 1)
    last_code_line = max(_code_lines(code), default=first)
    if end < last_code_line:
        return None
    raw = "".join(lines[first - 1:end])
    try:
        module = parse_python(textwrap.dedent(raw))
    except SyntaxError:
        return None
    tree = module.body[0] if len(module.body) == 1 else None
    if not isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)) or tree.name != fn.__name__:
        return None
    return code.co_filename, first, raw, module


def _indentation(line: str) -> int | None:
    """Columns of leading whitespace, or None for blank and comment-only lines."""
    stripped = line.lstrip()
    if not stripped or stripped.startswith("#"):
        return None
    return len(line.expandtabs()) - len(stripped.expandtabs())


def _block_end(lines: list[str], start: int) -> int:
    """The number of the last line (1-based) of the block starting at ``lines[start]``: the lines
    up to the first one (after the header line) indented no deeper than ``lines[start]``,
    without the blank and comment lines before it."""
    column = _indentation(lines[start])
    end = start + 1
    for number in range(start + 1, len(lines)):
        indent = _indentation(lines[number])
        if indent is None:
            continue
        if column is not None and indent <= column and not lines[number].lstrip().startswith((")", "]", "}")) \
                and not _continues_header(lines, start, number):
            break
        end = number + 1
    return end


def _continues_header(lines: list[str], start: int, number: int) -> bool:
    """Whether ``lines[number]`` is still the decorators or the ``def`` line itself (a decorator
    line is followed by more decorators and the ``def``, at the same indentation)."""
    head = lines[start:number]
    return not any(line.lstrip().startswith(("def ", "async def ")) for line in head)


def _code_lines(code) -> list[int]:
    """Every line the code object (and the code nested in it) has instructions on."""
    found = [line for _, _, line in code.co_lines() if line is not None]
    for const in code.co_consts:
        if hasattr(const, "co_lines"):
            found.extend(_code_lines(const))
    return found


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


__all__ = ["KernelSource", "load_source", "parsed_source", "source_text", "is_jit", "jit_name", "python_function",
           "JIT_ATTR"]
