"""Seeded random Tile IR for round-trip and pass tests: straight-line elementwise code over a
few scalar and tile types, optionally with nested ``if``/``for`` regions, random name hints
(with repeats) and source locations."""

from __future__ import annotations

import numpy as np

from kernellab.ir import Block, Builder, Function, Location, Module, Value
from kernellab.ir import types as T

SHAPE = (4,)
TYPES = [T.i32, T.f32, T.tile(T.i32, SHAPE), T.tile(T.f32, SHAPE)]
HINTS = ["x", "y", "acc", "x.1", None, None, None]
FILES = ["/src/a.py", "/src/b b.py"]
BINARY = {"i": ["add", "sub", "mul", "minimum", "maximum", "and", "xor"], "f": ["add", "sub", "mul", "minimum",
                                                                            "maximum", "div"]}


def _bool_of(ty):
    return T.tile(T.i1, ty.shape) if isinstance(ty, T.TileType) else T.i1


class RandomIR:
    def __init__(self, rng: np.random.Generator, regions: bool = True):
        self.rng = rng
        self.regions = regions
        self.b = Builder()

    def pick(self, items):
        return items[int(self.rng.integers(len(items)))]

    def loc(self) -> Location | None:
        if self.rng.random() < 0.2:
            return None
        return Location(self.pick(FILES), int(self.rng.integers(1, 200)), int(self.rng.integers(0, 80)))

    def constant_value(self, ty):
        element = T.element_of(ty)
        if element.is_floating():
            return float(np.float32(self.rng.normal() * 10).round(2)) or 0.5
        return int(self.rng.integers(-50, 50)) or 3

    def create(self, name, operands, result_types, attrs=None, regions=(), grouped=False):
        loc = self.loc()
        op = self.b.create(name, operands, result_types, attrs, regions, loc=loc, grouped=grouped)
        for result in op.results:
            result.name_hint = self.pick(HINTS)
        return op

    def operand(self, pool: dict, ty) -> Value:
        if not pool.get(ty) or self.rng.random() < 0.15:
            value = self.create("constant", [], [ty], {"value": self.constant_value(ty)}).result
            pool.setdefault(ty, []).append(value)
            return value
        return self.pick(pool[ty])

    def step(self, pool: dict, depth: int) -> None:
        ty = self.pick(TYPES)
        roll = self.rng.random()
        element = "f" if T.element_of(ty).is_floating() else "i"
        if roll < 0.55:
            name = self.pick(BINARY[element])
            result = self.create(name, [self.operand(pool, ty), self.operand(pool, ty)], [ty]).result
        elif roll < 0.7:
            a, b = self.operand(pool, ty), self.operand(pool, ty)
            cond = self.create("cmp", [a, b], [_bool_of(ty)], {"predicate": self.pick(["lt", "eq", "ge"])}).result
            result = self.create("select", [cond, b, a], [ty]).result
        elif roll < 0.8:
            other = T.with_shape(T.f32 if element == "i" else T.i32, T.shape_of(ty))
            result = self.create("cast", [self.operand(pool, other)], [ty]).result
        elif roll < 0.9 and isinstance(ty, T.TileType):
            result = self.create("splat", [self.operand(pool, ty.element_ty)], [ty]).result
        elif self.regions and depth < 2:
            result = self.if_op(pool, ty, depth) if self.rng.random() < 0.5 else self.for_op(pool, ty, depth)
        else:
            result = self.create("neg", [self.operand(pool, ty)], [ty]).result
        pool.setdefault(ty, []).append(result)

    def inner(self, block: Block, pool: dict, ty, depth: int, steps: int) -> None:
        local = {k: list(v) for k, v in pool.items()}
        for arg in block.args:
            local.setdefault(arg.type, []).append(arg)
        with self.b.at_end(block):
            for _ in range(steps):
                self.step(local, depth + 1)
            self.create("yield", [[self.operand(local, ty)]], [], grouped=True)

    def if_op(self, pool: dict, ty, depth: int) -> Value:
        cond = self.create("cmp", [self.operand(pool, T.i32), self.operand(pool, T.i32)], [T.i1],
                           {"predicate": "lt"}).result
        then, other = Block(), Block()
        self.inner(then, pool, ty, depth, int(self.rng.integers(0, 4)))
        self.inner(other, pool, ty, depth, int(self.rng.integers(0, 3)))
        return self.create("if", [cond], [ty], regions=[then, other]).result

    def for_op(self, pool: dict, ty, depth: int) -> Value:
        bounds = [self.create("constant", [], [T.i32], {"value": v}).result for v in (0, 3, 1)]
        body = Block([T.i32, ty], [self.pick(HINTS), self.pick(HINTS)])
        self.inner(body, pool, ty, depth, int(self.rng.integers(1, 4)))
        return self.create("for", [*bounds, [self.operand(pool, ty)]], [ty], regions=[body], grouped=True).result

    def function(self, name: str, steps: int, attrs: dict | None = None) -> Function:
        fn = self.b.function(name, TYPES, [TYPES[3]], ["a", "x", None, "t"], attrs or {}, loc=self.loc())
        pool: dict = {}
        for arg in fn.args:
            pool.setdefault(arg.type, []).append(arg)
        with self.b.at_end(fn.body):
            for _ in range(steps):
                self.step(pool, 0)
            self.create("return", [[self.operand(pool, TYPES[3])]], [], grouped=True)
        return fn


def random_module(seed: int, functions: int = 2, steps: int = 25, regions: bool = True) -> Module:
    """A module of ``functions`` random functions; the first is the kernel."""
    gen = RandomIR(np.random.default_rng(seed), regions)
    gen.b.module.attrs["seed"] = seed
    for i in range(functions):
        attrs = {"kernel": True, "tag": "k\\\"1\"", "sizes": (1, (2, 3.5), "x")} if i == 0 else {}
        gen.function(f"f{i}", steps, attrs)
    return gen.b.module
