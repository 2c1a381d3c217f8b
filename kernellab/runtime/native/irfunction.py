"""A native function being built with llvmlite: the helpers the generated launch functions
(``launchgen``) and kernellab.torch's op calls (``kernellab/torch/nativecall.py``) share.

The function has CPython's ``METH_FASTCALL | METH_KEYWORDS`` signature
``PyObject *f(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)``;
its ``self`` is a ctypes array of 64-bit words (the data), read at ``self + 16``, and every
address or object it uses is a word named in ``layout`` (``layout[name]`` is its index).  A
failed check branches to the ``fallback`` block, which clears any error and calls the word
``fallback`` with the very same arguments.
"""

from __future__ import annotations

from typing import Any

from .capi import CDATA_POINTER, OB_TYPE, TUPLE_ITEMS, TUPLE_SIZE


class NativeFunction:
    """The IR builder of one function and the helpers over its data words.

    With ``data_symbol`` the function is a type's ``tp_call`` instead,
    ``PyObject *f(PyObject *self, PyObject *args, PyObject *kwargs)`` (``args`` a tuple), whose
    data is the undefined symbol ``data_symbol`` (the loader gives its address); ``items`` and
    ``count`` are then the tuple's items and size, and the fallback is ``PyObject_Call(fallback,
    args, kwargs)``.  ``items``/``count`` of a METH_FASTCALL function are its ``args``/``nargs``."""

    def __init__(self, module_name: str, symbol: str, layout: Any, data_symbol: str | None = None):
        import llvmlite.binding as llvm
        import llvmlite.ir as ir

        self.ir = ir
        self.layout = layout
        self.i1, self.i32, self.i64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
        self.i8, self.f32, self.f64 = ir.IntType(8), ir.FloatType(), ir.DoubleType()
        self.ptr = ir.PointerType()
        self.module = ir.Module(name=module_name)
        self.module.triple = llvm.get_process_triple()
        self.tp_call = data_symbol is not None
        params = [self.ptr, self.ptr, self.ptr] if self.tp_call else [self.ptr, self.ptr, self.i64, self.ptr]
        self.fn = ir.Function(self.module, ir.FunctionType(self.ptr, params), name=symbol)
        entry = self.fn.append_basic_block("entry")
        self.b = ir.IRBuilder(entry)
        self.allocas = ir.IRBuilder(entry)  # stack slots go first in the entry block
        self.fallback = self.fn.append_basic_block("fallback")
        if self.tp_call:
            self.self_, self.args, self.kwargs = self.fn.args
            data = ir.GlobalVariable(self.module, ir.ArrayType(self.i64, layout.size), data_symbol)
            data.linkage = "external"
            self.words = self.opaque(data)
            self.items, self.count = self._at(self.args, TUPLE_ITEMS), self.load_at(self.args, TUPLE_SIZE, self.i64)
        else:
            self.self_, self.args, self.nargsf, self.kwnames = self.fn.args
            self.words = self.b.load(self._at(self.self_, CDATA_POINTER), typ=self.ptr)
            self.items, self.count = self.args, self.b.and_(self.nargsf, self.const((1 << 63) - 1))

    def const(self, value: int, ty: Any = None) -> Any:
        return self.ir.Constant(ty or self.i64, value)

    def _at(self, base: Any, offset: int) -> Any:
        """``base + offset`` bytes, as an untyped pointer."""
        return self.opaque(self.b.gep(base, [self.const(offset)], source_etype=self.i8))

    def opaque(self, pointer: Any) -> Any:
        return pointer if pointer.type == self.ptr else self.b.bitcast(pointer, self.ptr)

    def store(self, value: Any, pointer: Any) -> None:
        """Store ``value`` at an untyped ``pointer`` (llvmlite checks the pointee type)."""
        self.b.store(value, self.b.bitcast(pointer, value.type.as_pointer()))

    def load_at(self, base: Any, offset: int, ty: Any = None) -> Any:
        return self.b.load(self._at(base, offset), typ=ty or self.ptr)

    def word(self, name: str, ty: Any = None) -> Any:
        return self.load_at(self.words, 8 * self.layout[name], ty or self.i64)

    def pointer_word(self, name: str) -> Any:
        return self.word(name, self.ptr)

    def fail_if(self, condition: Any) -> None:
        passed = self.fn.append_basic_block()
        self.b.cbranch(condition, self.fallback, passed)
        self.b.position_at_end(passed)

    def call(self, name: str, result: Any, params: list[Any], args: list[Any]) -> Any:
        fnty = self.ir.FunctionType(result, params)
        return self.b.call(self.b.load(self._at(self.words, 8 * self.layout[name]), typ=fnty.as_pointer()), args)

    def type_of(self, obj: Any) -> Any:
        return self.load_at(obj, OB_TYPE)

    def fail_unless_type(self, obj: Any, word: str) -> None:
        self.fail_if(self.b.icmp_unsigned("!=", self.type_of(obj), self.pointer_word(word)))

    def as_long(self, obj: Any) -> Any:
        """The value of an exact int (fails on overflow)."""
        overflow = self.alloca(self.i32)
        value = self.call("PyLong_AsLongLongAndOverflow", self.i64, [self.ptr, self.ptr], [obj, overflow])
        self.fail_if(self.b.icmp_signed("!=", self.b.load(overflow, typ=self.i32), self.const(0, self.i32)))
        return value

    def as_unsigned(self, obj: Any, owned: bool = True) -> Any:
        """The value of an int as u64 (releasing ``obj`` when ``owned``); fails when the
        conversion raised."""
        value = self.call("PyLong_AsUnsignedLongLong", self.i64, [self.ptr], [obj])
        if owned:
            self.decref(obj)
        error = self.b.icmp_unsigned("!=", self.call("PyErr_Occurred", self.ptr, [], []), self.null())
        self.fail_if(self.b.and_(self.b.icmp_signed("==", value, self.const(-1)), error))
        return value

    def alloca(self, ty: Any, size: int = 1) -> Any:
        self.allocas.position_at_start(self.fn.entry_basic_block)
        return self.allocas.alloca(ty, size=size)

    def null(self) -> Any:
        return self.ir.Constant(self.ptr, None)

    def decref(self, obj: Any) -> None:
        self.call("Py_DecRef", self.ir.VoidType(), [self.ptr], [obj])

    def get_attr(self, obj: Any, word: str) -> Any:
        """A new reference to ``obj.<name in word>``; fails when the lookup fails."""
        found = self.call("PyObject_GetAttr", self.ptr, [self.ptr, self.ptr], [obj, self.pointer_word(word)])
        self.fail_if(self.b.icmp_unsigned("==", found, self.null()))
        return found

    def call_method(self, obj: Any, word: str) -> Any:
        """A new reference to ``obj.<name in word>()``; fails when the call raises."""
        stack = self.alloca(self.ptr)
        self.b.store(obj, stack)
        found = self.call("PyObject_VectorcallMethod", self.ptr, [self.ptr, self.ptr, self.i64, self.ptr],
                          [self.pointer_word(word), stack, self.const(1), self.null()])
        self.fail_if(self.b.icmp_unsigned("==", found, self.null()))
        return found

    def choose(self, condition: Any, then: Any, otherwise: Any, ty: Any = None) -> Any:
        """``then()`` or ``otherwise()`` (each building code that returns a value of ``ty``, a
        pointer by default), as one value."""
        b = self.b
        first, second, done = (self.fn.append_basic_block() for _ in range(3))
        b.cbranch(condition, first, second)
        b.position_at_end(first)
        a = then()
        first_end = b.block
        b.branch(done)
        b.position_at_end(second)
        c = otherwise()
        second_end = b.block
        b.branch(done)
        b.position_at_end(done)
        value = b.phi(self.ptr if ty is None else ty)
        value.add_incoming(a, first_end)
        value.add_incoming(c, second_end)
        return value

    def getter(self, obj: Any, function: str, closure: str) -> Any:
        """A new reference from a getset descriptor's C getter ``get(obj, closure)``; fails on NULL."""
        found = self.call(function, self.ptr, [self.ptr, self.ptr], [obj, self.pointer_word(closure)])
        self.fail_if(self.b.icmp_unsigned("==", found, self.null()))
        return found

    def no_args(self, obj: Any, function: str) -> Any:
        """A new reference from a METH_NOARGS method's C function ``f(obj, NULL)``; fails on NULL."""
        found = self.call(function, self.ptr, [self.ptr, self.ptr], [obj, self.null()])
        self.fail_if(self.b.icmp_unsigned("==", found, self.null()))
        return found

    def slot_of(self, obj: Any, word: str) -> Any:
        """The object in ``obj``'s ``__slots__`` member at the offset in ``word`` (borrowed);
        fails when the slot is empty."""
        found = self.b.load(self.b.gep(obj, [self.word(word)], source_etype=self.i8), typ=self.ptr)
        self.fail_if(self.b.icmp_unsigned("==", found, self.null()))
        return found

    def finish_fallback(self) -> None:
        """The fallback block: the same arguments to the word ``fallback`` (``PyObject_Call`` for a
        ``tp_call``, which needs that word too), any error cleared."""
        b = self.b
        b.position_at_end(self.fallback)
        self.call("PyErr_Clear", self.ir.VoidType(), [], [])
        if self.tp_call:
            found = self.call("PyObject_Call", self.ptr, [self.ptr, self.ptr, self.ptr],
                              [self.pointer_word("fallback"), self.args, self.kwargs])
        else:
            found = self.call("PyObject_Vectorcall", self.ptr, [self.ptr, self.ptr, self.i64, self.ptr],
                              [self.pointer_word("fallback"), self.args, self.nargsf, self.kwnames])
        b.ret(found)


__all__ = ["NativeFunction"]
