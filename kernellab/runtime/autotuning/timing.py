"""Timing a function: ``do_bench`` and ``do_bench_cudagraph`` (public as ``kernellab.testing``).

Triton's method: run ``fn`` once, estimate its time from 5 runs, then ``warmup`` ms of
untimed runs and ``rep`` ms of timed ones (at least one of each).  What times a run depends on
where the work happens (``device``):

* ``"cpu"`` (any host target, the interpreter included): a monotonic clock
  (``time.perf_counter``) around each call; host launches are synchronous.
* ``"cuda"``: CUDA events recorded around each call and an L2 flush (a 256 MiB buffer set to
  zero) before each one, through kernellab's CUDA driver when it loads, else through
  ``torch.cuda``.

``device=None`` decides after the first call: ``"cuda"`` when this process has started using
a GPU (kernellab's driver holds a context, or torch has initialised CUDA), else ``"cpu"``.  So
Triton's tutorials time GPU kernels as Triton does, and a CPU-only process never touches a GPU.

Results: ``quantiles`` (a list of floats, one float when a single quantile is asked) or the
``return_mode`` statistic (``min``, ``max``, ``mean``, ``median``, or ``all`` times) of the
timed runs, in milliseconds.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

RETURN_MODES = ("min", "max", "mean", "median", "all")
L2_FLUSH_BYTES = 256 * 1024 * 1024
_ESTIMATE_RUNS = 5
_GRAPH_RETRIES = 10


# ---------------------------------------------------------------------------------------------
# Timers: one per kind of device
# ---------------------------------------------------------------------------------------------

class Timer(Protocol):
    """Times calls on one device: ``start``/``stop`` bracket a call, ``elapsed_ms`` reads the
    pairs back after ``synchronize``; ``flush`` evicts caches before a timed call."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def synchronize(self) -> None: ...

    def elapsed_ms(self) -> list[float]: ...

    def flush(self) -> None: ...


class HostTimer:
    """A monotonic clock around each call (host work is synchronous)."""

    def __init__(self) -> None:
        self._starts: list[float] = []
        self._stops: list[float] = []

    def start(self) -> None:
        self._starts.append(time.perf_counter())

    def stop(self) -> None:
        self._stops.append(time.perf_counter())

    def synchronize(self) -> None:
        return None

    def elapsed_ms(self) -> list[float]:
        times = [(b - a) * 1e3 for a, b in zip(self._starts, self._stops)]
        self._starts, self._stops = [], []
        return times

    def flush(self) -> None:
        return None


class _DriverEvents:
    """CUDA events through kernellab's driver (libcuda via ctypes) on the legacy default stream,
    where kernellab launches go unless torch has made another stream current."""

    def __init__(self, driver: Any):
        self.driver = driver
        self.ordinal = driver.current_device() or 0
        driver.activate(self.ordinal)
        self.stream = driver.current_stream(self.ordinal)  # where launches without a stream go
        self._events: list[int] = []
        self._flush_buffer: int | None = None

    def record(self) -> int:
        event = self.driver.event_create()
        self.driver.event_record(event, self.stream)
        self._events.append(event)
        return event

    def pairs_ms(self) -> list[float]:
        times = [self.driver.event_elapsed_ms(first, second)
                 for first, second in zip(self._events[0::2], self._events[1::2])]
        for event in self._events:
            self.driver.event_destroy(event)
        self._events = []
        return times

    def synchronize(self) -> None:
        self.driver.synchronize(self.ordinal)

    def flush(self) -> None:
        if self._flush_buffer is None:
            self._flush_buffer = self.driver.mem_alloc(L2_FLUSH_BYTES, self.ordinal)
        self.driver.memset_bytes(self._flush_buffer, 0, L2_FLUSH_BYTES)

    def close(self) -> None:
        if self._flush_buffer is not None:
            self.driver.mem_free(self._flush_buffer, self.ordinal)
            self._flush_buffer = None


class _TorchEvents:
    """CUDA events through ``torch.cuda`` (used when kernellab's driver cannot load)."""

    def __init__(self, torch: Any):
        self.torch = torch
        self._events: list[Any] = []
        self._flush_buffer: Any = None

    def record(self) -> Any:
        event = self.torch.cuda.Event(enable_timing=True)
        event.record()
        self._events.append(event)
        return event

    def pairs_ms(self) -> list[float]:
        self.torch.cuda.synchronize()
        times = [float(a.elapsed_time(b)) for a, b in zip(self._events[0::2], self._events[1::2])]
        self._events = []
        return times

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()

    def flush(self) -> None:
        if self._flush_buffer is None:
            self._flush_buffer = self.torch.empty(L2_FLUSH_BYTES, dtype=self.torch.int8, device="cuda")
        self._flush_buffer.zero_()

    def close(self) -> None:
        self._flush_buffer = None


