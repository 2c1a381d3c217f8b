"""Multi-stage software pipelining of the loads that feed tensor-core dots (sm_80+).

In a ``for`` loop whose body loads tiles used only as ``dot`` operands (the tutorial matmul's A
and B, attention's K and V), each such load becomes a ring of shared-memory slots filled by
asynchronous copies issued ``L = num_stages - 1`` iterations ahead::

    gpu.shared_buffer {buffer = 0, stages = R, ...}             # one ring per operand
    prologue: iterations 0 .. L-1: gpu.async_copy(ptrs(k), mask & k < upper, slot)  + commit
    for k (acc, ..., ptrs_ahead..., read_slot, write_slot):
        gpu.async_wait {pending = L - 1}                        # iteration k's tiles have landed
        a = gpu.shared_read(read_slot) {buffer = 0}             # read by the dot from shared memory
        acc = dot(a, b, acc)   [gpu.dot_wait {pending = 1}: wgmma keeps one dot in flight, also
                                attention's P @ V, whose A comes from registers]
        gpu.async_copy(ptrs_ahead(k + L), mask & k + L < upper, write_slot) + commit
        yield acc, ..., next(ptrs_ahead), (read_slot + 1) % R, (write_slot + 1) % R
    gpu.async_wait {pending = 0}; [gpu.dot_wait {pending = 0}]

``R = L + 1`` slots.  With several warpgroups on asynchronous wgmma a ``gpu.barrier`` precedes the
copies: a slot is rewritten only once every warpgroup's dot that read it is known to be done.  The loop-carried values
that address the loads (pointer tiles, block pointers) are carried ``L`` iterations ahead, so
they must be used by nothing else (not after the loop either).  Masked-off elements are copied
as zeros, so a load's ``other`` must be zero (or absent).  The pass rewrites a copy of the
module (``compile_to_ptx`` keeps the original); where a loop does not qualify it is left alone.

On sm_90 a ring filled from a tensor descriptor the launch can encode (``tma.py``) is filled by
the tensor memory accelerator instead: one thread issues each stage (``gpu.tma_expect`` and a
``gpu.tma_copy`` per operand, completing on the slot's mbarrier), every thread waits on the
barrier (``gpu.tma_wait`` with the slot's phase, carried as ``read_phase``), and no CTA barrier
is needed after the wait.  The barriers are initialised before the prologue and invalidated
after the drain (``gpu.tma_barriers``/``gpu.tma_release``), so a loop run again (a persistent
kernel's loop over tiles) starts from phase 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...analysis.axis import AxisAnalysis
from ...ir.core import Block, Function, Module, Op, Value, uses_of
from ...ir.ops import WRITES_MEMORY
from ...ir.types import TileType, element_of, i1, i32, tile
from . import gpu_ops, tma  # noqa: F401  (gpu_ops declares the gpu.* ops)
from .layouts.tensor_cores import arch_number, dot_engine, needs_k_major, tensor_core_kind
from .pipeline import _positive_constant, _remove_dead, _Rewrite, _stages

SHARED_BUDGET = 200 * 1024  # bytes the rings of one loop may take (the H100/H200 allow 227 KB per CTA)


@dataclass
class _Candidate:
    load: Op
    sliced: list[Op]
    operand: int  # 0: A, 1: B
    engine: str
    major: int
    buffer: int = -1
    tma: bool = False  # filled by the tensor memory accelerator (sm_90, a descriptor the launch encodes)


class NotPipelined(Exception):
    """The loop does not qualify (the module may be half rewritten: use a fresh copy)."""


def pipeline_async(module: Module, num_stages: int, num_warps: int, arch: str) -> int:
    """Pipeline every eligible loop of ``module`` in place; returns how many loads became rings.
    Raises :class:`NotPipelined` when a rewrite had to stop half way."""
    count = 0
    for function in module.functions.values():
        axis = AxisAnalysis(function)
        buffers = [0]
        kernel = function is module.kernel  # only the kernel's parameters are the launch's
        for op in list(function.walk()):
            if op.name == "for":
                count += _pipeline_loop(function, op, num_stages, num_warps, arch, axis, buffers, kernel)
    return count


def slot_bytes(ty: TileType, engine: str, major: int) -> int:
    """Bytes of one slot (1024-aligned, as the swizzled layouts need): the lowering's own rule."""
    from .lower.smem import spec_for

    return spec_for(ty, major, engine, 1, 0).slot_bytes


