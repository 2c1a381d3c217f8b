"""The eager fast path of a kernellab op as native code: the type's ``tp_call``, so that
``op(x, y)`` runs generated machine code that makes the checks of ``fastcall.py``'s generated
``__call__`` (no torch mode, transform, autocast or profiler; every tensor a plain
``torch.Tensor`` needing no gradient, contiguous where the op asks, of an allowed dtype, all on
one device kernels launch on) and then calls the op's function (bench/NOTES.md, "kernellab.torch
eager op: native checks").

Every call it cannot take -- another argument count, keywords, any check failing, any error on
the way -- goes to the op's Python ``__call__`` with the very same arguments, which decides again
(``is_compiling()`` first) and raises the error naming the argument.  The Python ``__call__``
stays the class attribute: TorchDynamo traces it (it reads ``type(op).__call__``, never the
slot), and the interpreter calls the slot.  Installed after the op's first eager call (its
writes are checked then) on the op's own class (``ops.op`` makes one per op); CPython resets the
slot if ``__call__`` is ever assigned on the class.  Not asking ``is_compiling()`` is sound: the
slot runs only where Python runs the call for real, and where torch traces that way (export's
non-strict mode, make_fx) a mode is active, which sends the call to the Python path.

As for the launch functions (``runtime/native``), the machine code depends only on the op's
*shape* (how many positional parameters, which are tensors, how many dtypes each allows), and
everything else is a word of its data (loaded once per op, the data's address resolved by the
loader): torch's questions are asked by calling the functions Python calls
(``torch._C._len_torch_dispatch_stack`` ...) through ``PyObject_Vectorcall``; the tensors' attributes
through the C getters and methods behind them (``requires_grad``, ``is_cpu``, ``is_cuda``,
``dtype``, ``is_contiguous()``, ``get_device()``), each checked on a probe tensor first.
"""

from __future__ import annotations

import ctypes
import functools
import types
from collections.abc import Callable
from typing import Any

import torch
import torch.autograd.profiler as _profiler

from ..backends.record import Record
from ..runtime.native import capi, fastpath
from ..runtime.native.irfunction import NativeFunction
from .calls import GPU_DEVICE_TYPES, LAUNCH_DEVICE_TYPES
from .checks import DISPATCH_QUESTIONS, OpInputs

SYMBOL = "kernellab_op_call"
DATA_SYMBOL = "kernellab_op_call_data"  # an undefined symbol: the loader gives the op's data
FORMAT = 1  # bump when the generated code changes meaning
TP_CALL = 128  # PyTypeObject.tp_call (CPython 3.x, 64-bit; checked by ``_python_call_slot``)

QUESTIONS = DISPATCH_QUESTIONS  # torch's questions: the function asked, the answer of a plain call
_GETTERS = ("requires_grad", "is_cpu", "is_cuda", "dtype")
_FIXED = ("fallback", "fn", *capi.API_FUNCTIONS, "PyObject_Call", "tensor_type", "long_type", "true", "false",
          "empty_tuple", "profiler_dict", "profiler_key", *(w for q, _, _ in QUESTIONS for w in (q, f"{q}_ok")),
          *(f"{name}_{part}" for name in _GETTERS for part in ("get", "closure")), "is_contiguous", "get_device",
          "allow_cpu", "allow_cuda")
_CPU = -1  # the device word of a CPU tensor (CUDA ones: their index)


class NotNative(Exception):
    """This op's calls stay in Python (the reason is the message)."""


class OpShape(Record):
    """``nargs`` the op's positional parameters; ``tensors`` ``(position, dtypes allowed or 0 for
    any)`` of each tensor parameter."""

    __slots__ = ("nargs", "tensors")
    nargs: int
    tensors: tuple[tuple[int, int], ...]

    def describe(self) -> dict[str, Any]:
        return {"format": FORMAT, "nargs": self.nargs, "tensors": [list(t) for t in self.tensors]}


class OpLayout:
    """Word indices of an op shape's data."""

    def __init__(self, shape: OpShape):
        names = list(_FIXED)
        for k, (_, ndtypes) in enumerate(shape.tensors):
            names += [f"contiguous{k}"] + [f"dtype{k}_{j}" for j in range(ndtypes)]
        self.index = {name: i for i, name in enumerate(names)}
        self.size = len(names)

    def __getitem__(self, name: str) -> int:
        return self.index[name]


def shape_of(inputs: OpInputs) -> OpShape:
    return OpShape(inputs.positional, tuple((t.index, len(t.dtypes or ())) for t in inputs.tensors))


# ---------------------------------------------------------------------------------------------
# The code
# ---------------------------------------------------------------------------------------------

