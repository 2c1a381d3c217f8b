"""A program's arrays (inputs from its seed, outputs poisoned or, for atomics, random) and the
expected contents of its outputs, computed by evaluating its statements on padded copies."""

from __future__ import annotations

import zlib

import numpy as np

from . import reference as ref
from .dtypes import FP8, NUMPY, is_float, is_signed, to_fp8
from .program import Assign, Load, Loop, Program, Store, input_name

Arrays = dict[str, np.ndarray]


def _rng(program: Program, name: str) -> np.random.Generator:
    return np.random.default_rng([program.seed, zlib.crc32(name.encode())])


def input_shape(program: Program, kind: str) -> tuple[int, ...]:
    return {"MN": (program.m, program.n), "N": (program.n,), "M": (program.m,), "S": (program.grid,),
            "W": (program.bn, program.bn)}[kind]


def output_shape(program: Program, store: Store) -> tuple[int, ...]:
    if store.atomic:
        return (program.n,) if store.kind == "N" else (1,)
    return {"MN": (program.m, program.n), "N": (program.grid, program.n), "M": (program.m,),
            "S": (program.grid,)}[store.kind]


def random_values(rng: np.random.Generator, dtype: str, shape: tuple[int, ...], small: bool = False) -> np.ndarray:
    """Values of ``dtype``: floats around 1 (sometimes larger), integers over the type's range
    (or -9..9 where a product of many could overflow a float); fp8 ones sometimes past its largest
    finite value, where they saturate."""
    if dtype in FP8:
        return to_fp8(rng.standard_normal(shape) * float(rng.choice([0.5, 1.0, 4.0, 30.0, 300.0])), dtype)
    if is_float(dtype):
        scale = 1.0 if small else float(rng.choice([0.5, 1.0, 4.0, 30.0]))
        return (rng.standard_normal(shape) * scale).astype(NUMPY[dtype])
    if small:
        low, high = (-9, 10) if is_signed(dtype) else (0, 10)
        return rng.integers(low, high, shape).astype(NUMPY[dtype])
    info = np.iinfo(NUMPY[dtype])
    if rng.random() < 0.5:  # the whole range (wrapping arithmetic), or small values
        return rng.integers(info.min, int(info.max) + 1, shape, dtype=NUMPY[dtype])
    low = -50 if is_signed(dtype) else 0
    return rng.integers(low, 50, shape).astype(NUMPY[dtype])


def make_arrays(program: Program) -> Arrays:
    """Fresh inputs and outputs of ``program``, by argument name."""
    arrays: Arrays = {}
    for load in program.loads:
        name = input_name(load.var.name)
        arrays[name] = random_values(_rng(program, name), load.var.dtype, input_shape(program, load.var.kind),
                                     small=load.var.kind == "W")
    for store in program.stores:
        shape = output_shape(program, store)
        if store.atomic:
            arrays[store.name] = random_values(_rng(program, store.name), store.dtype, shape, small=True)
        else:
            arrays[store.name] = poisoned(store.dtype, shape)
    return arrays


def poisoned(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if is_float(dtype):
        return np.full(shape, np.nan, NUMPY[dtype])
    return np.full(shape, 0x5A, NUMPY[dtype]) if NUMPY[dtype].itemsize == 1 else \
        np.full(shape, np.iinfo(NUMPY[dtype]).max // 3, NUMPY[dtype])


def padded(program: Program, load: Load, array: np.ndarray) -> ref.Ref:
    """What every program's load sees: ``(G, BM|1, BN|1)``, masked-off lanes ``other``."""
    g, bm, bn, kind = program.grid, program.bm, program.bn, load.var.kind
    if kind == "W":
        return array, ref.zero_err(array)
    full = np.full({"MN": (g * bm, bn), "N": (bn,), "M": (g * bm,), "S": (g,)}[kind],
                   load.other, array.dtype)
    full[tuple(slice(0, s) for s in array.shape)] = array
    shaped = {"MN": lambda: full.reshape(g, bm, bn), "N": lambda: np.broadcast_to(full, (g, 1, bn)).copy(),
              "M": lambda: full.reshape(g, bm, 1), "S": lambda: full.reshape(g, 1, 1)}[kind]()
    return shaped, ref.zero_err(shaped)


def expected(program: Program, arrays: Arrays) -> dict[str, ref.Ref]:
    """The reference contents of each output (its written part) and their error bounds."""
    env: dict = {"__shape__": (program.grid, program.bm, program.bn)}
    for name, value in (("rows", np.arange(program.grid * program.bm, dtype=np.int32).reshape(program.grid, -1, 1)),
                        ("M", np.full((1, 1, 1), program.m, np.int32))):
        env[name] = (value, ref.zero_err(value))
    results: dict[str, ref.Ref] = {}
    for statement in program.body:
        if isinstance(statement, Load):
            env[statement.var.name] = padded(program, statement, arrays[input_name(statement.var.name)])
        elif isinstance(statement, Assign):
            env[statement.var.name] = ref.convert(statement.expr.evaluate(env), statement.expr.dtype,
                                                  statement.var.dtype)
        elif isinstance(statement, Loop):
            env[statement.var.name] = statement.init.evaluate(env)
            for trip in range(statement.trips):
                index = np.full((1, 1, 1), trip, np.int32)
                env[statement.index] = (index, ref.zero_err(index))
                env[statement.var.name] = statement.body.evaluate(env)
        else:
            results[statement.name] = _stored(program, statement, statement.expr.evaluate(env), arrays)
    return results


def _stored(program: Program, store: Store, value: ref.Ref, arrays: Arrays) -> ref.Ref:
    g, bm, bn, m, n = program.grid, program.bm, program.bn, program.m, program.n
    shape = (g, bm if store.kind in ("MN", "M") else 1, bn if store.kind in ("MN", "N") else 1)
    full = tuple(np.broadcast_to(part, shape) for part in value)
    if store.atomic:
        cut = {"N": lambda a: a[:, 0, :n], "S": lambda a: a.reshape(g, 1)}[store.kind]
        return ref.atomic(store.atomic, arrays[store.name].copy(), (cut(full[0]), cut(full[1])), store.dtype)
    cut = {"MN": lambda a: a.reshape(g * bm, bn)[:m, :n], "N": lambda a: a[:, 0, :n],
           "M": lambda a: a.reshape(g * bm)[:m], "S": lambda a: a.reshape(g)}[store.kind]
    return np.ascontiguousarray(cut(full[0])), np.ascontiguousarray(cut(full[1]))
