"""Kernel-source patching (Triton's ``JITFunction._unsafe_update_src``): a new Python function
made from edited source text, living in the original function's module.

The text is registered in ``linecache`` under its own name (``<kernellab-patched NAME HASH>``),
so the frontend reads it as it reads a file, and compile errors point at the patched lines.
Decorators in the text are dropped (the JITFunction that is patched is the decoration).

A kernel defined by ``exec(text)`` has no file to read its source from; when the string that
``exec`` ran is still held by a caller (a local variable of one of the frames that led to the
decoration, as a test helper that edits a kernel's text and executes it has), the kernel is
made again from its ``def`` in that string (:func:`recovered_exec_function`; the string may
define other functions too, as a kernel and its helpers).  The string is taken only when
compiling it gives the kernel's exact bytecode, so it is the text the kernel was made from.
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import sys
import textwrap
import types
from collections.abc import Callable, Iterator

from ..errors import CompilationError
from ..frontend.source import parse_python
from ..ir.core import Location


def patched_function(fn: Callable, new_src: str) -> types.FunctionType:
    """A function defined by ``new_src`` (one ``def``), with ``fn``'s globals."""
    if not isinstance(new_src, str):
        raise TypeError(f"the new source of `{fn.__name__}` must be a str, got {type(new_src).__name__}")
    text = textwrap.dedent(new_src)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    filename = f"<kernellab-patched {fn.__name__} {digest}>"
    try:
        tree = parse_python(text, filename)
    except SyntaxError as error:
        raise CompilationError(f"the patched source of `{fn.__name__}` is not valid Python: {error.msg}",
                               Location(filename, error.lineno or 0, max(0, (error.offset or 1) - 1)),
                               fn.__name__, error.text.rstrip("\n") if error.text else None) from None
    defs = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(defs) != 1:
        raise ValueError(f"the patched source of `{fn.__name__}` must define exactly one function, "
                         f"it defines {len(defs)}")
    defs[0].decorator_list = []
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    freevars = fn.__code__.co_freevars
    if freevars:
        _nest_in_scope(tree, defs[0], freevars)
    namespace: dict = {}
    exec(compile(tree, filename, "exec"), fn.__globals__, namespace)  # noqa: S102 - the user's own kernel text
    new = namespace[_SCOPE]() if freevars else namespace[defs[0].name]
    if freevars:
        new = _sharing_cells(new, fn)
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    return new


# The function that holds a patched closure kernel's definition (see _nest_in_scope).
_SCOPE = "__kernellab_patch_scope"


def _nest_in_scope(tree: ast.Module, definition: ast.FunctionDef, freevars: tuple[str, ...]) -> None:
    """Move ``definition`` into a function that assigns each of ``freevars`` and returns it, so
    that the new kernel reads those names from enclosing cells as the original did (Triton keeps a
    patched kernel's closure variables too).  The kernel's lines keep their numbers."""
    where = {"lineno": definition.lineno, "col_offset": 0, "end_lineno": definition.lineno, "end_col_offset": 0}
    names = [ast.Name(id=name, ctx=ast.Store(), **where) for name in freevars]
    assign = ast.Assign(targets=names, value=ast.Constant(value=None, **where), **where)
    result = ast.Return(value=ast.Name(id=definition.name, ctx=ast.Load(), **where), **where)
    scope = ast.FunctionDef(name=_SCOPE, args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                                            kw_defaults=[], defaults=[]),
                            body=[assign, definition, result], decorator_list=[], returns=None,
                            type_comment=None, **{**where, "end_lineno": definition.end_lineno})
    tree.body[tree.body.index(definition)] = scope
    ast.fix_missing_locations(tree)


def _sharing_cells(new: types.FunctionType, fn: Callable) -> types.FunctionType:
    """``new`` with the cells of ``fn``'s closure in place of the scope's placeholders."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[name] for name in new.__code__.co_freevars)
    shared = types.FunctionType(new.__code__, new.__globals__, new.__name__, new.__defaults__, closure)
    shared.__kwdefaults__ = new.__kwdefaults__
    shared.__annotations__ = new.__annotations__  # tl.constexpr parameters stay constexpr
    shared.__doc__ = new.__doc__
    return shared


# How many frames above the decoration are searched for the string ``exec`` ran.
_FRAMES_SEARCHED = 8


def has_readable_source(fn: Callable) -> bool:
    """Whether ``fn``'s file (or the text registered in ``linecache`` for it) can be read."""
    filename = fn.__code__.co_filename
    return not (filename.startswith("<") and filename.endswith(">")) or bool(linecache.getlines(filename))


def recovered_exec_function(fn: types.FunctionType) -> types.FunctionType | None:
    """``fn`` made again from the ``exec``'d text that defined it, or None when no caller holds
    that text (or ``fn`` closes over variables, which a new function could not share)."""
    if fn.__closure__ or has_readable_source(fn):
        return None
    code = fn.__code__
    for text in _caller_strings(f"def {code.co_name}("):
        if _defines(text, code):
            return patched_function(fn, _definition_text(text, code))
    return None


def _definition_text(text: str, code: types.CodeType) -> str:
    """The ``def`` of ``code`` in ``text`` (which may define other functions too), dedented."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == code.co_name \
                and min([node.lineno, *(d.lineno for d in node.decorator_list)]) == code.co_firstlineno:
            return textwrap.dedent(ast.get_source_segment(text, node, padded=True) or text)
    return text


def _caller_strings(needle: str) -> Iterator[str]:
    frame = sys._getframe(1)
    for _ in range(_FRAMES_SEARCHED):
        if frame is None:
            return
        for value in list(frame.f_locals.values()):
            if isinstance(value, str) and needle in value:
                yield value
        frame = frame.f_back


def _defines(text: str, code: types.CodeType) -> bool:
    """Whether compiling ``text`` (as ``exec`` did) makes a function whose code is ``code``."""
    try:
        module = compile(text, code.co_filename, "exec")
    except (SyntaxError, ValueError):
        return False
    return any(_same_code(found, code) for found in _nested_code(module))


def _nested_code(code: types.CodeType) -> Iterator[types.CodeType]:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _nested_code(const)


def _same_code(a: types.CodeType, b: types.CodeType) -> bool:
    return (a.co_name, a.co_firstlineno, a.co_code, a.co_names, a.co_varnames) == \
        (b.co_name, b.co_firstlineno, b.co_code, b.co_names, b.co_varnames)


__all__ = ["patched_function", "recovered_exec_function", "has_readable_source"]
