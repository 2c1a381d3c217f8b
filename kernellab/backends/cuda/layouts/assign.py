"""Layout assignment: which layout each tile of a function lives in (the ``tile.gpu`` stage).

Tiles fall in two groups:

* **lazy** tiles are cheap functions of constants, ``arange``, splats and views: ``constant``,
  ``splat``, ``arange``, the views ``broadcast`` / ``expand_dims`` / ``trans`` / ``reshape`` (of
  anything) and pure elementwise ops of lazy tiles.  The lowering materializes a lazy tile in
  whatever layout its user asks for (once per layout), so index arithmetic, masks and pointer
  tiles never need a conversion; a view of another tile reads that tile's registers when the
  layouts line up and converts it otherwise.
* **solid** tiles (loads, dots, reductions, loop-carried values, elementwise ops with a solid
  operand...) have exactly one layout, fixed here in program order:

  - loads, stores and atomics are *anchors*: a blocked layout whose registers cover a 128-bit
    vector along the most contiguous dimension (from the axis analysis), lanes then warps
    following that dimension first, so that a warp's accesses are coalesced;
  - ``dot`` accumulators take the ``mma.sync`` layout (f16/bf16 operands) or a blocked one;
  - reductions take the slice of their operand's layout; scans a layout that keeps each
    thread's elements along the axis consecutive;
  - an elementwise op takes the layout of its first solid operand;
  - loop-carried tiles take their initial value's layout when it is solid, else the layout
    their first anchored user inside the loop wants (so an accumulator stays in the ``mma``
    layout across iterations).

Where two layouts meet, the lowering converts (``lower/convert.py``).  The plan is a side table
(value -> layout); the IR is not rewritten.
"""

from __future__ import annotations

from collections import deque

from ....analysis.axis import AxisAnalysis, AxisInfo
from ....ir.core import Block, Function, Op, Value, uses_of
from ....ir.ops import ELEMENTWISE, PURE
from ....ir.types import PointerType, ScalarType, TileType, element_of
from .linear import (
    Layout,
    blocked,
    blocked_spec,
    default_blocked,
    expand,
    mma_accumulator,
    permute,
    reshape,
    slice_layout,
    with_register_dim,
)
from .tensor_cores import dot_engine, wgmma_accumulator

LAZY_SOURCES = frozenset({"constant", "splat", "arange"})
VIEWS = frozenset({"broadcast", "expand_dims", "trans", "reshape", "hint"})
ACCESSES = frozenset({"load", "store", "atomic_rmw", "atomic_cas", "descriptor_load", "descriptor_store",
                      "gpu.async_copy"})


def is_tile(value: Value) -> bool:
    return isinstance(value.type, TileType)