class _Generator(NativeFunction):
    """``tp_call(op, args, kwargs)`` of an op of ``shape``."""

    def __init__(self, shape: OpShape):
        self.shape = shape
        super().__init__("kernellab_op_call", SYMBOL, OpLayout(shape), DATA_SYMBOL)
        self._build()

    def _build(self) -> None:
        b = self.b
        self.fail_if(b.icmp_signed("!=", self.count, self.const(self.shape.nargs)))
        self.fail_if(b.icmp_unsigned("!=", self.kwargs, self.null()))
        for name, _, _ in QUESTIONS:
            self._answer(name)
        flag = self.call("PyDict_GetItem", self.ptr, [self.ptr, self.ptr],
                         [self.pointer_word("profiler_dict"), self.pointer_word("profiler_key")])
        self.fail_if(b.icmp_unsigned("!=", flag, self.pointer_word("false")))
        first = None
        for k, (position, ndtypes) in enumerate(self.shape.tensors):
            device = self._tensor(k, self.load_at(self.items, 8 * position), ndtypes)
            if first is None:
                first = device
            else:
                self.fail_if(b.icmp_signed("!=", device, first))
        result = self.call("PyObject_Vectorcall", self.ptr, [self.ptr, self.ptr, self.i64, self.ptr],
                           [self.pointer_word("fn"), self.items, self.const(self.shape.nargs), self.null()])
        b.ret(result)  # the function's own exception, if any, propagates
        self.finish_fallback()

    def _answer(self, name: str) -> None:
        """``name()`` is the object that lets the call through (an error or another answer fails)."""
        found = self.call("PyObject_Vectorcall", self.ptr, [self.ptr, self.ptr, self.i64, self.ptr],
                          [self.pointer_word(name), self.null(), self.const(0), self.null()])
        self.fail_if(self.b.icmp_unsigned("==", found, self.null()))
        self.decref(found)  # only the identity is compared: 0, False (immortal, cached)
        self.fail_if(self.b.icmp_unsigned("!=", found, self.pointer_word(f"{name}_ok")))

    def _flag(self, obj: Any, name: str) -> Any:
        """``obj.<name>`` (a bool getter) is True (i1); fails unless it is True or False."""
        found = self.getter(obj, f"{name}_get", f"{name}_closure")
        self.decref(found)
        is_true = self.b.icmp_unsigned("==", found, self.pointer_word("true"))
        self.fail_if(self.b.and_(self.b.not_(is_true), self.b.icmp_unsigned("!=", found, self.pointer_word("false"))))
        return is_true

    def _tensor(self, k: int, obj: Any, ndtypes: int) -> Any:
        """The checks of the ``k``-th tensor parameter; its device word (-1 CPU, else the CUDA index)."""
        b = self.b
        self.fail_unless_type(obj, "tensor_type")
        self.fail_if(self._flag(obj, "requires_grad"))
        wants = b.icmp_signed("!=", self.word(f"contiguous{k}"), self.const(0))
        with b.if_then(wants):
            found = self.call("is_contiguous", self.ptr, [self.ptr, self.ptr, self.ptr],
                              [obj, self.pointer_word("empty_tuple"), self.null()])
            self.fail_if(b.icmp_unsigned("==", found, self.null()))
            self.decref(found)
            self.fail_if(b.icmp_unsigned("!=", found, self.pointer_word("true")))
        if ndtypes:
            dtype = self.getter(obj, "dtype_get", "dtype_closure")
            self.decref(dtype)  # torch's dtypes live forever; only the identity is compared
            allowed = [b.icmp_unsigned("==", dtype, self.pointer_word(f"dtype{k}_{j}")) for j in range(ndtypes)]
            any_allowed = allowed[0]
            for other in allowed[1:]:
                any_allowed = b.or_(any_allowed, other)
            self.fail_if(b.not_(any_allowed))
        cpu = self._flag(obj, "is_cpu")
        return self.choose(cpu, lambda: self._cpu_device(), lambda: self._cuda_device(obj), ty=self.i64)

    def _cpu_device(self) -> Any:
        self.fail_if(self.b.icmp_signed("==", self.word("allow_cpu"), self.const(0)))
        return self.const(_CPU)

    def _cuda_device(self, obj: Any) -> Any:
        self.fail_if(self.b.not_(self._flag(obj, "is_cuda")))  # meta and the rest: through torch
        self.fail_if(self.b.icmp_signed("==", self.word("allow_cuda"), self.const(0)))
        index = self.no_args(obj, "get_device")
        self.fail_unless_type(index, "long_type")
        value = self.as_long(index)
        self.decref(index)
        self.fail_if(self.b.icmp_signed("<", value, self.const(0)))
        return value


def generate(shape: OpShape) -> str:
    """The LLVM IR text of ``shape``'s op call function."""
    return str(_Generator(shape).module)


def _compile(shape: OpShape) -> bytes:
    from ..runtime.native.launchgen import compile_ir

    return compile_ir(generate(shape))


@functools.cache
def _object(shape: OpShape) -> bytes:
    """``shape``'s object code (from the disk cache, else compiled and stored), once per process."""
    return fastpath._object_for({"native_op_call": shape.describe()}, lambda: _compile(shape))


# ---------------------------------------------------------------------------------------------
# The data
# ---------------------------------------------------------------------------------------------

