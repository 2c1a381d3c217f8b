"""Random well-typed kernels: ``generate(seed)`` builds a :class:`~.program.Program` of a few
independent parts (each: loads of random dtypes and kinds, a chain of statements, stores or
atomics), all in one kernel so that one compilation checks several programs.

A part loads fp8 values now and then (:data:`FP8_CHANCE`, decided apart from the rest of the
seed's choices, so parts without fp8 are what they were): only the fp8 steps (arithmetic,
negation and abs, comparisons and selects, casts to and from f16/f32) take them as operands;
they reach the other steps through those casts, and the stores."""

from __future__ import annotations

import random

from .dtypes import BOOL, DTYPES, FLOATS, FP8, INTS, bits, is_float, is_int, is_signed
from .program import (
    CALL_OPS,
    COMPARISONS,
    MATH,
    Assign,
    Binary,
    Call,
    Cast,
    Const,
    Dot,
    Expr,
    Load,
    Loop,
    LoopIndex,
    Program,
    Reduce,
    Scan,
    Statement,
    Store,
    Unary,
    Var,
    Where,
    join,
)

INT_OPS = ("add", "sub", "mul", "and", "or", "xor", "max", "min", "floordiv", "mod", "shl", "shr")
FLOAT_OPS = ("add", "sub", "mul", "div", "max", "min")
ATOMIC_DTYPES = {"add": ("int32", "uint32", "int64", "uint64", "float32"),
                 "max": ("int32", "uint32", "int64", "float32"), "min": ("int32", "uint32", "int64", "float32"),
                 "and": ("int32", "uint32", "int64"), "or": ("int32", "uint32", "int64"),
                 "xor": ("int32", "uint32", "int64")}
DOT_DTYPES = ("float16", "bfloat16", "float32", "int8")
KINDS = ("MN", "MN", "MN", "N", "M", "S")
LOADS_PER_PART = (2, 4)
STATEMENTS_PER_PART = (2, 6)
FP8_CHANCE = 0.12  # of a part loading fp8 values
FP8_PARTNERS = ("float16", "float32")  # the types fp8 values are cast from and to


