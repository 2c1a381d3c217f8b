"""Loading object code and launching a grid over host threads.

``load`` maps the object bytes into this process (``backends.cpu.objload``: no LLVM at all,
so a disk cache hit in a new process never imports llvmlite; LLVM's MCJIT when that loader
does not handle the object) and returns a :class:`CPULauncher`.  A launch
writes the arguments into 8-byte slots, then calls the C-ABI grid function through ctypes,
which releases the GIL.  Where the grid runs -- on the calling thread, or over a pool of
worker threads -- is the launcher's :class:`~.scheduling.Schedule`'s decision.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import config
from ...errors import LaunchError
from ...ir.types import numpy_dtype, parse_type
from . import objload
from .scheduling import Schedule

# A kernel that reports nothing (no print, assert or checked access) reads only its status block's
# flag and calls none of its callbacks: it gets zeros of the block's size (:mod:`.status`, whose
# ctypes types and callbacks load with the first kernel that reports: ~1 M instructions).
STATUS_WORDS = 5  # int32 flag + pad, three callbacks, the bounds table

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
        self.accesses = info.get("accesses", [])  # checked mode: the accesses the kernel checks
        self.name = metadata.get("name", "kernel")
        signature = metadata.get("signature", {})
        self.arg_names = [n for n in metadata.get("arg_names", []) if n in signature]
        self.nslots = len(self.kinds) + 1
        self.reports = bool(self.prints or self.asserts or self.accesses)
        self.wants_buffers = bool(self.accesses)  # checked mode: each pointer argument's allocation
        self._quiet = np.zeros(STATUS_WORDS, np.int64)  # the status block of a kernel that reports nothing
        self.quiet_status = self._quiet.__array_interface__["data"][0]
        self.threads = config.num_threads()
        self.schedule = Schedule(self.threads)
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
        from .status import LaunchStatus  # a kernel that prints, asserts or checks its accesses

        status = LaunchStatus(self, gx, gy)
        slots[self.nslots - 1] = status.address
        if self.accesses:  # checked mode (its launch side loads with its first launch)
            from .bounds import arm

            arm(status, self.kinds, list(args), self.arg_names)
        self._run(slots, total, gx, gy, gz)
        status.finish()

    @property
    def inline_programs(self) -> ctypes.c_int64:
        """Grids of at most this many programs run on the calling thread (a cell the native
        launch path reads and updates too)."""
        return self.schedule.inline_programs

    def measured(self, programs: int, nanoseconds: int) -> None:
        self.schedule.measured(programs, nanoseconds)

    def native_tail(self) -> dict | None:
        """What a native launch function (``runtime.native.fastpath``) needs to run this
        kernel's small grids itself: the grid function, the status block, the schedule's cells
        (it runs grids up to ``inline_programs`` and updates that cell from its own timing, as
        :class:`~.scheduling.Schedule` does).  None for kernels that print or assert (their
        launches report through Python)."""
        if self.reports:
            return None
        return {"kind": "host_grid", "grid": self.address, "status": self.quiet_status,
                "inline_cell": ctypes.addressof(self.schedule.inline_programs),
                "inline_work_cell": ctypes.addressof(self.schedule.inline_work_ns),
                "kinds": list(self.kinds), "owner": self}

    def _run(self, slots, total: int, gx: int, gy: int, gz: int) -> None:
        self.schedule.run(self.grid_fn, slots, total, gx, gy, gz)

    # ---- used by LaunchStatus ----
    def format_print(self, index: int, pids: tuple, pointers: int) -> list[str]:
        from .status import format_print

        return format_print(self.prints[index], self._dtypes[index], pids, pointers)

    def raise_failure(self, failure: tuple) -> None:
        from .status import raise_failure

        raise_failure(self.name, self.asserts, failure)

    def raise_out_of_bounds(self, failure: tuple, described: list) -> None:
        from .bounds import out_of_bounds_error

        index, pids, address = failure
        pointers = dict(zip([k for k, kind in enumerate(self.kinds) if kind == "ptr"], described))
        raise out_of_bounds_error(self.name, self.accesses[index], pids, address, pointers)


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
