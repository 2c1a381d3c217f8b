"""Errors a user sees.  Each says what is wrong, where, and what is allowed."""

from __future__ import annotations

import linecache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a leaf: errors.py imports nothing from kernellab at run time
    from .ir.core import Location


class KernelLabError(Exception):
    """Base of kernellab's own errors."""


class CompilationError(KernelLabError):
    """A kernel cannot be compiled.  The message names the kernel's file and line (and, as
    Triton's messages do, the line and column counted from the kernel's ``def``), shows the line
    with a caret under the offending expression, and says what is wrong.

    ``str(error)`` looks like::

        /home/me/kernels.py:12:11: in add_kernel at 3:10:
            offs = tl.arange(0, n)
                   ^
        arange's bounds must be tl.constexpr ...

    As in Triton, an error raised by a language function (``tl.arange``, ``x.to``...) has that
    function's exception as ``__cause__``, and an error inside a called jit function is reported
    at the call, with the callee's error (at its line) as ``__cause__``.
    """

    def __init__(self, message: str, loc: Location | None = None, function: str | None = None,
                 source_line: str | None = None, position: tuple[int, int] | None = None):
        self.message = message
        self.loc = loc
        self.function = function
        self.position = position  # (line, column) from the def line (1) and its indent (0)
        if source_line is None and loc is not None and loc.line > 0:
            source_line = linecache.getline(loc.file, loc.line).rstrip("\n") or None
        self.source_line = source_line
        super().__init__(self.render())

    @property
    def error_message(self) -> str:
        """The message alone (Triton's attribute of that name)."""
        return self.message

    def render(self) -> str:
        parts = []
        if self.loc is not None and self.loc.line > 0:
            parts.append(f"{self.loc.file}:{self.loc.line}:{self.loc.col + 1}:")
        if self.function:
            parts.append(f"in {self.function}")
        if self.position is not None:
            parts.append(f"at {self.position[0]}:{self.position[1]}")
        head = " ".join(parts)
        head = head if not head or head.endswith(":") else head + ":"
        if self.source_line is None or self.loc is None:
            return f"{head} {self.message}" if head else self.message
        stripped = self.source_line.lstrip()
        caret = " " * max(0, self.loc.col - (len(self.source_line) - len(stripped)))
        return f"{head}\n    {stripped}\n    {caret}^\n{self.message}"


class CompileTimeAssertionFailure(CompilationError):
    """A ``tl.static_assert`` failed while the kernel compiled (Triton's class of that name)."""


class UnsupportedLanguageConstruct(CompilationError):
    """The kernel uses Python syntax kernels do not support (``try``, ``lambda``, a nested
    ``def``...); the message says what to write instead."""


class OutOfResources(KernelLabError):
    """A compiled kernel needs more of a device resource than the device has."""

    def __init__(self, required: int, limit: int, name: str):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(f"out of resource: {name}, Required: {required}, Hardware limit: {limit}. "
                         "Reducing block sizes or `num_stages` may help.")  # Triton's words


class AutotunerError(KernelLabError):
    """Autotuning cannot go on (e.g. pruning left no config to try)."""


class LaunchError(KernelLabError):
    """A launch cannot run as asked (bad grid, wrong arguments, array on the wrong device)."""


class OptionValueError(LaunchError, ValueError):
    """A compile or launch option has a value no target accepts (``num_warps=0``...); the message
    names the kernel and what is allowed (a ValueError, as before)."""


class InterpreterError(KernelLabError):
    """A kernel did something invalid while the interpreter ran it (out-of-bounds access,
    failed device_assert...)."""


class KernelAssertionError(InterpreterError):
    """A ``tl.device_assert`` failed while a compiled kernel ran (the CPU target): the message
    names the kernel, the assertion's source line, the program id and the element."""


_INTERPRETED: dict[type, type] = {}


def interpreted(error: CompilationError) -> CompilationError:
    """``error``, raised while compiling for the interpret target, made an :class:`InterpreterError`
    too (a subclass of both its class and InterpreterError): Triton's interpreter reports a kernel's
    errors as InterpreterError, so code written for it (``pytest.raises(InterpreterError)``) and
    code written for compiled Triton (``except CompilationError``) both catch it."""
    cls = type(error)
    if issubclass(cls, InterpreterError):
        return error
    if cls not in _INTERPRETED:
        _INTERPRETED[cls] = type(cls.__name__, (cls, InterpreterError), {"__module__": cls.__module__,
                                                                          "__qualname__": cls.__qualname__})
    error.__class__ = _INTERPRETED[cls]
    return error


class KernelArgumentError(KernelLabError, TypeError):
    """A kernel was called with arguments it does not take (a TypeError, as Python's own)."""


def without_frames(error: BaseException) -> BaseException:
    """``error`` and the errors it was raised from (``__cause__``), without their tracebacks:
    how kernellab's entry points re-raise a kernel's error (its message points at the kernel's
    line; kernellab's own frames say nothing to its author).  Returns ``error``."""
    seen = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__traceback__ = None
        link = link.__cause__
    return error


def user_errors(full_tracebacks: bool) -> tuple[type[BaseException], ...]:
    """The errors that report a mistake in the user's kernel or launch.  At kernellab's entry
    points they are re-raised without kernellab's own frames in the traceback (the message
    already points at the kernel's line); none with ``full_tracebacks``
    (``KERNELLAB_TRACEBACK=full``: ``config.full_tracebacks()``, which the callers pass)."""
    if full_tracebacks:
        return ()
    return (CompilationError, InterpreterError, LaunchError, OutOfResources, KernelArgumentError)
