"""CUDA graphs through kernellab's driver: capture the launches of a Python function once,
replay them with one ``cuGraphLaunch`` (``kernellab.testing.do_bench_cudagraph`` without torch).

The capture runs on a stream of its own (non-blocking), made current for kernellab's launches
with :func:`driver.launches_on`.  A call that cannot be captured (a synchronizing one, a copy to
the host) fails the capture, and :class:`CaptureFailed` says so; work given another stream
explicitly is not captured (it runs when the function is captured, not when the graph replays).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from . import driver

STREAM_NON_BLOCKING = 1
CAPTURE_MODE_THREAD_LOCAL = 1


class CaptureFailed(driver.CudaError):
    """The launches of the captured function could not be recorded into a graph."""


class Graph:
    """Launches captured from a stream of its own, replayed by :meth:`replay` on that stream.
    :meth:`time_replays_ms` times replays with CUDA events.  Release with :meth:`close`."""

    def __init__(self, ordinal: int, stream: int, graph: int, executable: int):
        self.ordinal = ordinal
        self.stream = stream
        self._graph = graph
        self._executable = executable

    def replay(self) -> None:
        driver.call("cuGraphLaunch", ctypes.c_void_p(self._executable), ctypes.c_void_p(self.stream))

    def time_replays_ms(self, replays: int) -> list[float]:
        """Each replay's time in milliseconds (events recorded on the graph's stream)."""
        times = []
        for _ in range(replays):
            start, end = driver.event_create(), driver.event_create()
            try:
                driver.event_record(start, self.stream)
                self.replay()
                driver.event_record(end, self.stream)
                times.append(driver.event_elapsed_ms(start, end))
            finally:
                driver.event_destroy(start)
                driver.event_destroy(end)
        return times

    def close(self) -> None:
        if self._executable:
            driver.call("cuStreamSynchronize", ctypes.c_void_p(self.stream))
            driver.call("cuGraphExecDestroy", ctypes.c_void_p(self._executable))
            driver.call("cuGraphDestroy", ctypes.c_void_p(self._graph))
            driver.call("cuStreamDestroy_v2", ctypes.c_void_p(self.stream))
            self._executable = 0

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def capture(fn: Callable[[], Any], ordinal: int = 0) -> Graph:
    """Run ``fn`` once with kernellab's launches captured (not executed) into a graph on device
    ``ordinal``.  :class:`CaptureFailed` when a launch escaped the capture stream or the driver
    refused an operation during the capture; the stream is released then."""
    driver.activate(ordinal)
    stream = ctypes.c_void_p()
    driver.call("cuStreamCreate", ctypes.byref(stream), STREAM_NON_BLOCKING)
    graph = ctypes.c_void_p()
    try:
        _record(fn, stream, graph)
        executable = ctypes.c_void_p()
        driver.call("cuGraphInstantiateWithFlags", ctypes.byref(executable), graph, 0)
    except BaseException:
        if graph.value:
            driver.entry_point("cuGraphDestroy")(graph)
        driver.entry_point("cuStreamDestroy_v2")(stream)
        raise
    return Graph(ordinal, stream.value, graph.value, executable.value)


def _record(fn: Callable[[], Any], stream: ctypes.c_void_p, graph: ctypes.c_void_p) -> None:
    driver.call("cuStreamBeginCapture_v2", stream, CAPTURE_MODE_THREAD_LOCAL)
    try:
        with driver.launches_on(stream.value):
            fn()
    except driver.CudaError as error:
        driver.entry_point("cuStreamEndCapture")(stream, ctypes.byref(graph))
        raise CaptureFailed(error.call, error.code, "a CUDA call of the captured function failed during the "
                            "capture: synchronizing calls, copies to the host and allocations cannot be captured "
                            "(kernellab captures the launches that go on its current stream)") from error
    except BaseException:
        driver.entry_point("cuStreamEndCapture")(stream, ctypes.byref(graph))
        raise
    code = driver.entry_point("cuStreamEndCapture")(stream, ctypes.byref(graph))
    if code != driver.SUCCESS:
        raise CaptureFailed("cuStreamEndCapture", code, "the capture was invalidated: some work of the captured "
                            "function went on another stream (the legacy default stream, or a stream given to a "
                            "launch), which a graph capture does not allow")


__all__ = ["Graph", "CaptureFailed", "capture"]