def _is_zero(value: Value | None) -> bool:
    if value is None:
        return True
    op = value.defining_op
    while op is not None and op.name == "splat":
        op = op.operands[0].defining_op
    return op is not None and op.name == "constant" and op.attrs.get("value") in (0, 0.0, False)


def _major(axis: AxisAnalysis, load: Op) -> int:
    if load.name == "descriptor_load":
        return 1  # a tensor descriptor's last dimension is contiguous
    ptr = load.operand("ptr")
    info = axis.info(ptr)
    if element_of(ptr.type).is_block_ptr():
        facts = info.block
        return int(facts.order[0]) if facts is not None and len(facts.order) == 2 else 1
    return 0 if info.contiguity[0] > info.contiguity[1] else 1


def _candidate(load: Op, uses: dict, rewrite: _Rewrite, num_warps: int, arch: str, axis: AxisAnalysis,
               kernel: Function | None) -> _Candidate | None:
    ty = load.result.type
    if not isinstance(ty, TileType) or len(ty.shape) != 2 or load.attrs.get("volatile"):
        return None
    if load.name == "descriptor_load":
        facts = axis.info(load.operand("desc")).block
        found = _dot_candidate(load, uses, rewrite, num_warps, arch, axis)
        if found is not None and _by_tma(found, kernel, axis, arch):
            found.tma = True
        elif facts is not None and facts.padding == "nan":
            return None  # cp.async fills zeros; TMA fills the NaN padding itself
        return found
    ptr = load.operand("ptr")
    if element_of(ptr.type).is_block_ptr():
        if load.attrs.get("boundary_check") and load.attrs.get("padding") == "nan":
            return None
    elif not isinstance(ptr.type, TileType) or not _is_zero(load.operand("other")):
        return None
    return _dot_candidate(load, uses, rewrite, num_warps, arch, axis)


def _dot_candidate(load: Op, uses: dict, rewrite: _Rewrite, num_warps: int, arch: str, axis: AxisAnalysis
                   ) -> _Candidate | None:
    """``load`` as a candidate when all its users are tensor-core dots of one engine that take it
    as the same operand (and, for kinds other than 16-bit, it is contiguous along K)."""
    users = _dot_users(load.result, uses, rewrite)
    if not users:
        return None
    operands = {(i, transposed) for _, i, transposed in users}
    engines = {dot_engine(u, num_warps, arch) for u, _, _ in users}
    if len(operands) != 1 or len(engines) != 1 or next(iter(engines)) == "fma":
        return None
    (operand, transposed), engine = operands.pop(), engines.pop()
    major = _major(axis, load)
    kind = tensor_core_kind(users[0][0])
    seen_major = 1 - major if transposed else major  # as the dot sees the operand
    if needs_k_major(kind) and seen_major != 1 - operand:
        return None
    sliced = rewrite.slice_of(list(load.operands))
    if sliced is None:
        return None
    return _Candidate(load, sliced, operand, engine, major)


def _by_tma(candidate: _Candidate, kernel: Function | None, axis: AxisAnalysis, arch: str) -> bool:
    """Whether the tensor memory accelerator fills this candidate's ring (see the docstring)."""
    if kernel is None or candidate.engine != "wgmma" or arch_number(arch) < 90:
        return False
    return tma.eligible(candidate.load, kernel, axis, _swizzle(candidate))


def _dot_users(value: Value, uses: dict, rewrite: _Rewrite) -> list[tuple[Op, int, bool]] | None:
    """The dots of the loop body that take ``value`` as A or B, directly or through one 2-D
    transpose (``tl.trans``, which a shared-memory slot gives as a view): ``(dot, operand,
    transposed)``; ``None`` if anything else uses it."""
    found = []
    for user, index in uses.get(id(value), []):
        if id(user) not in rewrite.inside:
            return None
        if user.name == "dot" and index <= 1:
            found.append((user, index, False))
            continue
        if user.name != "trans" or tuple(user.attrs["order"]) != (1, 0):
            return None
        inner = uses.get(id(user.result), [])
        if not inner or any(u.name != "dot" or i > 1 or id(u) not in rewrite.inside for u, i in inner):
            return None
        found += [(u, i, True) for u, i in inner]
    return found or None