class LayoutPlan:
    """Layouts of one function's tiles (see the module docstring)."""

    def __init__(self, function: Function, num_warps: int, arch: str = "sm_80"):
        self.function = function
        self.num_warps = num_warps
        self.arch = arch
        self.axis = AxisAnalysis(function)
        self.solid: dict[int, Layout] = {}
        self.lazy: set[int] = set()
        self.anchors: dict[int, Layout] = {}
        self.natural: dict[int, Layout | None] = {}
        self.materialized: dict[int, list[Layout]] = {}
        self.uses = uses_of(function)
        for arg in function.args:
            if is_tile(arg):
                self.solid[id(arg)] = self.default(arg.type.shape)
        self.chained_dots = any(op.name == "dot" and _derives_from_dot(op.operands[0]) for op in function.walk())
        for op in function.walk():
            self._anchor(op)
        self._block(function.body)

    # ---- queries used by the lowering ----
    def is_lazy(self, value: Value) -> bool:
        return id(value) in self.lazy

    def layout(self, value: Value) -> Layout:
        """The layout a tile lives in: its own when solid, else its natural layout (that of the
        solid tile it views) or the default blocked layout of its shape."""
        found = self.solid.get(id(value))
        if found is not None:
            return found
        natural = self._natural(value)
        return natural if natural is not None else self.default(value.type.shape)

    def anchor(self, op: Op) -> Layout | None:
        return self.anchors.get(id(op))

    def info(self, value: Value) -> AxisInfo:
        return self.axis.info(value)

    def default(self, shape: tuple[int, ...]) -> Layout:
        return default_blocked(tuple(shape), self.num_warps)

    def record(self, value: Value, layout: Layout) -> None:
        """The lowering notes each layout it materialized a lazy tile in (for printing)."""
        seen = self.materialized.setdefault(id(value), [])
        if layout not in seen:
            seen.append(layout)

    def printed_layouts(self, value: Value) -> list[Layout]:
        if id(value) in self.solid:
            return [self.solid[id(value)]]
        return self.materialized.get(id(value), [])

    # ---- anchors ----
    def _anchor(self, op: Op) -> None:
        if op.name in ACCESSES:
            shape = self._access_shape(op)
            if shape is not None:
                self.anchors[id(op)] = self.access_layout(op, shape)
        elif op.name == "dot":
            acc = op.operands[2].type
            engine = dot_engine(op, self.num_warps, self.arch)
            if engine == "wgmma":
                self.anchors[id(op)] = wgmma_accumulator(acc.shape, self.num_warps)
            elif engine == "mma":
                # chained dots (attention's p @ v): warps split M only, so an accumulator's
                # registers are the next dot's A fragments as they stand
                rows_for_all = acc.shape[0] >= 16 * self.num_warps
                warps = (self.num_warps, 1) if self.chained_dots and rows_for_all else None
                self.anchors[id(op)] = mma_accumulator(acc.shape, self.num_warps, warps)
            else:
                self.anchors[id(op)] = default_blocked(acc.shape, self.num_warps)

    def _access_shape(self, op: Op) -> tuple[int, ...] | None:
        if op.name in ("descriptor_load",):
            return op.result.type.shape
        if op.operands and op.operands[0].type.is_tensor_descriptor():  # gpu.async_copy from a descriptor
            return op.operands[0].type.block_type.shape
        if op.name == "descriptor_store":
            return op.operands[1].type.shape
        ptr = op.operands[0].type
        if isinstance(ptr, TileType):
            return ptr.shape
        if isinstance(ptr, PointerType) and ptr.is_block_ptr():
            return ptr.element_ty.shape
        return None

    def access_layout(self, op: Op, shape: tuple[int, ...]) -> Layout:
        """A coalesced blocked layout for a memory access of ``shape``: the most contiguous
        dimension first, as many elements per thread as one 128-bit access allows."""
        element, order, contiguity, alignment = self._access_facts(op, shape)
        bits = max(8, element.primitive_bitwidth) if isinstance(element, ScalarType) else 64
        vector = max(1, min(128 // bits, contiguity, alignment))
        if op.name in ("atomic_rmw", "atomic_cas"):
            vector = 1
        numel = 1
        for d in shape:
            numel *= d
        vector = max(1, min(vector, shape[order[0]], max(1, numel // (32 * self.num_warps))))
        spt = [1] * len(shape)
        spt[order[0]] = vector
        return blocked(tuple(shape), blocked_spec(tuple(shape), self.num_warps, order, tuple(spt)))

    def _access_facts(self, op: Op, shape: tuple[int, ...]):
        """(element type, dimension order, contiguous elements, aligned elements)."""
        rank = len(shape)
        if op.name.startswith("descriptor_") or op.operands[0].type.is_tensor_descriptor():
            desc = op.operands[0]
            element = desc.type.block_type.element_ty
            return element, tuple(reversed(range(rank))), *self._block_facts(self.info(desc), element, rank - 1, shape)
        ptr = op.operands[0]
        ptr_type = element_of(ptr.type)
        if ptr_type.is_block_ptr():
            element = ptr_type.element_ty.element_ty
            order = tuple(int(o) for o in self._block_order(ptr, rank))
            return element, order, *self._block_facts(self.info(ptr), element, order[0], shape)
        element = ptr_type.element_ty
        info = self.info(ptr)
        order = tuple(sorted(range(rank), key=lambda d: (-info.contiguity[d], -d)))
        fastest = order[0]
        size = max(1, element.itemsize) if isinstance(element, ScalarType) else 8
        contiguity = info.contiguity[fastest]
        alignment = max(1, min(info.divisibility[fastest], 1 << 20) // size)
        return element, order, contiguity, alignment

    def _block_order(self, ptr: Value, rank: int) -> tuple[int, ...]:
        """A block pointer's ``order`` (its fastest dimension first), as the axis analysis
        carried it from ``make_block_ptr`` (through ``advance`` and loops)."""
        facts = self.info(ptr).block
        if facts is not None and len(facts.order) == rank:
            return facts.order
        return tuple(reversed(range(rank)))

    def _block_facts(self, info: AxisInfo, element, dim: int, shape) -> tuple[int, int]:
        facts = info.block
        size = max(1, element.itemsize)
        if facts is None or facts.stride_constants[dim] != 1:
            return 1, 1
        others = [facts.stride_divisibility[d] * size for d in range(len(shape)) if d != dim]
        aligned = min([facts.base_divisibility, facts.offset_divisibility[dim] * size] + others)
        return shape[dim], max(1, min(aligned, 1 << 20) // size)

    # ---- laziness ----
    def _is_lazy_op(self, op: Op) -> bool:
        if not op.results or not all(is_tile(r) for r in op.results):
            return False
        if op.name in LAZY_SOURCES or op.name in VIEWS:
            return True
        opdef = op.opdef
        if opdef.has(PURE) and opdef.has(ELEMENTWISE):
            return all(self.is_lazy(v) for v in op.operands if is_tile(v))
        return False

    def _natural(self, value: Value) -> Layout | None:
        key = id(value)
        if key in self.natural:
            return self.natural[key]
        self.natural[key] = None  # cycles cannot happen in SSA, but be safe
        result = self._compute_natural(value)
        self.natural[key] = result
        return result

    def _compute_natural(self, value: Value) -> Layout | None:
        if id(value) in self.solid:
            return self.solid[id(value)]
        op = value.defining_op
        if op is None or op.name in LAZY_SOURCES or op.name == "broadcast":
            return None
        if op.name in VIEWS:
            source = op.operands[0]
            if not is_tile(source):
                return None
            base = self._natural(source)
            if base is None:
                return None
            if op.name == "hint":
                return base
            if op.name == "expand_dims":
                return expand(base, op.attrs["axis"])
            if op.name == "trans":
                return permute(base, tuple(op.attrs["order"]))
            return reshape(base, op.result.type.shape)
        for operand in op.operands:
            if is_tile(operand):
                found = self._natural(operand)
                if found is not None and found.shape == value.type.shape:
                    return found
        return None

    # ---- assignment (program order) ----
    def _set(self, value: Value, layout: Layout) -> None:
        if is_tile(value):
            if layout.shape != value.type.shape:
                raise AssertionError(f"layout of shape {layout.shape} for {value.type.ir}")
            self.solid[id(value)] = layout

    def _block(self, block: Block) -> None:
        for op in block.ops:
            self._op(op)

    def _op(self, op: Op) -> None:
        if self._is_lazy_op(op):
            for r in op.results:
                self.lazy.add(id(r))
            return
        handler = getattr(self, "_op_" + op.name.replace(".", "_"), None)
        if handler is not None:
            handler(op)
            return
        for region in op.regions:
            self._block(region)
        if op.opdef.has(ELEMENTWISE) or op.name == "inline_asm":
            self._elementwise(op)
            return
        for r in op.results:
            if is_tile(r):
                self._set(r, self.default(r.type.shape))

    def _elementwise(self, op: Op) -> None:
        layout = None
        for v in op.operands:
            if is_tile(v) and id(v) in self.solid:
                layout = self.solid[id(v)]
                break
        for r in op.results:
            if not is_tile(r):
                continue
            chosen = layout if layout is not None and layout.shape == r.type.shape else None
            if chosen is None:
                tiles = [v for v in op.operands if is_tile(v) and v.type.shape == r.type.shape]
                chosen = self.layout(tiles[0]) if tiles else self.default(r.type.shape)
            self._set(r, chosen)

    def _op_load(self, op: Op) -> None:
        anchor = self.anchors.get(id(op))
        if anchor is not None and is_tile(op.result):
            self._set(op.result, anchor)

    _op_atomic_rmw = _op_atomic_cas = _op_descriptor_load = _op_load

    def _op_dot(self, op: Op) -> None:
        self._set(op.result, self.anchors[id(op)])

    def _op_gpu_dot_wait(self, op: Op) -> None:
        self._set(op.result, self.layout(op.operands[0]))

    def _op_gpu_shared_read(self, op: Op) -> None:
        """A tile in shared memory: its dot reads it there (no registers, no layout)."""

    def _op_reduce(self, op: Op) -> None:
        self._block(op.regions[0])
        source = self.layout(op.operands[0])
        result = slice_layout(source, op.attrs["axis"])
        for r in op.results:
            self._set(r, result)

    def _op_scan(self, op: Op) -> None:
        self._block(op.regions[0])
        layout = self.scan_layout(self.layout(op.operands[0]), op.attrs["axis"])
        for r in op.results:
            self._set(r, layout)

    def scan_layout(self, layout: Layout, axis: int) -> Layout:
        """``layout`` if each thread's elements along ``axis`` are consecutive and lanes, then
        warps, follow in order; else a blocked layout with that property."""
        regs, lanes, warps = layout.bits_along(axis)
        values = ([layout.reg[i][axis] for i in regs] + [layout.lane[i][axis] for i in lanes]
                  + [layout.warp[i][axis] for i in warps])
        if values == [1 << i for i in range(len(values))]:
            return layout
        shape = layout.shape
        order = (axis,) + tuple(d for d in reversed(range(len(shape))) if d != axis)
        spt = [1] * len(shape)
        spt[axis] = max(1, shape[axis] // (32 * self.num_warps))
        return blocked(shape, blocked_spec(shape, self.num_warps, order, tuple(spt)))

    def _op_sort(self, op: Op) -> None:
        self._set(op.result, self.layout(op.operands[0]))

    _op_flip = _op_sort

    def _op_gather(self, op: Op) -> None:
        self._set(op.result, self.layout(op.operands[1]))

    def _op_join(self, op: Op) -> None:
        self._set(op.result, with_register_dim(self.layout(op.operands[0]), 2))

    def _op_split(self, op: Op) -> None:
        source = self.split_source_layout(self.layout(op.operands[0]))
        result = split_result_layout(source)
        for r in op.results:
            self._set(r, result)

    def split_source_layout(self, layout: Layout) -> Layout:
        """A layout for split's operand that keeps the two halves of the last dim in one
        thread's registers."""
        last = layout.rank - 1
        if any(b[last] for b in layout.reg):
            return layout
        shape = layout.shape
        order = (last,) + tuple(reversed(range(last)))
        return blocked(shape, blocked_spec(shape, self.num_warps, order, (1,) * last + (2,)))

    def _op_call(self, op: Op) -> None:
        for r in op.results:
            if is_tile(r):
                self._set(r, self.default(r.type.shape))

    # ---- control flow ----
    def _op_for(self, op: Op) -> None:
        body = op.regions[0]
        init = op.operand_group("init")
        for arg, value, result in zip(body.args[1:], init, op.results):
            if is_tile(arg):
                layout = self._carried_layout(value, arg)
                self._set(arg, layout)
                self._set(result, layout)
        self._block(body)

    def _op_while(self, op: Op) -> None:
        before, after = op.regions
        for arg, value in zip(before.args, op.operand_group("init")):
            if is_tile(arg):
                self._set(arg, self._carried_layout(value, arg))
        self._block(before)
        forwarded = before.terminator.operands[1:]
        for arg, value, result in zip(after.args, forwarded, op.results):
            if is_tile(arg):
                layout = self.layout(value)
                self._set(arg, layout)
                self._set(result, layout)
        self._block(after)

    def _op_if(self, op: Op) -> None:
        then, other = op.regions
        self._block(then)
        self._block(other)
        for i, result in enumerate(op.results):
            if not is_tile(result):
                continue
            a, b = then.terminator.operands[i], other.terminator.operands[i]
            if id(a) in self.solid:
                layout = self.solid[id(a)]
            elif id(b) in self.solid:
                layout = self.solid[id(b)]
            else:
                layout = self._wanted(result) or self.layout(a)
            self._set(result, layout)

    def _carried_layout(self, init: Value, arg: Value) -> Layout:
        if id(init) in self.solid:
            return self.solid[id(init)]
        wanted = self._wanted(arg)
        if wanted is not None:
            return wanted
        return self.layout(init)

    def _wanted(self, value: Value) -> Layout | None:
        """The layout the nearest anchored user of ``value`` wants (through elementwise ops)."""
        queue = deque([(value, 0)])
        seen = {id(value)}
        while queue:
            current, depth = queue.popleft()
            for user, index in self.uses.get(id(current), []):
                found = self._want_of_user(user, index)
                if found is not None:
                    return found
                if depth < 8 and user.opdef.has(ELEMENTWISE):
                    for other in user.operands:
                        if other is not current and is_tile(other):
                            known = self._predict(other)
                            if known is not None and known.shape == current.type.shape:
                                return known
                    for r in user.results:
                        if is_tile(r) and id(r) not in seen:
                            seen.add(id(r))
                            queue.append((r, depth + 1))
        return None

    def _want_of_user(self, user: Op, index: int) -> Layout | None:
        if user.name in ACCESSES:
            return self.anchors.get(id(user))
        if user.name == "dot" and index == 2:
            return self.anchors.get(id(user))
        if user.name == "gpu.dot_wait":
            return self._wanted(user.result)
        return None

    def _predict(self, value: Value, depth: int = 8) -> Layout | None:
        """The layout ``value`` will get, looking ahead of the assignment: its own if known,
        an anchor's, a reduction's slice of its operand's, an elementwise op's operand's."""
        if id(value) in self.solid:
            return self.solid[id(value)]
        op = value.defining_op
        if op is None or depth == 0:
            return None
        if self.is_lazy(value):
            return self._natural(value)
        if op.name == "gpu.dot_wait":
            return self._predict(op.operands[0], depth - 1)
        if op.name in ("load", "dot", "descriptor_load", "atomic_rmw", "atomic_cas"):
            return self.anchors.get(id(op))
        if op.name == "reduce":
            source = self._predict(op.operands[0], depth - 1) or self.default(op.operands[0].type.shape)
            return slice_layout(source, op.attrs["axis"])
        if op.opdef.has(ELEMENTWISE) or op.name == "inline_asm":
            for operand in op.operands:
                if is_tile(operand) and operand.type.shape == value.type.shape:
                    found = self._predict(operand, depth - 1)
                    if found is not None:
                        return found
        return None


def _derives_from_dot(value: Value, depth: int = 8) -> bool:
    """Whether ``value`` is a dot's result passed through elementwise ops and views."""
    op = value.defining_op
    if op is None or depth == 0:
        return False
    if op.name == "dot":
        return True
    if op.opdef.has(ELEMENTWISE) or op.name in VIEWS:
        return any(_derives_from_dot(v, depth - 1) for v in op.operands if is_tile(v))
    return False


def split_result_layout(source: Layout) -> Layout:
    """Drop the last dimension (held in registers) from ``source``."""
    last = source.rank - 1
    reg = tuple(b[:last] for b in source.reg if not b[last])
    return Layout(source.shape[:last], reg, tuple(b[:last] for b in source.lane),
                  tuple(b[:last] for b in source.warp), "linear")


def plan_module(module, num_warps: int, arch: str = "sm_80") -> dict[str, LayoutPlan]:
    """A plan for every function of ``module`` (``arch`` decides which tensor-core instructions the
    dots use, and so their accumulators' layouts)."""
    return {name: LayoutPlan(function, num_warps, arch) for name, function in module.functions.items()}
