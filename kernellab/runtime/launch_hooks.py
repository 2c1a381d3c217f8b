"""Triton's launch and load hooks: ``knobs.runtime.launch_enter_hook`` / ``launch_exit_hook``
(profilers: called around every launch with a :class:`LazyDict` of the launch's metadata) and
``kernel_load_start_hook`` / ``kernel_load_end_hook`` (called around loading a compiled kernel
with ``(module, function, name, metadata_group, hash)``).

With no launch hook set the launch path has no code for them: kernellab's knobs call
:func:`changed` when a hook chain is set, added to or emptied, and when launches start or stop
needing hooks, every kernel's launch path is made again (``JITFunction.reset_launch_path``):
the binder a kernel then generates calls :func:`launch` instead of launching itself, and no
native launch function is made while hooks are set.  The load hooks cost one dictionary lookup
per kernel loaded (``compiled.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class LazyDict:
    """Triton's launch metadata: ``get()`` gives the dict, with what the kernel's
    ``launch_metadata`` function adds computed on the first ``get()`` only."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.extras: list[tuple[Callable, tuple]] = []

    def add(self, func: Callable, args: tuple) -> None:
        self.extras.append((func, args))

    def get(self) -> dict[str, Any]:
        for func, args in self.extras:
            self.data = self.data | func(*args)
        self.extras.clear()
        return self.data


# The hooks set now (None for each that is not): launch enter, launch exit, load start, load end.
enter_hook: Callable | None = None
exit_hook: Callable | None = None
load_start_hook: Callable | None = None
load_end_hook: Callable | None = None


def launching_with_hooks() -> bool:
    """Whether launches call hooks (a launch enter or exit hook is set)."""
    return enter_hook is not None or exit_hook is not None


def _set(hook: Any) -> Callable | None:
    """A knob's hook (a HookChain, a function, None) as what a launch calls: None when empty."""
    return hook if callable(hook) and bool(hook) else None


def changed() -> None:
    """Read the hooks from ``kernellab.knobs`` again; when launches start or stop needing them,
    make every kernel's launch path again."""
    global enter_hook, exit_hook, load_start_hook, load_end_hook
    knobs = sys.modules.get("kernellab.knobs")
    if knobs is None:
        return
    before = launching_with_hooks()
    runtime = knobs.runtime
    enter_hook, exit_hook = _set(runtime.launch_enter_hook), _set(runtime.launch_exit_hook)
    load_start_hook, load_end_hook = _set(runtime.kernel_load_start_hook), _set(runtime.kernel_load_end_hook)
    if launching_with_hooks() != before:
        _reset_launch_paths()


def _reset_launch_paths() -> None:
    jit = sys.modules.get("kernellab.runtime.jit")
    if jit is None:
        return  # no kernel yet
    for kernel in list(jit.live_kernels()):
        reset = getattr(kernel, "reset_launch_path", None)
        if reset is not None:
            reset()


def launch(launch_metadata: Callable | None, kernel: Any, grid: Any, values: tuple, args: tuple, stream: Any,
           arguments: dict[str, Any]) -> None:
    """One launch from a binder made while hooks are set: the enter hook, the launch, the exit
    hook (not called when the launch raises, as in Triton).  ``arguments``: every argument by
    name (constexprs too), for the kernel's ``launch_metadata(grid, metadata, arguments)``."""
    metadata = metadata_of(kernel, grid, stream, arguments, launch_metadata)
    around(metadata, lambda: kernel._run(grid, values, args, stream))


def around(metadata: LazyDict, run: Callable[[], None]) -> None:
    """``run()`` (a launch) between the enter and exit hooks set now."""
    enter, leave = enter_hook, exit_hook
    if enter is not None:
        enter(metadata)
    run()
    if leave is not None:
        leave(metadata)


def metadata_of(kernel: Any, grid: Any, stream: Any, arguments: dict[str, Any],
                launch_metadata: Callable | None) -> LazyDict:
    """Triton's ``CompiledKernel.launch_metadata``: name, function handle and stream of the
    launch, and what the jit's ``launch_metadata`` function returns (computed when read)."""
    launcher = kernel.launcher
    found = LazyDict({"name": kernel.name, "function": getattr(launcher, "function", None),
                      "stream": _stream(kernel, launcher, stream)})
    if launch_metadata is not None:
        found.add(launch_metadata, (grid, kernel.metadata, arguments))
    return found


def _stream(kernel: Any, launcher: Any, stream: Any) -> Any:
    """The stream the launch goes on: the one given, else the current one (0 on the host)."""
    if stream is not None:
        return stream
    current = getattr(launcher, "current_stream", None)
    return current() if current is not None else 0


def loading(kernel: Any, load: Callable[[], Any]) -> Any:
    """``load()`` (which loads ``kernel`` and returns its launcher) between the load hooks."""
    start, end = load_start_hook, load_end_hook
    name, group, key = kernel.name, metadata_group(kernel), kernel.hash
    if start is not None:
        start(None, None, name, group, key)
    launcher = load()
    if end is not None:
        end(getattr(launcher, "module", None), getattr(launcher, "function", None), name, group, key)
    return launcher


def metadata_group(kernel: Any) -> dict[str, str]:
    """Triton's ``metadata_group``: file name -> path of the kernel's files in the disk cache
    (empty when the kernel is not there)."""
    from . import compiler

    cache, key = compiler.disk_cache(), kernel.hash
    if cache is None or not key:
        return {}
    folder = cache.entry(key)
    try:
        return {path.name: str(path) for path in sorted(folder.iterdir())}
    except OSError:
        return {}


__all__ = ["LazyDict", "changed", "launch", "around", "metadata_of", "loading", "metadata_group",
           "launching_with_hooks"]
