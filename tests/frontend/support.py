"""Helpers for frontend tests: a minimal jit object (what ``lower`` needs: ``__kernellab_jit__``,
``.fn``, ``.noinline``), lowering to printed IR, catching compilation errors, running a module
in the interpreter."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from kernellab.errors import CompilationError
from kernellab.frontend import lower
from kernellab.ir import types as T
from kernellab.ir.printer import print_module, print_with_locations
from kernellab.ir.verifier import verify
from kernellab.language.semantics import SemanticOptions


class MiniJit:
    """The smallest object ``lower`` accepts as a jit function."""

    __kernellab_jit__ = True

    def __init__(self, fn: Callable, noinline: bool = False):
        self.fn = fn
        self.noinline = noinline

    def __repr__(self) -> str:
        return f"MiniJit({self.fn.__name__})"


def jit(fn: Callable | None = None, *, noinline: bool = False):
    if fn is None:
        return lambda f: MiniJit(f, noinline)
    return MiniJit(fn, noinline)


def module_of(kernel: MiniJit, signature: dict[str, Any] | None = None, debug: bool = False, arg_attrs=None,
              **constexprs: Any):
    """Lower ``kernel`` and verify the module."""
    module = lower(kernel, dict(signature or {}), constexprs, arg_attrs or {}, SemanticOptions(debug=debug))
    verify(module)
    return module


def ir(kernel: MiniJit, signature: dict[str, Any] | None = None, **constexprs: Any) -> str:
    """The printed IR of ``kernel`` lowered with ``signature`` and ``constexprs``."""
    return print_module(module_of(kernel, signature, **constexprs))


def lowering_error(kernel: MiniJit, signature: dict[str, Any] | None = None, **constexprs: Any) -> CompilationError:
    """The CompilationError that lowering ``kernel`` raises (fails the test if none)."""
    with pytest.raises(CompilationError) as info:
        lower(kernel, dict(signature or {}), constexprs, {}, SemanticOptions())
    error = info.value
    assert error.__context__ is None or error.__suppress_context__, "no compiler-internal traceback may be chained"
    cause = error.__cause__
    if isinstance(cause, CompilationError):  # an error in a callee: reported at the call, caused by the callee's
        assert error.message.startswith("in the call to ") and cause.message in error.message
    elif cause is not None:  # a language function's error (as Triton's): its message is the error's
        assert str(cause) in error.message
    return error


def line_of(fn: MiniJit, marker: str) -> int:
    """The file line of the first line of ``fn``'s body that contains ``marker``."""
    lines, first = inspect.getsourcelines(fn.fn)
    for offset, text in enumerate(lines):
        if marker in text and offset > _header_length(lines):
            return first + offset
    raise AssertionError(f"{marker!r} not in the source of {fn}")


def _header_length(lines: list[str]) -> int:
    """The index of the ``def`` line (after decorators)."""
    return next(i for i, text in enumerate(lines) if text.lstrip().startswith("def "))


def ops_at_line(module, line: int) -> list[str]:
    """Names of the ops whose location is ``line``."""
    return [op.name for op in module.walk() if op.loc.line == line]


def locations(module) -> list[tuple[int, Any]]:
    return print_with_locations(module)[1]


def run(module, grid, *args) -> None:
    """Run ``module`` in the interpreter backend."""
    interpreter = pytest.importorskip("kernellab.backends.interpreter")
    interpreter.run(module, grid, list(args))


def poisoned(n: int, dtype=np.float32) -> np.ndarray:
    return np.full(n, np.nan if np.dtype(dtype).kind == "f" else -7, dtype)


F32_PTR = T.pointer(T.f32)
I32_PTR = T.pointer(T.i32)
