"""Lowering a kernel and the jit functions it calls into one Tile IR module.

``lower`` builds the kernel function; each call of a jit function lowers that function once
per specialization (the types of its tensor arguments and the values of its compile-time
ones) under a mangled name, and emits a ``call``.  The ``inline`` pass later inlines every
callee that is not ``noinline=True``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from ..errors import CompilationError
from ..ir import types
from ..ir.builder import Builder
from ..ir.core import Function, Module
from ..ir.types import Type
from ..language.aggregate import is_aggregate_class
from ..language.core import activate, constexpr, is_constexpr_annotation
from ..language.semantics import Semantic, SemanticError, SemanticOptions
from .arguments import HostDescriptor, parse_entry, runtime_leaves
from .base import NOT_RETURNED, error_message
from .calls import CallLowering
from .control_flow import ControlFlowLowering
from .expressions import ExpressionLowering
from .plans import Desc, Fixed, Group, Plan, Slot, handles_of, plan_key, plan_of, rebuild, slot_names, slot_types
from .signature import bind_call, bind_entry, check_kernel_bindings
from .source import is_jit, jit_name, load_source
from .statements import StatementLowering


class FunctionLowering(CallLowering, ControlFlowLowering, StatementLowering, ExpressionLowering):
    """The visitor: lowers one jit function's body at the builder's insertion point."""

    def lower_body(self) -> Any:
        """Lower the body; returns the value it returns (``constexpr(None)`` if none)."""
        self.ctx.stack.append(self)
        try:
            self.visit_statements(self.source.body, frozenset())
        finally:
            self.ctx.stack.pop()
        return constexpr(None) if self.returned is NOT_RETURNED else self.returned


@dataclass
class Specialization:
    """One lowered specialization of a jit callee."""

    name: str
    function: Function
    return_plan: Plan
    jit: Any


class ModuleContext:
    """What every function of one compilation shares: the builder, the semantics, the
    specializations lowered so far and the stack of functions being lowered."""

    def __init__(self, builder: Builder, semantic: Semantic):
        self.builder = builder
        self.semantic = semantic
        self.specializations: dict[Any, Specialization] = {}
        self.in_progress: set[Any] = set()
        self.stack: list[FunctionLowering] = []
        semantic.call_function = self.call_function

    def call_function(self, fn: Any, args: Any, kwargs: dict | None = None) -> Any:
        """For builtins that call user functions (``tl.reduce``'s combine function): call
        ``fn`` from the function being lowered, at the builder's insertion point."""
        if not self.stack:
            raise RuntimeError("call_function is only available while a kernel is being lowered")
        return self.stack[-1].call(fn, list(args), dict(kwargs or {}))

    def call_jit(self, caller: FunctionLowering, jit: Any, args: list, kwargs: dict) -> Any:
        """Emit a call of ``jit`` (lowering its specialization first if needed)."""
        values = bind_call(jit, args, kwargs)
        plans = {name: plan_of(value, numbers_as_slots=False) for name, value in values.items()}
        key = (id(jit), tuple((name, plan_key(plan)) for name, plan in plans.items()))
        spec = self.specializations.get(key)
        if spec is None:
            spec = self.specialize(caller, jit, plans, key)
        handles = [h for value in values.values() for h in handles_of(value)]
        op = self.builder.create("call", handles, list(spec.function.result_types), {"callee": spec.name})
        return rebuild(spec.return_plan, iter(op.results))

    def specialize(self, caller: FunctionLowering, jit: Any, plans: dict[str, Plan], key: Any) -> Specialization:
        if key in self.in_progress:
            raise SemanticError(f"`{jit_name(jit)}` calls itself (directly or through other jit functions); "
                                "recursion is not supported in kernels")
        source = load_source(jit)
        arg_types = [t for plan in plans.values() for t in slot_types(plan)]
        arg_names = [n for name, plan in plans.items() for n in slot_names(plan, name)]
        attrs = {"noinline": True} if getattr(jit, "noinline", False) else {}
        name = self.unique_name(mangle(jit_name(jit), plans))
        function = self.builder.function(name, arg_types, [], arg_names, attrs, loc=source.location(source.tree))
        args = iter(function.args)
        # as in Triton, a compile-time argument (a number, a dtype, a jit function...) is a
        # tl.constexpr inside the callee (library helpers read `dtype.value`)
        bindings = {param: _as_constexpr(rebuild(plan, args)) if isinstance(plan, Fixed) else rebuild(plan, args)
                    for param, plan in plans.items()}
        self.in_progress.add(key)
        try:
            with self.builder.at_end(function.body):
                returned = self.lower_callee(caller, jit, bindings)
                with self.builder.location(function.loc):
                    self.builder.return_(handles_of(returned))
        finally:
            self.in_progress.discard(key)
        return_plan = plan_of(returned, numbers_as_slots=False)
        function.result_types = slot_types(return_plan)
        spec = Specialization(name, function, return_plan, jit)
        self.specializations[key] = spec
        return spec

    def lower_callee(self, caller: FunctionLowering, jit: Any, bindings: dict[str, Any]) -> Any:
        """Lower a callee's body.  As in Triton, an error in it is reported at the call site
        (repeating the callee's message), caused by the callee's error (which points at its line)."""
        call_site = caller.builder.loc
        try:
            return FunctionLowering(self, jit, bindings).lower_body()
        except CompilationError as error:
            message = f"in the call to `{jit_name(jit)}`: {error.message}"
            raise caller.error_at(call_site, message, type(error)) from error

    def unique_name(self, name: str) -> str:
        taken = self.builder.module.functions
        candidate, n = name, 0
        while candidate in taken:
            n += 1
            candidate = f"{name}_{n}"
        return candidate


def _as_constexpr(value: Any) -> constexpr:
    return value if isinstance(value, constexpr) else constexpr(value)


# ---- mangled names ----

def symbol(text: str) -> str:
    """``text`` as a function name of the printed IR (letters, digits and underscores)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", text) or "_"


@dataclass(frozen=True)
class KernelSpecialization:
    """What a jit function's ``repr=`` callable is given (Triton's ASTSource): ``signature`` maps
    each parameter to its type's spelling (``"i32"``, ``"*fp32"``; ``"constexpr"`` for a
    compile-time one) and ``constants`` each compile-time parameter to its value."""

    name: str
    signature: dict[str, str]
    constants: dict[str, Any]
    fn: Any


def kernel_name(fn: Any, runtime: dict[str, Any], constexprs: dict[str, Any]) -> str:
    """The kernel's symbol: the function's name, or what its ``repr=`` callable (Triton's
    ``@jit(repr=...)``) makes of the specialization, as a symbol."""
    name, namer = jit_name(fn), getattr(fn, "repr", None)
    if not callable(namer):
        return symbol(name)
    signature = {leaf: types.to_signature(ty) for leaf, ty in runtime.items()}
    signature.update({param: "constexpr" for param in constexprs})
    chosen = namer(KernelSpecialization(name, signature, dict(constexprs), fn))
    if not isinstance(chosen, str):
        raise TypeError(f"the repr= of `{name}` must return the kernel's name as a str, got {type(chosen).__name__}")
    return symbol(chosen)


def mangle(base: str, plans: dict[str, Plan]) -> str:
    """A readable name for a specialization: ``add__f32_128xf32_c64`` (hashed if long)."""
    parts = [_mangle_plan(plan) for plan in plans.values()]
    text = symbol(f"{base}__{'_'.join(parts)}" if parts else base)
    if len(text) > 96:
        text = f"{symbol(base)}__{hashlib.sha1(text.encode()).hexdigest()[:12]}"
    return text


def _mangle_plan(plan: Plan) -> str:
    if isinstance(plan, (Slot, Desc)):
        return _mangle_type(plan.type)
    if isinstance(plan, Group):  # an aggregate's class named first
        prefix = plan.cls.__name__ if is_aggregate_class(plan.cls) else ""
        return prefix + "T" + "_".join(_mangle_plan(p) for p in plan.items) + "E"
    assert isinstance(plan, Fixed)
    return "c" + _mangle_constant(plan.value)


def _mangle_type(ty: Type) -> str:
    text = ty.ir.replace("tile<", "").replace("ptr<", "p").replace("desc<", "d")
    return re.sub(r"[^A-Za-z0-9]", "", text)


def _mangle_constant(value: Any) -> str:
    raw = value.value if isinstance(value, constexpr) else value
    if isinstance(raw, Type):
        text = _mangle_type(raw)
    elif is_jit(raw):
        text = jit_name(raw)
    elif isinstance(raw, (bool, int, float, str)) or raw is None:
        text = str(raw).replace("-", "m").replace(".", "p")
    else:
        text = getattr(raw, "__name__", type(raw).__name__)
    return re.sub(r"[^A-Za-z0-9]", "", text)[:24]


# ---- entry point ----

def _check_do_not_specialize(fn: Any, params: list, source: Any) -> None:
    """A constexpr's value is always compiled in: listing one in ``do_not_specialize`` is refused
    (as Triton does)."""
    listed = set(getattr(fn, "do_not_specialize", None) or ())
    for index, param in enumerate(params):
        if index in listed and is_constexpr_annotation(param.annotation):
            raise CompilationError(f"{param.name} marked as constexpr and listed in do_not_specialize: a constexpr's "
                                   "value is always compiled into the kernel; drop one of the two",
                                   source.location(source.tree), jit_name(fn))


def lower(fn: Any, signature: dict[str, Any], constexprs: dict[str, Any], arg_attrs: dict[str, dict] | None = None,
          options: SemanticOptions | None = None) -> Module:
    """Lower the jit function ``fn`` to a Tile IR module.

    ``signature`` maps each runtime parameter to its type (a ``Type`` or Triton's spelling,
    ``"*fp32"``); ``constexprs`` maps each compile-time parameter to its value;
    ``arg_attrs`` maps runtime parameters to facts such as ``{"divisibility": 16}``.
    User errors in the kernel raise ``CompilationError``; inconsistent arguments to this
    function raise ``TypeError``.
    """
    if not is_jit(fn):
        raise TypeError(f"lower() needs a jit function (an object with __kernellab_jit__ = True), got {fn!r}")
    arg_attrs = dict(arg_attrs or {})
    params = check_kernel_bindings(fn, signature, constexprs, arg_attrs)
    source = load_source(fn)
    _check_do_not_specialize(fn, params, source)
    builder = Builder()
    semantic = Semantic(builder, options or SemanticOptions())
    ctx = ModuleContext(builder, semantic)
    entries = {p.name: parse_entry(p.name, signature[p.name]) for p in params if p.name in signature}
    flat = runtime_leaves(entries)
    try:  # a parameter of a type the target lacks (an fp8 dtype): at the def, as Triton's
        kernel = builder.function(kernel_name(fn, flat, constexprs), list(flat.values()), [], list(flat),
                                  {"kernel": True},
                                  loc=source.location(source.tree))
    except SemanticError as error:
        loc = source.location(source.tree)
        raise CompilationError(error_message(error), loc, jit_name(fn), position=source.position(loc)) from error
    kernel.arg_attrs = [dict(arg_attrs.get(name, {})) for name in flat]
    args = iter(kernel.args)
    bindings = {p.name: bind_entry(entries[p.name], args) if p.name in entries else constexpr(constexprs[p.name])
                for p in params}
    with activate(semantic), builder.at_end(kernel.body):
        with builder.location(kernel.loc):
            bindings = {name: _host_descriptor(semantic, value) for name, value in bindings.items()}
        FunctionLowering(ctx, fn, bindings, is_kernel=True).lower_body()
        with builder.location(kernel.loc):
            builder.return_()
    return builder.module


def _host_descriptor(semantic: Semantic, value: Any) -> Any:
    """A host tensor descriptor parameter (``HostDescriptor`` of its parts) as the descriptor the
    kernel sees: ``tl.make_tensor_descriptor`` of the parts; any other binding as it is."""
    if not isinstance(value, HostDescriptor):
        return value
    return semantic.make_tensor_descriptor(value.base, list(value.shape), list(value.strides),
                                           [b.value for b in value.block_shape], value.padding.value)


__all__ = ["lower", "FunctionLowering", "ModuleContext", "Specialization", "mangle", "symbol"]
