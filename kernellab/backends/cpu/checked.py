"""The CPU target's checked mode (``debug=True``, or ``KERNELLAB_DEBUG=1``): memory accesses are
checked as the interpreter checks them.

Every masked-in element that a load, a store or an atomic reaches through a pointer is checked
against the allocation of the kernel argument the pointer derives from (the interpreter's
provenance analysis, :func:`~..interpreter.pointers.access_sites`; a pointer of unknown origin
may lie in any pointer argument's allocation).  The launch writes each pointer argument's
``[base, base + extent)`` into a table the status block points at (:mod:`.status`, which also
words the error: this module is the lowering's, a launch imports no LLVM); an access
outside calls back into Python and leaves the program, the grid stops as for a failed
``device_assert``, and the launch raises :class:`~kernellab.errors.InterpreterError` naming the
argument, the element offset, the program id and the kernel's line.  Block pointers and tensor
descriptors check their own boundaries (``boundary_check``) and are not checked again.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ll

from ...ir.core import Op
from .emitter import Emitter
from .llvm_types import I1, I8, I32, I64, PTR, i32, i64

STATUS_BOUNDS_CALLBACK_OFFSET = 24
STATUS_BOUNDS_TABLE_OFFSET = 32
BOUNDS_CALLBACK = ll.FunctionType(ll.VoidType(), [PTR, I32, I32, I32, I32, I64])

Check = Callable[[Emitter, ll.Value], None]


def access_check(em: Emitter, op: Op, what: str, itemsize: int) -> Check | None:
    """In checked mode, a function that emits the check of one element's address (call it where
    the element is accessed, masked-in lanes only); None otherwise."""
    ml = em.ml
    if not ml.checked:
        return None
    site = ml.sites.get(op)
    argument = site.argument if site is not None else None
    index = ml.record_access({"what": what, "argument": argument, "itemsize": itemsize, "loc": str(op.loc),
                              "op": op.name})
    arguments = [argument] if argument is not None else list(ml.pointer_arguments)

    def check(em2: Emitter, address: ll.Value) -> None:
        b = em2.b
        start = b.ptrtoint(address, I64)
        end = b.add(start, i64(itemsize))
        table = b.load(b.gep(em2.status, [i64(STATUS_BOUNDS_TABLE_OFFSET)], source_etype=I8), typ=PTR)
        inside: ll.Value = ll.Constant(I1, 0)
        for k in arguments:
            low = b.load(b.gep(table, [i64(2 * k)], source_etype=I64), typ=I64)
            high = b.load(b.gep(table, [i64(2 * k + 1)], source_etype=I64), typ=I64)
            ok = b.and_(b.icmp_unsigned(">=", start, low), b.icmp_unsigned("<=", end, high))
            inside = b.or_(inside, ok)
        with b.if_then(b.not_(inside), likely=False):
            slot = b.gep(em2.status, [i64(STATUS_BOUNDS_CALLBACK_OFFSET)], source_etype=I8)
            callback = b.load(slot, typ=BOUNDS_CALLBACK.as_pointer())
            b.call(callback, [em2.status, i32(index), *em2.pids, start])
            b.branch(em2.exit_block)
    return check