def _torch_functions(probe: torch.Tensor) -> dict[str, int]:
    """torch's C getters and methods the code calls, each checked on ``probe``."""
    cls = torch.Tensor
    found: dict[str, int] = {}
    for name in _GETTERS:
        getter = capi.getter(cls, name, probe)
        if getter is None:
            raise NotNative(f"torch.Tensor.{name} is not the C getter expected")
        found[f"{name}_get"], found[f"{name}_closure"] = getter
    contiguous = capi.varargs_method(cls, "is_contiguous", probe)
    device = capi.no_args_method(cls, "get_device", probe)
    if contiguous is None or device is None:
        raise NotNative("torch.Tensor.is_contiguous or get_device is not the C method expected")
    return {**found, "is_contiguous": contiguous, "get_device": device}


def fill(inputs: OpInputs, fn: Callable, fallback: Callable) -> fastpath.Data:
    """The data of the op whose inputs are ``inputs``: ``fn`` is called when every check passes,
    ``fallback`` (with ``head``'s own arguments) otherwise."""
    data = fastpath.Data(OpLayout(shape_of(inputs)))
    for name, value in (("fallback", fallback), ("fn", fn), ("tensor_type", torch.Tensor), ("long_type", int),
                        ("true", True), ("false", False), ("empty_tuple", ()),
                        ("profiler_dict", vars(_profiler)), ("profiler_key", "_is_profiler_enabled")):
        data.set_object(name, value)
    for name in (*capi.API_FUNCTIONS, "PyObject_Call"):
        data.set_int(name, capi.api(name))
    for name, function, ok in QUESTIONS:
        data.set_object(name, function)
        data.set_object(f"{name}_ok", ok)
    for name, address in _torch_functions(_PROBE).items():
        data.set_int(name, address)
    device_types = {t.device_types for t in inputs.tensors}.pop() if inputs.tensors else None
    allowed = LAUNCH_DEVICE_TYPES if device_types is None else set(device_types)
    data.set_int("allow_cpu", int(bool(allowed & (LAUNCH_DEVICE_TYPES - GPU_DEVICE_TYPES))))
    data.set_int("allow_cuda", int(bool(allowed & GPU_DEVICE_TYPES)))
    for k, tensor in enumerate(inputs.tensors):
        data.set_int(f"contiguous{k}", int(tensor.contiguous))
        for j, dtype in enumerate(tensor.dtypes or ()):
            data.set_object(f"dtype{k}_{j}", dtype)
    return data


_PROBE = torch.empty(2)  # made at import, outside any mode


def _slot(cls: type) -> ctypes.c_void_p:
    return ctypes.c_void_p.from_address(id(cls) + TP_CALL)


@functools.cache
def _python_call_slot() -> int | None:
    """What ``tp_call`` is for a class defining ``__call__`` in Python (CPython's slot function),
    where :data:`TP_CALL` is where it is: the same in two such classes, empty in a class without."""
    made = [type("_CallProbe", (), {"__call__": lambda self, k=k: k}) for k in range(2)]
    found = [_slot(cls).value for cls in made]
    if found[0] is None or found[0] != found[1] or _slot(type("_NoCall", (), {})).value is not None \
            or made[1]()() != 1:
        return None
    return found[0]


def supported(inputs: OpInputs) -> bool:
    """Whether this op's calls can be native here: plain tensor parameters, each passed by
    position (``fastcall.make`` made its Python ``__call__``), and an interpreter running native
    code whose type slots are where they are expected."""
    return (fastpath.enabled() and _python_call_slot() is not None
            and all(not (t.is_list or t.optional) and t.index < inputs.positional for t in inputs.tensors))


def install(op: Any) -> None:
    """Make ``type(op).__call__``'s slot the native call of ``op`` (the op's own class: ``op``
    alone has it); raises :class:`NotNative` where it cannot be made."""
    from ..backends.cpu import objload

    cls = type(op)
    if not supported(op.inputs) or _slot(cls).value != _python_call_slot() or cls.__dict__.get("__call__") is None:
        raise NotNative("not an op whose own class calls a Python __call__")
    data = fill(op.inputs, op.fn, types.MethodType(cls.__call__, op))
    try:
        loaded = objload.load_object(_object(shape_of(op.inputs)),
                                     lambda name: ctypes.addressof(data.words) if name == DATA_SYMBOL else None)
    except objload.UnsupportedObject as error:
        raise NotNative(str(error)) from None
    op._native_call = (loaded, data)  # alive as long as the op
    _slot(cls).value = loaded.address(SYMBOL)


def uninstall(op: Any) -> None:
    """The Python ``__call__`` again (tests, A/B measurements)."""
    if getattr(op, "_native_call", None) is not None:
        _slot(type(op)).value = _python_call_slot()
        op._native_call = None


def installed(op: Any) -> bool:
    return getattr(op, "_native_call", None) is not None and _slot(type(op)).value != _python_call_slot()


__all__ = ["install", "uninstall", "installed", "supported", "fill", "generate", "OpShape", "NotNative",
           "QUESTIONS"]
