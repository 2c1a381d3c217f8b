"""Axis analysis: what is known about the integers and pointers of a tile, per dimension.

For each value and each dimension ``d``:

* ``contiguity[d]``: the elements come in runs of this many consecutive values (+1 each step);
* ``divisibility[d]``: the first element of every run is divisible by this power of two (for
  pointers, in bytes); with contiguity 1 every element is;
* ``constancy[d]``: the elements come in runs of this many equal values.

Scalars are rank-1 records of length one.  Sources of facts: ``arange``, constants, the
``divisibility=16`` specialization of kernel arguments (``Function.arg_attrs``), ``hint`` ops
(``tl.multiple_of``, ``tl.max_contiguous``, ``tl.max_constancy``); arithmetic propagates them.
Target-independent (it reads only ``kernellab.ir``).  The CUDA backend's loads and stores use
the result to pick vector widths: a 128-bit access needs 4 contiguous, 16-byte aligned fp32
elements and a mask that is constant over them.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from ..ir.core import Block, Function, Op, Value
from ..ir.types import PointerType, ScalarType, TileType, element_of

HUGE = 1 << 62  # the divisibility of zero


def pow2_divisor(n: int) -> int:
    """The largest power of two dividing ``n`` (``HUGE`` for zero)."""
    n = int(n)
    return HUGE if n == 0 else min(n & -n, HUGE)


@dataclass(frozen=True)
class BlockPtrFacts:
    """What is known about a block pointer or tensor descriptor's parts."""

    base_divisibility: int
    stride_constants: tuple[int | None, ...]
    stride_divisibility: tuple[int, ...]
    offset_divisibility: tuple[int, ...]
    shape_divisibility: tuple[int, ...]
    order: tuple[int, ...] = ()
    padding: str = "zero"  # what a tensor descriptor's out-of-bounds elements read as

    def meet(self, other: BlockPtrFacts) -> BlockPtrFacts:
        def g(a, b):
            return tuple(gcd(x, y) for x, y in zip(a, b))

        strides = tuple(x if x == y else None for x, y in zip(self.stride_constants, other.stride_constants))
        return BlockPtrFacts(gcd(self.base_divisibility, other.base_divisibility), strides,
                             g(self.stride_divisibility, other.stride_divisibility),
                             g(self.offset_divisibility, other.offset_divisibility),
                             g(self.shape_divisibility, other.shape_divisibility),
                             self.order if self.order == other.order else (),
                             self.padding if self.padding == other.padding else "zero")


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant: int | None = None
    block: BlockPtrFacts | None = None

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    def element_divisibility(self, d: int) -> int:
        """A power of two dividing every element along ``d`` (not just run starts)."""
        return self.divisibility[d] if self.contiguity[d] == 1 else 1

    def min_element_divisibility(self) -> int:
        return min(self.element_divisibility(d) for d in range(self.rank))

    def meet(self, other: AxisInfo) -> AxisInfo:
        def g(a, b):
            return tuple(gcd(x, y) for x, y in zip(a, b))

        block = self.block.meet(other.block) if self.block and other.block else None
        return AxisInfo(g(self.contiguity, other.contiguity), g(self.divisibility, other.divisibility),
                        g(self.constancy, other.constancy),
                        self.constant if self.constant == other.constant else None, block)


def shape_or_scalar(value: Value) -> tuple[int, ...]:
    ty = value.type
    return ty.shape if isinstance(ty, TileType) else (1,)


def unknown(shape: tuple[int, ...]) -> AxisInfo:
    n = len(shape)
    return AxisInfo((1,) * n, (1,) * n, (1,) * n)


def uniform(shape: tuple[int, ...], divisibility: int, constant: int | None = None) -> AxisInfo:
    """Every element equal (a scalar, a splat or a constant tile)."""
    n = len(shape)
    return AxisInfo((1,) * n, (divisibility,) * n, tuple(shape), constant)