def _pipeline_loop(function: Function, loop: Op, num_stages: int, num_warps: int, arch: str, axis: AxisAnalysis,
                   buffers: list[int], kernel: bool) -> int:
    stages = _stages(loop, num_stages)
    if stages < 2 or not _positive_constant(loop.operands[2]):
        return 0
    body = loop.regions[0]
    if any(op.opdef.has(WRITES_MEMORY) for op in body.walk()):
        return 0
    uses = uses_of(body)
    rewrite = _Rewrite(body)
    owner = function if kernel else None
    candidates = [c for c in (_candidate(op, uses, rewrite, num_warps, arch, axis, owner) for op in body.ops
                              if op.name in ("load", "descriptor_load")) if c is not None]
    if not candidates:
        return 0
    plan = _state_plan(function, loop, body, candidates, rewrite)
    if plan is None:
        return 0
    lookahead, ring = _ring_size(candidates, stages, num_warps)
    if lookahead < 1:
        return 0
    for c in candidates:
        c.buffer = buffers[0]
        buffers[0] += 1
    # several warpgroups on asynchronous wgmma: another warpgroup's dot may still read the slot
    # the next copies overwrite, until a barrier after every warpgroup's wait
    barrier = num_warps > 4 and any(c.engine == "wgmma" for c in candidates)
    _Rewriter(function, loop, candidates, plan, lookahead, ring, barrier).run()
    return len(candidates)


@dataclass
class _StatePlan:
    state: list[Value]  # the carried values that address the loads
    next_slice: list[Op]  # body ops computing their next values
    next_values: list[Value]


def _state_plan(function: Function, loop: Op, body: Block, candidates: list[_Candidate], rewrite: _Rewrite
                ) -> _StatePlan | None:
    args = body.args[1:]
    arg_index = {id(a): i for i, a in enumerate(args)}
    state_ids: list[int] = []
    for c in candidates:
        for op in [*c.sliced, c.load]:
            for v in op.operands:
                if id(v) in arg_index and id(v) not in state_ids:
                    state_ids.append(id(v))
    terminator = body.terminator
    state = [args[arg_index[k]] for k in state_ids]
    next_values = [terminator.operands[arg_index[k]] for k in state_ids]
    next_slice = rewrite.slice_of(next_values)
    if next_slice is None:
        return None
    allowed = set(state_ids) | {id(body.args[0])}
    for op in next_slice:
        if any(id(v) in arg_index and id(v) not in allowed for v in op.operands):
            return None
    outer_uses = uses_of(function)
    for k in state_ids:
        if outer_uses.get(id(loop.results[arg_index[k]])):
            return None
    return _StatePlan(state, next_slice, next_values)


def _ring_size(candidates: list[_Candidate], stages: int, num_warps: int) -> tuple[int, int]:
    """(lookahead, slots per ring) within the shared-memory budget."""
    slack = 0
    per_slot = sum(slot_bytes(c.load.result.type, c.engine, c.major) for c in candidates)
    lookahead = stages - 1
    while lookahead >= 1 and (lookahead + 1 + slack) * per_slot > SHARED_BUDGET:
        lookahead -= 1
    return lookahead, lookahead + 1 + slack


