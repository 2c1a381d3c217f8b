"""The status block a launch shares with its kernel, and what the kernel reports through it.

Layout (what the generated code reads, see :mod:`.lower_debug`)::

    int32 failed;  int32 pad;  void *print_callback;  void *assert_callback;
    void *bounds_callback;  int64 *bounds;   (the checked mode's, :mod:`.checked`)

The callbacks are ctypes function pointers into Python (called with the GIL taken).  Prints
are kept with their program's linear id and printed after the grid, grouped by program in
program order; the first failed assertion is kept and raised as
:class:`~kernellab.errors.KernelAssertionError` once the grid has stopped.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from ...errors import InterpreterError, KernelAssertionError, LaunchError


class _Block(ctypes.Structure):
    _fields_ = [("failed", ctypes.c_int32), ("pad", ctypes.c_int32), ("print_cb", ctypes.c_void_p),
                ("assert_cb", ctypes.c_void_p), ("bounds_cb", ctypes.c_void_p), ("bounds", ctypes.c_void_p)]


_PRINT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                          ctypes.c_void_p)
_ASSERT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                           ctypes.c_int64)

_BOUNDS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                           ctypes.c_int64)

_active: dict[int, LaunchStatus] = {}
_lock = threading.Lock()


def _on_print(block: int, index: int, x: int, y: int, z: int, pointers: int) -> None:
    status = _active.get(block)
    if status is not None:
        status.printed(index, (x, y, z), pointers)


def _on_assert(block: int, index: int, x: int, y: int, z: int, element: int) -> None:
    status = _active.get(block)
    if status is not None:
        status.failed(index, (x, y, z), element)


def _on_bounds(block: int, index: int, x: int, y: int, z: int, address: int) -> None:
    status = _active.get(block)
    if status is not None:
        status.out_of_bounds(index, (x, y, z), address)


_PRINT_FN = _PRINT(_on_print)
_BOUNDS_FN = _BOUNDS(_on_bounds)
_BOUNDS_ADDRESS = ctypes.cast(_BOUNDS_FN, ctypes.c_void_p).value
_ASSERT_FN = _ASSERT(_on_assert)
_PRINT_ADDRESS = ctypes.cast(_PRINT_FN, ctypes.c_void_p).value
_ASSERT_ADDRESS = ctypes.cast(_ASSERT_FN, ctypes.c_void_p).value


def quiet_block() -> _Block:
    """A status block for kernels that report nothing (no print, no assert)."""
    return _Block(0, 0, _PRINT_ADDRESS, _ASSERT_ADDRESS, _BOUNDS_ADDRESS, None)


class LaunchStatus:
    """One launch's status block and what its kernel reported."""

    def __init__(self, launcher, gx: int, gy: int):
        self.launcher = launcher
        self.block = _Block(0, 0, _PRINT_ADDRESS, _ASSERT_ADDRESS, _BOUNDS_ADDRESS, None)
        self.address = ctypes.addressof(self.block)
        self.gx, self.gy = gx, gy
        self.lines: list[tuple[int, int, list[str]]] = []
        self.failure: tuple | None = None
        self.bounds_failure: tuple | None = None
        self.pointers: list = []  # the checked mode's pointer arguments (name, address, low, high)
        self.watched = bool(launcher.prints or launcher.asserts or launcher.accesses)
        if self.watched:
            with _lock:
                _active[self.address] = self

    def printed(self, index: int, pids: tuple, pointers: int) -> None:
        linear = pids[0] + self.gx * (pids[1] + self.gy * pids[2])
        self.lines.append((linear, len(self.lines), self.launcher.format_print(index, pids, pointers)))

    def failed(self, index: int, pids: tuple, element: int) -> None:
        if self.failure is None:
            self.failure = (index, pids, element)
        self.block.failed = 1

    def out_of_bounds(self, index: int, pids: tuple, address: int) -> None:
        if self.failure is None and self.bounds_failure is None:
            self.bounds_failure = (index, pids, address)
        self.block.failed = 1

    def finish(self) -> None:
        if not self.watched:
            return
        with _lock:
            _active.pop(self.address, None)
        for _, _, lines in sorted(self.lines, key=lambda item: (item[0], item[1])):
            for line in lines:
                print(line)
        if self.bounds_failure is not None:
            self.launcher.raise_out_of_bounds(self.bounds_failure, self.pointers)
        if self.failure is not None:
            self.launcher.raise_failure(self.failure)