class AxisAnalysis:
    """Runs the analysis over a function; ``info(value)`` answers afterwards.  Facts are keyed by
    the values themselves (they hash by identity), never their ``id``: a pass that asks while it
    rewrites the function (``backends/cuda/async_pipeline.py``) may erase a value, and one made
    after it could get its ``id`` and be taken for it."""

    def __init__(self, function: Function):
        self.function = function
        self.infos: dict[Value, AxisInfo] = {}
        for value, attrs in zip(function.args, function.arg_attrs):
            self.infos[value] = self._argument(value, attrs)
        self._block(function.body)

    def info(self, value: Value) -> AxisInfo:
        found = self.infos.get(value)
        return found if found is not None else unknown(shape_or_scalar(value))

    # ---- walking ----
    def _argument(self, value: Value, attrs: dict) -> AxisInfo:
        divisibility = int(attrs.get("divisibility", 1) or 1)
        if isinstance(value.type, ScalarType) or isinstance(value.type, PointerType):
            return uniform((1,), pow2_divisor(divisibility) if divisibility > 1 else 1)
        return unknown(shape_or_scalar(value))

    def _block(self, block: Block) -> None:
        for op in block.ops:
            self._op(op)

    def _set(self, value: Value, info: AxisInfo) -> None:
        self.infos[value] = info

    def _op(self, op: Op) -> None:
        handler = getattr(self, "_op_" + op.name, None)
        if op.name in ("for", "while", "if"):
            getattr(self, "_" + op.name)(op)
            return
        if handler is not None:
            infos = handler(op)
            for value, info in zip(op.results, infos):
                self._set(value, info)
            return
        for region in op.regions:
            self._block(region)
        for result in op.results:
            self._set(result, unknown(shape_or_scalar(result)))

    # ---- control flow: iterate carried facts to a fixed point (facts only shrink) ----
    def _for(self, op: Op) -> None:
        lower, _, step = op.operands[:3]
        body = op.regions[0]
        iv_div = gcd(self.info(lower).divisibility[0], self.info(step).divisibility[0])
        self._set(body.args[0], uniform((1,), iv_div))
        self._carried(op, op.operand_group("init"), body.args[1:], body, lambda: body.terminator.operands)

    def _while(self, op: Op) -> None:
        before, after = op.regions
        init = op.operand_group("init")

        def run_before():
            return before.terminator.operands[1:]

        current = [self.info(v) for v in init]
        for _ in range(4):
            for arg, info in zip(before.args, current):
                self._set(arg, info)
            self._block(before)
            for arg, value in zip(after.args, run_before()):
                self._set(arg, self.info(value))
            self._block(after)
            new = [c.meet(self.info(v)) for c, v in zip(current, after.terminator.operands)]
            if new == current:
                break
            current = new
        else:
            current = [unknown(shape_or_scalar(v)) for v in init]
            for arg, info in zip(before.args, current):
                self._set(arg, info)
            self._block(before)
            self._block(after)
        for result, value in zip(op.results, run_before()):
            self._set(result, self.info(value))

    def _carried(self, op: Op, init, args, body: Block, yielded) -> None:
        current = [self.info(v) for v in init]
        for _ in range(4):
            for arg, info in zip(args, current):
                self._set(arg, info)
            self._block(body)
            new = [c.meet(self.info(v)) for c, v in zip(current, yielded())]
            if new == current:
                break
            current = new
        else:
            current = [unknown(shape_or_scalar(v)) for v in init]
            for arg, info in zip(args, current):
                self._set(arg, info)
            self._block(body)
        for result, info in zip(op.results, current):
            self._set(result, info)

    def _if(self, op: Op) -> None:
        then, other = op.regions
        self._block(then)
        self._block(other)
        for i, result in enumerate(op.results):
            a, b = self.info(then.terminator.operands[i]), self.info(other.terminator.operands[i])
            self._set(result, a.meet(b))

    # ---- sources ----
    def _op_constant(self, op: Op) -> list[AxisInfo]:
        shape = shape_or_scalar(op.result)
        value = op.attrs["value"]
        if isinstance(value, bool) or not isinstance(value, int):
            return [uniform(shape, 1)]
        return [uniform(shape, pow2_divisor(value), value)]

    def _op_arange(self, op: Op) -> list[AxisInfo]:
        start, end = op.attrs["start"], op.attrs["end"]
        return [AxisInfo((end - start,), (pow2_divisor(start),), (1,))]

    def _op_splat(self, op: Op) -> list[AxisInfo]:
        source = self.info(op.operands[0])
        return [uniform(op.result.type.shape, source.divisibility[0], source.constant)]

    def _op_program_id(self, op: Op) -> list[AxisInfo]:
        return [uniform((1,), 1)]

    _op_num_programs = _op_program_id

    # ---- shape ----
    def _op_broadcast(self, op: Op) -> list[AxisInfo]:
        source = self.info(op.operands[0])
        target = op.result.type.shape
        src_shape = shape_or_scalar(op.operands[0])
        cont, div, const = [], [], []
        for d, n in enumerate(target):
            if src_shape[d] == 1 and n > 1:
                cont.append(1)
                div.append(source.element_divisibility(d))
                const.append(n)
            else:
                cont.append(source.contiguity[d])
                div.append(source.divisibility[d])
                const.append(source.constancy[d])
        return [AxisInfo(tuple(cont), tuple(div), tuple(const), source.constant)]

    def _op_expand_dims(self, op: Op) -> list[AxisInfo]:
        source = self.info(op.operands[0])
        axis = op.attrs["axis"]
        if not isinstance(op.operands[0].type, TileType):
            return [uniform(op.result.type.shape, source.divisibility[0], source.constant)]
        elem = source.min_element_divisibility()
        return [AxisInfo(source.contiguity[:axis] + (1,) + source.contiguity[axis:],
                         source.divisibility[:axis] + (elem,) + source.divisibility[axis:],
                         source.constancy[:axis] + (1,) + source.constancy[axis:], source.constant)]

    def _op_trans(self, op: Op) -> list[AxisInfo]:
        source = self.info(op.operands[0])
        order = op.attrs["order"]
        return [AxisInfo(tuple(source.contiguity[o] for o in order), tuple(source.divisibility[o] for o in order),
                         tuple(source.constancy[o] for o in order), source.constant)]

    def _op_reshape(self, op: Op) -> list[AxisInfo]:
        source = self.info(op.operands[0])
        shape = op.result.type.shape
        if source.constant is not None:
            return [uniform(shape, source.divisibility[0], source.constant)]
        elem = source.min_element_divisibility()
        return [AxisInfo((1,) * len(shape), (elem,) * len(shape), (1,) * len(shape))]

    def _op_hint(self, op: Op) -> list[AxisInfo]:
        info = self.info(op.operands[0])
        rank = info.rank

        def override(current, given):
            if not given:
                return current
            given = tuple(given) if len(given) == rank else (given[0],) * rank
            return tuple(int(g) for g in given)

        return [AxisInfo(override(info.contiguity, op.attrs["max_contiguous"]),
                         override(info.divisibility, op.attrs["multiple_of"]),
                         override(info.constancy, op.attrs["max_constancy"]), info.constant, info.block)]

    # ---- arithmetic ----
    def _binary_parts(self, op: Op) -> tuple[AxisInfo, AxisInfo]:
        return self.info(op.operands[0]), self.info(op.operands[1])

    def _op_add(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        return [_add_like(a, b, 1, commutative=True)]

    def _op_sub(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        info = _add_like(a, b, 1, commutative=False)
        if a.constant is not None and b.constant is not None:
            info = AxisInfo(info.contiguity, info.divisibility, info.constancy, a.constant - b.constant)
        return [info]

    def _op_addptr(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        size = element_of(op.result.type).element_ty.itemsize
        return [_add_like(a, b, size, commutative=False, pointer=True)]

    def _op_mul(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        rank = a.rank
        if a.constant == 1:
            return [b]
        if b.constant == 1:
            return [a]
        const = tuple(gcd(x, y) for x, y in zip(a.constancy, b.constancy))
        div = tuple(min(HUGE, a.element_divisibility(d) * b.element_divisibility(d)) for d in range(rank))
        value = a.constant * b.constant if a.constant is not None and b.constant is not None else None
        return [AxisInfo((1,) * rank, div, const, value)]

    def _op_div(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        rank = a.rank
        const = list(gcd(x, y) for x, y in zip(a.constancy, b.constancy))
        if b.constant is not None and b.constant > 0 and b.constant & (b.constant - 1) == 0:
            for d in range(rank):
                if a.contiguity[d] > 1 and a.divisibility[d] % b.constant == 0:
                    const[d] = max(const[d], gcd(a.contiguity[d], b.constant))
        return [AxisInfo((1,) * rank, (1,) * rank, tuple(const))]

    def _op_rem(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        rank = a.rank
        if not element_of(op.result.type).is_int():
            return [unknown(shape_or_scalar(op.result))]
        cont = tuple(gcd(a.contiguity[d], gcd(a.divisibility[d], b.element_divisibility(d))) if b.constancy[d] > 1
                     or b.rank == 1 else 1 for d in range(rank))
        div = tuple(gcd(a.divisibility[d], b.element_divisibility(d)) for d in range(rank))
        const = tuple(gcd(x, y) for x, y in zip(a.constancy, b.constancy))
        return [AxisInfo(cont, div, const)]

    def _op_shl(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        rank = a.rank
        const = tuple(gcd(x, y) for x, y in zip(a.constancy, b.constancy))
        if b.constant is not None and 0 <= b.constant < 62:
            div = tuple(min(HUGE, a.element_divisibility(d) << b.constant) for d in range(rank))
            return [AxisInfo((1,) * rank, div, const)]
        return [AxisInfo((1,) * rank, (1,) * rank, const)]

    def _op_cmp(self, op: Op) -> list[AxisInfo]:
        a, b = self._binary_parts(op)
        rank = a.rank
        const = [gcd(x, y) for x, y in zip(a.constancy, b.constancy)]
        if op.attrs["predicate"] in ("lt", "le", "gt", "ge"):
            for d in range(rank):
                for run, flat in ((a, b), (b, a)):
                    if run.contiguity[d] > 1 and flat.constancy[d] >= run.contiguity[d]:
                        group = gcd(run.contiguity[d], gcd(run.divisibility[d], flat.element_divisibility(d)))
                        const[d] = max(const[d], group)
        return [AxisInfo((1,) * rank, (1,) * rank, tuple(const))]

    def _op_select(self, op: Op) -> list[AxisInfo]:
        c, a, b = (self.info(v) for v in op.operands)
        rank = a.rank
        if c.constancy == (1,) and c.rank != rank:
            c = uniform(shape_or_scalar(op.result), 1)
        const = tuple(gcd(gcd(x, y), z) for x, y, z in zip(a.constancy, b.constancy, c.constancy))
        cont = tuple(gcd(gcd(a.contiguity[d], b.contiguity[d]), c.constancy[d]) for d in range(rank))
        div = tuple(gcd(a.divisibility[d], b.divisibility[d]) for d in range(rank))
        return [AxisInfo(cont, div, const)]

    def _op_cast(self, op: Op) -> list[AxisInfo]:
        source = self.info(op.operands[0])
        target = element_of(op.result.type)
        src = element_of(op.operands[0].type)
        int_like = (getattr(target, "is_int", lambda: False)() or isinstance(target, PointerType))
        if int_like and (isinstance(src, PointerType) or src.is_int()) and not target.is_bool():
            return [source]
        rank = source.rank
        return [AxisInfo((1,) * rank, (1,) * rank, source.constancy)]

    def _constancy_only(self, op: Op) -> list[AxisInfo]:
        infos = [self.info(v) for v in op.operands]
        rank = len(shape_or_scalar(op.result))
        const = (1,) * rank
        if infos and all(i.rank == rank for i in infos):
            const = infos[0].constancy
            for i in infos[1:]:
                const = tuple(gcd(x, y) for x, y in zip(const, i.constancy))
        return [AxisInfo((1,) * rank, (1,) * rank, const)]

    _op_and = _op_or = _op_xor = _op_not = _op_neg = _constancy_only
    _op_minimum = _op_maximum = _op_abs = _op_bitcast = _constancy_only

    # ---- block pointers and descriptors ----
    def _op_make_block_ptr(self, op: Op) -> list[AxisInfo]:
        base = self.info(op.operand("base"))
        strides = [self.info(v) for v in op.operand_group("strides")]
        offsets = [self.info(v) for v in op.operand_group("offsets")]
        shapes = [self.info(v) for v in op.operand_group("shape")]
        facts = BlockPtrFacts(base.divisibility[0], tuple(s.constant for s in strides),
                              tuple(s.divisibility[0] for s in strides), tuple(o.divisibility[0] for o in offsets),
                              tuple(s.divisibility[0] for s in shapes), tuple(op.attrs["order"]))
        return [AxisInfo((1,), (1,), (1,), None, facts)]

    def _op_advance(self, op: Op) -> list[AxisInfo]:
        ptr = self.info(op.operand("ptr"))
        deltas = [self.info(v) for v in op.operand_group("offsets")]
        facts = ptr.block
        if facts is None:
            return [ptr]
        offsets = tuple(gcd(o, d.divisibility[0]) for o, d in zip(facts.offset_divisibility, deltas))
        return [AxisInfo((1,), (1,), (1,), None, BlockPtrFacts(facts.base_divisibility, facts.stride_constants,
                                                                facts.stride_divisibility, offsets,
                                                                facts.shape_divisibility, facts.order))]

    def _op_make_tensor_descriptor(self, op: Op) -> list[AxisInfo]:
        base = self.info(op.operand("base"))
        strides = [self.info(v) for v in op.operand_group("strides")]
        shapes = [self.info(v) for v in op.operand_group("shape")]
        rank = len(strides)
        facts = BlockPtrFacts(base.divisibility[0], tuple(s.constant for s in strides),
                              tuple(s.divisibility[0] for s in strides), (HUGE,) * rank,
                              tuple(s.divisibility[0] for s in shapes), padding=op.attrs.get("padding") or "zero")
        return [AxisInfo((1,), (1,), (1,), None, facts)]


def _add_like(a: AxisInfo, b: AxisInfo, scale: int, commutative: bool, pointer: bool = False) -> AxisInfo:
    """``a + b * scale`` (``scale`` is the pointee size for addptr)."""
    rank = max(a.rank, b.rank)
    if a.rank != rank:
        a = uniform((1,) * rank, a.divisibility[0], a.constant)
    if b.rank != rank:
        b = uniform((1,) * rank, b.divisibility[0], b.constant)
    cont, div = [], []
    for d in range(rank):
        from_a = gcd(a.contiguity[d], b.constancy[d])
        from_b = gcd(a.constancy[d], b.contiguity[d]) if commutative or pointer else 1
        c = max(from_a, from_b)
        cont.append(c)
        bd = lambda x: min(HUGE, x * scale)  # noqa: E731
        if c > 1 and from_a >= from_b:
            div.append(gcd(a.divisibility[d], bd(b.element_divisibility(d))))
        elif c > 1:
            div.append(gcd(a.element_divisibility(d), bd(b.divisibility[d])))
        else:
            div.append(gcd(a.element_divisibility(d), bd(b.element_divisibility(d))))
    const = tuple(gcd(x, y) for x, y in zip(a.constancy, b.constancy))
    value = None
    if a.constant is not None and b.constant is not None and not pointer:
        value = a.constant + b.constant
    return AxisInfo(tuple(cont), tuple(div), const, value)
