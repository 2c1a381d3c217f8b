"""Software pipelining of the loads that feed ``dot`` (one stage of prefetch, in registers).

In a ``for`` loop whose body loads tiles used only by ``dot`` (the tutorial matmul's A and B
tiles, attention's K and V blocks), the loads of iteration ``k + 1`` are issued at the top of
iteration ``k``, before its dots, so their memory latency overlaps the tensor-core work:

    a0 = load(ptrs(lower), mask & lower < upper)            # prologue
    for k (acc, ptrs..., a_cur):
        ptrs' = next ptrs                                  # the yield's own computation, moved up
        a_next = load(ptrs'(k + step), mask & k + step < upper)
        acc = dot(a_cur, ..., acc)
        yield acc, ptrs'..., a_next

The rewrite runs on Tile IR before layouts are assigned, only where everything the load's
operands depend on inside the body is pure (no loads, no regions), nothing in the loop writes
memory (a prefetch must not read what this iteration would store), the step is a positive
constant and the loop asks for ``num_stages >= 2`` (its attribute, else the compile option), and
where a thread's registers can hold the accumulators plus two copies of the prefetched tiles
(``REGISTER_BUDGET`` 32-bit registers; beyond it ptxas would spill).
Block-pointer loads (no mask) are guarded by an ``if``.  The module is changed in place:
``compile_to_ptx`` works on a copy.
"""

from __future__ import annotations

from ...ir.core import Block, Function, Module, Op, Value, uses_of
from ...ir.ops import PURE, WRITES_MEMORY
from ...ir.types import TileType, i1, tile

REGISTER_BUDGET = 192


def pipeline_module(module: Module, num_stages: int, num_warps: int) -> int:
    """Pipeline every eligible loop of ``module``; returns how many loads were prefetched."""
    count = 0
    for function in module.functions.values():
        for op in list(function.walk()):
            if op.name == "for":
                count += _pipeline_loop(function, op, num_stages, 32 * num_warps)
    return count


def _registers(ty: TileType, threads: int) -> float:
    """32-bit registers a thread needs for its share of a tile."""
    return ty.numel * max(1, ty.element_ty.primitive_bitwidth) / 32 / threads


def _stages(loop: Op, default: int) -> int:
    stages = int(loop.attrs.get("num_stages", -1))
    return default if stages < 0 else stages


def _positive_constant(value: Value) -> bool:
    op = value.defining_op
    return op is not None and op.name == "constant" and isinstance(op.attrs["value"], int) and op.attrs["value"] > 0


class _Rewrite:
    """Cloning helpers for one loop body."""

    def __init__(self, body: Block):
        self.body = body
        self.inside = {id(op) for op in body.ops}

    def slice_of(self, values: list[Value]) -> list[Op] | None:
        """The body ops ``values`` depend on (in body order), or ``None`` if one is not pure."""
        found: dict[int, Op] = {}
        stack = list(values)
        while stack:
            value = stack.pop()
            op = value.defining_op
            if op is None or id(op) not in self.inside or id(op) in found:
                continue
            if op.regions or not op.opdef.has(PURE):
                return None
            found[id(op)] = op
            stack.extend(op.operands)
        order = {id(op): i for i, op in enumerate(self.body.ops)}
        return sorted(found.values(), key=lambda op: order[id(op)])

    @staticmethod
    def clone(op: Op, mapping: dict[int, Value], block: Block, index: int) -> Op:
        copy = Op(op.name, [mapping.get(id(v), v) for v in op.operands], [r.type for r in op.results],
                  dict(op.attrs), [], op.loc, op.segments)
        for old, new in zip(op.results, copy.results):
            new.name_hint = old.name_hint
            mapping[id(old)] = new
        block.insert(index, copy)
        return copy


def _guarded_load(load: Op, mapping: dict[int, Value], guard: Value, block: Block, index: int) -> tuple[Value, int]:
    """A clone of ``load`` (operands through ``mapping``) that reads nothing unless ``guard``;
    returns its value and the next insertion index."""
    ptr = mapping.get(id(load.operand("ptr")), load.operand("ptr"))
    ty = load.result.type
    if ptr.type.is_ptr() and ptr.type.is_block_ptr():
        then, other = Block(), Block()
        branch = Op("if", [guard], [ty], {}, [then, other], load.loc)
        inner = Op("load", [ptr], [ty], dict(load.attrs), [], load.loc, (1, 0, 0))
        then.append(inner)
        then.append(Op("yield", [inner.result], [], {}, [], load.loc, (1,)))
        zero = Op("constant", [], [ty], {"value": 0.0 if ty.element_ty.is_floating() else 0}, [], load.loc)
        other.append(zero)
        other.append(Op("yield", [zero.result], [], {}, [], load.loc, (1,)))
        block.insert(index, branch)
        return branch.result, index + 1
    shape = ty.shape
    splat = Op("splat", [guard], [tile(i1, shape)], {}, [], load.loc)
    block.insert(index, splat)
    index += 1
    mask = load.operand("mask")
    combined = splat.result
    if mask is not None:
        both = Op("and", [mapping.get(id(mask), mask), splat.result], [tile(i1, shape)], {}, [], load.loc)
        block.insert(index, both)
        index += 1
        combined = both.result
    other = load.operand("other")
    operands = [ptr, combined, mapping.get(id(other), other) if other is not None else None]
    segments = (1, 1, 1 if other is not None else 0)
    copy = Op("load", [v for v in operands if v is not None], [ty], dict(load.attrs), [], load.loc, segments)
    block.insert(index, copy)
    return copy.result, index + 1


