"""Compiling a sweep's configs before any is timed, in parallel where that pays.

Each config is one *job*: ``kernel.warmup(*args, **kwargs, **config.all_kwargs())``, which
compiles (or loads from the caches) exactly the specialization the timed launches will use.
Three ways to run the jobs (``strategy``):

* ``"processes"``: forked workers compile their share of the jobs into the on-disk kernel cache
  and exit; then this process runs every job, each a disk-cache hit.  This is the one that pays
  on the CPU target: llvmlite serializes every call into LLVM behind one lock, so threads
  compile one config at a time.  It needs ``fork`` and the disk cache (``KERNELLAB_CACHE``);
  workers only warm the cache, so a job failing there fails again here, with its error.
* ``"threads"``: a thread pool; pays where the work leaves Python and LLVM (ptxas for CUDA).
* ``"sequential"``.

``"auto"`` picks processes for the CPU target (when fork, the disk cache and at least two idle
cores are there: by the load average, cores other processes keep busy do not count), threads
for CUDA and sequential for the interpreter.  Failures are per job: OutOfResources and compilation errors are recorded
as the job's failure; any other exception is a kernellab bug and propagates.
"""

from __future__ import annotations

import os
import selectors
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ... import backends
from ... import config as kl_config
from ...errors import CompilationError, OutOfResources
from .. import interop
from ..targets import select_target

STRATEGIES = ("auto", "processes", "threads", "sequential")


def failure_types() -> tuple[type[BaseException], ...]:
    """Errors that make a config fail (infinite time) rather than stop the sweep."""
    found: list[type[BaseException]] = [OutOfResources, CompilationError]
    ptxas = sys.modules.get("kernellab.backends.cuda.ptxas")
    if ptxas is not None and hasattr(ptxas, "PtxasError"):
        found.append(ptxas.PtxasError)
    return tuple(found)


def describe(error: BaseException) -> str:
    """A one-paragraph failure reason for the results table."""
    text = str(error).strip() or type(error).__name__
    return f"{type(error).__name__}: {text}"


@dataclass
class Compiled:
    """One job's outcome."""

    kernel: Any = None
    seconds: float = 0.0           # wall time of the job here
    compile_seconds: float = 0.0   # the pipeline's own time (from the kernel's metadata)
    failure: str | None = None
    error: BaseException | None = None  # what failed (this process's jobs)


# ---------------------------------------------------------------------------------------------
# Where a launch runs
# ---------------------------------------------------------------------------------------------

def base_jit(fn: Any) -> Any:
    """The JITFunction under any stack of Autotuner/Heuristics wrappers."""
    while not getattr(fn, "__kernellab_jit__", False):
        inner = getattr(fn, "fn", None)
        if inner is None:
            raise TypeError(f"autotune and heuristics wrap a @jit kernel (or another autotune/heuristics), not {fn!r}")
        fn = inner
    return fn


def launch_target(jit: Any, named_args: dict[str, Any]) -> str:
    """The target a launch of ``jit`` with these arguments compiles for (as the runtime picks it)."""
    forced = kl_config.forced_target()
    if forced:
        return forced
    pointers = []
    for name in jit.arg_names:
        value = named_args.get(name)
        if value is not None and not isinstance(value, (int, float, str)) and interop.is_array(value):
            pointers.append((name, interop.location_of(value) or "cpu"))
    return select_target(None, pointers, jit.__name__)


# ---------------------------------------------------------------------------------------------
# Running the jobs
# ---------------------------------------------------------------------------------------------

def choose_strategy(requested: str | bool | None, target: str, jobs: int) -> str:
    """The strategy for ``jobs`` jobs on ``target`` (``requested``: one of :data:`STRATEGIES`,
    ``True`` for auto, ``False``/``None`` for sequential)."""
    if requested is True:
        requested = "auto"
    if requested in (False, None):
        requested = "sequential"
    if requested not in STRATEGIES:
        raise ValueError(f"parallel_compile must be one of {', '.join(STRATEGIES)} (or True/False), got {requested!r}")
    if jobs < 2 or _cores() < 2:
        return "sequential"
    if requested == "processes" and not _can_fork():
        return "threads"
    if requested != "auto":
        return requested
    preferred = backends.capabilities(target).parallel_compile  # the backend's strategy for "auto"
    if preferred == "processes":
        return "processes" if _can_fork() and _idle_cores() >= 2 else "sequential"
    return preferred


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _idle_cores() -> int:
    """Cores not busy with other work (by the 1-minute load average, where there is one): on
    a machine other processes keep busy, workers only take turns with them."""
    cores = _cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, min(cores, int(cores - load + 0.5)))


