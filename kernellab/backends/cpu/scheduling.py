"""Where a CPU grid runs: on the calling thread, or cut into chunks that the calling thread and
a pool of worker threads take in turn.

The pool is not free: waking its threads and handing the GIL between them around each chunk's
ctypes call costs tens of microseconds on 2 cores and was ~0.9 ms on a 16-core host for a
64-program vector add (numpy: 13 us).  So every launcher keeps a :class:`Schedule`: the compute
time per program it measured last, and from it how many programs a grid may have and still run
inline -- as long as it is expected to take less than what the pool costs
(``Pool.overhead_ns``, measured on the pool's own launches, times ``T / (T - 1)``: with ``T``
threads the pool saves ``(1 - 1/T)`` of the work).  Inline runs are timed with the wall clock
(nothing else runs); the calling thread's chunks in a pool launch with its CPU time, which does
not count waiting for the GIL.  Chunks hold at least ``MIN_CHUNK_NS`` of work, so the pool's
threads hand the GIL around less often than they compute.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from collections.abc import Callable
from time import perf_counter_ns, thread_time_ns
from typing import Any

from ... import config

POOL_OVERHEAD_NS = 50_000  # the first guess of what using the pool costs beyond the work
MIN_CHUNK_NS = 20_000

WORKER_STACK_BYTES = 64 * 1024 * 1024  # each pool thread's stack: kernels keep their tiles on the stack


class Pool:
    """Worker threads that run chunks of grids; the launching thread works too."""

    def __init__(self, size: int):
        import queue  # with the pool only: a grid run inline needs none (queue loads two C extensions: ~2.5 M
        # instructions of a cached first launch in a new process)

        self.size = size
        self.overhead_ns = float(POOL_OVERHEAD_NS)
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.threads = []
        saved = threading.stack_size()
        threading.stack_size(WORKER_STACK_BYTES)  # kernels keep their tiles on the stack
        try:
            for k in range(size):
                thread = threading.Thread(target=self._work, name=f"kernellab-cpu-{k}", daemon=True)
                thread.start()
                self.threads.append(thread)
        finally:
            threading.stack_size(saved)

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            job()

    def run(self, chunks: Callable[[], None], helpers: int, own: Callable[[], None] | None = None) -> None:
        """Run ``chunks`` (a function that takes chunks until none are left) on ``helpers`` workers
        and ``own`` (default ``chunks``) on the calling thread; return when all are done."""
        done = threading.Semaphore(0)
        errors: list[BaseException] = []

        def job() -> None:
            try:
                chunks()
            except BaseException as error:  # pragma: no cover - the grid function cannot raise
                errors.append(error)
            finally:
                done.release()
        for _ in range(helpers):
            self.jobs.put(job)
        (own or chunks)()
        for _ in range(helpers):
            done.acquire()
        if errors:  # pragma: no cover
            raise errors[0]

    def record_overhead(self, nanoseconds: float) -> None:
        """One launch's cost beyond its work (a running average of the last few)."""
        self.overhead_ns = 0.7 * self.overhead_ns + 0.3 * max(nanoseconds, 0.0)


_pool: Pool | None = None
_pool_lock = threading.Lock()


def pool() -> Pool:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = Pool(max(0, config.num_threads() - 1))
        return _pool


class Schedule:
    """One launcher's placement of its grids.  ``inline_programs`` and ``inline_work_ns`` are
    ctypes cells because the native launch path reads them (and updates ``inline_programs`` as
    :meth:`measured` does after each grid it runs inline)."""

    def __init__(self, threads: int):
        self.threads = threads
        self.ns_per_program: float | None = None
        self.inline_programs = ctypes.c_int64(1 if threads > 1 else 2**62)
        self.inline_work_ns = ctypes.c_int64(self._inline_work())

    def _inline_work(self) -> int:
        """The work (ns) under which a grid runs inline: the pool's overhead times T / (T - 1)."""
        if self.threads <= 1:
            return 2**62
        overhead = pool().overhead_ns if _pool is not None else POOL_OVERHEAD_NS
        return int(overhead * self.threads / (self.threads - 1))

    def measured(self, programs: int, nanoseconds: int) -> None:
        """``programs`` took ``nanoseconds`` of compute on one thread."""
        if programs <= 0:
            return
        self.ns_per_program = max(nanoseconds, 1) / programs
        self._update()

    def _update(self) -> None:
        if self.threads <= 1:
            return
        self.inline_work_ns.value = work = self._inline_work()
        self.inline_programs.value = max(1, int(work / self.ns_per_program)) if self.ns_per_program else 1

    def run(self, grid_fn: Any, slots: Any, total: int, gx: int, gy: int, gz: int) -> None:
        threads = min(self.threads, total)
        if threads <= 1 or total <= self.inline_programs.value:
            self._inline(grid_fn, slots, total, gx, gy, gz)
            return
        chunk = -(-total // (threads * 4))
        if self.ns_per_program:
            chunk = max(chunk, -(-MIN_CHUNK_NS // int(self.ns_per_program + 1)))
        helpers = min(threads, -(-total // chunk)) - 1
        if helpers <= 0:
            self._inline(grid_fn, slots, total, gx, gy, gz)
            return
        self._spread(grid_fn, slots, total, gx, gy, gz, chunk, helpers)

    def _inline(self, grid_fn: Any, slots: Any, total: int, gx: int, gy: int, gz: int) -> None:
        start = perf_counter_ns()
        grid_fn(slots, 0, total, gx, gy, gz)
        self.measured(total, perf_counter_ns() - start)

    def _spread(self, grid_fn: Any, slots: Any, total: int, gx: int, gy: int, gz: int, chunk: int,
                helpers: int) -> None:
        counter = itertools.count()
        own = [0, 0]  # programs the calling thread ran, and the CPU time it took

        def chunks(timed: list | None = None) -> None:
            while True:
                start = next(counter) * chunk
                if start >= total:
                    return
                end = min(total, start + chunk)
                if timed is None:
                    grid_fn(slots, start, end, gx, gy, gz)
                    continue
                began = thread_time_ns()
                grid_fn(slots, start, end, gx, gy, gz)
                timed[0] += end - start
                timed[1] += thread_time_ns() - began
        workers = pool()
        began = perf_counter_ns()
        workers.run(chunks, helpers, lambda: chunks(own))
        wall = perf_counter_ns() - began
        if own[0]:
            self.ns_per_program = max(own[1], 1) / own[0]
            workers.record_overhead(wall - self.ns_per_program * total / (helpers + 1))
            self._update()


__all__ = ["Pool", "Schedule", "pool", "POOL_OVERHEAD_NS", "MIN_CHUNK_NS"]
