"""``kernel[grid]`` natively while kernellab.torch's intercept is set: the type slot
``mp_subscript`` of ``JITFunction``.

Without torch, ``JITFunction.__getitem__`` becomes a C method (``fastpath.install_getitem``).
With ``kernellab.torch`` imported it must stay a Python function, which TorchDynamo traces
(``inspect.getattr_static`` on the class) and whose intercept routes launches while torch traces;
in eager code, that function and the intercept (four Python frames with ``is_compiling()``) were
a quarter of a bare launch (bench/NOTES.md, "kernel[grid] with torch imported").  Here the
class attribute stays the Python function and the slot the interpreter calls for a subscript is
generated code that asks what the intercept would ask -- ``mapping[key] is expected`` for each
entry, each list empty (``torch.compiler``'s compiling flag, kernellab.torch's stacks of ops
whose writes are watched and of fake runs) -- and then binds the grid to the kernel's launch head
(``PyMethod_New``), or calls the Python ``__getitem__`` with the same arguments.

``JITFunction.__getitem__`` takes ``*_`` so that CPython's specializer, which calls a plain
two-parameter ``__getitem__`` directly, leaves subscripts to the slot.  CPython resets the slot
whenever ``__getitem__`` is assigned on the class (``fastpath`` does so when the intercept
changes), and :func:`install` checks that the slot is CPython's own before it writes it.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from typing import Any

from . import capi

SYMBOL = "kernellab_subscript"
DATA = "kernellab_subscript_data"  # an undefined symbol: the loader gives the data's address
FORMAT = 1  # bump when the generated code changes meaning
AS_MAPPING = 112  # PyTypeObject.tp_as_mapping (CPython 3.x, 64-bit; checked by _python_slot)
MP_SUBSCRIPT = 8  # PyMappingMethods.mp_subscript
LIST_SIZE = 16  # PyVarObject.ob_size
_FIXED = ("PyObject_GetAttr", "PyObject_Vectorcall", "Py_DecRef", "PyMethod_New", "PyDict_GetItem", "s_head", "none",
          "slow")


def _words(entries: int, lists: int) -> tuple[str, ...]:
    return (*_FIXED, *(f"{w}{i}" for i in range(entries) for w in ("mapping", "key", "expected")),
            *(f"list{j}" for j in range(lists)))


def generate(entries: int, lists: int) -> str:
    """The LLVM IR of ``mp_subscript(self, grid)`` checking ``entries`` mapping items and
    ``lists`` lists."""
    import llvmlite.binding as llvm
    import llvmlite.ir as ir

    names = _words(entries, lists)
    ptr, i64 = ir.PointerType(), ir.IntType(64)
    module = ir.Module(name=SYMBOL)
    module.triple = llvm.get_process_triple()
    data = ir.GlobalVariable(module, ir.ArrayType(i64, len(names)), DATA)
    data.linkage = "external"
    fn = ir.Function(module, ir.FunctionType(ptr, [ptr, ptr]), SYMBOL)
    this, grid = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    slow = fn.append_basic_block("slow")

    def word(name: str, ty: Any = ptr) -> Any:
        at = b.gep(data, [ir.Constant(i64, 0), ir.Constant(i64, names.index(name))])
        return b.load(b.bitcast(at, ty.as_pointer()), typ=ty)

    def slow_if(condition: Any) -> None:
        passed = fn.append_basic_block()
        b.cbranch(condition, slow, passed)
        b.position_at_end(passed)

    for i in range(entries):
        found = b.call(word("PyDict_GetItem", ir.FunctionType(ptr, [ptr, ptr]).as_pointer()),
                       [word(f"mapping{i}"), word(f"key{i}")])
        slow_if(b.icmp_unsigned("!=", found, word(f"expected{i}")))
    for j in range(lists):
        size = b.load(b.gep(word(f"list{j}"), [ir.Constant(i64, LIST_SIZE)], source_etype=ir.IntType(8)), typ=i64)
        slow_if(b.icmp_signed("!=", size, ir.Constant(i64, 0)))
    head = b.call(word("PyObject_GetAttr", ir.FunctionType(ptr, [ptr, ptr]).as_pointer()), [this, word("s_head")])
    slow_if(b.icmp_unsigned("==", head, ir.Constant(ptr, None)))  # the Python path raises it again
    b.call(word("Py_DecRef", ir.FunctionType(ir.VoidType(), [ptr]).as_pointer()), [head])  # self keeps it
    none = word("none")
    slow_if(b.or_(b.icmp_unsigned("==", head, none), b.icmp_unsigned("==", grid, none)))
    b.ret(b.call(word("PyMethod_New", ir.FunctionType(ptr, [ptr, ptr]).as_pointer()), [head, grid]))
    b.position_at_end(slow)
    stack = b.alloca(ptr, size=2)
    b.store(this, stack)
    b.store(grid, b.gep(stack, [ir.Constant(i64, 1)], source_etype=ptr))
    vectorcall = ir.FunctionType(ptr, [ptr, ptr, i64, ptr])
    b.ret(b.call(word("PyObject_Vectorcall", vectorcall.as_pointer()),
                 [word("slow"), stack, ir.Constant(i64, 2), ir.Constant(ptr, None)]))
    return str(module)


def _mapping_slot(cls: type) -> ctypes.c_void_p | None:
    methods = ctypes.c_void_p.from_address(id(cls) + AS_MAPPING).value
    return ctypes.c_void_p.from_address(methods + MP_SUBSCRIPT) if methods else None


@functools.cache
def _python_slot() -> int | None:
    """CPython's ``mp_subscript`` of a class defining ``__getitem__`` in Python, where
    :data:`AS_MAPPING` says it is: the same in two such classes, absent from a class without."""
    made = [type("_GetItemProbe", (), {"__getitem__": lambda self, key, k=k: (k, key)}) for k in range(2)]
    slots = [_mapping_slot(cls) for cls in made]
    if None in slots or slots[0].value is None or slots[0].value != slots[1].value or made[1]()[5] != (1, 5):
        return None
    plain = _mapping_slot(type("_NoGetItem", (), {}))
    return slots[0].value if plain is None or plain.value is None else None


class _Code:
    """The loaded code of one (entries, lists) shape and its data words (rewritten per install)."""

    def __init__(self, entries: int, lists: int):
        from ...backends.cpu import objload
        from . import fastpath, launchgen

        self.names = _words(entries, lists)
        self.words = (ctypes.c_uint64 * len(self.names))()
        self.keep: list = []
        obj = fastpath._object_for({"native_subscript": {"format": FORMAT, "entries": entries, "lists": lists}},
                                   lambda: launchgen.compile_ir(generate(entries, lists)))
        self.loaded = objload.load_object(obj, lambda name: ctypes.addressof(self.words) if name == DATA else None)
        self.address = self.loaded.address(SYMBOL)

    def fill(self, slow: Any, entries: Sequence[tuple[dict, str, Any]], lists: Sequence[list]) -> None:
        objects: dict[str, Any] = {"s_head": _HEAD, "none": None, "slow": slow}
        for i, (mapping, key, expected) in enumerate(entries):
            objects.update({f"mapping{i}": mapping, f"key{i}": key, f"expected{i}": expected})
        objects.update({f"list{j}": found for j, found in enumerate(lists)})
        self.keep = list(objects.values())
        for k, name in enumerate(self.names):
            self.words[k] = capi.api(name) if name in _FIXED[:5] else id(objects[name])


_HEAD = "_head"
_codes: dict[tuple[int, int], _Code] = {}


def install(cls: type, entries: Sequence[tuple[dict, str, Any]], lists: Sequence[list]) -> bool:
    """Make ``cls``'s subscript slot the native one (``cls.__getitem__``, a Python function, is
    called for everything it does not bind); False where it cannot be (the slot is not
    CPython's, another interpreter, no object loader here)."""
    from ...backends.cpu import objload

    slow = cls.__dict__.get("__getitem__")
    slot = _mapping_slot(cls)
    if slot is None or type(slow).__name__ != "function" or _python_slot() is None:
        return False
    shape = (len(entries), len(lists))
    code = _codes.get(shape)
    if slot.value not in (_python_slot(), code.address if code else None):
        return False
    try:
        code = _codes[shape] = code or _Code(*shape)
    except objload.UnsupportedObject:
        return False
    code.fill(slow, entries, lists)
    slot.value = code.address
    return True


def uninstall(cls: type) -> None:
    """CPython's own slot again, where :func:`install` had replaced it."""
    slot = _mapping_slot(cls)
    if slot is not None and slot.value in {code.address for code in _codes.values()}:
        slot.value = _python_slot()


def installed(cls: type) -> bool:
    slot = _mapping_slot(cls)
    return slot is not None and slot.value in {code.address for code in _codes.values()}


__all__ = ["install", "uninstall", "installed", "generate"]
