"""The interpreter's memory model: pointers are real host byte addresses of the arguments'
memory; every masked-in access is checked against an argument's allocation, then gathered or
scattered through a typed numpy view of that allocation.

Which allocation: the one of the kernel argument the pointer derives from (statically known
provenance, :mod:`.pointers`), else the allocation that contains the accessed addresses.  An
access outside it, or one that is not aligned to the element size, raises
:class:`~kernellab.errors.InterpreterError` naming the program id, the argument, the element
offsets (relative to the argument's address) and the op's source location.

Stores apply in index order, so the last of duplicate addresses wins; atomics apply element
by element in index order (see :mod:`.atomics`).
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from ...errors import InterpreterError
from ...ir.core import Op
from .atomics import compare_and_swap, read_modify_write
from .buffers import allocation_extent, host_view
from .pointers import AccessSite

_UNKNOWN_SITE = AccessSite(None, False)
_SHOWN_OFFSETS = 5


class Allocation:
    """One allocation: ``[base, end)`` of host memory, and typed views of it."""

    __slots__ = ("base", "end", "memory", "writable", "argument", "_views")

    def __init__(self, base: int, nbytes: int, memory: np.ndarray, writable: bool, argument: int):
        self.base = base
        self.end = base + nbytes
        self.memory = memory
        self.writable = writable
        self.argument = argument  # the first argument living in it (for messages)
        self._views: dict[np.dtype, tuple[np.ndarray, int]] = {}

    def typed(self, dtype: np.dtype) -> tuple[np.ndarray, int]:
        """A view of the allocation as ``dtype`` elements, and the address of element 0 (the
        first address in it aligned to the element size).  Booleans are viewed as bytes."""
        found = self._views.get(dtype)
        if found is None:
            storage = np.dtype(np.uint8) if dtype == np.bool_ else dtype
            skip = -self.base % storage.itemsize
            count = max(0, (self.end - self.base - skip) // storage.itemsize)
            view = np.ndarray((count,), storage, buffer=self.memory, offset=skip) if count else np.zeros(0, storage)
            found = self._views[dtype] = (view, self.base + skip)
        return found


class MemoryModel:
    """Loads, stores and atomics over the allocations of one launch's pointer arguments."""

    def __init__(self, sites: dict[Op, AccessSite], argument_names: list[str]):
        self.sites = sites
        self.argument_names = list(argument_names)
        self.pid: tuple[int, int, int] = (0, 0, 0)
        self.by_argument: dict[int, Allocation | None] = {}
        self.addresses: dict[int, int] = {}
        self.allocations: list[Allocation] = []
        self._bases: list[int] = []

    # ---- per launch ----
    def bind_buffers(self, buffers: dict[int, Any]) -> None:
        """Register the pointer arguments (argument index -> buffer, or None for a null
        pointer) of the coming launch."""
        by_base: dict[int, Allocation] = {}
        self.by_argument = {}
        self.addresses = {}
        for index, buffer in buffers.items():
            if buffer is None:
                self.by_argument[index] = None
                self.addresses[index] = 0
                continue
            base, nbytes = int(buffer.base), allocation_extent(buffer)
            allocation = by_base.get(base)
            if allocation is None or allocation.end < base + nbytes:
                allocation = Allocation(base, nbytes, host_view(buffer), bool(getattr(buffer, "writable", True)),
                                        index)
                by_base[base] = allocation
            self.by_argument[index] = allocation
            self.addresses[index] = int(buffer.address)
            if getattr(buffer, "name", ""):
                self.argument_names[index] = buffer.name
        self.allocations = sorted(by_base.values(), key=lambda a: a.base)
        self._bases = [a.base for a in self.allocations]

    def release(self) -> None:
        """Drop the launch's views of argument memory."""
        self.by_argument, self.addresses, self.allocations, self._bases = {}, {}, [], []

    # ---- ExecContext memory methods ----
    def load(self, addresses, mask, other, dtype: np.dtype, op: Op) -> Any:
        site = self.sites.get(op, _UNKNOWN_SITE)
        addresses = np.asarray(addresses)
        shape = addresses.shape
        mask = _full_mask(mask, shape)
        if mask is None and site.contiguous:
            run = self._run(site, addresses, dtype)
            if run is not None:
                view, start = run
                out = view[start:start + addresses.size]
                return (out != 0 if dtype == np.bool_ else out.copy()).reshape(shape)
        active = addresses.reshape(-1) if mask is None else addresses[mask]
        fill = 0 if other is None else other
        if active.size == 0:
            return _shaped(np.full(shape, fill, dtype), shape)
        allocation = self._check(site, active, dtype.itemsize, op, "load")
        view, origin = allocation.typed(dtype)
        gathered = view[_indices(active, origin, dtype.itemsize)]
        if dtype == np.bool_:
            gathered = gathered != 0
        if mask is None:
            return _shaped(gathered.reshape(shape), shape)
        out = np.full(shape, fill, dtype)
        out[mask] = gathered
        return _shaped(out, shape)

    def store(self, addresses, value, mask, op: Op) -> None:
        site = self.sites.get(op, _UNKNOWN_SITE)
        addresses = np.asarray(addresses)
        shape = addresses.shape
        value = np.asarray(value)
        if value.shape != shape:
            value = np.broadcast_to(value, shape)
        mask = _full_mask(mask, shape)
        if mask is None and site.contiguous:
            run = self._run(site, addresses, value.dtype, writing=True)
            if run is not None:
                view, start = run
                view[start:start + addresses.size] = value.reshape(-1)
                return
        active = addresses.reshape(-1) if mask is None else addresses[mask]
        if active.size == 0:
            return
        values = value.reshape(-1) if mask is None else value[mask]
        allocation = self._check(site, active, value.dtype.itemsize, op, "store", writing=True)
        view, origin = allocation.typed(value.dtype)
        view[_indices(active, origin, value.dtype.itemsize)] = values  # in index order: the last write wins

    def atomic_rmw(self, kind: str, addresses, value, mask, op: Op) -> Any:
        return self._atomic(op, addresses, mask, [value],
                            lambda view, indices, values: read_modify_write(kind, view, indices, values[0]))

    def atomic_cas(self, addresses, compare, value, op: Op) -> Any:
        return self._atomic(op, addresses, None, [compare, value],
                            lambda view, indices, values: compare_and_swap(view, indices, values[0], values[1]))

    # ---- helpers ----
    def _atomic(self, op: Op, addresses, mask, operands: list, apply) -> Any:
        site = self.sites.get(op, _UNKNOWN_SITE)
        addresses = np.asarray(addresses)
        shape = addresses.shape
        operands = [np.broadcast_to(np.asarray(v), shape) for v in operands]
        dtype = operands[-1].dtype
        if dtype == np.bool_:
            raise self._error(op, "atomics on i1 values are not supported; use an integer type such as i8 or i32")
        mask = _full_mask(mask, shape)
        active = addresses.reshape(-1) if mask is None else addresses[mask]
        old = np.zeros(shape, dtype)
        if active.size == 0:
            return _shaped(old, shape)
        values = [v.reshape(-1) if mask is None else v[mask] for v in operands]
        what = f"atomic {op.attrs.get('kind', 'cas')}"
        allocation = self._check(site, active, dtype.itemsize, op, what, writing=True)
        view, origin = allocation.typed(dtype)
        try:
            previous = apply(view, _indices(active, origin, dtype.itemsize), values)
        except TypeError as error:
            raise self._error(op, str(error)) from None
        if mask is None:
            old = previous.reshape(shape)
        else:
            old[mask] = previous
        return _shaped(old, shape)

    def _allocation(self, site: AccessSite, address: int) -> Allocation | None:
        if site.argument is not None and site.argument in self.by_argument:
            return self.by_argument[site.argument]
        position = bisect.bisect_right(self._bases, address) - 1
        if position >= 0 and address < self.allocations[position].end:
            return self.allocations[position]
        return None

    def _run(self, site: AccessSite, addresses: np.ndarray, dtype: np.dtype, writing: bool = False):
        """For a contiguous access in bounds: (typed view, index of the first element); else
        None (the general path then checks and reports)."""
        itemsize = dtype.itemsize
        flat = addresses.reshape(-1)
        start = int(flat[0])
        if int(flat[-1]) - start != (flat.size - 1) * itemsize or start % itemsize:
            return None
        allocation = self._allocation(site, start)
        if allocation is None or start < allocation.base or start + flat.size * itemsize > allocation.end:
            return None
        if writing and not allocation.writable:
            return None
        view, origin = allocation.typed(dtype)
        return view, (start - origin) // itemsize

    def _check(self, site: AccessSite, active: np.ndarray, itemsize: int, op: Op, what: str,
               writing: bool = False) -> Allocation:
        """The allocation that every masked-in access of ``active`` lies in; raises otherwise."""
        low, high = int(active.min()), int(active.max())
        allocation = self._allocation(site, low)
        if allocation is None or low < allocation.base or high + itemsize > allocation.end:
            raise self._out_of_bounds(site, active, itemsize, allocation, op, what)
        if int(np.bitwise_or.reduce(active)) % itemsize:
            raise self._misaligned(site, active, itemsize, allocation, op, what)
        if writing and not allocation.writable:
            raise self._error(op, f"{what} into read-only memory of argument "
                                  f"{self._name(allocation.argument)!r}; pass a writable array")
        return allocation

    # ---- messages ----
    def _name(self, argument: int | None) -> str:
        if argument is None or argument >= len(self.argument_names):
            return "?"
        return self.argument_names[argument]

    def _error(self, op: Op, message: str) -> InterpreterError:
        return InterpreterError(f"{message}; in program {self.pid} at {op.loc} ({op.name})")

    def _out_of_bounds(self, site: AccessSite, active: np.ndarray, itemsize: int, allocation: Allocation | None,
                       op: Op, what: str) -> InterpreterError:
        traced = self._traced(site)
        argument = traced if traced is not None else (
            allocation.argument if allocation is not None else self._nearest(int(active[0])))
        if argument is None:
            return self._error(op, f"out-of-bounds {what}: address {int(active[0]):#x} lies in no argument's "
                                   "allocation (the kernel has no pointer arguments)")
        name = self._name(argument)
        address = self.addresses.get(argument, 0)
        home = self.by_argument.get(argument)
        if home is None:
            return self._error(op, f"out-of-bounds {what} through argument {name!r}, which is a null pointer")
        outside = active[(active < home.base) | (active + itemsize > home.end)]
        offsets = [(int(a) - address) / itemsize for a in outside[:_SHOWN_OFFSETS]]
        shown = ", ".join(str(int(o)) if float(o).is_integer() else f"{o:g}" for o in offsets)
        more = f" and {outside.size - _SHOWN_OFFSETS} more" if outside.size > _SHOWN_OFFSETS else ""
        first, last = (home.base - address) // itemsize, (home.end - address) // itemsize - 1
        origin = "" if traced is not None else " (the pointer's argument is not known statically: nearest)"
        return self._error(op, f"out-of-bounds {what} through argument {name!r}{origin}: element offsets "
                               f"[{shown}]{more} relative to {name} are outside its allocation, whose valid "
                               f"offsets are {first}..{last} ({itemsize}-byte elements)")

    def _misaligned(self, site: AccessSite, active: np.ndarray, itemsize: int, allocation: Allocation, op: Op,
                    what: str) -> InterpreterError:
        traced = self._traced(site)
        argument = traced if traced is not None else allocation.argument
        name = self._name(argument)
        address = self.addresses.get(argument, 0)
        bad = active[active % itemsize != 0][:_SHOWN_OFFSETS]
        shown = ", ".join(str(int(a) - address) for a in bad)
        return self._error(op, f"misaligned {what} through argument {name!r}: byte offsets [{shown}] relative to "
                               f"{name} are not multiples of the element size {itemsize}")

    def _traced(self, site: AccessSite) -> int | None:
        """The argument the access derives from, when known and backed by a buffer."""
        return site.argument if site.argument in self.by_argument else None

    def _nearest(self, address: int) -> int | None:
        """The argument whose allocation is closest to ``address``."""
        if not self.allocations:
            return None
        best = min(self.allocations, key=lambda a: 0 if a.base <= address < a.end else min(
            abs(address - a.base), abs(address - a.end)))
        return best.argument


def _full_mask(mask, shape) -> np.ndarray | None:
    """The mask as a boolean array of ``shape``; None when every element is masked in."""
    if mask is None:
        return None
    mask = np.asarray(mask, dtype=np.bool_)
    if mask.shape != shape:
        mask = np.broadcast_to(mask, shape)
    return None if mask.all() else mask


def _indices(active: np.ndarray, origin: int, itemsize: int) -> np.ndarray:
    indices = active - np.int64(origin)
    indices >>= itemsize.bit_length() - 1
    return indices


def _shaped(out: np.ndarray, shape: tuple) -> Any:
    return out if shape else out[()]
