"""A kernel's native launch functions, as its binder sees them (:class:`NativeLaunches`).

The binder calls it after each Python launch.  A specialization's first launch is only noted;
from its second on, the launch is described and a native function made (``fastpath``, which
this module imports then: a process launching each kernel once never loads the native path).
"""

from __future__ import annotations

from typing import Any

MAX_SPECIALIZATIONS = 4


class NativeLaunches:
    """One kernel's native launch functions; called by its binder after each Python launch.

    A function is made per binder key and the exact types of the arguments (one key may be
    reached by numpy arrays and torch CPU tensors, or by DeviceArrays and CUDA tensors, which
    the generated code reads differently; a tuple's elements count too)."""

    def __init__(self, jit: Any):
        self.jit = jit
        self.installed: dict[tuple, Any] = {}   # which -> the native function's data (fastpath.Data)
        self.refused: dict[tuple, str] = {}
        self.seen: set[tuple] = set()  # launched once through Python

    def __call__(self, key: tuple, kernel: Any, arguments: tuple, options: tuple, stream: Any) -> None:
        which = (key, tuple(map(_types, arguments)))
        data = self.installed.get(which)
        if data is not None:
            data.refresh_environment()  # the reason the native function passed it on, perhaps
            return
        if which in self.refused or len(self.installed) >= MAX_SPECIALIZATIONS:
            return
        if which not in self.seen:
            self.seen.add(which)
            return
        native_tail = getattr(kernel.launcher, "native_tail", None)
        tail = native_tail() if native_tail is not None else None
        if tail is not None:
            self._install(which, key, kernel, arguments, options, tail)

    def _install(self, which: tuple, key: tuple, kernel: Any, arguments: tuple, options: tuple, tail: dict) -> None:
        from ...backends.cpu import objload
        from . import capi, fastpath

        if not fastpath.enabled():
            return
        try:
            shape, builder = fastpath.describe(self.jit, key, kernel, arguments, options, tail)
            data = fastpath.fill(shape, builder, kernel, self.jit.launch_head())
            function = capi.make_function(fastpath.code_for(shape), data.words, f"{self.jit.__name__}[grid]")
        except (fastpath.NotNative, objload.UnsupportedObject) as reason:
            self.refused[which] = str(reason)
            return
        self.installed[which] = data
        self.jit.set_launch_head(function)
        try:
            fastpath.install_getitem(type(self.jit))
        except objload.UnsupportedObject:
            pass  # kernel[grid] stays a Python method

    def clear(self) -> None:
        self.installed.clear()
        self.refused.clear()
        self.seen.clear()


def _types(argument: Any) -> Any:
    """The exact type of an argument (of a tuple's elements too: the native function reads each
    element by its type)."""
    if isinstance(argument, tuple):
        return (type(argument), tuple(map(_types, argument)))
    return type(argument)


__all__ = ["NativeLaunches", "MAX_SPECIALIZATIONS"]
