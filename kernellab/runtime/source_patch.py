"""Kernel-source patching (Triton's ``JITFunction._unsafe_update_src``): a new Python function
made from edited source text, living in the original function's module.

The text is registered in ``linecache`` under its own name (``<kernellab-patched NAME HASH>``),
so the frontend reads it as it reads a file, and compile errors point at the patched lines.
Decorators in the text are dropped (the JITFunction that is patched is the decoration).
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import textwrap
import types
from collections.abc import Callable

from ..errors import CompilationError
from ..ir.core import Location


def patched_function(fn: Callable, new_src: str) -> types.FunctionType:
    """A function defined by ``new_src`` (one ``def``), with ``fn``'s globals."""
    if not isinstance(new_src, str):
        raise TypeError(f"the new source of `{fn.__name__}` must be a str, got {type(new_src).__name__}")
    text = textwrap.dedent(new_src)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    filename = f"<kernellab-patched {fn.__name__} {digest}>"
    try:
        tree = ast.parse(text, filename)
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
    namespace: dict = {}
    exec(compile(tree, filename, "exec"), fn.__globals__, namespace)  # noqa: S102 - the user's own kernel text
    new = namespace[defs[0].name]
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    return new


__all__ = ["patched_function"]