def _can_fork() -> bool:
    return hasattr(os, "fork") and kl_config.disk_cache_enabled()


def run_job(job: Callable[[], Any]) -> Compiled:
    """Run one job, timing it and catching the failures a config may have."""
    start = time.perf_counter()
    try:
        kernel = job()
    except failure_types() as error:
        return Compiled(None, time.perf_counter() - start, 0.0, describe(error), error.with_traceback(None))
    seconds = time.perf_counter() - start
    spent = getattr(kernel, "metadata", {}).get("compile_seconds", {}).get("total", seconds)
    return Compiled(kernel, seconds, float(spent))


def compile_all(jobs: Sequence[Callable[[], Any]], strategy: str,
                progress: Callable[[int], None] = lambda done: None) -> list[Compiled]:
    """Run every job with ``strategy`` (as returned by :func:`choose_strategy`); ``progress(n)``
    is called as jobs finish.  Returns the outcomes in the jobs' order."""
    if strategy == "processes":
        warm_in_processes(jobs, min(len(jobs), max(2, _idle_cores())), progress)
        return [run_job(job) for job in jobs]
    if strategy == "threads":
        from concurrent.futures import ThreadPoolExecutor  # a sweep that compiles (a cached one may not)

        with ThreadPoolExecutor(max_workers=min(len(jobs), _cores())) as pool:
            futures = [pool.submit(run_job, job) for job in jobs]
            outcomes = []
            for future in futures:
                outcomes.append(future.result())
                progress(1)
            return outcomes
    outcomes = []
    for job in jobs:
        outcomes.append(run_job(job))
        progress(1)
    return outcomes


def warm_in_processes(jobs: Sequence[Callable[[], Any]], workers: int,
                      progress: Callable[[int], None] = lambda done: None) -> None:
    """Fork ``workers`` processes that run ``jobs[i::workers]`` (filling the disk cache); each
    reports a finished job with one byte on its pipe.  Returns when all have exited."""
    sys.stdout.flush()
    sys.stderr.flush()
    readers = {}
    for worker in range(workers):
        read_end, write_end = os.pipe()
        pid = _fork()
        if pid == 0:  # the worker: never returns
            os.close(read_end)
            _worker(jobs[worker::workers], write_end)
        os.close(write_end)
        readers[read_end] = pid
    _collect(readers, progress)


@contextmanager
def _llvm_quiet() -> Iterator[None]:
    """Hold llvmlite's global lock (when llvmlite is loaded), so that no other thread of this
    process is inside LLVM at the moment of a fork."""
    ffi = sys.modules.get("llvmlite.binding.ffi")
    lock = getattr(getattr(ffi, "lib", None), "_lock", None)
    if lock is None:
        yield
        return
    with lock:
        yield


def _fork() -> int:
    """``os.fork()`` for a cache-warming worker.  Python 3.12+ warns when a process with threads
    forks: a lock held by another thread stays held in the child.  The worker only compiles
    (the frontend, and LLVM, whose lock is held across the fork) and leaves with ``os._exit``."""
    with warnings.catch_warnings(), _llvm_quiet():
        warnings.filterwarnings("ignore", message=".*use of fork\\(\\) may lead to deadlocks",
                                category=DeprecationWarning)
        return os.fork()


def _worker(jobs: Sequence[Callable[[], Any]], pipe: int) -> None:
    try:
        warnings.simplefilter("ignore")
        for job in jobs:
            try:
                job()
            except BaseException:  # noqa: BLE001 - the parent runs the job again and reports it
                pass
            os.write(pipe, b".")
    finally:
        os._exit(0)


def _collect(readers: dict[int, int], progress: Callable[[int], None]) -> None:
    selector = selectors.DefaultSelector()
    for fd in readers:
        selector.register(fd, selectors.EVENT_READ)
    open_fds = set(readers)
    try:
        while open_fds:
            for key, _ in selector.select():
                data = os.read(key.fd, 64)
                if data:
                    progress(len(data))
                    continue
                selector.unregister(key.fd)
                os.close(key.fd)
                open_fds.discard(key.fd)
    finally:
        selector.close()
        for pid in readers.values():
            os.waitpid(pid, 0)


__all__ = ["Compiled", "STRATEGIES", "choose_strategy", "compile_all", "warm_in_processes", "run_job", "base_jit",
           "launch_target", "failure_types", "describe"]
