"""``print`` (device_print), ``assert`` (device_assert), hints, barriers and inline assembly.

Both debug ops call back into Python through function pointers in the launch's status block
(see :mod:`.launcher`): ``print`` hands over the program id and a pointer per value (a scalar
slot or a tile buffer) and the launcher formats and prints them in program order after the
grid; a failing ``assert`` reports the program id and the element's flat index, sets the
status flag that stops the grid, and leaves the program.
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...errors import CompilationError
from ...ir.core import Op
from ...ir.types import PointerType, TileType, element_of
from .emitter import Emitter
from .llvm_types import I32, I64, PTR, i32, i64, llvm_type
from .table import lowering
from .tiles import Tile, flat_index

PRINT_CALLBACK = ll.FunctionType(ll.VoidType(), [PTR, I32, I32, I32, I32, PTR])
ASSERT_CALLBACK = ll.FunctionType(ll.VoidType(), [PTR, I32, I32, I32, I32, I64])
STATUS_PRINT_OFFSET = 8
STATUS_ASSERT_OFFSET = 16


def _callback(em: Emitter, offset: int, fnty: ll.FunctionType) -> ll.Value:
    slot = em.b.gep(em.status, [i64(offset)], source_etype=ll.IntType(8))
    return em.b.load(slot, typ=fnty.as_pointer())


@lowering("print")
def lower_print(em: Emitter, op: Op, args: list) -> list:
    described = []
    pointers = em.alloca(PTR, max(1, len(args)))
    for k, (value, lowered) in enumerate(zip(op.operands, args)):
        if isinstance(value.type, TileType):
            where = em.materialize(lowered).ptr
            shape = list(value.type.shape)
        else:
            where = em.alloca(llvm_type(value.type))
            em.b.store(lowered, where)
            shape = []
        em.b.store(where, em.b.gep(pointers, [i64(k)], source_etype=PTR))
        elem = element_of(value.type)
        described.append({"type": "i64" if isinstance(elem, PointerType) else elem.ir, "shape": shape})
    holds_addresses = [isinstance(element_of(v.type), PointerType) for v in op.operands]
    index = em.ml.record_print({"prefix": op.attrs["prefix"], "hex": op.attrs["hex"], "values": described,
                                "pointers": holds_addresses, "line": op.loc.line})
    fn = _callback(em, STATUS_PRINT_OFFSET, PRINT_CALLBACK)
    em.b.call(fn, [em.status, i32(index), *em.pids, pointers])
    return []


@lowering("assert")
def lower_assert(em: Emitter, op: Op, args: list) -> list:
    cond = args[0]
    index = em.ml.record_assert({"message": op.attrs["message"], "file": op.loc.file, "line": op.loc.line,
                                 "function": em.function.name})

    def check(value: ll.Value, flat: ll.Value) -> None:
        with em.b.if_then(em.b.not_(em.as_bool(value))):
            fn = _callback(em, STATUS_ASSERT_OFFSET, ASSERT_CALLBACK)
            em.b.call(fn, [em.status, i32(index), *em.pids, flat])
            em.b.branch(em.exit_block)
    if isinstance(cond, Tile):
        em.loop_nest(cond.shape, lambda idx: check(cond.at(em, idx), flat_index(em.b, cond.shape, idx)))
    else:
        check(cond, i64(0))
    return []


@lowering("barrier", "assume")
def lower_nothing(em: Emitter, op: Op, args: list) -> list:
    """A program is one thread on the CPU: barriers are no-ops; assumptions are not used."""
    return []


@lowering("hint")
def lower_hint(em: Emitter, op: Op, args: list) -> list:
    return [args[0]]


@lowering("inline_asm")
def lower_inline_asm(em: Emitter, op: Op, args: list) -> list:
    raise CompilationError(
        "inline_asm_elementwise cannot run on the CPU target: its assembly is written for a GPU. "
        "Run this kernel on a CUDA device, or express the computation with tl operations for the "
        "CPU target and the interpreter.", op.loc, em.function.name)