class CudaTimer:
    """CUDA events around each call and an L2 flush before it."""

    def __init__(self) -> None:
        self.events = _cuda_events()

    def start(self) -> None:
        self.events.record()

    def stop(self) -> None:
        self.events.record()

    def synchronize(self) -> None:
        self.events.synchronize()

    def elapsed_ms(self) -> list[float]:
        return self.events.pairs_ms()

    def flush(self) -> None:
        self.events.flush()

    def close(self) -> None:
        self.events.close()


def _kernellab_driver() -> Any | None:
    try:
        from ...backends.cuda import driver
    except ImportError:
        return None
    return driver if driver.available() else None


def _cuda_events() -> _DriverEvents | _TorchEvents:
    driver = _kernellab_driver()
    if driver is not None:
        return _DriverEvents(driver)
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return _TorchEvents(torch)
    raise RuntimeError("timing on the GPU needs kernellab's CUDA driver (libcuda) or torch with CUDA; neither is "
                       "usable here: pass device='cpu' to time host work")


def gpu_in_use() -> bool:
    """Whether this process has started using a GPU (without starting to use one)."""
    driver = sys.modules.get("kernellab.backends.cuda.driver")
    if driver is not None and getattr(driver, "_initialized", False):
        try:
            if driver.current_device() is not None or getattr(driver, "_contexts", None):
                return True
        except Exception:  # a broken driver is no GPU in use
            pass
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    return bool(cuda is not None and cuda.is_initialized())


TIMERS = {"host": HostTimer, "cuda_events": CudaTimer}  # by a backend's Capabilities.timer


def timer_class(device: str | None) -> type[HostTimer] | type[CudaTimer]:
    """The timer for ``device``: a target (its backend's ``Capabilities.timer``), ``"host"``, or
    None (CUDA events once this process uses a GPU, else the host clock)."""
    if device is None:
        return CudaTimer if gpu_in_use() else HostTimer
    if device == "host":
        return HostTimer
    from ... import backends

    try:
        kind = backends.capabilities(device).timer
    except ValueError:
        raise ValueError(f"device must be 'cpu', 'cuda' or None (decide from what this process uses), or another "
                         f"target ('interpret', 'cuda:sm_90a') or 'host'; got {device!r}") from None
    return TIMERS[kind]


def _timer(device: str | None) -> HostTimer | CudaTimer:
    return timer_class(device)()


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------

def summarize(times: Sequence[float], quantiles: Sequence[float] | None, return_mode: str) -> Any:
    """The requested quantiles (a float when one), else the ``return_mode`` statistic."""
    values = np.asarray(times, dtype=np.float64)
    if quantiles is not None:
        found = [float(q) for q in np.quantile(values, np.asarray(quantiles, dtype=np.float64))]
        return found[0] if len(found) == 1 else found
    if return_mode == "all":
        return [float(t) for t in values]
    return float(getattr(np, return_mode)(values))


def _check(return_mode: str, quantiles: Sequence[float] | None) -> None:
    if return_mode not in RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(RETURN_MODES)}; got {return_mode!r}")
    if quantiles is not None and any(not 0.0 <= float(q) <= 1.0 for q in quantiles):
        raise ValueError(f"quantiles are fractions in [0, 1], got {list(quantiles)}")


def _clear_grads(grad_to_none: Sequence[Any] | None) -> None:
    for tensor in grad_to_none or ():
        tensor.grad = None


def _estimate_ms(fn: Callable[[], Any], timer: Timer) -> float:
    """One call's time, the median of ``_ESTIMATE_RUNS`` calls timed one by one (Triton times the
    five together: a one-off cost among them, such as a kernel's second launch making its native
    launch path, would then set how many runs the benchmark does)."""
    for _ in range(_ESTIMATE_RUNS):
        timer.flush()
        timer.start()
        fn()
        timer.stop()
    timer.synchronize()
    return max(float(np.median(timer.elapsed_ms())), 1e-6)


# ---------------------------------------------------------------------------------------------
# The public functions
# ---------------------------------------------------------------------------------------------

