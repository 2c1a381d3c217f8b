"""Loading object code and launching a grid over host threads.

``load`` maps the object bytes into this process (``runtime.native.objload``: no LLVM at all,
so a disk cache hit in a new process never imports llvmlite; LLVM's MCJIT when that loader
does not handle the object) and returns a :class:`CPULauncher`.  A launch
writes the arguments into 8-byte slots, then calls the C-ABI grid function through ctypes,
which releases the GIL.  A grid runs on the calling thread alone when its work is small (a
single program, or fewer programs than ``inline_programs``: what took under
``INLINE_WORK_NS`` at the time per program measured on the last launch); a larger one is cut
into chunks that the calling thread and a pool of worker threads take in turn.  Waking the
pool costs tens of microseconds (~90 us for a 4-program vector add on 2 busy cores, against
8 us inline), so the pool is for grids that outlast that.
"""

from __future__ import annotations

import ctypes
import itertools
import queue
import threading
from collections.abc import Callable
from time import perf_counter_ns
from typing import Any

import numpy as np

from ... import config
from ...errors import LaunchError
from ...ir.ops import numpy_dtype
from ...ir.types import parse_type
from ...runtime.native import objload
from .status import LaunchStatus, format_print, quiet_block, raise_failure

INLINE_WORK_NS = 50_000  # a grid expected to take less on one thread runs on the calling thread

GRID_FUNCTION = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int32,
                                 ctypes.c_int32, ctypes.c_int32)


class _Engine:
    """LLVM's execution engine holding one kernel's object code (when ``objload`` cannot)."""

    def __init__(self, obj: bytes, symbol: str):
        import llvmlite.binding as llvm

        from .compiler import initialize, target_machine

        initialize()
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine())
        self.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        self.engine.finalize_object()
        self.address = self.engine.get_function_address(symbol)


def load_code(obj: bytes, symbol: str) -> tuple[Any, int]:
    """(the object keeping the code mapped, the address of ``symbol``)."""
    try:
        loaded = objload.load_object(obj)
        return loaded, loaded.address(symbol)
    except objload.UnsupportedObject:
        engine = _Engine(obj, symbol)
    if not engine.address:
        raise LaunchError(f"the compiled kernel has no entry point {symbol!r}; the cache entry is damaged")
    return engine, engine.address


def _slot_writer(kind: str) -> Callable[[Any], tuple[int, Any]]:
    """A function from a Python argument to (slot index kind, value) for one argument kind."""
    if kind == "ptr":
        return _pointer_value
    if kind in ("f16", "bf16", "f32", "f64"):
        return lambda value: (1, float(value))
    bits = int(kind[1:])
    mask = (1 << bits) - 1 if bits < 64 else (1 << 64) - 1

    def integer(value: Any) -> tuple[int, Any]:
        as_int = int(value) & mask
        return 0, as_int - (1 << 64) if as_int >= 1 << 63 else as_int
    return integer


def _pointer_value(value: Any) -> tuple[int, int]:
    if isinstance(value, int):
        return 0, value
    address = getattr(value, "address", None)
    if address is None:
        interface = getattr(value, "__array_interface__", None)
        if interface is None:
            raise LaunchError("a pointer argument must be an address, a Buffer or an array, "
                              f"got {type(value).__name__}")
        address = interface["data"][0]
    return 0, int(address)


class _Pool:
    """Worker threads that run chunks of grids; the launching thread works too."""

    def __init__(self, size: int):
        self.size = size
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.threads = []
        saved = threading.stack_size()
        threading.stack_size(64 * 1024 * 1024)  # kernels keep their tiles on the stack
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


_pool: _Pool | None = None
_pool_lock = threading.Lock()


def pool() -> _Pool:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = _Pool(max(0, config.num_threads() - 1))
        return _pool


