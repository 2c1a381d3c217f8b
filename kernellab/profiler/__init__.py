"""``kernellab.profiler`` (Triton's ``triton.profiler``, "proton", through the alias): sessions
that record the scopes a program enters and the kernels it launches, with their times and
metrics, into a ``.hatchet`` file that ``python -m kernellab.profiler.viewer`` shows as a tree
(``-m time/ms,tflop16/s``).  Triton's tutorials use it so::

    proton.start("matmul", hook="triton")     # hook="triton": record kernellab's launches
    proton.deactivate()
    ...
    proton.activate(0)
    with proton.scope("cublas", {"flops16": 2 * M * N * K}):
        torch.matmul(a, b)
    kernel[grid](...)                         # a frame with its launch_metadata's flops/bytes
    proton.deactivate(0)
    proton.finalize()                         # writes matmul.hatchet

How times are measured is in ``session.py`` (CUDA events around each launch on the GPU, wall
time on the host).  Proton's other backends (CUPTI activity and PC sampling, instrumentation,
roctracer), its ``context="python"`` frames and its trace output are not here: asking for them is
a ``ValueError``."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from .session import PROFILER, Session

DEFAULT_PROFILE_NAME = "proton"
_sessions_made = [0]


def _refresh_hooks() -> None:
    """The profiler's launch hooks on Triton's launch-hook knobs while a session records launches
    (``hook="triton"``), off otherwise (launches then take their path without hooks)."""
    from .. import knobs

    on = any(s.hook for s in PROFILER.sessions.values())
    for chain, hook in ((knobs.runtime.launch_enter_hook, PROFILER.launch_enter),
                        (knobs.runtime.launch_exit_hook, PROFILER.launch_exit)):
        (chain.add if on else chain.remove)(hook)


def start(name: str | None = None, *, context: str | None = "shadow", data: str | None = "tree",
          backend: str | None = None, mode: Any = None, hook: str | None = None) -> int:
    """Start a session recording into ``<name>.hatchet`` (default ``proton.hatchet``); active
    at once.  ``hook="triton"`` records kernellab's kernel launches.  Returns its number."""
    for option, value, allowed in (("context", context, (None, "shadow")), ("data", data, (None, "tree")),
                                   ("backend", backend, (None, "cupti", "kernellab")), ("mode", mode, (None,)),
                                   ("hook", hook, (None, "triton", "launch"))):
        if value not in allowed:
            raise ValueError(f"kernellab's profiler takes {option} in {allowed}, not {value!r}")
    with PROFILER.lock:
        number = _sessions_made[0]
        _sessions_made[0] += 1
        PROFILER.sessions[number] = Session(number, name or DEFAULT_PROFILE_NAME, hook is not None)
    _refresh_hooks()
    return number


def _chosen(session: int | None) -> list[Session]:
    if session is None:
        return list(PROFILER.sessions.values())
    if session not in PROFILER.sessions:
        raise ValueError(f"no profiling session {session} (open: {sorted(PROFILER.sessions)})")
    return [PROFILER.sessions[session]]


def activate(session: int | None = None) -> None:
    """Record into ``session`` (every session when None) again."""
    with PROFILER.lock:
        for chosen in _chosen(session):
            chosen.active = True


def deactivate(session: int | None = None) -> None:
    """Stop recording into ``session`` (every session when None); what it holds stays."""
    with PROFILER.lock:
        for chosen in _chosen(session):
            chosen.active = False
            chosen.settle()


def finalize(session: int | None = None, output_format: str | None = "") -> None:
    """Write ``session``'s file (every session's when None) and end it."""
    if output_format not in ("", None, "hatchet"):
        raise ValueError(f"kernellab's profiler writes hatchet files, not {output_format!r}")
    with PROFILER.lock:
        for chosen in _chosen(session):
            chosen.write()
            del PROFILER.sessions[chosen.number]
    _refresh_hooks()


def profile(func: Callable | None = None, *, name: str | None = None, context: str | None = "shadow",
            data: str | None = "tree", backend: str | None = None, mode: Any = None,
            hook: str | None = None) -> Callable:
    """Decorator: each call of the function starts a session and deactivates it at the end."""
    def decorate(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            session = start(name, context=context, data=data, backend=backend, mode=mode, hook=hook)
            result = f(*args, **kwargs)
            deactivate(session)
            return result
        return wrapper
    return decorate if func is None else decorate(func)


def _profiling() -> bool:
    return bool(PROFILER.sessions)


class scope:
    """``with scope(name, metrics):`` (or ``@scope(name, metrics)``): a frame around what runs
    inside, with ``metrics`` (``{"flops16": ..., "bytes": ...}``) added to it."""

    def __init__(self, name: str, metrics: dict[str, Any] | None = None) -> None:
        self.name = name
        self.metrics = metrics
        self.entered = False

    def _enter_scope(self) -> None:
        self.entered = _profiling()
        if self.entered:
            PROFILER.enter_scope(self.name, self.metrics)

    def _exit_scope(self) -> None:
        if self.entered:
            PROFILER.exit_scope(self.name, None)
            self.entered = False

    def __enter__(self) -> scope:
        self._enter_scope()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._exit_scope()

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self._enter_scope()
            try:
                return func(*args, **kwargs)
            finally:
                self._exit_scope()
        return wrapper


class cpu_timed_scope(scope):
    """A scope that also records its host time as ``cpu_time (ns)``."""

    def __init__(self, name: str, metrics: dict[str, Any] | None = None) -> None:
        if metrics and "cpu_time" in metrics:
            raise ValueError("The metric name 'cpu_time' is reserved.")
        super().__init__(name, metrics)
        self.started = 0

    def _enter_scope(self) -> None:
        self.started = time.perf_counter_ns()
        super()._enter_scope()

    def _exit_scope(self) -> None:
        if self.entered:
            PROFILER.exit_scope(self.name, {"cpu_time (ns)": time.perf_counter_ns() - self.started})
            self.entered = False


def enter_scope(name: str, *, metrics: dict[str, Any] | None = None) -> int | None:
    if not _profiling():
        return None
    PROFILER.enter_scope(name, metrics)
    return len(PROFILER.stack)


def exit_scope(name: str | None = None, *, metrics: dict[str, Any] | None = None) -> int | None:
    if not _profiling():
        return None
    depth = len(PROFILER.stack)
    PROFILER.exit_scope(name, metrics)
    return depth


__all__ = ["start", "activate", "deactivate", "finalize", "profile", "scope", "cpu_timed_scope", "enter_scope",
           "exit_scope", "DEFAULT_PROFILE_NAME"]