def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100, grad_to_none: Sequence[Any] | None = None,
             quantiles: Sequence[float] | None = None, return_mode: str = "mean", device: str | None = None) -> Any:
    """Time ``fn`` (milliseconds): ``warmup`` ms of untimed runs, then ``rep`` ms of runs timed
    one by one (the L2 cache flushed before each on a GPU).  Returns ``quantiles`` of the times
    when given, else their ``return_mode`` (``min``, ``max``, ``mean``, ``median`` or ``all``).
    ``device``: ``"cpu"``, ``"cuda"`` or None (decided after the first call, see the module)."""
    _check(return_mode, quantiles)
    fn()
    timer = _timer(device)
    try:
        timer.synchronize()
        estimate = _estimate_ms(fn, timer)
        n_warmup = max(1, int(warmup / estimate))
        n_repeat = max(1, int(rep / estimate))
        for _ in range(n_warmup):
            fn()
        for _ in range(n_repeat):
            _clear_grads(grad_to_none)
            timer.flush()
            timer.start()
            fn()
            timer.stop()
        timer.synchronize()
        times = timer.elapsed_ms()
    finally:
        getattr(timer, "close", lambda: None)()
    return summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn: Callable[[], Any], rep: float = 20, grad_to_none: Sequence[Any] | None = None,
                       quantiles: Sequence[float] | None = None, return_mode: str = "mean",
                       device: str | None = None) -> Any:
    """Time ``fn`` with the launch overhead amortized: on a GPU, ``rep`` ms worth of calls are
    captured in one CUDA graph and the graph is replayed 10 times; each replay's time divided by
    the calls is one sample.  The graph is torch's when torch has initialised CUDA (so torch's
    own work in ``fn`` is captured too, as in Triton), else kernellab's driver's (kernellab's
    launches only).  Without a graph (host targets, or a capture that failed: a warning says
    why) the same calls run back to back between two clock readings."""
    _check(return_mode, quantiles)
    fn()
    timer = _timer(device)
    try:
        timer.synchronize()
        estimate = _estimate_ms(fn, _NoFlush(timer))
        n_repeat = max(1, int(rep / estimate))
        if isinstance(timer, CudaTimer):
            samples = _graph_samples(fn, n_repeat, grad_to_none)
            if samples is not None:
                return summarize(samples, quantiles, return_mode)
        samples = []
        for _ in range(_GRAPH_RETRIES):
            timer.start()
            for _ in range(n_repeat):
                _clear_grads(grad_to_none)
                fn()
            timer.stop()
            timer.synchronize()
            samples.append(timer.elapsed_ms()[0] / n_repeat)
    finally:
        getattr(timer, "close", lambda: None)()
    return summarize(samples, quantiles, return_mode)


class _NoFlush:
    """A timer without the cache flush (graph timing estimates without it, as Triton does)."""

    def __init__(self, timer: Timer):
        self.timer = timer

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def synchronize(self) -> None:
        self.timer.synchronize()

    def elapsed_ms(self) -> list[float]:
        return self.timer.elapsed_ms()

    def flush(self) -> None:
        return None


def _graph_samples(fn: Callable[[], Any], n_repeat: int, grad_to_none: Sequence[Any] | None) -> list[float] | None:
    """Per-call times from ``_GRAPH_RETRIES`` replays of a graph of ``n_repeat`` calls, or None
    (with a warning saying why) when no graph could be captured."""
    def calls() -> None:
        for _ in range(n_repeat):
            _clear_grads(grad_to_none)
            fn()

    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        return [ms / n_repeat for ms in _torch_replays_ms(torch, calls)]
    driver = _kernellab_driver()
    if driver is None:
        warnings.warn("do_bench_cudagraph: no CUDA driver to capture a graph with; timing the calls back to back "
                      "instead", RuntimeWarning, stacklevel=3)
        return None
    from ...backends.cuda import graphs

    try:
        graph = graphs.capture(calls, driver.current_device() or 0)
    except graphs.CaptureFailed as error:
        warnings.warn(f"do_bench_cudagraph: the calls could not be captured in a CUDA graph ({error}); timing them "
                      "back to back instead", RuntimeWarning, stacklevel=3)
        return None
    with graph:
        graph.replay()  # the first replay uploads the graph
        return [ms / n_repeat for ms in graph.time_replays_ms(_GRAPH_RETRIES)]


def _torch_replays_ms(torch: Any, calls: Callable[[], None]) -> list[float]:
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.stream(torch.cuda.Stream()):
        with torch.cuda.graph(graph):
            calls()
    torch.cuda.synchronize()
    samples = []
    for _ in range(_GRAPH_RETRIES):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end))
    return samples


__all__ = ["do_bench", "do_bench_cudagraph", "summarize", "gpu_in_use", "HostTimer", "CudaTimer", "RETURN_MODES",
           "L2_FLUSH_BYTES"]
