"""The status block a launch shares with its kernel, and what the kernel reports through it.

Layout (what the generated code reads, see :mod:`.lower_debug`)::

    int32 failed;  int32 pad;  void *print_callback;  void *assert_callback;
    void *bounds_callback;  int64 *bounds;   (a checked kernel's, set by :mod:`.bounds`; else null)

The callbacks are ctypes function pointers into Python (called with the GIL taken).  This module
is the launch side of kernels that report (print, assert, checked accesses; imported by the first
launch of one): a kernel that reports nothing gets a zeroed block from its launcher.  Prints
are kept with their program's linear id and printed after the grid, grouped by program in
program order; the first failed assertion is kept and raised as
:class:`~kernellab.errors.KernelAssertionError` once the grid has stopped.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from ...errors import KernelAssertionError


class _Block(ctypes.Structure):
    _fields_ = [("failed", ctypes.c_int32), ("pad", ctypes.c_int32), ("print_cb", ctypes.c_void_p),
                ("assert_cb", ctypes.c_void_p), ("bounds_cb", ctypes.c_void_p), ("bounds", ctypes.c_void_p)]


_PRINT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                          ctypes.c_void_p)
_ASSERT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
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


def active_status(block: int) -> LaunchStatus | None:
    """The running launch whose status block is at ``block`` (what a callback reports to)."""
    return _active.get(block)


_PRINT_FN = _PRINT(_on_print)
_ASSERT_FN = _ASSERT(_on_assert)
_PRINT_ADDRESS = ctypes.cast(_PRINT_FN, ctypes.c_void_p).value
_ASSERT_ADDRESS = ctypes.cast(_ASSERT_FN, ctypes.c_void_p).value


class LaunchStatus:
    """One launch's status block and what its kernel reported."""

    def __init__(self, launcher, gx: int, gy: int):
        self.launcher = launcher
        self.block = _Block(0, 0, _PRINT_ADDRESS, _ASSERT_ADDRESS, None, None)
        self.address = ctypes.addressof(self.block)
        self.gx, self.gy = gx, gy
        self.lines: list[tuple[int, int, list[str]]] = []
        self.failure: tuple | None = None
        self.bounds_failure: tuple | None = None
        self.pointers: list = []  # the checked mode's pointer arguments (name, address, low, high)
        self.table: object = None  # and its bounds table (:func:`.bounds.arm`)
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
