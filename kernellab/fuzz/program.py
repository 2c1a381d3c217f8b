"""A fuzzed kernel as data: expressions and statements that print as a ``@kernellab.jit``
kernel's source and evaluate, with :mod:`.reference`, on numpy arrays.

Every value has a *kind*, the shape of its tile in one program: ``MN`` (``[BM, BN]``), ``M``
(``[BM]``, rows), ``N`` (``[BN]``, columns), ``S`` (a scalar) or ``W`` (a ``[BN, BN]`` dot
operand).  The reference holds each as a ``(G, BM|1, BN|1)`` array (all ``G`` programs at once,
the tile's axes on numpy's axes 1 and 2), so numpy's broadcasting is the tiles' broadcasting;
the source spells the same broadcast with ``x[None, :]`` / ``x[:, None]``.

Each expression also says whether every target must compute it bit for bit (``exact``: integer
arithmetic, IEEE-rounded float ``+ - *`` not fused into an FMA, loads, casts that round once):
only exact values may be compared, turned into integers or used as ``tl.where`` conditions, so a
target's legitimately different rounding cannot change a control decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import reference as ref
from .dtypes import (
    BOOL,
    NUMPY,
    TL_NAME,
    bf16_cast_is_exact,
    cumsum_dtype,
    extremum_dtype,
    is_float,
    is_int,
    is_signed,
    promote,
    promote_with_literal,
    sum_dtype,
)

Env = dict[str, Any]

INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "and": "&", "or": "|", "xor": "^",
         "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
MATH = ("exp", "sin", "cos", "sqrt")


def join(*kinds: str) -> str:
    rows = any(k in ("MN", "M") for k in kinds)
    cols = any(k in ("MN", "N") for k in kinds)
    return "MN" if rows and cols else "M" if rows else "N" if cols else "S"


def expand(text: str, kind: str, to: str) -> str:
    """``text`` (a value of ``kind``) written for use in a value of kind ``to``."""
    if kind == to or kind == "S":
        return text
    return f"{text}[None, :]" if kind == "N" else f"{text}[:, None]"


class Expr:
    """An expression node (immutable)."""

    dtype: str
    kind: str

    @property
    def exact(self) -> bool:
        return all(c.exact for c in self.children())

    @property
    def product(self) -> bool:
        """Whether a float multiply ends this expression (an add of it may become an FMA)."""
        return False

    def children(self) -> tuple[Expr, ...]:
        return ()

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return self

    def source(self) -> str:
        raise NotImplementedError

    def evaluate(self, env: Env) -> ref.Ref:
        raise NotImplementedError


@dataclass(frozen=True)
class Var(Expr):
    name: str
    dtype: str
    kind: str
    is_exact: bool = True
    is_product: bool = False

    @property
    def exact(self) -> bool:
        return self.is_exact

    @property
    def product(self) -> bool:
        return self.is_product

    def source(self) -> str:
        return self.name

    def evaluate(self, env: Env) -> ref.Ref:
        return env[self.name]


@dataclass(frozen=True)
class Const(Expr):
    """A Python literal (weakly typed: it takes the other operand's dtype)."""

    value: int | float
    dtype: str
    kind: str = "S"

    def source(self) -> str:
        return repr(float(self.value)) if is_float(self.dtype) else str(int(self.value))

    def evaluate(self, env: Env) -> ref.Ref:
        value = np.full((1, 1, 1), self.value, NUMPY[self.dtype])
        return value, ref.zero_err(value)


@dataclass(frozen=True)
class LoopIndex(Expr):
    name: str
    dtype: str = "int32"
    kind: str = "S"

    def source(self) -> str:
        return self.name

    def evaluate(self, env: Env) -> ref.Ref:
        return env[self.name]


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # neg abs invert not exp sin cos sqrt
    x: Expr

    @property
    def dtype(self) -> str:
        return self.x.dtype

    @property
    def kind(self) -> str:
        return self.x.kind

    @property
    def exact(self) -> bool:
        return self.op not in MATH and self.x.exact

    @property
    def product(self) -> bool:
        return self.op == "neg" and self.x.product

    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Unary(self.op, children[0])

    def source(self) -> str:
        x = self.x.source()
        if self.op == "neg":
            return f"(-{x})"
        if self.op in ("invert", "not"):
            return f"(~{x})"
        if self.op == "abs":
            return f"tl.abs({x})"
        if self.op == "sqrt":
            return f"tl.sqrt(tl.abs({x}))"
        return f"tl.{self.op}({x})"

    def evaluate(self, env: Env) -> ref.Ref:
        return ref.unary(self.op, self.x.evaluate(env), self.dtype)


@dataclass(frozen=True)
class Binary(Expr):
    op: str
    a: Expr
    b: Expr

    @property
    def operand_dtype(self) -> str:
        """The dtype both operands are converted to."""
        div_or_mod = self.op in ("div", "floordiv", "mod")
        if self.op in ("max", "min"):  # tl.maximum/minimum: literals are tensors first, bf16 becomes f32
            return promote(_strong(self.a), _strong(self.b))
        if isinstance(self.a, Const):
            common = promote_with_literal(self.b.dtype, div_or_mod)
        elif isinstance(self.b, Const):
            common = promote_with_literal(self.a.dtype, div_or_mod)
        else:
            common = promote(self.a.dtype, self.b.dtype, div_or_mod)
        if self.op == "div" and not is_float(common):
            return "float32"
        return common

    @property
    def dtype(self) -> str:
        return BOOL if self.op in COMPARISONS else self.operand_dtype

    @property
    def kind(self) -> str:
        return join(self.a.kind, self.b.kind)

    @property
    def exact(self) -> bool:
        if not (self.a.exact and self.b.exact):
            return False
        if not is_float(self.operand_dtype) or self.op in COMPARISONS:
            return True
        if self.op == "div":
            return False
        return not (self.op in ("add", "sub") and (self.a.product or self.b.product))

    @property
    def product(self) -> bool:
        return self.op == "mul" and is_float(self.dtype)

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Binary(self.op, *children)

    def source(self) -> str:
        a = expand(self.a.source(), self.a.kind, self.kind)
        b = expand(self.b.source(), self.b.kind, self.kind)
        if self.op in ("max", "min"):
            return f"tl.{self.op}imum({a}, {b})"
        if self.op in ("floordiv", "mod"):
            return f"({a} {'//' if self.op == 'floordiv' else '%'} (({b} & 7) + 1))"
        if self.op in ("shl", "shr"):
            return f"({a} {'<<' if self.op == 'shl' else '>>'} ({b} & 7))"
        return f"({a} {INFIX[self.op]} {b})"

    def evaluate(self, env: Env) -> ref.Ref:
        common = self.operand_dtype
        a = ref.convert(self.a.evaluate(env), self.a.dtype, common)
        b = ref.convert(self.b.evaluate(env), self.b.dtype, common)
        if self.op == "shr" and is_signed(self.a.dtype) != is_signed(common):
            # >> is arithmetic exactly when the left operand is signed, whatever the promoted type
            flipped = common[1:] if common.startswith("u") else "u" + common
            shifted, err = ref.binary("shr", (a[0].view(NUMPY[flipped]), a[1]), (b[0].view(NUMPY[flipped]), b[1]),
                                      flipped)
            return shifted.view(NUMPY[common]), err
        return ref.binary(self.op, a, b, common)


CALL_OPS = ("add", "sub", "mul", "max", "min", "xor")


@dataclass(frozen=True)
class Call(Binary):
    """``a op b`` computed by a ``@kernellab.jit`` helper (inlined, or a ``noinline`` function)."""

    noinline: bool = False

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Call(self.op, *children, noinline=self.noinline)

    @property
    def helper(self) -> str:
        return f"fz_{self.op}_{'noinline' if self.noinline else 'inline'}"

    def source(self) -> str:
        a = expand(self.a.source(), self.a.kind, self.kind)
        b = expand(self.b.source(), self.b.kind, self.kind)
        return f"{self.helper}({a}, {b})"


def helper_source() -> list[str]:
    """The helpers :class:`Call` uses (after the kernel, so its lines stay where they are)."""
    lines = []
    for op in CALL_OPS:
        body = f"tl.{op}imum(a, b)" if op in ("max", "min") else f"a {INFIX[op]} b"
        for noinline in (False, True):
            lines += ["", "", f"@kernellab.jit(noinline={noinline})",
                      f"def fz_{op}_{'noinline' if noinline else 'inline'}(a, b):", f"    return {body}"]
    return lines


def _strong(expr: Expr) -> str:
    """An operand's dtype where Python literals are tensors (int32 / f32) and bf16 is f32."""
    if isinstance(expr, Const):
        return "float32" if is_float(expr.dtype) else "int32"
    return "float32" if expr.dtype == "bfloat16" else expr.dtype


@dataclass(frozen=True)
class Cast(Expr):
    x: Expr
    dtype: str

    @property
    def kind(self) -> str:
        return self.x.kind

    @property
    def exact(self) -> bool:
        if not self.x.exact:
            return False
        return self.dtype != "bfloat16" or bf16_cast_is_exact(self.x.dtype)

    @property
    def product(self) -> bool:
        return is_float(self.x.dtype) and is_float(self.dtype) and self.x.product

    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Cast(children[0], self.dtype)

    def source(self) -> str:
        return f"{self.x.source()}.to(tl.{TL_NAME[self.dtype]})"

    def evaluate(self, env: Env) -> ref.Ref:
        return ref.convert(self.x.evaluate(env), self.x.dtype, self.dtype)


@dataclass(frozen=True)
class Where(Expr):
    cond: Expr
    a: Expr
    b: Expr

    @property
    def dtype(self) -> str:
        if isinstance(self.a, Const):
            return promote_with_literal(self.b.dtype)
        if isinstance(self.b, Const):
            return promote_with_literal(self.a.dtype)
        return promote(self.a.dtype, self.b.dtype)

    @property
    def kind(self) -> str:
        return join(self.cond.kind, self.a.kind, self.b.kind)

    @property
    def product(self) -> bool:
        return self.a.product or self.b.product

    def children(self) -> tuple[Expr, ...]:
        return (self.cond, self.a, self.b)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Where(*children)

    def source(self) -> str:
        parts = [expand(c.source(), c.kind, self.kind) for c in self.children()]
        return f"tl.where({', '.join(parts)})"

    def evaluate(self, env: Env) -> ref.Ref:
        cond = self.cond.evaluate(env)
        a = ref.convert(self.a.evaluate(env), self.a.dtype, self.dtype)
        b = ref.convert(self.b.evaluate(env), self.b.dtype, self.dtype)
        return ref.where(cond, a, b)


def _numpy_axes(kind: str, axis: int | None) -> tuple[int, ...]:
    if kind == "MN":
        return (1, 2) if axis is None else (axis + 1,)
    return (2,) if kind == "N" else (1,)


@dataclass(frozen=True)
class Reduce(Expr):
    op: str  # sum max min
    x: Expr
    axis: int | None

    @property
    def dtype(self) -> str:
        return sum_dtype(self.x.dtype) if self.op == "sum" else extremum_dtype(self.x.dtype)

    @property
    def kind(self) -> str:
        if self.x.kind == "MN" and self.axis is not None:
            return "N" if self.axis == 0 else "M"
        return "S"

    @property
    def exact(self) -> bool:
        return self.x.exact and not (self.op == "sum" and is_float(self.dtype))

    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Reduce(self.op, children[0], self.axis)

    def source(self) -> str:
        return f"tl.{self.op}({self.x.source()}, axis={self.axis})"

    def evaluate(self, env: Env) -> ref.Ref:
        x = ref.convert(self.x.evaluate(env), self.x.dtype, self.dtype)
        x = (np.broadcast_to(x[0], _full_shape(env, self.x.kind)), np.broadcast_to(x[1], _full_shape(env, self.x.kind)))
        return ref.reduce(self.op, x, _numpy_axes(self.x.kind, self.axis), self.dtype)


@dataclass(frozen=True)
class Scan(Expr):
    x: Expr
    axis: int
    reverse: bool

    @property
    def dtype(self) -> str:
        return cumsum_dtype(self.x.dtype)

    @property
    def kind(self) -> str:
        return self.x.kind

    @property
    def exact(self) -> bool:
        return self.x.exact and not is_float(self.dtype)

    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Scan(children[0], self.axis, self.reverse)

    def source(self) -> str:
        reverse = ", reverse=True" if self.reverse else ""
        return f"tl.cumsum({self.x.source()}, axis={self.axis}{reverse})"

    def evaluate(self, env: Env) -> ref.Ref:
        x = ref.convert(self.x.evaluate(env), self.x.dtype, self.dtype)
        shape = _full_shape(env, self.x.kind)
        x = (np.broadcast_to(x[0], shape), np.broadcast_to(x[1], shape))
        return ref.cumsum(x, _numpy_axes(self.x.kind, self.axis)[0], self.reverse, self.dtype)


@dataclass(frozen=True)
class Dot(Expr):
    """``tl.dot(a.to(w.dtype), w)``: a ``[BM, BN]`` tile times a ``[BN, BN]`` one."""

    a: Expr
    w: Var
    kind: str = "MN"

    @property
    def dtype(self) -> str:
        return "float32" if is_float(self.w.dtype) else "int32"

    @property
    def exact(self) -> bool:
        return is_int(self.w.dtype) and self.a.exact

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Dot(children[0], self.w)

    def source(self) -> str:
        precision = ', input_precision="ieee"' if self.w.dtype == "float32" else ""
        return f"tl.dot({self.a.source()}.to(tl.{self.w.dtype}), {self.w.name}{precision})"

    def evaluate(self, env: Env) -> ref.Ref:
        a = ref.convert(self.a.evaluate(env), self.a.dtype, self.w.dtype)
        shape = _full_shape(env, "MN")
        a = (np.broadcast_to(a[0], shape), np.broadcast_to(a[1], shape))
        return ref.dot(a, env[self.w.name][0], self.dtype)


def _full_shape(env: Env, kind: str) -> tuple[int, int, int]:
    g, bm, bn = env["__shape__"]
    return (g, bm if kind in ("MN", "M") else 1, bn if kind in ("MN", "N") else 1)


# ---- statements ----

@dataclass(frozen=True)
class Load:
    var: Var
    other: int | float

    def lines(self) -> list[str]:
        pointer, mask = LOAD_ADDRESS[self.var.kind]
        arg = input_name(self.var.name)
        masked = f", mask={mask}, other={Const(self.other, self.var.dtype).source()}" if mask else ""
        return [f"{self.var.name} = tl.load({arg} + {pointer}{masked})"]


LOAD_ADDRESS = {"MN": ("rows[:, None] * N + cols[None, :]", "mask"), "N": ("cols", "cmask"),
                "M": ("rows", "rmask"), "S": ("pid", ""), "W": ("cols[:, None] * BN + cols[None, :]", "")}
STORE_ADDRESS = {"MN": ("rows[:, None] * N + cols[None, :]", "mask"), "N": ("pid * N + cols", "cmask"),
                 "M": ("rows", "rmask"), "S": ("pid", "")}
ATOMIC_ADDRESS = {"N": ("cols", "cmask"), "S": ("0", "")}


def input_name(var: str) -> str:
    return f"{var}_ptr"


@dataclass(frozen=True)
class Assign:
    var: Var
    expr: Expr

    def lines(self) -> list[str]:
        return [f"{self.var.name} = {expand(self.expr.source(), self.expr.kind, self.var.kind)}"]


@dataclass(frozen=True)
class Loop:
    """``var = init; for index in range(trips): var = body`` (body: var's dtype and kind)."""

    var: Var
    init: Expr
    trips: int
    index: str
    body: Expr

    def lines(self) -> list[str]:
        init = expand(self.init.source(), self.init.kind, self.var.kind)
        body = expand(self.body.source(), self.body.kind, self.var.kind)
        return [f"{self.var.name} = {init}", f"for {self.index} in range({self.trips}):",
                f"    {self.var.name} = {body}"]


@dataclass(frozen=True)
class Store:
    """A store (``atomic`` None) or an atomic of ``expr`` into the output ``name``."""

    name: str
    expr: Expr
    atomic: str | None = None

    @property
    def kind(self) -> str:
        return self.expr.kind

    @property
    def dtype(self) -> str:
        return self.expr.dtype

    def lines(self) -> list[str]:
        if self.atomic:
            address, mask = ATOMIC_ADDRESS[self.kind]
            masked = f", mask={mask}" if mask else ""
            return [f"tl.atomic_{self.atomic}({self.name} + {address}, {self.expr.source()}{masked})"]
        address, mask = STORE_ADDRESS[self.kind]
        masked = f", mask={mask}" if mask else ""
        return [f"tl.store({self.name} + {address}, {self.expr.source()}{masked})"]


Statement = Load | Assign | Loop | Store


def uses(statement: Statement) -> set[str]:
    """The variable names a statement reads."""
    roots: list[Expr] = []
    if isinstance(statement, Assign):
        roots = [statement.expr]
    elif isinstance(statement, Loop):
        roots = [statement.init, statement.body]
    elif isinstance(statement, Store):
        roots = [statement.expr]
    names: set[str] = set()
    while roots:
        node = roots.pop()
        if isinstance(node, Var):
            names.add(node.name)
        if isinstance(node, Dot):
            names.add(node.w.name)
        roots.extend(node.children())
    return names


def defines(statement: Statement) -> str | None:
    return None if isinstance(statement, Store) else statement.var.name


@dataclass
class Program:
    """One fuzzed kernel: its launch shape and its statements."""

    seed: int
    grid: int
    m: int
    n: int
    bm: int
    bn: int
    body: list[Statement] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"fuzz_{self.seed}"

    @property
    def loads(self) -> list[Load]:
        return [s for s in self.body if isinstance(s, Load)]

    @property
    def stores(self) -> list[Store]:
        return [s for s in self.body if isinstance(s, Store)]

    def parameters(self) -> list[str]:
        return [input_name(s.var.name) for s in self.loads] + [s.name for s in self.stores] + ["M", "N"]

    def source(self) -> str:
        lines = ["import kernellab", "import kernellab.language as tl", "", "",
                 "@kernellab.jit",
                 f"def {self.name}({', '.join(self.parameters())}, BM: tl.constexpr, BN: tl.constexpr):",
                 "    pid = tl.program_id(0)", "    rows = pid * BM + tl.arange(0, BM)",
                 "    cols = tl.arange(0, BN)", "    rmask = rows < M", "    cmask = cols < N",
                 "    mask = rmask[:, None] & cmask[None, :]"]
        for statement in self.body:
            lines.extend("    " + line for line in statement.lines())
        if "fz_" in "\n".join(lines):
            lines.extend(helper_source())
        return "\n".join(lines) + "\n"

    def constexprs(self) -> dict[str, int]:
        return {"BM": self.bm, "BN": self.bn}