class _Rewriter:
    """Builds the pipelined loop (see the module docstring) in place of ``loop``."""

    def __init__(self, function: Function, loop: Op, candidates: list[_Candidate], plan: _StatePlan,
                 lookahead: int, ring: int, barrier_before_copies: bool):
        self.function, self.loop, self.candidates, self.plan = function, loop, candidates, plan
        self.barrier_before_copies = barrier_before_copies
        self.lookahead, self.ring = lookahead, ring
        self.by_tma = any(c.tma for c in candidates)
        self.by_copies = any(not c.tma for c in candidates)
        self.barriers = min(c.buffer for c in candidates)  # the loop's barrier set: its first ring's number
        self.stage_bytes = sum(c.load.result.type.numel * byte_size_of(c.load.result.type) for c in candidates
                               if c.tma)
        self.body = loop.regions[0]
        self.rewrite = _Rewrite(self.body)
        self.loc = loop.loc
        self.parent = loop.parent

    # ---- small builders ----
    def _op(self, block: Block, index: int, name: str, operands: list, types: list, attrs=None, segments=None,
            loc=None) -> tuple[Op, int]:
        op = Op(name, operands, types, attrs or {}, [], loc or self.loc, segments)
        block.insert(index, op)
        return op, index + 1

    def _const(self, block: Block, index: int, value: int, ty=i32) -> tuple[Value, int]:
        op, index = self._op(block, index, "constant", [], [ty], {"value": value})
        return op.result, index

    def _issue(self, block: Block, index: int, iv: Value, state: list[Value], slot: Value,
               loop_iv: Value | None = None) -> tuple[list[Value], int]:
        """Copies for the iteration at ``iv`` (state ``state``) into ``slot``; returns the next
        state values and the insertion index.  ``loop_iv``: the rebuilt loop's induction
        variable, which the moved body ops now read in place of the old one."""
        upper = self.loop.operands[1]
        guard, index = self._op(block, index, "cmp", [iv, upper], [i1], {"predicate": "lt"})
        mapping: dict[int, Value] = {id(self.body.args[0]): iv}
        if loop_iv is not None:
            mapping[id(loop_iv)] = iv
        mapping.update({id(old): new for old, new in zip(self.plan.state, state)})
        if self.by_tma:
            _, index = self._op(block, index, "gpu.tma_expect", [slot, guard.result], [],
                                {"barriers": self.barriers, "bytes": self.stage_bytes})
        for c in self.candidates:
            for op in c.sliced:
                if id(op.results[0]) not in mapping:
                    self.rewrite.clone(op, mapping, block, index)
                    index += 1
            copy = self._tma_copy if c.tma else self._copy
            index = copy(block, index, c, mapping, guard.result, slot)
        if self.by_copies:
            _, index = self._op(block, index, "gpu.async_commit", [], [])
        for op in self.plan.next_slice:
            if id(op.results[0]) not in mapping:
                self.rewrite.clone(op, mapping, block, index)
                index += 1
        return [mapping.get(id(v), v) for v in self.plan.next_values], index

    def _tma_copy(self, block: Block, index: int, c: _Candidate, mapping: dict, guard: Value, slot: Value) -> int:
        load = c.load
        desc = load.operand("desc")
        offsets = [mapping.get(id(v), v) for v in load.operand_group("offsets")]
        _, index = self._op(block, index, "gpu.tma_copy", [mapping.get(id(desc), desc), slot, guard, *offsets], [],
                            {"buffer": c.buffer, "barriers": self.barriers}, (1, 1, 1, len(offsets)), loc=load.loc)
        return index

    def _copy(self, block: Block, index: int, c: _Candidate, mapping: dict, guard: Value, slot: Value) -> int:
        load = c.load
        shape = load.result.type.shape
        splat, index = self._op(block, index, "splat", [guard], [tile(i1, shape)], loc=load.loc)
        mask = splat.result
        old_mask = load.operand("mask") if load.name == "load" else None
        if old_mask is not None:
            both, index = self._op(block, index, "and", [mapping.get(id(old_mask), old_mask), mask],
                                   [tile(i1, shape)], loc=load.loc)
            mask = both.result
        attrs = {"buffer": c.buffer}
        if load.attrs.get("boundary_check"):
            attrs["boundary_check"] = tuple(load.attrs["boundary_check"])
        ptr = load.operands[0]
        offsets = load.operand_group("offsets") if load.name == "descriptor_load" else []
        operands = [mapping.get(id(ptr), ptr), slot] + [mapping.get(id(v), v) for v in offsets] + [mask]
        _, index = self._op(block, index, "gpu.async_copy", operands, [], attrs, (1, 1, len(offsets), 1),
                            loc=load.loc)
        return index

    def _iv_at(self, block: Block, index: int, base: Value, iterations: int) -> tuple[Value, int]:
        if iterations == 0:
            return base, index
        step = self.loop.operands[2].defining_op.attrs["value"]
        offset, index = self._const(block, index, iterations * step, base.type)
        add, index = self._op(block, index, "add", [base, offset], [base.type])
        return add.result, index

    # ---- the rewrite ----
    def run(self) -> None:
        index = self.parent.ops.index(self.loop)
        for c in self.candidates:
            _, index = self._op(self.parent, index, "gpu.shared_buffer", [], [], {
                "buffer": c.buffer, "stages": self.ring, "operand": c.operand, "major": c.major, "engine": c.engine,
                "swizzle": _swizzle(c), "type": c.load.result.type})
        if self.by_tma:
            _, index = self._op(self.parent, index, "gpu.tma_barriers", [], [],
                                {"barriers": self.barriers, "stages": self.ring})
        arg_index = {id(a): i for i, a in enumerate(self.body.args[1:])}
        init = self.loop.operand_group("init")
        state = [init[arg_index[id(a)]] for a in self.plan.state]
        lower = self.loop.operands[0]
        for s in range(self.lookahead):
            iv, index = self._iv_at(self.parent, index, lower, s)
            slot, index = self._const(self.parent, index, s)
            state, index = self._issue(self.parent, index, iv, state, slot)
        read0, index = self._const(self.parent, index, 0)
        write0, index = self._const(self.parent, index, self.lookahead % self.ring)
        self._rebuild_loop(state, read0, write0)

    def _rebuild_loop(self, ahead_init: list[Value], read0: Value, write0: Value) -> None:
        loop, body = self.loop, self.body
        old_args = body.args[1:]
        state_ids = {id(a) for a in self.plan.state}
        keep = [i for i, a in enumerate(old_args) if id(a) not in state_ids]
        init = loop.operand_group("init")
        slots = ["read_slot", "write_slot"] + (["read_phase"] if self.by_tma else [])
        types = [body.args[0].type] + [old_args[i].type for i in keep] + [a.type for a in self.plan.state] + \
                [i32] * len(slots)
        names = [body.args[0].name_hint] + [old_args[i].name_hint for i in keep] + \
                [a.name_hint for a in self.plan.state] + slots
        new_body = Block(types, names)
        mapping = {id(body.args[0]): new_body.args[0]}
        mapping.update({id(old_args[i]): new_body.args[1 + j] for j, i in enumerate(keep)})
        ahead = new_body.args[1 + len(keep):1 + len(keep) + len(self.plan.state)]
        read_slot, write_slot = new_body.args[-len(slots)], new_body.args[-len(slots) + 1]
        phase = new_body.args[-1] if self.by_tma else None
        self._move_body(new_body, mapping, read_slot, phase)
        async_dots = self._async_dots(new_body)
        index = len(new_body.ops) - 1  # before the terminator: after the dots (and their waits)
        next_iv, index = self._iv_at(new_body, index, new_body.args[0], self.lookahead)
        if self.barrier_before_copies:
            _, index = self._op(new_body, index, "gpu.barrier", [], [])
        next_state, index = self._issue(new_body, index, next_iv, list(ahead), write_slot, new_body.args[0])
        next_read, wrapped, index = self._advance_slot(new_body, index, read_slot)
        next_write, _, index = self._advance_slot(new_body, index, write_slot)
        carried = [next_read, next_write]
        starts = [read0, write0]
        if phase is not None:  # the read slot's barrier phase flips each time the slot index wraps
            flip, index = self._op(new_body, index, "cast", [wrapped], [i32])
            flipped, index = self._op(new_body, index, "xor", [phase, flip.result], [i32])
            carried.append(flipped.result)
            starts.append(read0)  # 0
        terminator = new_body.terminator
        terminator.operands = [terminator.operands[i] for i in keep] + next_state + carried
        terminator.segments = (len(terminator.operands),)
        new_loop = Op("for", list(loop.operands[:3]) + [init[i] for i in keep] + ahead_init + starts,
                      types[1:], dict(loop.attrs), [new_body], loop.loc, (1, 1, 1, len(types) - 1))
        position = self.parent.ops.index(loop)
        self.parent.remove(loop)
        self.parent.insert(position, new_loop)
        results = {i: new_loop.results[j] for j, i in enumerate(keep)}
        for i, new in results.items():
            _replace_uses(self.function, loop.results[i], new)
        after = self._drain_dots(new_loop, position + 1, async_dots, keep)
        # every copy has landed and every dot reading the rings is done: they may be reused
        release = {"pending": 0, "release": len(self.candidates)}
        self.parent.insert(after, Op("gpu.async_wait", [], [], release, [], loop.loc))
        if self.by_tma:
            self.parent.insert(after + 1, Op("gpu.tma_release", [], [], {"barriers": self.barriers}, [], loop.loc))
        _remove_dead(new_body)
        stale = {id(a) for a in body.args}
        if any(id(v) in stale for op in new_body.walk() for v in op.operands):
            raise NotPipelined(f"a value addressing a pipelined load is used elsewhere in the loop at {loop.loc}")

    def _move_body(self, new_body: Block, mapping: dict[int, Value], read_slot: Value, phase: Value | None) -> None:
        """The old body's ops into ``new_body`` (operands remapped), the candidate loads turned
        into shared reads after the waits at the top (the copies', the barrier's)."""
        loads = {id(c.load): c for c in self.candidates}
        if self.by_copies:
            new_body.append(Op("gpu.async_wait", [], [], {"pending": self.lookahead - 1}, [], self.loc))
        if phase is not None:
            new_body.append(Op("gpu.tma_wait", [read_slot, phase], [], {"barriers": self.barriers}, [], self.loc))
        for op in list(self.body.ops):
            self.body.remove(op)
            if id(op) in loads:
                c = loads[id(op)]
                read = Op("gpu.shared_read", [read_slot], [op.result.type], {"buffer": c.buffer}, [], op.loc)
                read.results[0].name_hint = op.result.name_hint
                mapping[id(op.result)] = read.result
                new_body.append(read)
                continue
            for inner in op.walk():
                inner.operands = [mapping.get(id(v), v) for v in inner.operands]
            new_body.append(op)

    def _async_dots(self, body: Block) -> list[tuple[Op, int]]:
        """Dots on wgmma whose B is a ring, whose A is a ring or 16-bit registers (attention's P),
        and whose result only goes to the yield (the accumulator of the next iteration): (dot,
        position in the yield).  Such a dot stays in flight across the back edge; the next
        iteration's first wait (its own dot's, or the one before the next copies) completes it."""
        uses = uses_of(body)
        terminator = body.terminator
        found = []
        for op in body.ops:
            if op.name != "dot" or not _is_read(op.operands[1]) or not _ring_or_half_registers(op.operands[0]):
                continue
            if element_of(op.result.type).ir != "f32":
                continue  # an f16 accumulator is narrowed right after the dot: it cannot stay in flight
            users = uses.get(id(op.result), [])
            if len(users) == 1 and users[0][0] is terminator and self._engine_of(op) == "wgmma":
                found.append((op, users[0][1]))
        for dot, position in found:
            wait = Op("gpu.dot_wait", [dot.result], [dot.result.type], {"pending": 1}, [], dot.loc)
            body.insert(body.ops.index(dot) + 1, wait)
            terminator.operands[position] = wait.result
        return found

    def _engine_of(self, dot: Op) -> str:
        buffers = {_read_of(v).attrs["buffer"] for v in dot.operands[:2] if _is_read(v)}
        engines = {c.engine for c in self.candidates if c.buffer in buffers}
        return engines.pop() if len(engines) == 1 else "mma"

    def _advance_slot(self, block: Block, index: int, slot: Value) -> tuple[Value, Value, int]:
        """(the next slot, whether it wrapped to 0, the insertion index)."""
        one, index = self._const(block, index, 1)
        bumped, index = self._op(block, index, "add", [slot, one], [i32])
        ring, index = self._const(block, index, self.ring)
        wrapped, index = self._op(block, index, "cmp", [bumped.result, ring], [i1], {"predicate": "eq"})
        zero, index = self._const(block, index, 0)
        chosen, index = self._op(block, index, "select", [wrapped.result, zero, bumped.result], [i32])
        return chosen.result, wrapped.result, index

    def _drain_dots(self, new_loop: Op, position: int, async_dots: list[tuple[Op, int]], keep: list[int]) -> int:
        for _, yielded in async_dots:
            result = new_loop.results[keep.index(yielded)]
            wait = Op("gpu.dot_wait", [result], [result.type], {"pending": 0}, [], new_loop.loc)
            _replace_uses(self.function, result, wait.result)
            self.parent.insert(position, wait)
            position += 1
        return position


