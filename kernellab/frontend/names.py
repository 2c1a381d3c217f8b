"""Names a kernel reads from outside itself: its closure, its module's globals, Python's
builtins.  Only values that mean something at compile time may be read (see
:func:`check_readable`)."""

from __future__ import annotations

import builtins
import enum
import inspect
import numbers
import types
from collections.abc import Callable, Iterable
from typing import Any

from ..ir.types import Type
from ..language.core import constexpr, is_builtin, is_constexpr_function
from .source import is_jit

_MISSING = object()


class OuterNames:
    """Resolves the free names of one Python function (closure first, then globals, then
    builtins), as Python would."""

    def __init__(self, fn: Callable):
        self.fn = fn
        self.globals: dict[str, Any] = fn.__globals__
        self.closure: dict[str, Any] = _closure_values(fn)

    def lookup(self, name: str) -> Any:
        """The value of ``name``, or ``MISSING``."""
        if name in self.closure:
            return self.closure[name]
        if name in self.globals:
            return self.globals[name]
        return getattr(builtins, name, _MISSING)

    def where(self, name: str) -> str:
        """'closure', 'global' or 'builtin' (for messages and dependency records)."""
        if name in self.closure:
            return "closure"
        if name in self.globals:
            return "global"
        return "builtin"

    def candidates(self) -> Iterable[str]:
        return list(self.closure) + list(self.globals)


def _closure_values(fn: Callable) -> dict[str, Any]:
    cells = fn.__closure__ or ()
    values = {}
    for name, cell in zip(fn.__code__.co_freevars, cells):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # an empty cell: the variable is not assigned yet
            continue
    return values


MISSING = _MISSING


def is_plain_constant(value: Any) -> bool:
    """Numbers, bools, strings, None and tuples of those."""
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return True
    if isinstance(value, tuple):
        return all(is_plain_constant(v) for v in value)
    return False


def is_compile_time_object(value: Any) -> bool:
    """Modules, classes, dtypes, jit functions, builtins and other functions (calls to plain
    functions are rejected where they are called, with a message saying how to fix it)."""
    return (isinstance(value, (types.ModuleType, type, Type, constexpr, enum.Enum))
            or is_jit(value) or is_builtin(value) or is_constexpr_function(value)
            or callable(value) and (inspect.isroutine(value) or inspect.isclass(value)))


def check_readable(name: str, value: Any, where: str) -> None:
    """Raise if a kernel may not read ``value`` (named ``name``) from outside itself."""
    if is_plain_constant(value) or is_compile_time_object(value):
        return
    raise NameError(f"the {where} variable `{name}` holds a value of type {type(value).__name__}, which a kernel "
                    "cannot read; "
                    "kernels can read jit functions, modules, dtypes, tl.constexpr values and plain numbers, "
                    "bools, strings and tuples of them. Pass it as a kernel argument instead")


def undefined_name_message(name: str, local: Iterable[str], outer: Iterable[str],
                           usable_builtins: Iterable[str]) -> str:
    """``name 'foo' is not defined`` with the closest known names (the function's own names
    first, then its globals and the builtins kernels may use)."""
    import difflib  # an error's message only

    close = difflib.get_close_matches(name, sorted(set(local)), n=3, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name, sorted(set(outer) | set(usable_builtins)), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else ""
    return f"name '{name}' is not defined{hint}"


__all__ = ["OuterNames", "MISSING", "is_plain_constant", "is_compile_time_object", "check_readable",
           "undefined_name_message"]
