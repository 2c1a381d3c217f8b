"""``kernellab.torch.op``: a Python function that allocates outputs and launches kernellab kernels,
as a torch custom op (``torch.ops.<ns>.<name>``) — the counterpart of ``torch.library.triton_op``.

The op is defined with ``torch.library.Library`` (the low-level registration: an eager call costs
about a third of a ``torch.library.custom_op`` call), its eager kernel is the function itself
(``CompositeExplicitAutograd``: CPU and CUDA tensors), and its fake kernel runs the function on
fake tensors with every launch a no-op ``kernellab::launch`` (``launch.py``), so output shapes
need no second description; ``register_fake`` replaces it where that is not enough.
``register_autograd`` is ``torch.library.register_autograd``.

Writes the op does not declare are errors: at registration, each ``kernel[grid](...)`` call in the
function's source whose arguments can be resolved there is lowered to Tile IR and checked
(``registration.py``); every launch made while the body runs on fake tensors, and during the
first eager call, is checked against the op's inputs (``checks.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch

from . import checks, fastcall, nativecall
from .launch import fake_runs
from .registration import check_static_writes


def _split(name: str) -> tuple[str, str]:
    if not isinstance(name, str) or name.count("::") != 1 or not all(name.split("::")):
        raise ValueError(f"kernellab.torch.op needs a name \"namespace::name\" (as torch.library.custom_op), "
                         f"got {name!r}")
    namespace, opname = name.split("::")
    return namespace, opname


class KernelOp:
    """A kernellab custom op: call it like the function, or as ``torch.ops.<ns>.<name>``."""

    def __init__(self, name: str, fn: Callable, mutates_args: Iterable[str] | str, schema: str | None,
                 rules: checks.TensorRules):
        self.name = name
        self.namespace, self.opname = _split(name)
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.mutates_args = mutates_args if mutates_args == "unknown" else tuple(mutates_args)
        if schema is None:
            schema = torch.library.infer_schema(fn, mutates_args=self.mutates_args)
        self.schema = schema
        check_static_writes(self)  # before anything is registered with torch
        self.library = torch.library.Library(self.namespace, "FRAGMENT")
        self.library.define(self.opname + schema)
        self.default = getattr(getattr(torch.ops, self.namespace), self.opname).default
        self.inputs = checks.OpInputs.from_schema(self.default._schema, rules, self.name)
        self._fake: Callable | None = None
        self.checked_eagerly = False  # the first eager call checks the kernels' writes (then the fast path)
        self.native_call: str | None = None  # after the first eager call: "installed", or why not (nativecall)
        self.library.impl(self.opname, self._eager, "CompositeExplicitAutograd")
        torch.library.register_fake(name, self._fake_kernel, lib=self.library)

    # ---- the kernels torch dispatches to ----
    def _eager(self, *args: Any, **kwargs: Any) -> Any:
        self.inputs.check(args, kwargs)
        return self._run(args, kwargs)

    def _run(self, args: tuple, kwargs: dict) -> Any:
        if self.checked_eagerly:
            return self.fn(*args, **kwargs)
        with checks.watching_writes(self.inputs, args, kwargs):
            result = self.fn(*args, **kwargs)
        self.checked_eagerly = True
        self._go_native()
        return result

    def _go_native(self) -> None:
        """Plain calls from now on: the generated ``__call__``'s decision as native code, where it
        can be made (``nativecall``: an op with a generated ``__call__``, on CPython)."""
        if type(self) is KernelOp or not nativecall.supported(self.inputs):
            self.native_call = "not an op with plain tensor parameters, or no native code here"
            return
        try:
            nativecall.install(self)
        except nativecall.NotNative as reason:
            self.native_call = str(reason)
            return
        self.native_call = "installed"

    def _fake_kernel(self, *args: Any, **kwargs: Any) -> Any:
        self.inputs.check(args, kwargs)
        if self._fake is not None:
            return self._fake(*args, **kwargs)
        with fake_runs(), checks.watching_writes(self.inputs, args, kwargs):
            return self.fn(*args, **kwargs)

    # ---- what torch.library.custom_op's object offers ----
    def register_fake(self, fn: Callable) -> Callable:
        """Use ``fn`` for fake tensors instead of running the body with no-op launches."""
        self._fake = fn
        return fn

    def register_autograd(self, backward: Callable, *, setup_context: Callable | None = None) -> None:
        torch.library.register_autograd(self.name, backward, setup_context=setup_context, lib=self.library)

    def register_kernel(self, device_types: str | Sequence[str], fn: Callable | None = None) -> Any:
        return torch.library.register_kernel(self.name, device_types, fn, lib=self.library)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Through torch's dispatcher, except for plain eager calls, which call the eager
        kernel directly (what the dispatcher would do, at a third of the cost).  An op whose
        tensor parameters are all plain ``Tensor`` has a generated ``__call__`` doing the same
        in straight-line code (``fastcall.py``), falling back to this."""
        if _is_compiling():
            return self.default(*args, **kwargs)
        return self.general_call(args, kwargs)

    def general_call(self, args: tuple, kwargs: dict) -> Any:
        if _is_compiling() or _special_mode():
            return self.default(*args, **kwargs)
        if not self.inputs.check_plain(args, kwargs, _grad()):
            return self.default(*args, **kwargs)
        return self._run(args, kwargs)

    def __repr__(self) -> str:
        return f"<kernellab op {self.name}{self.schema}>"


_is_compiling = torch.compiler.is_compiling
_dispatch_modes, _function_modes, _functorch, _autocast = (function for _, function, _ in checks.DISPATCH_QUESTIONS)
_grad = torch.is_grad_enabled


def _special_mode() -> bool:
    """A mode, transform, autocast or the profiler is active: calls go through the dispatcher
    (otherwise, with plain tensors needing no gradient, it would go straight to the eager
    kernel)."""
    return bool(_dispatch_modes() or _function_modes() or _functorch() or _autocast()
                or torch.autograd.profiler._is_profiler_enabled)


def op(name: str, *, mutates_args: Iterable[str] | str, schema: str | None = None,
       device_types: str | Sequence[str] | None = None,
       dtypes: Sequence[torch.dtype] | dict[str, Sequence[torch.dtype]] | None = None,
       contiguous: bool | Sequence[str] = True) -> Callable[[Callable], KernelOp]:
    """Decorator: ``@kernellab.torch.op("mylib::add", mutates_args=())`` makes the function a
    torch custom op.

    ``mutates_args``: the parameters the op writes in place (``()`` for none).  ``schema``: the
    op's schema, else inferred from the type hints (``torch.library.infer_schema``).  Input
    rules, checked on every call with errors naming the argument: ``device_types`` (e.g.
    ``"cuda"``), ``dtypes`` (allowed dtypes for every tensor argument, or per argument name),
    ``contiguous`` (``True``: every tensor argument; or the names that must be; ``False``: none).
    """
    rules = checks.TensorRules.make(device_types, dtypes, contiguous)
    if not (mutates_args == "unknown" or (isinstance(mutates_args, Iterable) and not isinstance(mutates_args, str))):
        raise TypeError(f"mutates_args of {name!r} is a tuple of parameter names (or \"unknown\"), "
                        f"got {mutates_args!r}")

    def make(fn: Callable) -> KernelOp:
        made = KernelOp(name, fn, mutates_args, schema, rules)
        fast = fastcall.make(made.inputs, fn, made.default)
        if fast is not None:  # a class of its own carries the op's generated __call__
            made.__class__ = type(KernelOp.__name__, (KernelOp,), {"__call__": fast, "__module__": __name__})
        return made

    return make


__all__ = ["op", "KernelOp"]