class PartBuilder:
    """Builds one part of a program: its statements, over a pool of the variables it defined."""

    def __init__(self, rng: random.Random, prefix: str, dots: bool):
        self.rng = rng
        self.prefix = prefix
        self.dots = dots
        self.pool: list[Var] = []
        self.statements: list[Statement] = []
        self.weights: list[Var] = []
        self.count = 0

    def fresh(self, stem: str = "v") -> str:
        self.count += 1
        return f"{self.prefix}{stem}{self.count}"

    def define(self, expr: Expr) -> Var:
        var = Var(self.fresh(), expr.dtype, expr.kind, expr.exact, expr.product)
        self.statements.append(Assign(var, expr))
        self.pool.append(var)
        return var

    # ---- operands ----
    def pick(self, predicate=lambda v: True, fp8: bool = False) -> Var | None:
        """A random variable of the pool that ``predicate`` accepts (fp8 ones only if ``fp8``)."""
        found = [v for v in self.pool if predicate(v) and (fp8 or v.dtype not in FP8)]
        return self.rng.choice(found) if found else None

    def load(self, kind: str, dtype: str) -> Var:
        var = Var(self.fresh("x"), dtype, kind)
        other = self.rng.choice([0, 1]) if is_int(dtype) else self.rng.choice([0.0, 1.0, -2.5])
        self.statements.append(Load(var, other))
        if kind == "W":
            self.weights.append(var)
        else:
            self.pool.append(var)
        return var

    def constant(self, dtype: str) -> Const:
        if is_float(dtype):
            return Const(self.rng.choice([0.5, 1.5, -2.0, 3.0, 0.25]), dtype)
        return Const(self.rng.choice([1, 2, 3, 5, 7, 100]), dtype)

    # ---- statements ----
    def step(self) -> None:
        choices = [(self.arith, 30), (self.unary, 8), (self.cast, 12), (self.select, 10), (self.reduce, 8),
                   (self.scan, 5), (self.loop, 6), (self.dot, 6 if self.weights else 0),
                   (self.fp8, 40 if any(v.dtype in FP8 for v in self.pool) else 0)]
        action = self.rng.choices([c for c, _ in choices], [w for _, w in choices])[0]
        action()

    def arith(self) -> None:
        a = self.pick(lambda v: v.dtype != BOOL)
        if self.rng.random() < 0.3:
            b: Expr = self.constant(a.dtype)
        else:
            b = self.pick(lambda v: v.dtype != BOOL and (is_float(v.dtype) == is_float(a.dtype) or
                                                         self.rng.random() < 0.3))
        if self.rng.random() < 0.5:
            a, b = b, a
        common = Binary("add", a, b).operand_dtype
        ops = FLOAT_OPS if is_float(common) else INT_OPS
        if isinstance(a, Const) or isinstance(b, Const):
            ops = tuple(op for op in ops if op not in ("floordiv", "mod", "shl", "shr"))
        if not is_float(common):
            ops = ops + ("div",)
        if _mixed_signedness(a, b):  # Triton refuses /, // and % between signed and unsigned
            ops = tuple(op for op in ops if op not in ("div", "floordiv", "mod"))
        op = self.rng.choice(ops)
        if op in CALL_OPS and not isinstance(a, Const) and not isinstance(b, Const) and self.rng.random() < 0.15:
            self.define(Call(op, a, b, noinline=self.rng.random() < 0.5))  # through a jit helper
            return
        self.define(Binary(op, a, b))

    def unary(self) -> None:
        x = self.pick(lambda v: v.dtype != BOOL)
        if x.dtype in ("float32", "float64"):  # math functions take f32 and f64 (as in Triton)
            op = self.rng.choice(("neg", "abs") + MATH)
        elif is_float(x.dtype):
            op = self.rng.choice(("neg", "abs"))
        else:
            op = self.rng.choice(("neg", "abs", "invert"))
        self.define(Unary(op, x))

    def cast(self) -> None:
        x = self.pick(lambda v: v.exact or is_int(v.dtype) or v.dtype == BOOL)
        targets = list(DTYPES) if x.exact else list(FLOATS)
        if x.dtype == BOOL:
            targets = list(INTS) + list(FLOATS)
        elif is_int(x.dtype):
            targets.append(BOOL)
        self.define(Cast(x, self.rng.choice(targets)))

    def condition(self) -> Expr:
        exact = [v for v in self.pool if v.exact and v.dtype != BOOL]
        if not exact:
            return Binary("lt", Var("rows", "int32", "M"), Var("M", "int32", "S"))
        a = self.rng.choice(exact)
        same = [v for v in exact if is_float(v.dtype) == is_float(a.dtype)]
        b = self.rng.choice(same) if self.rng.random() < 0.7 else self.constant(a.dtype)
        cond: Expr = Binary(self.rng.choice(COMPARISONS), a, b)
        bools = [v for v in self.pool if v.dtype == BOOL]
        if bools and self.rng.random() < 0.3:
            cond = Binary(self.rng.choice(("and", "or", "xor")), cond, self.rng.choice(bools))
        return cond

    def select(self) -> None:
        cond = self.condition()
        if self.rng.random() < 0.3:
            self.define(cond)
            return
        a = self.pick(lambda v: v.dtype != BOOL)
        b = self.pick(lambda v: v.dtype != BOOL and is_float(v.dtype) == is_float(a.dtype))
        self.define(Where(cond, a, b if self.rng.random() < 0.7 else self.constant(a.dtype)))

    def reduce(self) -> None:
        x = self.pick(lambda v: v.dtype != BOOL and v.kind != "S")
        if x is None:
            return self.arith()
        axis = self.rng.choice([0, 1, None]) if x.kind == "MN" else self.rng.choice([0, None])
        self.define(Reduce(self.rng.choice(("sum", "max", "min")), x, axis))

    def scan(self) -> None:
        x = self.pick(lambda v: v.dtype != BOOL and v.kind != "S")
        if x is None:
            return self.arith()
        axis = self.rng.choice([0, 1]) if x.kind == "MN" else 0
        self.define(Scan(x, axis, self.rng.random() < 0.3))

    def loop(self) -> None:
        init = self.pick(lambda v: v.dtype != BOOL)
        step = self.pick(lambda v: v.dtype != BOOL and join(v.kind, init.kind) == init.kind and
                         is_float(v.dtype) == is_float(init.dtype))
        var = Var(self.fresh(), init.dtype, init.kind, init.exact, init.product)
        index = LoopIndex(self.fresh("i"))
        op = self.rng.choice(("add", "sub", "max", "min", "xor") if is_int(init.dtype) else ("add", "sub", "max"))
        term: Expr = step
        if self.rng.random() < 0.5:
            term = Binary("add" if is_float(step.dtype) or bits(step.dtype) > 8 else "xor", step, index)
        body = Cast(Binary(op, var, term), init.dtype)
        final = Var(var.name, var.dtype, var.kind, init.exact and body.exact, init.product or body.product)
        self.statements.append(Loop(final, init, self.rng.randint(0, 4), index.name, body))
        self.pool.append(final)

    def dot(self) -> None:
        a = self.pick(lambda v: v.kind == "MN" and v.dtype != BOOL and (v.exact or not is_int(self.weights[0].dtype)))
        if a is None:
            return self.arith()
        self.define(Dot(a, self.rng.choice(self.weights)))

    # ---- fp8 ----
    def fp8(self) -> None:
        """A step on an fp8 value: arithmetic, -x or |x|, a comparison or select, or a cast."""
        x = self.pick(lambda v: v.dtype in FP8, fp8=True)
        steps = ((self.fp8_arith, 5), (self.fp8_unary, 2), (self.fp8_select, 2), (self.fp8_cast, 3))
        self.rng.choices([s for s, _ in steps], [w for _, w in steps])[0](x)

    def fp8_operand(self, x: Var) -> Expr:
        """A second operand for ``x``: a literal, an fp8 value (mostly of x's type) or an f16/f32 one."""
        if self.rng.random() < 0.3:
            return self.constant(x.dtype)
        other = self.rng.random() < 0.2
        found = self.pick(lambda v: v.dtype == x.dtype or (other and (v.dtype in FP8 or v.dtype in FP8_PARTNERS)),
                          fp8=True)
        return found or self.constant(x.dtype)

    def fp8_arith(self, x: Var) -> None:
        a, b = x, self.fp8_operand(x)
        if self.rng.random() < 0.5:
            a, b = b, a
        op = self.rng.choice(FLOAT_OPS)
        if op in CALL_OPS and not isinstance(b, Const) and not isinstance(a, Const) and self.rng.random() < 0.15:
            self.define(Call(op, a, b, noinline=self.rng.random() < 0.5))
            return
        self.define(Binary(op, a, b))

    def fp8_unary(self, x: Var) -> None:
        self.define(Unary(self.rng.choice(("neg", "abs")), x))

    def fp8_select(self, x: Var) -> None:
        b = self.fp8_operand(x)
        cond = Binary(self.rng.choice(COMPARISONS), x, b) if x.exact and b.exact else self.condition()
        if self.rng.random() < 0.3:
            self.define(cond)
            return
        self.define(Where(cond, x, self.fp8_operand(x)))

    def fp8_cast(self, x: Var) -> None:
        source = self.pick(lambda v: v.dtype in FP8_PARTNERS) if self.rng.random() < 0.5 else None
        if source is None:
            self.define(Cast(x, self.rng.choice(FP8_PARTNERS)))
            return
        self.define(Cast(source, self.rng.choice(FP8)))

    # ---- outputs ----
    def outputs(self, count: int) -> None:
        candidates = self.pool[-3:]
        for k in range(count):
            value = candidates[-1 - k] if k < len(candidates) else self.rng.choice(self.pool)
            expr: Expr = Cast(value, "int8") if value.dtype == BOOL else value
            atomic = self.atomic_kind(expr)
            self.statements.append(Store(self.fresh("out"), expr, atomic))

    def atomic_kind(self, expr: Expr) -> str | None:
        if expr.kind not in ("N", "S") or self.rng.random() < 0.6:
            return None
        ops = [op for op, dtypes in ATOMIC_DTYPES.items() if expr.dtype in dtypes]
        return self.rng.choice(ops) if ops else None


