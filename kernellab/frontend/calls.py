"""Calls inside a kernel.

* jit functions: lowered once per specialization (argument types and compile-time values) as
  a separate function of the module, and called with ``call``;
* language builtins and tensor methods: called with kernel values, at compile time, building IR;
* ``constexpr_function``s, and plain functions a ``tl.constexpr`` holds (Triton calls those at
  compile time too): called with plain Python values, the result is a constexpr;
* the Python builtins in ``python_builtins``;
* kernellab's own classes and compile-time methods (``tl.constexpr(...)``, ``dtype.is_fp16()``);
* NamedTuple classes: a NamedTuple of kernel values;
* aggregate classes (``tl.core._aggregate``): their constructor runs at compile time; their
  methods as ``aggregates.py`` says.

Anything else is a plain Python callable: called at compile time when its arguments are
compile-time values, the result a constexpr (Triton calls it so: ``torch.finfo(torch.float32).max``,
``math.log2(BLOCK)``); with a kernel tensor among its arguments it is an error that says what to do.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from ..language.aggregate import call_with_semantic, is_aggregate_class
from ..language.core import constexpr, is_builtin, is_constexpr_function, tensor
from ..language.semantics import SemanticError
from .aggregates import AggregateMember
from .arguments import is_namedtuple_class
from .base import LoweringBase
from .python_builtins import ALLOWED, handler_for, is_python_builtin, sequence_items
from .source import is_jit
from .values import holds_tensor, unwrap, wrap


def _is_tensor_method(fn: Any) -> bool:
    return inspect.ismethod(fn) and isinstance(fn.__self__, tensor)


def _is_kernellab_object(fn: Any) -> bool:
    """Classes and methods defined by kernellab itself (dtypes' methods, tl.constexpr...)."""
    module = getattr(fn, "__module__", None) or ""
    return module == "kernellab" or module.startswith("kernellab.")


def _is_held_function(callee: Any, fn: Any) -> bool:
    """A plain Python function a ``tl.constexpr`` holds (a global decorated ``@tl.constexpr``, a
    constexpr argument): Triton calls it at compile time, as a constexpr_function."""
    return isinstance(callee, constexpr) and (inspect.isfunction(fn) or inspect.ismethod(fn)) \
        and not _is_kernellab_object(fn)


class CallLowering(LoweringBase):
    def visit_Call(self, node: ast.Call) -> Any:
        callee = self.visit(node.func)
        args = self.elements(node.args)
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise SemanticError("`**` unpacking of keyword arguments is not supported in kernels")
            kwargs[keyword.arg] = self.visit(keyword.value)
        return self.call(callee, args, kwargs)

    def call(self, callee: Any, args: list, kwargs: dict) -> Any:
        """Call ``callee`` with kernel values (also how builtins call a jit combine function,
        through ``semantic.call_function``)."""
        fn = unwrap(callee) if isinstance(callee, constexpr) else callee
        if is_jit(fn):
            return self.ctx.call_jit(self, fn, args, kwargs)
        if isinstance(fn, AggregateMember):
            if fn.receiver is not None:
                return self.ctx.call_jit(self, fn.function, [fn.receiver, *args], kwargs)
            return wrap(call_with_semantic(fn.function, args, kwargs))
        if is_aggregate_class(fn):
            return fn(*args, **kwargs)
        if is_builtin(fn) or _is_tensor_method(fn):
            return wrap(self.run_builtin(fn, args, kwargs))
        if is_constexpr_function(fn) or _is_held_function(callee, fn):
            return self.run_builtin(self.call_constexpr_function, [fn, args, kwargs], {})
        handler = handler_for(fn)
        if handler is not None:
            return handler(args, kwargs)
        if inspect.isclass(fn) and is_namedtuple_class(fn):
            return self.make_namedtuple(fn, args, kwargs)
        if is_python_builtin(fn):
            raise SemanticError(f"Python's builtin `{fn.__name__}` cannot be called inside a kernel; the Python "
                                f"builtins kernels may call are {ALLOWED}")
        if _is_kernellab_object(fn) and callable(fn):
            return wrap(self.run_builtin(fn, args, kwargs))
        if callable(fn) and not holds_tensor(args) and not holds_tensor(list(kwargs.values())):
            return self.run_builtin(self.call_constexpr_function, [fn, args, kwargs], {})
        raise SemanticError(self.not_callable_message(fn))

    @staticmethod
    def make_namedtuple(cls: type, args: list, kwargs: dict) -> tuple:
        """``Point(x=a, y=b)`` in a kernel: a NamedTuple of kernel values (its defaults too)."""
        try:
            return cls(*args, **kwargs)
        except TypeError as error:
            raise SemanticError(f"wrong arguments to the NamedTuple `{cls.__name__}` (fields "
                                f"{', '.join(cls._fields)}): {error}") from None

    @staticmethod
    def call_constexpr_function(fn: Any, args: list, kwargs: dict) -> constexpr:
        name = getattr(fn, "__name__", "function")
        if holds_tensor(args) or holds_tensor(list(kwargs.values())):
            raise SemanticError(f"`{name}` is a constexpr_function: it runs at compile time, so its arguments must "
                                "be compile-time values, not kernel tensors")
        return constexpr(fn(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()}))

    @staticmethod
    def not_callable_message(fn: Any) -> str:
        counterpart = _language_counterpart(fn)
        if counterpart is not None:
            return (f"`{counterpart[0]}.{fn.__name__}` runs on host values, not in a kernel; use "
                    f"`tl.{counterpart[1]}` (kernellab.language) on tiles")
        if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
            return (f"calling a plain Python function `{fn.__name__}` inside a kernel is not allowed; decorate it "
                    "with @kernellab.jit, or make it a kernellab.constexpr_function")
        if inspect.isclass(fn):
            return f"creating a `{fn.__name__}` object inside a kernel is not allowed"
        return f"{_describe_callee(fn)} is not callable inside a kernel"


# Host libraries whose functions a kernel author reaches for, and the name they go by.
_HOST_LIBRARIES = {"numpy": "np", "math": "math", "cmath": "cmath"}


def _language_counterpart(fn: Any) -> tuple[str, str] | None:
    """(the library's usual name, the kernellab.language function of the same name) for a numpy
    or math function that has one (``np.exp`` -> ``tl.exp``), else None."""
    from .. import language

    name = getattr(fn, "__name__", None)
    module = getattr(fn, "__module__", None) or type(fn).__module__   # numpy's ufuncs: their class's
    library = _HOST_LIBRARIES.get(str(module).split(".")[0])
    if library is None or not isinstance(name, str) or name.startswith("_"):
        return None
    found = getattr(language, name, None)
    return (library, name) if found is not None and is_builtin(found) else None


def _describe_callee(fn: Any) -> str:
    if isinstance(fn, tensor):
        return f"a tensor ({fn.type.ir})"
    if isinstance(fn, (tuple, list)):
        return f"a tuple of {len(sequence_items(fn))} values"
    return f"`{fn!r}`"


__all__ = ["CallLowering"]
