"""The CUDA backend's own Tile IR ops: shared-memory ring buffers, asynchronous copies and
asynchronous tensor-core waits.

The pipelining pass (``async_pipeline.py``) introduces them into the ``tile.gpu`` stage; no
frontend builds them and no other backend sees them (their names start with ``gpu.``).  They
have no numpy reference: what they mean together is the loop they were made from.

* ``gpu.shared_buffer {buffer, stages, operand, major, engine, swizzle, type}``: a ring of
  ``stages`` shared-memory slots, each holding one tile of ``type``, laid out for the dot
  ``engine`` (``wgmma``: the NVMMA layout swizzled in rows of ``swizzle`` bytes; ``mma``: padded
  rows, ``swizzle`` 0) with dimension ``major`` contiguous; ``operand`` is 0 (A) or 1 (B).
* ``gpu.async_copy(ptr, offsets*, mask?, slot) {buffer}``: each thread starts copying its part
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
"""

from __future__ import annotations

from ...ir.ops.registry import OPS, READS_MEMORY, TARGET_SPECIFIC, WRITES_MEMORY, declare
from ...ir.types import TileType

GPU_PREFIX = "gpu."


def _declare_once() -> None:
    if "gpu.shared_buffer" in OPS:
        return
    declare("gpu.shared_buffer", results=0,
            attrs=[("buffer", "int"), ("stages", "int"), ("operand", "int"), ("major", "int"), ("engine", "str"),
                   ("swizzle", "int", 0), ("type", "type")],
            traits=(WRITES_MEMORY, TARGET_SPECIFIC), doc="a ring of shared-memory slots for one dot operand")
    declare("gpu.async_copy", operands=["ptr", "offsets*", "mask?", "slot"], results=0,
            attrs=[("buffer", "int"), ("boundary_check", "ints", ())],
            traits=(READS_MEMORY, WRITES_MEMORY, TARGET_SPECIFIC), doc="start copying a tile into a shared-memory slot")
    declare("gpu.async_commit", results=0, traits=(WRITES_MEMORY, TARGET_SPECIFIC),
            doc="close a group of asynchronous copies")
    declare("gpu.barrier", results=0, traits=(READS_MEMORY, WRITES_MEMORY, TARGET_SPECIFIC),
            doc="every thread of the CTA waits here")
    declare("gpu.async_wait", results=0, attrs=[("pending", "int"), ("release", "int", 0)],
            traits=(READS_MEMORY, WRITES_MEMORY, TARGET_SPECIFIC),
            doc="wait for asynchronous copies, then make them visible to the CTA")
    declare("gpu.shared_read", operands=["slot"], attrs=[("buffer", "int")], traits=(READS_MEMORY, TARGET_SPECIFIC),
            verify=_verify_tile_result, doc="the tile in a shared-memory slot")
    declare("gpu.dot_wait", operands=["acc"], attrs=[("pending", "int")], traits=(READS_MEMORY, TARGET_SPECIFIC),
            doc="the accumulator once the asynchronous dots writing it are done")


def _verify_tile_result(op) -> None:
    from ...ir.ops.registry import VerifyError

    if not isinstance(op.result.type, TileType):
        raise VerifyError("gpu.shared_read yields a tile", op)


def is_gpu_op(name: str) -> bool:
    return name.startswith(GPU_PREFIX)


_declare_once()