def _read(address: int, dtype: np.dtype, shape: tuple) -> np.ndarray:
    count = int(np.prod(shape)) if shape else 1
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def format_print(spec: dict, layout: list, pids: tuple, pointers: int) -> list[str]:
    """The lines of one device_print in one program, formatted as the interpreter does."""
    count = len(layout)
    addresses = (ctypes.c_void_p * max(1, count)).from_address(pointers)
    values = [_read(addresses[k], dtype, shape) for k, (dtype, shape) in enumerate(layout)]
    values = [v if v.shape else v[()] for v in values]
    from ..interpreter.context import print_lines  # the interpreter's formatting, imported when a kernel prints

    return [line.rstrip("\n") for line in print_lines(pids, spec["prefix"], values, spec["hex"], spec["pointers"])]


def raise_failure(kernel: str, asserts: list[dict], failure: tuple) -> None:
    index, pids, element = failure
    spec = asserts[index]
    where = f"{spec['file']}:{spec['line']}"
    raise KernelAssertionError(f"device_assert failed in {kernel} at {where}: {spec['message']} "
                               f"(program id {pids}, element {element})")


# ---- the checked mode's bounds table and its error (see .checked) ----

def bounds_table(kinds: list[str], args: list, names: list[str]) -> tuple[object, list[tuple[str, int, int, int]]]:
    """The ctypes table of ``[low, high)`` per argument slot, and per pointer argument its
    (name, address, low, high) for messages.  A raw integer address is not checked."""
    from ..interpreter.buffers import allocation_extent, as_buffer  # the interpreter's view of an allocation

    table = (ctypes.c_int64 * (2 * max(1, len(kinds))))()
    described = []
    for k, (kind, value) in enumerate(zip(kinds, args)):
        if kind != "ptr":
            continue
        try:
            buffer = value if hasattr(value, "extent") else as_buffer(value)
            address, low = int(buffer.address), int(buffer.base)
            high = low + allocation_extent(buffer)
        except (LaunchError, AttributeError, TypeError):  # a raw address: nothing to check it against
            address, low, high = int(value) if isinstance(value, int) else 0, 0, 2**63 - 1
        table[2 * k], table[2 * k + 1] = low, high
        name = getattr(value, "name", "") or (names[k] if k < len(names) else f"argument {k}")
        described.append((name, address, low, high))
    return table, described


def out_of_bounds_error(kernel: str, access: dict, pids: tuple, address: int,
                        pointers: dict[int, tuple[str, int, int, int]]) -> InterpreterError:
    """The error for one access outside its argument's allocation (the interpreter's wording)."""
    what, itemsize = access["what"], access["itemsize"]
    where = f"; in program {pids} at {access['loc']} ({access['op']})"
    argument = access["argument"]
    if argument is None:
        return InterpreterError(f"out-of-bounds {what} in {kernel}: address {address:#x} lies in no pointer "
                                f"argument's allocation{where}")
    name, start, low, high = pointers.get(argument, (f"argument {argument}", 0, 0, 0))
    offset = (address - start) / itemsize
    shown = str(int(offset)) if float(offset).is_integer() else f"{offset:g}"
    first, last = (low - start) // itemsize, (high - start) // itemsize - 1
    return InterpreterError(f"out-of-bounds {what} in {kernel} through argument {name!r}: element offset {shown} "
                            f"relative to {name} is outside its allocation, whose valid offsets are {first}..{last} "
                            f"({itemsize}-byte elements){where}")
