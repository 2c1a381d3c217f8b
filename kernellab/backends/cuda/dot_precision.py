"""f32 dots at the precisions the tensor cores reach by several products (as Triton's F32DotTC pass).

``input_precision`` asks how an f32 ``tl.dot`` uses the tensor cores: ``tf32`` (one tf32 product,
``dot_engine``'s), ``ieee`` (CUDA cores), or one of these, rewritten here into several dots on
Tile IR before the layouts are assigned (shown in ``tile.gpu``; the ``tile`` stage keeps the
user's one dot):

* ``tf32x3`` (3xTF32): each input ``x`` splits into ``big`` = ``x`` rounded to tf32 (to nearest,
  ties away: ``cvt.rna.tf32.f32``) and ``small`` = ``x - big`` (exact);
  ``dot(big_a, big_b, nan_to_0(dot(big_a, small_b, dot(small_a, big_b, 0))))`` in tf32, then the
  accumulator added: about f32 accuracy at three tf32 products' cost;
* ``bf16x3`` / ``bf16x6``: each input splits into bf16 parts (``hi``, ``mid``, for bf16x6 also
  ``lo``: each the remainder rounded to bf16), products of part pairs summed smallest first
  (bf16x3: mid*hi, hi*mid, then hi*hi; bf16x6 first adds mid*mid, lo*hi, hi*lo), NaNs of the
  small products dropped as above.

The small products' NaNs are dropped because an infinite input's ``small`` part is NaN (``inf -
inf``): the big product alone carries it.
"""

from __future__ import annotations

from ...ir.builder import Builder
from ...ir.core import Module, Op, Value, replace_all_uses
from ...ir.parser import parse_module
from ...ir.printer import print_module
from ...ir.types import TileType, bf16, element_of, f32, i1, i32, tile

DECOMPOSED = ("tf32x3", "bf16x3", "bf16x6")
_TF32_HALF_ULP = 1 << 12  # round to nearest (ties away) at tf32's 10 mantissa bits ...
_TF32_MASK = -(1 << 13)  # ... then drop the 13 bits tf32 lacks


def decompose_precise_dots(module: Module) -> Module:
    """``module`` with every f32 dot of a precision in :data:`DECOMPOSED` rewritten (a copy when
    there is one; ``module`` itself is left as it is)."""
    if not any(_decomposed(op) for op in module.walk()):
        return module
    copy = parse_module(print_module(module))
    for op in [op for op in copy.walk() if _decomposed(op)]:
        _rewrite(copy, op)
    return copy


def _decomposed(op: Op) -> bool:
    return (op.name == "dot" and op.attrs.get("input_precision") in DECOMPOSED
            and element_of(op.operands[0].type) is f32 and element_of(op.operands[1].type) is f32)


def _rewrite(module: Module, dot: Op) -> None:
    builder = Builder(module)
    a, b, acc = dot.operands
    with builder.before_op(dot), builder.location(dot.loc):
        emit = _Emitter(builder, acc.type)
        precision = dot.attrs["input_precision"]
        if precision == "tf32x3":
            total = emit.tf32x3(a, b)
        else:
            total = emit.bf16xn(a, b, 3 if precision == "bf16x6" else 2)
        result = emit.binary("add", total, acc)
    replace_all_uses(module, dot.result, result)
    dot.parent.remove(dot)


class _Emitter:
    """The ops of one decomposition, created before the dot."""

    def __init__(self, builder: Builder, acc_type: TileType):
        self.builder, self.acc_type = builder, acc_type

    def binary(self, name: str, x: Value, y: Value) -> Value:
        return self.builder.create(name, [x, y], [x.type]).result

    def convert(self, name: str, x: Value, element) -> Value:
        return self.builder.create(name, [x], [tile(element, x.type.shape)]).result

    def splat(self, value: int | float, like: Value | TileType) -> Value:
        ty = like if isinstance(like, TileType) else like.type
        return self.builder.constant(value, ty)

    def dot(self, x: Value, y: Value, acc: Value, precision: str) -> Value:
        return self.builder.create("dot", [x, y, acc], [acc.type], {"input_precision": precision}).result

    def where_nan(self, x: Value, then: Value, otherwise: Value) -> Value:
        nan = self.builder.create("cmp", [x, x], [tile(i1, x.type.shape)], {"predicate": "ne"}).result
        return self.builder.create("select", [nan, then, otherwise], [x.type]).result

    def nan_to_zero(self, x: Value) -> Value:
        return self.where_nan(x, self.splat(0.0, x), x)

    def tf32_split(self, x: Value) -> tuple[Value, Value]:
        bits = self.convert("bitcast", x, i32)
        rounded = self.binary("and", self.binary("add", bits, self.splat(_TF32_HALF_ULP, bits)),
                              self.splat(_TF32_MASK, bits))
        big = self.where_nan(x, x, self.convert("bitcast", rounded, f32))  # a NaN's payload may carry out
        return big, self.binary("sub", x, big)

    def tf32x3(self, a: Value, b: Value) -> Value:
        a_big, a_small = self.tf32_split(a)
        b_big, b_small = self.tf32_split(b)
        small = self.dot(a_small, b_big, self.splat(0.0, self.acc_type), "tf32")
        small = self.nan_to_zero(self.dot(a_big, b_small, small, "tf32"))
        return self.dot(a_big, b_big, small, "tf32")

    def bf16_parts(self, x: Value, count: int) -> list[Value]:
        parts = []
        for i in range(count):
            part = self.convert("cast", x, bf16)
            parts.append(part)
            if i + 1 < count:
                x = self.binary("sub", x, self.convert("cast", part, f32))
        return parts

    def bf16xn(self, a: Value, b: Value, count: int) -> Value:
        a_parts, b_parts = self.bf16_parts(a, count), self.bf16_parts(b, count)
        hi, mid, lo = 0, 1, 2
        pairs = [(mid, mid), (lo, hi), (hi, lo)] if count == 3 else []
        total = self.splat(0.0, self.acc_type)
        for i, j in pairs + [(mid, hi), (hi, mid)]:
            total = self.dot(a_parts[i], b_parts[j], total, "ieee")
        return self.dot(a_parts[hi], b_parts[hi], self.nan_to_zero(total), "ieee")


__all__ = ["DECOMPOSED", "decompose_precise_dots"]
