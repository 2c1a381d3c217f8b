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

from . import objload

METH_FASTCALL = 0x0080
METH_KEYWORDS = 0x0002
VECTORCALL_ARGUMENTS_OFFSET = 1 << 63

# Offsets inside objects (CPython 3.x, 64-bit release builds; checked by ``supported``).
OB_TYPE = 8
TUPLE_SIZE = 16
TUPLE_ITEMS = 24
FLOAT_VALUE = 16
CDATA_POINTER = 16

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


__all__ = ["supported", "make_method", "api", "address_of", "make_function", "PyMethodDef", "METH_FASTCALL",
           "METH_KEYWORDS", "VECTORCALL_ARGUMENTS_OFFSET", "OB_TYPE", "TUPLE_SIZE", "TUPLE_ITEMS", "FLOAT_VALUE", "CDATA_POINTER",
           "API_FUNCTIONS"]