def _prefetch(rewrite: _Rewrite, candidates: list, mapping: dict[int, Value], guard: Value, block: Block,
              index: int) -> tuple[list[Value], int]:
    """Clones of each candidate load and of the ops its operands need (those not in ``mapping``
    yet), inserted into ``block`` from ``index``, the loads guarded by ``guard``; returns the
    loaded values and the next insertion index."""
    values = []
    for load, sliced in candidates:
        for op in sliced:
            if id(op.results[0]) not in mapping:
                rewrite.clone(op, mapping, block, index)
                index += 1
        value, index = _guarded_load(load, mapping, guard, block, index)
        values.append(value)
    return values, index


def _pipeline_loop(function: Function, loop: Op, num_stages: int, threads: int) -> int:
    if _stages(loop, num_stages) < 2 or not _positive_constant(loop.operands[2]):
        return 0
    body = loop.regions[0]
    if any(op.opdef.has(WRITES_MEMORY) for op in body.walk()):
        return 0  # a store in the loop could write what the next iteration reads
    uses = uses_of(body)
    rewrite = _Rewrite(body)
    candidates = []
    for op in body.ops:
        if op.name != "load" or not isinstance(op.result.type, TileType):
            continue
        users = uses.get(id(op.result), [])
        if not users or any(u.name != "dot" or i > 1 or id(u) not in rewrite.inside for u, i in users):
            continue
        operands = list(op.operands)
        sliced = rewrite.slice_of(operands)
        if sliced is not None:
            candidates.append((op, sliced))
    if not candidates:
        return 0
    accumulators = sum(_registers(op.result.type, threads) for op in body.ops if op.name == "dot")
    prefetched = sum(_registers(load.result.type, threads) for load, _ in candidates)
    if accumulators + 2 * prefetched > REGISTER_BUDGET:
        return 0
    args = body.args[1:]
    terminator = body.terminator
    arg_index = {id(a): i for i, a in enumerate(args)}
    used_args = {id(v) for load, sliced in candidates for op in [*sliced, load] for v in op.operands
                 if id(v) in arg_index}
    next_values = [terminator.operands[arg_index[k]] for k in used_args if k in arg_index]
    yield_slice = rewrite.slice_of(next_values)
    if yield_slice is None:
        return 0
    _rewrite(function, loop, body, candidates, yield_slice, used_args, arg_index, rewrite)
    return len(candidates)


def _rewrite(function: Function, loop: Op, body: Block, candidates, yield_slice: list[Op], used_args: set,
             arg_index: dict, rewrite: _Rewrite) -> None:
    lower, upper, step = loop.operands[:3]
    init = loop.operand_group("init")
    iv, args = body.args[0], body.args[1:]
    terminator = body.terminator
    parent = loop.parent
    # prologue: the first iteration's loads, before the loop
    position = parent.ops.index(loop)
    mapping: dict[int, Value] = {id(iv): lower}
    mapping.update({id(a): v for a, v in zip(args, init)})
    guard_op = Op("cmp", [lower, upper], [i1], {"predicate": "lt"}, [], loop.loc)
    parent.insert(position, guard_op)
    position += 1
    first_values, position = _prefetch(rewrite, candidates, mapping, guard_op.result, parent, position)
    # body: the next values of the carried pointers first, then the next iteration's loads
    index = 0
    inner: dict[int, Value] = {}
    for op in yield_slice:
        rewrite.clone(op, inner, body, index)
        index += 1
    for k in used_args:
        if k in arg_index:
            i = arg_index[k]
            terminator.operands[i] = inner.get(id(terminator.operands[i]), terminator.operands[i])
    next_iv = Op("add", [iv, step], [iv.type], {}, [], loop.loc)
    body.insert(index, next_iv)
    guard = Op("cmp", [next_iv.result, upper], [i1], {"predicate": "lt"}, [], loop.loc)
    body.insert(index + 1, guard)
    index += 2
    mapping = {id(iv): next_iv.result}
    mapping.update({id(a): terminator.operands[i] for i, a in enumerate(args)})
    next_loads, index = _prefetch(rewrite, candidates, mapping, guard.result, body, index)
    # carry the prefetched tiles: new block arguments, init values, yields and results
    for (load, _), first, nxt in zip(candidates, first_values, next_loads):
        carried = Value(load.result.type, body, len(body.args), load.result.name_hint)
        body.args.append(carried)
        for op in body.walk():
            for i, operand in enumerate(op.operands):
                if operand is load.result:
                    op.operands[i] = carried
        body.remove(load)
        loop.operands.append(first)
        terminator.operands.append(nxt)
        loop.results.append(Value(load.result.type, loop, len(loop.results)))
    loop.segments = loop.segments[:3] + (len(loop.operands) - 3,)
    terminator.segments = (len(terminator.operands),)
    _remove_dead(body)


def _remove_dead(body: Block) -> None:
    """Drop pure ops of ``body`` whose results nothing uses (the moved loads' old operands)."""
    changed = True
    while changed:
        changed = False
        uses = uses_of(body)
        for op in reversed(list(body.ops)):
            if op.regions or not op.results or not op.opdef.has(PURE):
                continue
            if not any(uses.get(id(r)) for r in op.results):
                body.remove(op)
                changed = True
