"""The launch side of the CPU target's checked mode (:mod:`.checked`): the table of each pointer
argument's allocation that a checked kernel compares its accesses with, the callback an access
outside it calls, and the error the launch raises then.

Imported by the first launch of a checked kernel, not with the launcher: its callback (a ctypes
thunk into Python) and its code cost every other process's cached first launch ~0.1 M
instructions.
"""

from __future__ import annotations

import ctypes

from ...errors import InterpreterError, LaunchError
from .status import LaunchStatus, active_status

_BOUNDS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                           ctypes.c_int64)


def _on_bounds(block: int, index: int, x: int, y: int, z: int, address: int) -> None:
    status = active_status(block)
    if status is not None:
        status.out_of_bounds(index, (x, y, z), address)


_BOUNDS_FN = _BOUNDS(_on_bounds)
_BOUNDS_ADDRESS = ctypes.cast(_BOUNDS_FN, ctypes.c_void_p).value


def arm(status: LaunchStatus, kinds: list[str], args: list, names: list[str]) -> None:
    """Point a checked launch's status block at the bounds callback and at a new table of its
    pointer arguments' allocations (``status.table`` keeps it alive until the grid has run); the
    arguments' descriptions go to ``status.pointers`` for the error."""
    status.table, status.pointers = bounds_table(kinds, args, names)
    status.block.bounds_cb = _BOUNDS_ADDRESS
    status.block.bounds = ctypes.addressof(status.table)


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


__all__ = ["arm", "bounds_table", "out_of_bounds_error"]