def byte_size_of(ty: TileType) -> int:
    return max(1, element_of(ty).primitive_bitwidth // 8)


def _swizzle(c: _Candidate) -> int:
    """The swizzle width of a wgmma ring (0: the padded rows of mma.sync)."""
    from .lower.smem import choose_swizzle

    ty = c.load.result.type
    size = max(1, element_of(ty).primitive_bitwidth // 8)
    return choose_swizzle(ty.shape, size, c.major) if c.engine == "wgmma" else 0


def _ring_or_half_registers(value: Value) -> bool:
    """An A operand a dot may keep reading while in flight: a ring slot, or a 16-bit register
    tile (wgmma takes those from registers; other types are staged through shared memory)."""
    return _is_read(value) or element_of(value.type).ir in ("f16", "bf16")


def _is_read(value: Value) -> bool:
    """A ring slot, or a transposed view of one."""
    op = value.defining_op
    if op is not None and op.name == "trans":
        op = op.operands[0].defining_op
    return op is not None and op.name == "gpu.shared_read"


def _read_of(value: Value) -> Op:
    op = value.defining_op
    return op.operands[0].defining_op if op.name == "trans" else op


def _replace_uses(function: Function, old: Value, new: Value) -> None:
    for op in function.walk():
        op.operands = [new if v is old else v for v in op.operands]