def _mixed_signedness(a: Expr, b: Expr) -> bool:
    if isinstance(a, Const) or isinstance(b, Const) or not (is_int(a.dtype) and is_int(b.dtype)):
        return False
    return is_signed(a.dtype) != is_signed(b.dtype)


def generate(seed: int, parts: int = 4) -> Program:
    """A random program of ``parts`` independent parts (the seed decides everything)."""
    rng = random.Random(seed)
    dots = rng.random() < 0.2
    bm = 16 if dots else rng.choice([1, 2, 4, 8])
    bn = 32 if dots else rng.choice([2, 4, 8, 16])  # K = BN: Triton's CUDA target takes 8-bit dots from K = 32
    grid = rng.randint(1, 3)
    program = Program(seed, grid, m=rng.randint((grid - 1) * bm + 1, grid * bm), n=rng.randint(1, bn), bm=bm, bn=bn)
    for part in range(parts):
        builder = PartBuilder(rng, f"p{part}_", dots)
        for _ in range(rng.randint(*LOADS_PER_PART)):
            builder.load(rng.choice(KINDS), rng.choice(DTYPES))
        if random.Random(f"fp8-{seed}-{part}").random() < FP8_CHANCE:
            for dtype in rng.sample(FP8, rng.randint(1, 2)):
                builder.load(rng.choice(KINDS[:-1]), dtype)
        if dots:
            builder.load("W", rng.choice(DOT_DTYPES))
        for _ in range(rng.randint(*STATEMENTS_PER_PART)):
            builder.step()
        builder.outputs(rng.randint(1, 2))
        program.body.extend(builder.statements)
    return program
