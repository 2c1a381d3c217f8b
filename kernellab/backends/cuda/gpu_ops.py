"""The CUDA backend's own Tile IR ops: shared-memory ring buffers, asynchronous copies and
asynchronous tensor-core waits.

The pipelining pass (``async_pipeline.py``) introduces them into the ``tile.gpu`` stage; no
frontend builds them and no other backend compiles them (their names start with ``gpu.``).
Their numpy references are the spec, as for every op: the rings live in the execution context
(one list of slots per buffer), a copy is a load (masked-off elements zero) into a slot, the
waits do nothing.  So the interpreter runs a pipelined module (``ir_override`` with its
``.tile`` text) and the tests compare it with the loop it was made from.

* ``gpu.shared_buffer {buffer, stages, operand, major, engine, swizzle, type}``: a ring of
  ``stages`` shared-memory slots, each holding one tile of ``type``, laid out for the dot
  ``engine`` (``wgmma``: the NVMMA layout swizzled in rows of ``swizzle`` bytes; ``mma``: padded
  rows, ``swizzle`` 0) with dimension ``major`` contiguous; ``operand`` is 0 (A) or 1 (B).
* ``gpu.async_copy(ptr, slot, offsets*, mask?) {buffer}``: each thread starts copying its part
  of the tile at ``ptr`` (a tile of pointers, a block pointer, or a tensor descriptor at
  ``offsets``) into slot ``slot`` of ``buffer`` (``cp.async``); masked-off elements (and those
  outside a descriptor's or checked block pointer's bounds) are written as zeros.
* ``gpu.async_commit()``: closes the group of copies started since the last commit.
* ``gpu.async_wait() {pending, release}``: waits until at most ``pending`` groups are in flight,
  then makes the copies visible to the CTA and to the tensor cores (fence and barrier); after a
  pipelined loop, ``release`` counts the rings that are dead from here on.
* ``gpu.barrier()``: every thread of the CTA waits here.
* ``gpu.shared_read(slot) {buffer}``: the tile in that slot, read where it is used (a dot reads
  it from shared memory).
* ``gpu.dot_wait(acc) {pending}``: ``acc`` once at most ``pending`` asynchronous dots of this
  warpgroup are still running (``wgmma.wait_group``).

The tensor memory accelerator (TMA, sm_90) fills rings from tensor descriptors whose parts the
launch knows (``async_pipeline.py``: the launcher encodes the descriptor's tensor map once per
launch): one thread copies a whole tile, completing on the slot's mbarrier.

* ``gpu.tma_barriers() {barriers, stages}``: (re)initialises the ``stages`` mbarriers of set
  ``barriers``, one per ring slot, before a pipelined loop; ``gpu.tma_release() {barriers}``
  invalidates them after it.
* ``gpu.tma_expect(slot, guard) {barriers, bytes}``: when ``guard``, the slot's barrier expects
  ``bytes`` more (the copies of one stage).
* ``gpu.tma_copy(desc, slot, guard, offsets*) {buffer, barriers}``: when ``guard``, the block of
  ``desc`` at ``offsets`` goes into slot ``slot`` of ``buffer`` (outside the tensor: the
  descriptor's padding), completing on the slot's barrier.
* ``gpu.tma_wait(slot, phase) {barriers}``: waits until the slot's barrier has completed the
  phase of parity ``phase`` (the slot's copies have landed).
"""

from __future__ import annotations

import numpy as np

from ...ir.ops.memory import BlockPtr, TensorDesc
from ...ir.ops.registry import NEEDS_CTX, OPS, READS_MEMORY, TARGET_SPECIFIC, WRITES_MEMORY, declare, numpy_dtype
from ...ir.types import TileType

GPU_PREFIX = "gpu."


def _rings(ctx) -> dict:
    rings = getattr(ctx, "gpu_rings", None)
    if rings is None:
        rings = {}
        ctx.gpu_rings = rings
    return rings


def _shared_buffer(*, buffer, stages, operand, major, engine, swizzle, type, ctx, op):
    _rings(ctx)[buffer] = [np.zeros(type.shape, numpy_dtype(type)) for _ in range(stages)]