class CPULauncher:
    """Launches one compiled kernel: ``launcher(grid, args)``."""

    def __init__(self, code: Any, address: int, metadata: dict):
        info = metadata["cpu"]
        self.code = code  # keeps the machine code mapped
        self.address = address
        self.grid_fn = GRID_FUNCTION(address)
        self.kinds = list(info["args"])
        self.writers = [_slot_writer(k) for k in self.kinds]
        self.prints = info.get("prints", [])
        self.asserts = info.get("asserts", [])
        self.name = metadata.get("name", "kernel")
        self.nslots = len(self.kinds) + 1
        self.reports = bool(self.prints or self.asserts)
        self._quiet = quiet_block()
        self.quiet_status = ctypes.addressof(self._quiet)
        self.threads = config.num_threads()
        # Grids of at most this many programs run on the calling thread (shared with the native
        # launch path, which reads and updates it too); 1 until a launch has been timed.
        self.inline_programs = ctypes.c_int64(1 if self.threads > 1 else 2**62)
        self._dtypes = [[(np.dtype(numpy_dtype(parse_type(v["type"]))), tuple(v["shape"])) for v in p["values"]]
                        for p in self.prints]

    def __call__(self, grid, args, stream: Any = None) -> None:
        gx, gy, gz = _grid3(grid)
        total = gx * gy * gz
        if len(args) != len(self.kinds):
            raise LaunchError(f"{self.name} takes {len(self.kinds)} argument(s), got {len(args)}")
        if total <= 0:
            return
        slots = (ctypes.c_int64 * self.nslots)()
        doubles = None
        for k, (writer, value) in enumerate(zip(self.writers, args)):
            where, converted = writer(value)
            if where:
                if doubles is None:
                    doubles = (ctypes.c_double * self.nslots).from_buffer(slots)
                doubles[k] = converted
            else:
                slots[k] = converted
        if not self.reports:  # no print or assert: the kernel never touches its status block
            slots[self.nslots - 1] = self.quiet_status
            self._run(slots, total, gx, gy, gz)
            return
        status = LaunchStatus(self, gx, gy)
        slots[self.nslots - 1] = status.address
        self._run(slots, total, gx, gy, gz)
        status.finish()

    def native_tail(self) -> dict | None:
        """What a native launch function (``runtime.native.fastpath``) needs to run this
        kernel's small grids itself: the grid function, the status block, the cell of
        ``inline_programs`` (it runs grids up to that size and updates it as this launcher
        does).  None for kernels that print or assert (their launches report through Python)."""
        if self.reports:
            return None
        return {"kind": "cpu", "grid": self.address, "status": self.quiet_status,
                "inline_cell": ctypes.addressof(self.inline_programs), "inline_work": INLINE_WORK_NS,
                "kinds": list(self.kinds), "owner": self}

    def _run(self, slots, total: int, gx: int, gy: int, gz: int) -> None:
        threads = min(self.threads, total)
        if threads <= 1 or total <= self.inline_programs.value:
            start = perf_counter_ns()
            self.grid_fn(slots, 0, total, gx, gy, gz)
            self.measured(total, perf_counter_ns() - start)
            return
        chunk = max(1, -(-total // (threads * 4)))
        counter = itertools.count()
        grid_fn = self.grid_fn
        own = [0, 0]  # programs the calling thread ran, and nanoseconds it took

        def chunks(timed: list | None = None) -> None:
            while True:
                start = next(counter) * chunk
                if start >= total:
                    return
                end = min(total, start + chunk)
                if timed is None:
                    grid_fn(slots, start, end, gx, gy, gz)
                    continue
                began = perf_counter_ns()
                grid_fn(slots, start, end, gx, gy, gz)
                timed[0] += end - start
                timed[1] += perf_counter_ns() - began
        pool().run(chunks, threads - 1, lambda: chunks(own))
        if own[0]:
            self.measured(own[0], own[1])

    def measured(self, programs: int, nanoseconds: int) -> None:
        """Record that ``programs`` took ``nanoseconds`` on one thread: later grids expected to
        take under ``INLINE_WORK_NS`` run on the calling thread."""
        self.inline_programs.value = max(1, INLINE_WORK_NS * programs // max(nanoseconds, 1))

    # ---- used by LaunchStatus ----
    def format_print(self, index: int, pids: tuple, pointers: int) -> list[str]:
        return format_print(self.prints[index], self._dtypes[index], pids, pointers)

    def raise_failure(self, failure: tuple) -> None:
        raise_failure(self.name, self.asserts, failure)


def _grid3(grid) -> tuple[int, int, int]:
    if isinstance(grid, int):
        grid = (grid,)
    values = [int(g) for g in grid] + [1] * (3 - len(grid))
    if len(values) != 3 or any(v < 0 for v in values):
        raise LaunchError(f"a grid is 1 to 3 non-negative sizes, got {grid!r}")
    return values[0], values[1], values[2]


def load(asm: dict, metadata: dict) -> CPULauncher:
    obj = asm.get("obj")
    if not isinstance(obj, (bytes, bytearray)) or not obj:
        raise LaunchError("the CPU kernel has no object code ('obj' stage); recompile it")
    code, address = load_code(bytes(obj), metadata["cpu"]["entry"])
    return CPULauncher(code, address, metadata)
