"""A thin convenience layer over ``kernellab.ir.Builder`` for writing test kernels by hand."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from kernellab.ir import Builder, Location
from kernellab.ir import types as T
from kernellab.ir.core import Block, Value


class Kit:
    """Ops with inferred result types, for the common cases of the tests."""

    def __init__(self, file: str = "kernels.py"):
        self.b = Builder()
        self.file = file
        self.line = 0

    @property
    def module(self):
        return self.b.module

    def kernel(self, name: str, params: list[tuple[str, T.Type]]):
        fn = self.b.function(name, [t for _, t in params], arg_names=[n for n, _ in params], attrs={"kernel": True})
        return fn

    def function(self, name: str, params: list[tuple[str, T.Type]], results: list[T.Type]):
        return self.b.function(name, [t for _, t in params], results, arg_names=[n for n, _ in params])

    @contextmanager
    def body(self, block: Block):
        with self.b.at_end(block):
            yield self

    def op(self, name: str, operands, result_types, attrs=None, regions=(), grouped=False, hint=None):
        self.line += 1
        op = self.b.create(name, operands, result_types, attrs, regions, Location(self.file, self.line, 4), grouped)
        if hint and op.results:
            op.results[0].name_hint = hint
        return op

    def one(self, name: str, operands, ty, attrs=None, hint=None) -> Value:
        return self.op(name, operands, [ty], attrs, hint=hint).result

    # ---- creation ----
    def const(self, value, ty) -> Value:
        return self.one("constant", [], ty, {"value": value})

    def pid(self, axis: int = 0) -> Value:
        return self.one("program_id", [], T.i32, {"axis": axis}, hint="pid")

    def arange(self, n: int) -> Value:
        return self.one("arange", [], T.tile(T.i32, (n,)), {"start": 0, "end": n})

    def splat(self, x: Value, shape) -> Value:
        return self.one("splat", [x], T.tile(x.type, shape))

    # ---- arithmetic (operands share a type) ----
    def bin(self, name: str, a: Value, b: Value, hint=None, **attrs) -> Value:
        return self.one(name, [a, b], a.type, attrs or None, hint=hint)

    def cmp(self, predicate: str, a: Value, b: Value) -> Value:
        return self.one("cmp", [a, b], T.with_shape(T.i1, T.shape_of(a.type)), {"predicate": predicate})

    def un(self, name: str, x: Value) -> Value:
        return self.one(name, [x], x.type)

    def addptr(self, ptr: Value, offsets: Value) -> Value:
        if T.shape_of(offsets.type) and not T.shape_of(ptr.type):
            ptr = self.splat(ptr, T.shape_of(offsets.type))
        return self.one("addptr", [ptr, offsets], ptr.type)

    # ---- memory ----
    def block_ptr(self, base: Value, shape, strides, offsets, block_shape, order=None) -> Value:
        ty = T.pointer(T.tile(T.element_of(base.type).element_ty, block_shape))
        order = order or tuple(reversed(range(len(block_shape))))
        return self.op("make_block_ptr", [base, list(shape), list(strides), list(offsets)], [ty],
                       {"block_shape": tuple(block_shape), "order": tuple(order)}, grouped=True).result

    def load(self, ptr: Value, mask=None, other=None, **attrs) -> Value:
        pointee = T.element_of(ptr.type).element_ty
        ty = pointee if isinstance(pointee, T.TileType) else T.with_shape(pointee, T.shape_of(ptr.type))
        return self.op("load", [ptr, mask, other], [ty], attrs or None, grouped=True).result

    def store(self, ptr: Value, value: Value, mask=None, **attrs) -> None:
        self.op("store", [ptr, value, mask], [], attrs or None, grouped=True)

    def ret(self, values=()) -> None:
        self.line += 1
        self.b.return_(list(values))

    # ---- regions ----
    def region(self, arg_types, fill) -> Block:
        """A block with ``arg_types`` arguments; ``fill(*args)`` builds its ops and returns the
        values to yield (or a ``("condition", cond, values)`` triple for a while's before-region)."""
        block = Block(list(arg_types))
        with self.b.at_end(block):
            out = fill(*block.args)
            if isinstance(out, tuple) and out and out[0] == "condition":
                self.op("condition", [out[1], list(out[2])], [], grouped=True)
            else:
                self.b.yield_(list(out or ()))
        return block

    def reduce(self, values: list[Value], axis: int, combine) -> list[Value]:
        """``combine(*running, *incoming) -> yielded`` over scalars of the operands' elements."""
        scalars = [T.element_of(v.type) for v in values]
        shape = T.shape_of(values[0].type)
        out_shape = shape[:axis] + shape[axis + 1:]
        region = self.region(scalars + scalars, combine)
        return self.op("reduce", values, [T.with_shape(t, out_shape) for t in scalars], {"axis": axis},
                       [region]).results

    def reduce_with(self, name: str, x: Value, axis: int = 0, **attrs) -> Value:
        return self.reduce([x], axis, lambda a, b: [self.bin(name, a, b, **attrs)])[0]

    def for_(self, lower: Value, upper: Value, step: Value, init: list[Value], body) -> list[Value]:
        region = self.region([lower.type] + [v.type for v in init], body)
        return self.op("for", [lower, upper, step, list(init)], [v.type for v in init], regions=[region],
                       grouped=True).results

    def if_(self, cond: Value, result_types, then, otherwise) -> list[Value]:
        regions = [self.region([], then), self.region([], otherwise)]
        return self.op("if", [cond], list(result_types), regions=regions).results

    def while_(self, init: list[Value], before, forwarded_types, after) -> list[Value]:
        regions = [self.region([v.type for v in init], before), self.region(list(forwarded_types), after)]
        return self.op("while", list(init), list(forwarded_types), regions=regions).results

    def call(self, callee: str, args: list[Value], result_types) -> list[Value]:
        return self.op("call", list(args), list(result_types), {"callee": callee}).results


def run(module, grid, *args, **options) -> None:
    """Compile ``module`` for the interpreter and launch it once."""
    from kernellab.backends.interpreter import run as interpret

    interpret(module, grid, list(args), **options)


def poisoned(shape, dtype=np.float32) -> np.ndarray:
    """An output array filled with NaN (or, for integers, a sentinel)."""
    dtype = np.dtype(dtype)
    fill = np.nan if dtype.kind == "f" else -123456 if dtype.kind == "i" else 123
    return np.full(shape, fill, dtype)


F32P = T.pointer(T.f32)
I32P = T.pointer(T.i32)


def vector_add(block: int, masked: bool = True, mask_store: bool = True):
    """out = x + y, BLOCK elements per program (the tutorial kernel)."""
    k = Kit()
    fn = k.kernel("add_kernel", [("x_ptr", F32P), ("y_ptr", F32P), ("out_ptr", F32P), ("n", T.i32)])
    x_ptr, y_ptr, out_ptr, n = fn.args
    with k.body(fn.body):
        pid = k.pid()
        start = k.bin("mul", pid, k.const(block, T.i32))
        offs = k.bin("add", k.splat(start, (block,)), k.arange(block), hint="offs")
        mask = k.cmp("lt", offs, k.splat(n, (block,))) if masked else None
        x = k.load(k.addptr(x_ptr, offs), mask)
        y = k.load(k.addptr(y_ptr, offs), mask)
        k.store(k.addptr(out_ptr, offs), k.bin("add", x, y), mask if mask_store else None)
        k.ret()
    return k.module
