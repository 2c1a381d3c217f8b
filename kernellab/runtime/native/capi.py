"""CPython's C API as generated native code sees it.

A generated launch function is a builtin function object (``PyCFunction_NewEx`` with a
``PyMethodDef`` built here) using the ``METH_FASTCALL | METH_KEYWORDS`` calling convention:
``PyObject *f(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)``.
Its ``self`` is a ctypes array of 64-bit words, the function's data: the code finds the words at
``self + 16`` (``CDataObject.b_ptr``, right after the object header), and every address it
needs (C API functions, type objects, constants) is one of those words, so the machine code
itself refers to nothing outside it and is the same in every process.

The layouts relied on (object header of 16 bytes, ``ob_type`` at 8, tuples' ``ob_size`` at 16
and items from 24, floats' value at 16, ctypes' buffer pointer at 16) are those of CPython 3.x
release builds on 64-bit machines; :func:`supported` checks them at run time and turns the
native path off anywhere else (PyPy, debug or free-threaded builds).
"""

from __future__ import annotations

import ctypes
import functools
import struct
import sys
from typing import Any

from ...backends.cpu import objload

METH_FASTCALL = 0x0080
METH_KEYWORDS = 0x0002
VECTORCALL_ARGUMENTS_OFFSET = 1 << 63

# Offsets inside objects (CPython 3.x, 64-bit release builds; checked by ``supported``).
OB_TYPE = 8
TUPLE_SIZE = 16
TUPLE_ITEMS = 24
FLOAT_VALUE = 16
CDATA_POINTER = 16

# Descriptors: PyDescr_COMMON (object header, d_type, d_name, d_qualname), then what the
# descriptor describes (PyMemberDef*, PyGetSetDef*, PyMethodDef*), whose fields are read below.
DESCRIPTOR_TARGET = 40
MEMBER_OFFSET = 16                  # PyMemberDef: name, type (int, padded), offset
GETSET_GET, GETSET_CLOSURE = 8, 32  # PyGetSetDef: name, get, set, doc, closure
METHOD_FUNCTION, METHOD_FLAGS = 8, 16  # PyMethodDef: name, meth, flags
METH_NOARGS = 0x0004
METH_VARARGS_KEYWORDS = 0x0003

API_FUNCTIONS = ("PyObject_Vectorcall", "PyObject_VectorcallMethod", "PyObject_GetAttr", "Py_IncRef", "Py_DecRef",
                 "PyErr_Clear", "PyErr_Occurred", "PyLong_AsLongLongAndOverflow", "PyLong_AsUnsignedLongLong",
                 "PyDict_GetItem")


class PyMethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p), ("ml_flags", ctypes.c_int),
                ("ml_doc", ctypes.c_char_p)]


def address_of(function: Any) -> int:
    """The address of a ctypes function (a C API entry point, a libc function)."""
    return ctypes.cast(function, ctypes.c_void_p).value


@functools.cache
def api(name: str) -> int:
    """The address of the C API function ``name``."""
    return address_of(getattr(ctypes.pythonapi, name))


def _layouts_hold() -> bool:
    words = (ctypes.c_uint64 * 2)()
    floating = 1.25
    pair = (words, floating)
    read = ctypes.c_uint64.from_address
    return (object.__basicsize__ == 16 and read(id(words) + CDATA_POINTER).value == ctypes.addressof(words)
            and read(id(pair) + OB_TYPE).value == id(tuple) and read(id(pair) + TUPLE_SIZE).value == 2
            and read(id(pair) + TUPLE_ITEMS + 8).value == id(floating)
            and ctypes.c_double.from_address(id(floating) + FLOAT_VALUE).value == floating)


@functools.cache
def supported() -> bool:
    """Whether generated functions can run in this interpreter."""
    return (sys.implementation.name == "cpython" and struct.calcsize("P") == 8 and objload.supported_here()
            and not hasattr(sys, "gettotalrefcount")  # a debug build (free-threaded ones fail the layouts)
            and all(hasattr(ctypes.pythonapi, name) for name in API_FUNCTIONS + ("PyCFunction_NewEx",))
            and _layouts_hold())


_new_function = None


