"""A tiny Tile IR evaluator for pass tests: every op through its numpy reference
(``OpDef.bind``), plus ``for``/``if``/``while``/``call`` structurally, with a flat byte memory
for loads and stores.  Used to check that a pass keeps what a function computes."""

from __future__ import annotations

import numpy as np

from kernellab.ir import Block, Function, Module

BASE = 1 << 12


class Memory:
    """An execution context: program ids and a heap of numpy buffers at byte addresses."""

    def __init__(self, program_ids=(0, 0, 0)):
        self.program_ids = program_ids
        self.heap = np.zeros(0, np.uint8)
        self.arrays: list[tuple[int, np.ndarray]] = []

    def allocate(self, array: np.ndarray) -> np.int64:
        address = BASE + len(self.heap)
        data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        self.heap = np.concatenate([self.heap, data, np.zeros(64, np.uint8)])
        self.arrays.append((address, array))
        return np.int64(address)

    def read(self, address: int, dtype: np.dtype) -> np.ndarray:
        return np.asarray(self.heap[address - BASE: address - BASE + dtype.itemsize].view(dtype)[0])

    def program_id(self, axis: int) -> int:
        return self.program_ids[axis]

    def num_programs(self, axis: int) -> int:
        return 1

    def load(self, addresses, mask, other, dtype, op):
        addresses = np.asarray(addresses)
        mask = np.ones(addresses.shape, bool) if mask is None else np.broadcast_to(mask, addresses.shape)
        fill = dtype.type(0) if other is None else other
        out = np.empty(addresses.shape, dtype)
        for index in np.ndindex(addresses.shape):
            out[index] = self.read(int(addresses[index]), dtype) if mask[index] else np.asarray(fill)[()]
        return out if out.ndim else out[()]

    def store(self, addresses, value, mask, op) -> None:
        addresses = np.asarray(addresses)
        value = np.broadcast_to(np.asarray(value), addresses.shape)
        mask = np.ones(addresses.shape, bool) if mask is None else np.broadcast_to(mask, addresses.shape)
        for index in np.ndindex(addresses.shape):
            if mask[index]:
                start = int(addresses[index]) - BASE
                raw = np.asarray(value[index]).reshape(1).view(np.uint8)
                self.heap[start:start + raw.size] = raw

    def snapshot(self) -> bytes:
        return self.heap.tobytes()


class Evaluator:
    def __init__(self, module: Module | None, memory: Memory | None = None):
        self.module = module
        self.memory = memory or Memory()
        self.env: dict[int, object] = {}

    def call(self, function: Function, args: list) -> list:
        return self.block(function.body, args)

    def block(self, block: Block, args) -> list:
        self.env.update({id(a): v for a, v in zip(block.args, args)})
        for op in block.ops:
            if op.name in ("yield", "return", "condition"):
                return [self.env[id(v)] for v in op.operands]
            operands = [self.env[id(v)] for v in op.operands]
            results = self.structural(op, operands) if op.name in ("for", "if", "while", "call") else \
                op.opdef.bind(op, self.memory, [self.region(r) for r in op.regions])(*operands)
            self.env.update({id(r): v for r, v in zip(op.results, results)})
        raise AssertionError("block without terminator")

    def region(self, block: Block):
        return lambda *values: tuple(self.block(block, values))

    def structural(self, op, operands) -> list:
        if op.name == "call":
            return self.call(self.module.functions[op.attrs["callee"]], operands)
        if op.name == "if":
            return self.block(op.regions[0 if operands[0] else 1], [])
        if op.name == "for":
            lower, upper, step, *carried = operands
            for i in range(int(lower), int(upper), int(step)):
                carried = self.block(op.regions[0], [type(lower)(i), *carried])
            return carried
        carried = operands
        while True:
            go, *forwarded = self.block(op.regions[0], carried)
            if not go:
                return forwarded
            carried = self.block(op.regions[1], forwarded)


def evaluate(module: Module, args: list, function: str | None = None, memory: Memory | None = None) -> list:
    """The results of ``function`` (the kernel by default) on ``args``."""
    fn = module.functions[function] if function else module.kernel
    with np.errstate(all="ignore"):
        return Evaluator(module, memory).call(fn, args)


def same_values(a: list, b: list) -> bool:
    """Bit-for-bit equal results (NaNs with equal payloads count as equal)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
            return False
    return True
