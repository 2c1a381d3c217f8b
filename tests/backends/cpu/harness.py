"""Run single Tile IR ops on the CPU target and compare with their numpy references.

``run_op`` builds a kernel that loads each input (a tile, or a scalar through a pointer),
applies the op once, and stores each result; outputs start poisoned (NaN, or a pattern for
integers) so that an element the kernel never wrote cannot pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import kernellab.backends as backends
from kernellab.ir import Block, Builder, Location, Module, Value
from kernellab.ir import types as T
from kernellab.ir.ops import numpy_dtype
from kernellab.ir.types import TileType, Type, element_of, shape_of

LOC = Location("/kernels/test_op.py", 7, 4)


def poison(shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return np.full(shape, np.nan, dtype=dtype)
    if dtype.kind == "b":
        return np.ones(shape, dtype=dtype)
    return np.full(shape, 91, dtype=dtype)


def tile_offsets(b: Builder, shape: tuple[int, ...]) -> Value:
    """An i32 tile of ``shape`` holding each element's row-major position."""
    full = T.tile(T.i32, shape)
    total = None
    stride = 1
    for dim in reversed(range(len(shape))):
        part = b.create("arange", [], [T.tile(T.i32, (shape[dim],))], {"start": 0, "end": shape[dim]}).result
        current = (shape[dim],)
        for _ in range(dim):
            current = (1,) + current
            part = b.create("expand_dims", [part], [T.tile(T.i32, current)], {"axis": 0}).result
        while len(current) < len(shape):
            current = current + (1,)
            part = b.create("expand_dims", [part], [T.tile(T.i32, current)], {"axis": len(current) - 1}).result
        if current != shape:
            part = b.create("broadcast", [part], [full]).result
        if stride != 1:
            part = b.create("mul", [part, b.create("splat", [b.constant(stride, T.i32)], [full]).result], [full]).result
        total = part if total is None else b.create("add", [total, part], [full]).result
        stride *= shape[dim]
    return total


def load_value(b: Builder, ptr: Value, ty: Type) -> Value:
    if not isinstance(ty, TileType):
        return b.create("load", [ptr, None, None], [ty], grouped=True).result
    ptr_tile = T.tile(ptr.type, ty.shape)
    ptrs = b.create("addptr", [b.create("splat", [ptr], [ptr_tile]).result, tile_offsets(b, ty.shape)],
                    [ptr_tile]).result
    return b.create("load", [ptrs, None, None], [ty], grouped=True).result


def store_value(b: Builder, ptr: Value, value: Value) -> None:
    ty = value.type
    if not isinstance(ty, TileType):
        b.create("store", [ptr, value, None], [], grouped=True)
        return
    ptr_tile = T.tile(ptr.type, ty.shape)
    ptrs = b.create("addptr", [b.create("splat", [ptr], [ptr_tile]).result, tile_offsets(b, ty.shape)],
                    [ptr_tile]).result
    b.create("store", [ptrs, value, None], [], grouped=True)


def compile_cpu(module: Module, **options) -> tuple[Any, dict, dict]:
    backend = backends.get("cpu")
    metadata: dict = {}
    asm = backend.compile(module, backend.options(**options), metadata)
    return backend.load(asm, metadata), asm, metadata


def type_of(value: Any, ty: Type | None = None) -> Type:
    if ty is not None:
        return ty
    array = np.asarray(value)
    scalar = T.from_numpy(array.dtype)
    return T.tile(scalar, array.shape) if array.shape else scalar


def run_op(name: str, inputs: Sequence[Any], result_types: Sequence[Type], attrs: dict | None = None,
           regions: Sequence[Block] = (), input_types: Sequence[Type] | None = None, grouped: bool = False,
           operand_groups: Sequence | None = None, grid=(1, 1, 1)) -> list[np.ndarray]:
    """Apply op ``name`` to ``inputs`` on the CPU target; returns its results as arrays."""
    types = [type_of(v, t) for v, t in zip(inputs, input_types or [None] * len(inputs))]
    b = Builder()
    arg_types = [T.pointer(element_of(t)) for t in types] + [T.pointer(element_of(t)) for t in result_types]
    fn = b.function("op_kernel", arg_types, attrs={"kernel": True}, loc=LOC)
    with b.at_end(fn.body), b.location(LOC):
        values = [load_value(b, fn.args[i], t) for i, t in enumerate(types)]
        operands = operand_groups(values) if operand_groups else values
        op = b.create(name, operands, list(result_types), attrs or {}, list(regions), grouped=grouped)
        for k, result in enumerate(op.results):
            store_value(b, fn.args[len(types) + k], result)
        b.return_()
    launcher, _, _ = compile_cpu(b.module)
    arrays = [np.ascontiguousarray(np.asarray(v, dtype=numpy_dtype(t))) for v, t in zip(inputs, types)]
    outs = [poison(shape_of(t) or (1,), numpy_dtype(t)) for t in result_types]
    launcher(grid, [a.ctypes.data for a in arrays] + [o.ctypes.data for o in outs])
    return [o if shape_of(t) else o.reshape(())[()] for o, t in zip(outs, result_types)]


def reference(name: str, inputs: Sequence[Any], result_types: Sequence[Type], attrs: dict | None = None,
              regions: Sequence = (), input_types: Sequence[Type] | None = None, grouped: bool = False,
              operand_groups: Sequence | None = None) -> list:
    """The op's numpy reference on the same inputs."""
    from kernellab.ir.ops import lookup

    types = [type_of(v, t) for v, t in zip(inputs, input_types or [None] * len(inputs))]
    b = Builder()
    fn = b.function("ref", types, loc=LOC)
    with b.at_end(fn.body):
        operands = operand_groups(list(fn.args)) if operand_groups else list(fn.args)
        op = b.create(name, operands, list(result_types), attrs or {}, list(regions), grouped=grouped)
    values = [np.asarray(v, dtype=numpy_dtype(t)) if shape_of(t) else numpy_dtype(t).type(v)
              for v, t in zip(inputs, types)]
    run = lookup(name).bind(op, regions=list(regions_callables(regions)))
    return list(run(*values))


def regions_callables(regions):
    for region in regions:
        yield getattr(region, "reference_callable", None)


def random_array(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Fresh random values of ``dtype`` (never all zeros; no zeros for divisors where asked)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(info.min, -1000), min(info.max, 1000)
        return rng.integers(low, high, size=shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)