def _async_copy(ptr, slot, offsets, mask, *, buffer, boundary_check, ctx, op):
    ring = _rings(ctx)[buffer]
    target = ring[int(slot)]
    dtype = target.dtype
    if isinstance(ptr, TensorDesc):
        addresses, bounds = ptr.block([int(o) for o in offsets]).addresses_and_bounds(tuple(range(target.ndim)))
    elif isinstance(ptr, BlockPtr):
        addresses, bounds = ptr.addresses_and_bounds(tuple(boundary_check))
    else:
        addresses, bounds = ptr, None
    if bounds is not None:
        mask = bounds if mask is None else (mask & bounds)
    ring[int(slot)] = np.asarray(ctx.load(addresses, mask, dtype.type(0), dtype, op), dtype=dtype)


def _nothing(*, ctx, op, **attrs):
    return None


def _tma_copy(desc, slot, guard, offsets, *, buffer, barriers, ctx, op):
    if bool(guard):
        _async_copy(desc, slot, offsets, None, buffer=buffer, boundary_check=(), ctx=ctx, op=op)


def _ignore(*values, ctx, op, **attrs):
    return None


def _shared_read(slot, *, buffer, ctx, op):
    return _rings(ctx)[buffer][int(slot)].copy()


def _dot_wait(acc, *, pending):
    return acc


def _declare_once() -> None:
    if "gpu.shared_buffer" in OPS:
        return
    declare("gpu.shared_buffer", results=0,
            attrs=[("buffer", "int"), ("stages", "int"), ("operand", "int"), ("major", "int"), ("engine", "str"),
                   ("swizzle", "int", 0), ("type", "type")],
            traits=(WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_shared_buffer,
            doc="a ring of shared-memory slots for one dot operand")
    declare("gpu.async_copy", operands=["ptr", "slot", "offsets*", "mask?"], results=0,
            attrs=[("buffer", "int"), ("boundary_check", "ints", ())],
            traits=(READS_MEMORY, WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_async_copy,
            doc="start copying a tile into a shared-memory slot")
    declare("gpu.async_commit", results=0, traits=(WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_nothing,
            doc="close a group of asynchronous copies")
    declare("gpu.barrier", results=0, traits=(READS_MEMORY, WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC),
            reference=_nothing, doc="every thread of the CTA waits here")
    declare("gpu.async_wait", results=0, attrs=[("pending", "int"), ("release", "int", 0)],
            traits=(READS_MEMORY, WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_nothing,
            doc="wait for asynchronous copies, then make them visible to the CTA")
    declare("gpu.shared_read", operands=["slot"], attrs=[("buffer", "int")],
            traits=(READS_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_shared_read, verify=_verify_tile_result,
            doc="the tile in a shared-memory slot")
    declare("gpu.tma_barriers", results=0, attrs=[("barriers", "int"), ("stages", "int")],
            traits=(WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_nothing,
            doc="initialise a pipelined loop's mbarriers (one per ring slot)")
    declare("gpu.tma_release", results=0, attrs=[("barriers", "int")],
            traits=(WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_nothing,
            doc="invalidate a pipelined loop's mbarriers")
    declare("gpu.tma_expect", operands=["slot", "guard"], results=0, attrs=[("barriers", "int"), ("bytes", "int")],
            traits=(WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_ignore,
            doc="the slot's barrier expects one stage's bytes")
    declare("gpu.tma_copy", operands=["desc", "slot", "guard", "offsets*"], results=0,
            attrs=[("buffer", "int"), ("barriers", "int")],
            traits=(READS_MEMORY, WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_tma_copy,
            doc="copy a descriptor's block into a shared-memory slot with the tensor memory accelerator")
    declare("gpu.tma_wait", operands=["slot", "phase"], results=0, attrs=[("barriers", "int")],
            traits=(READS_MEMORY, WRITES_MEMORY, NEEDS_CTX, TARGET_SPECIFIC), reference=_ignore,
            doc="wait until a slot's copies have landed")
    declare("gpu.dot_wait", operands=["acc"], attrs=[("pending", "int")], traits=(READS_MEMORY, TARGET_SPECIFIC),
            reference=_dot_wait, doc="the accumulator once the asynchronous dots writing it are done")


def _verify_tile_result(op) -> None:
    from ...ir.ops.registry import VerifyError

    if not isinstance(op.result.type, TileType):
        raise VerifyError("gpu.shared_read yields a tile", op)


_declare_once()