def make_function(code: int, data: ctypes.Array, name: str) -> Any:
    """A builtin function running the native code at ``code`` with ``data`` as its ``self``.
    The method definition is kept alive by ``data`` (in its ``_keep`` list), which the function
    object references."""
    global _new_function
    if _new_function is None:
        new = ctypes.pythonapi.PyCFunction_NewEx
        new.restype = ctypes.py_object
        new.argtypes = (ctypes.c_void_p, ctypes.py_object, ctypes.py_object)
        _new_function = new
    definition = PyMethodDef(name.encode(), code, METH_FASTCALL | METH_KEYWORDS, None)
    data._keep.append(definition)
    return _new_function(ctypes.addressof(definition), data, None)


def class_attribute(cls: type, name: str) -> Any:
    """``name`` as found in ``cls``'s MRO (the descriptor itself, not what it gives)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _target(descriptor: Any, kind: str) -> int | None:
    if type(descriptor).__name__ != kind:
        return None
    return ctypes.c_void_p.from_address(id(descriptor) + DESCRIPTOR_TARGET).value


def member_offset(cls: type, name: str) -> int | None:
    """Where instances of ``cls`` keep their ``__slots__`` member ``name``, or None."""
    member = _target(cls.__dict__.get(name), "member_descriptor")
    return ctypes.c_ssize_t.from_address(member + MEMBER_OFFSET).value if member else None


# PYFUNCTYPE: called with the GIL held, as C API code must be (a CFUNCTYPE call releases it, and
# torch's getters crashed without it, reading a NULL thread state).
_GETTER = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.c_void_p)


def getter(cls: type, name: str, probe: Any) -> tuple[int, int] | None:
    """(C getter, closure) of the getset descriptor ``cls.<name>``, when calling it on ``probe``
    gives what ``probe.<name>`` gives; else None."""
    getset = _target(class_attribute(cls, name), "getset_descriptor")
    if not getset:
        return None
    function = ctypes.c_void_p.from_address(getset + GETSET_GET).value
    closure = ctypes.c_void_p.from_address(getset + GETSET_CLOSURE).value or 0
    if not function or _GETTER(function)(probe, closure) != getattr(probe, name):
        return None
    return function, closure


def no_args_method(cls: type, name: str, probe: Any) -> int | None:
    """The C function of the METH_NOARGS method ``cls.<name>``, when calling it on ``probe``
    gives what ``probe.<name>()`` gives; else None."""
    definition = _target(class_attribute(cls, name), "method_descriptor")
    if not definition or ctypes.c_int.from_address(definition + METHOD_FLAGS).value != METH_NOARGS:
        return None
    function = ctypes.c_void_p.from_address(definition + METHOD_FUNCTION).value
    if not function or _GETTER(function)(probe, None) != getattr(probe, name)():
        return None
    return function


_VARARGS = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.py_object, ctypes.c_void_p)


def varargs_method(cls: type, name: str, probe: Any) -> int | None:
    """The C function ``f(self, args, kwargs)`` of the METH_VARARGS | METH_KEYWORDS method
    ``cls.<name>``, when calling it on ``probe`` with no arguments (an empty tuple, NULL) gives
    what ``probe.<name>()`` gives; else None."""
    definition = _target(class_attribute(cls, name), "method_descriptor")
    if not definition or ctypes.c_int.from_address(definition + METHOD_FLAGS).value != METH_VARARGS_KEYWORDS:
        return None
    function = ctypes.c_void_p.from_address(definition + METHOD_FUNCTION).value
    if not function or _VARARGS(function)(probe, (), None) != getattr(probe, name)():
        return None
    return function


_definitions: list = []  # method definitions of the descriptors made (they must outlive them)


def make_method(cls: type, code: int, name: str, doc: str) -> Any:
    """A method descriptor of ``cls`` running the METH_FASTCALL native code at ``code``
    (``PyDescr_NewMethod``): set as a class attribute, it binds like a method defined in C."""
    new = ctypes.pythonapi.PyDescr_NewMethod
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.py_object, ctypes.c_void_p)
    definition = PyMethodDef(name.encode(), code, METH_FASTCALL, doc.encode())
    _definitions.append(definition)
    return new(cls, ctypes.addressof(definition))


__all__ = ["supported", "make_method", "class_attribute", "member_offset", "getter", "no_args_method",
           "varargs_method", "api",
           "address_of", "make_function", "PyMethodDef", "METH_FASTCALL", "METH_KEYWORDS",
           "VECTORCALL_ARGUMENTS_OFFSET", "OB_TYPE", "TUPLE_SIZE", "TUPLE_ITEMS", "FLOAT_VALUE",
           "CDATA_POINTER", "API_FUNCTIONS"]
