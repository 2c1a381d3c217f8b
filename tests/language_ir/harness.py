"""Build small Tile IR functions through the language layer and evaluate them with the op
references (``OpDef.bind``): the numbers a builtin's IR computes, without any backend."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernellab.ir import Block, Builder, Function
from kernellab.ir.ops import numpy_dtype
from kernellab.ir.types import Type
from kernellab.language.core import activate, tensor
from kernellab.language.semantics import Semantic, SemanticOptions


class Memory:
    """A flat byte memory for load/store/atomic references; addresses are byte offsets."""

    def __init__(self, size: int = 1 << 16):
        self.bytes = np.zeros(size, dtype=np.uint8)
        self.next = 64
        self.printed: list[tuple] = []
        self.failed: list[str] = []
        self.program = (0, 0, 0)
        self.grid = (1, 1, 1)

    def put(self, array: np.ndarray) -> int:
        """Copy ``array`` into memory; returns its address (16-byte aligned)."""
        array = np.ascontiguousarray(array)
        address = self.next
        self.bytes[address:address + array.nbytes] = array.view(np.uint8).reshape(-1)
        self.next = (address + array.nbytes + 15) // 16 * 16 + 16
        return address

    def get(self, address: int, dtype: Any, count: int) -> np.ndarray:
        dtype = np.dtype(dtype)
        return self.bytes[address:address + count * dtype.itemsize].view(dtype).copy()

    # ---- ExecContext ----
    def program_id(self, axis: int) -> int:
        return self.program[axis]

    def num_programs(self, axis: int) -> int:
        return self.grid[axis]

    def _element(self, address: int, dtype: np.dtype):
        return self.bytes[address:address + dtype.itemsize].view(dtype)[0]

    def load(self, addresses, mask, other, dtype, op):
        addresses = np.asarray(addresses, dtype=np.int64)
        out = np.empty(addresses.shape, dtype=dtype)
        keep = np.ones(addresses.shape, bool) if mask is None else np.broadcast_to(mask, addresses.shape)
        fill = np.broadcast_to(np.asarray(0 if other is None else other, dtype=dtype), addresses.shape)
        for index in np.ndindex(addresses.shape):
            out[index] = self._element(int(addresses[index]), dtype) if keep[index] else fill[index]
        return out if out.shape else out[()]

    def store(self, addresses, value, mask, op):
        addresses = np.asarray(addresses, dtype=np.int64)
        value = np.broadcast_to(np.asarray(value), addresses.shape)
        keep = np.ones(addresses.shape, bool) if mask is None else np.broadcast_to(mask, addresses.shape)
        for index in np.ndindex(addresses.shape):
            if keep[index]:
                item = np.asarray(value[index]).reshape(1)
                start = int(addresses[index])
                self.bytes[start:start + item.itemsize] = item.view(np.uint8)

    def atomic_rmw(self, kind, addresses, value, mask, op):
        addresses = np.asarray(addresses, dtype=np.int64)
        value = np.broadcast_to(np.asarray(value), addresses.shape)
        dtype = value.dtype
        old = np.empty(addresses.shape, dtype=dtype)
        keep = np.ones(addresses.shape, bool) if mask is None else np.broadcast_to(mask, addresses.shape)
        apply = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or,
                 "xor": np.bitwise_xor, "xchg": lambda a, b: b}[kind]
        for index in np.ndindex(addresses.shape):
            start = int(addresses[index])
            current = self._element(start, dtype)
            old[index] = current
            if keep[index]:
                new = np.asarray(apply(current, value[index]), dtype=dtype).reshape(1)
                self.bytes[start:start + dtype.itemsize] = new.view(np.uint8)
        return old if old.shape else old[()]

    def atomic_cas(self, addresses, compare, value, op):
        addresses = np.asarray(addresses, dtype=np.int64)
        value = np.broadcast_to(np.asarray(value), addresses.shape)
        compare = np.broadcast_to(np.asarray(compare), addresses.shape)
        old = np.empty(addresses.shape, dtype=value.dtype)
        for index in np.ndindex(addresses.shape):
            start = int(addresses[index])
            old[index] = self._element(start, value.dtype)
            if old[index] == compare[index]:
                self.bytes[start:start + value.dtype.itemsize] = np.asarray(value[index]).reshape(1).view(np.uint8)
        return old if old.shape else old[()]

    def print(self, prefix, values, hex, op):
        self.printed.append((prefix, [np.asarray(v).copy() for v in values], hex))

    def check(self, condition, message, op):
        if not np.all(condition):
            self.failed.append(message)


@dataclass
class Kernel:
    """A function under construction: its builder, semantics and argument tensors."""

    builder: Builder
    sem: Semantic
    function: Function
    args: list[tensor]
    memory: Memory = field(default_factory=Memory)

    def ops(self) -> list[str]:
        return [op.name for op in self.function.walk()]

    def run(self, *arg_values: Any, results: list[tensor] | tensor | tuple = ()) -> Any:
        """Evaluate the body with ``arg_values`` bound to the arguments; the values of ``results``."""
        env: dict[int, Any] = {}
        for arg, value in zip(self.function.args, arg_values):
            env[id(arg)] = _as_value(arg.type, value)
        _run_block(self.function.body, env, self.memory)
        if isinstance(results, tensor):
            return env[id(results.handle)]
        return tuple(env[id(r.handle)] for r in results)


def _as_value(ty: Type, value: Any) -> Any:
    dtype = numpy_dtype(ty)
    array = np.asarray(value, dtype=dtype)
    return array if array.shape else array[()]


def _run_block(block: Block, env: dict[int, Any], ctx: Memory) -> list[Any] | None:
    for op in block.ops:
        if op.name in ("yield", "return"):
            return [env[id(v)] for v in op.operands]
        regions = [_region_function(r, env, ctx) for r in op.regions] or None
        outputs = op.opdef.bind(op, ctx, regions)(*[env[id(v)] for v in op.operands])
        for result, value in zip(op.results, outputs):
            env[id(result)] = value
    return None


def _region_function(block: Block, outer: dict[int, Any], ctx: Memory):
    def run(*values):
        env = dict(outer)
        for arg, value in zip(block.args, values):
            env[id(arg)] = value
        return tuple(_run_block(block, env, ctx))
    return run


@contextmanager
def kernel(*arg_types: Type, debug: bool = False, target: str = "interpret") -> Iterator[Kernel]:
    """Build a function taking ``arg_types`` with the language layer active."""
    builder = Builder()
    function = builder.function("k", list(arg_types))
    sem = Semantic(builder, SemanticOptions(debug=debug, target=target))
    with builder.at_end(function.body), activate(sem):
        args = [tensor(value, ty) for value, ty in zip(function.args, arg_types)]
        yield Kernel(builder, sem, function, args)
