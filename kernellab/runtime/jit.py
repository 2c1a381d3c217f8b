"""``@kl.jit`` and :class:`JITFunction`: a kernel that compiles itself on first launch.

``kernel[grid](*args, num_warps=None, num_stages=None, num_ctas=None, maxnreg=None,
stream=None, warmup=False, **named_args)`` binds the arguments through a generated binder
(``binder.py``), looks the specialization up in the in-memory cache (``kernel.cache``, a dict
keyed by the binder's key) and launches; a miss decodes the key, picks the target
(``targets.py``) and compiles through the on-disk cache (``compiler.py``).

``kernel[grid]`` binds the grid to the head of the kernel's launch chain: the binder, or once
a specialization has been launched, a generated native function that launches that
specialization itself and passes every other call down the chain (``native/fastpath.py``).
"""

from __future__ import annotations

import inspect
import itertools
import sys
import textwrap
import types
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from types import GenericAlias, MethodType
from typing import Any, NoReturn

from .. import config
from ..backends.options import flag
from ..errors import KernelArgumentError, OptionValueError
from ..ir.types import CANONICAL_SPELLINGS, Type
from ..language.core import (
    annotation_type,
    constexpr,
    function_source,
    is_const_annotation,
    is_constexpr_annotation,
    is_constexpr_function,
)

# What a cache hit needs is imported with the module (so a new process's first launch imports
# nothing but its backend): the binder, specialization, the pipeline's cache-hit path.  The
# compiler itself (frontend lowering, semantics, IR ops, passes, LLVM) loads on a real compile,
# the native launch path (native/fastpath.py) at a specialization's second launch.
from . import specialize
from .binder import LAUNCH_KEYWORDS, MISSING, TUNING_HINTS, VARIANT_OPTIONS, KeyLayout, make_binder
from .compiled import CompiledKernel
from .compiler import compile_specialized
from .interface import active_mode
from .native.launches import NativeLaunches
from .reinterpret import TensorWrapper, reinterpret  # noqa: F401 - Triton's triton.runtime.jit has them
from .source_patch import has_readable_source, recovered_exec_function
from .targets import select_target


@dataclass(frozen=True)
class KernelParam:
    """One kernel parameter.  What its annotation and default say is worked out when it is made:
    a launch asks it of every parameter several times (is_constexpr ~35 times in a new
    process's first launch of a 5-parameter kernel)."""

    num: int
    name: str
    annotation: Any
    default: Any
    do_not_specialize: bool = False
    do_not_specialize_on_alignment: bool = False
    is_constexpr: bool = field(init=False, repr=False, compare=False)
    has_default: bool = field(init=False, repr=False, compare=False)
    # Annotated ``tl.const``: a pointer argument becomes a pointer to constant data.
    is_const: bool = field(init=False, repr=False, compare=False)
    # The type a dtype annotation gives the parameter (``v: tl.float16``, ``n: int``), as in
    # Triton: its argument is passed as that type and never specialized on its value.
    annotated_type: Type | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        found = (("is_constexpr", is_constexpr_annotation(self.annotation)),
                 ("has_default", self.default is not inspect.Parameter.empty),
                 ("is_const", is_const_annotation(self.annotation)),
                 ("annotated_type", annotation_type(self.annotation)))
        for name, value in found:
            object.__setattr__(self, name, value)

    @property
    def annotation_text(self) -> str:
        if self.annotation is inspect.Parameter.empty:
            return ""
        return self.annotation if isinstance(self.annotation, str) else getattr(self.annotation, "__name__",
                                                                                 repr(self.annotation))


def _indices(fn_name: str, names: list[str], chosen: Iterable[int | str] | None, what: str) -> set[int]:
    """The parameter indices ``chosen`` names.  As in Triton, a name or index that is no parameter
    of the kernel is ignored (library code lists names of a kernel still to be written); only an
    item that is neither a name nor an index is an error."""
    found = set()
    for item in chosen or ():
        if isinstance(item, int) and not isinstance(item, bool):
            if -len(names) <= item < len(names):
                found.add(item % len(names))
        elif isinstance(item, str):
            if item in names:
                found.add(names.index(item))
        else:
            raise TypeError(f"{what} of `{fn_name}` lists {item!r}, which is neither a parameter name nor an index; "
                            f"the parameters are {', '.join(names)}")
    return found


def _unsupported_parameter(fn: Callable, signature: inspect.Signature) -> str | None:
    """Why a kernel of this signature cannot be launched or compiled, if it cannot.  Such a function
    is still a JITFunction, as in Triton: code generators decorate one and rewrite its source before
    any launch (xformers' ``unroll_varargs`` turns ``*inputs`` into ``inputs0, inputs1...``)."""
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            return (f"`{fn.__name__}`: kernel parameters are plain positional parameters; `{p}` is not (no *args, "
                    "**kwargs or keyword-only parameters): such a function can be decorated, for a code generator "
                    "to rewrite, but not launched or compiled")
    return None


def _params(fn: Callable, signature: inspect.Signature, do_not_specialize: set[int],
            do_not_specialize_on_alignment: set[int]) -> list[KernelParam]:
    params = []
    for i, p in enumerate(signature.parameters.values()):  # *args too, as in Triton (see _unsupported_parameter)
        annotated = annotation_type(p.annotation) is not None  # Triton does not specialize those on their value
        params.append(KernelParam(i, p.name, p.annotation, p.default, i in do_not_specialize or annotated,
                                  i in do_not_specialize_on_alignment))
    return params


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # odd __eq__: compared by identity
        return False


class DeviceCaches(dict):
    """What ``JITFunction.device_caches`` gives: every device's entry is the kernel's one cache."""

    def __init__(self, jit: JITFunction):
        super().__init__()
        self.jit = jit

    def __missing__(self, device: Any) -> tuple:
        return (self.jit.cache, {}, None, None, self.jit.binder)

    def clear(self) -> None:
        super().clear()
        self.jit.cache.clear()


class KernelCache(dict):
    """The in-memory cache (binder key -> CompiledKernel); removing entries also drops the
    native launch functions, which hold their kernels."""

    def __init__(self, on_removal: Callable[[], None]):
        super().__init__()
        self.on_removal = on_removal

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        self.on_removal()

    def pop(self, *args: Any) -> Any:
        found = super().pop(*args)
        self.on_removal()
        return found

    def popitem(self) -> Any:
        found = super().popitem()
        self.on_removal()
        return found

    def clear(self) -> None:
        super().clear()
        self.on_removal()


def _is_watched_global(value: Any) -> bool:
    """Globals whose value is compiled into a kernel without being a constexpr: plain data."""
    return not isinstance(value, (constexpr, Type, types.ModuleType, type)) and not callable(value)


class KernelInterface:
    """Triton's base of everything launched as ``kernel[grid](...)`` (``JITFunction``, the
    autotuner and heuristics wrappers): ``kernel[grid](*args, **kwargs)`` is
    ``kernel.run(*args, grid=grid, warmup=False, **kwargs)``.  Code that wraps kernels subclasses
    it and defines ``run`` (torch's symmetric-memory helpers do); torch.compile's Triton layer
    imports it."""

    __class_getitem__ = classmethod(GenericAlias)  # KernelInterface[T] in annotations, as Triton's Generic

    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no run(*args, grid=..., warmup=..., **kwargs)")

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        return partial(self.run, grid=grid, warmup=False)


def named(name: str, specialization: Any) -> str:
    """A kernel's ``repr`` when ``@jit`` is given none, with its name bound: whatever it is
    asked about (a specialization, the kernel), the name (Triton's default)."""
    return name


# What a JITFunction holds for this process only (compiled kernels, launch functions): not pickled.
_PROCESS_STATE = ("__globals__", "cache", "stats", "_binder", "_head", "_native", "_layout", "binder_source",
                  "_dependencies", "_watched", "_variants", "serial", "_used_global_vals")


class JITFunction(KernelInterface):
    """A ``@jit`` kernel (or a jit function other kernels call)."""

    __kernellab_jit__ = True

    def __init__(self, fn: Callable, *, version: Any = None, repr: Callable | None = None,
                 launch_metadata: Callable | None = None, do_not_specialize: Iterable[int | str] | None = None,
                 do_not_specialize_on_alignment: Iterable[int | str] | None = None, debug: bool | None = None,
                 noinline: bool | None = None):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError(f"@jit decorates a Python function, not {fn!r}")
        if not has_readable_source(fn):  # made by exec(text): found again from the text, if a caller holds it
            fn = recovered_exec_function(fn) or fn
        self.fn = fn
        self.version = version
        self.repr = repr if repr is not None else partial(named, fn.__name__)  # Triton's default
        self.launch_metadata = launch_metadata
        self.debug = debug
        self.noinline = bool(noinline)
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.__globals__ = fn.__globals__  # as Triton's JITFunction (code generators copy a kernel's module)
        self.signature = inspect.signature(fn)  # Triton's attribute: the Python function's signature
        names = list(self.signature.parameters)
        self.do_not_specialize = _indices(fn.__name__, names, do_not_specialize, "do_not_specialize")
        self.do_not_specialize_on_alignment = _indices(fn.__name__, names, do_not_specialize_on_alignment,
                                                       "do_not_specialize_on_alignment")
        self.params = _params(fn, self.signature, self.do_not_specialize, self.do_not_specialize_on_alignment)
        self._unsupported = _unsupported_parameter(fn, self.signature)
        self.arg_names = [p.name for p in self.params]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self._src: str | None = None
        self.pre_run_hooks: list[Callable[..., Any]] = []
        self._variant_options: dict[str, Any] = {}  # what this variant compiles with
        self._new_process_state()

    def _new_process_state(self) -> None:
        """What this process compiles, loads and generates to launch the kernel (not pickled:
        :data:`_PROCESS_STATE`), empty."""
        self.cache: dict[tuple, CompiledKernel] = KernelCache(self._drop_native)
        self.stats = {"compiled": 0, "disk": 0}
        self._binder: Callable | None = None
        self._head: Callable | None = None  # what kernel[grid] binds: the binder or a native function
        self._native: NativeLaunches | None = None
        self._layout: KeyLayout | None = None
        self.binder_source = ""  # the generated launch function, once made
        self._dependencies: Any = None
        self._watched: list[tuple[str, Callable[[], Any], Any]] = []
        self._variants: dict[tuple, JITFunction] = {}  # launches giving debug= or enable_fp_fusion=
        self.serial = register_serial(self)  # names this kernel in this process (kernellab.torch)

    # ---- pickling (torch inductor's compile workers send their kernels to the parent) ----
    def __reduce_ex__(self, protocol: Any) -> Any:
        """A kernel its module holds under its name pickles as that name (as a function does);
        another (torch inductor's, whose ``fn`` it set to None) as its state."""
        found: Any = sys.modules.get(self.__module__) if self.fn is not None else None
        for part in self.__qualname__.split(".") if found is not None else ():
            found = getattr(found, part, None)
        if found is self:
            return self.__qualname__
        return super().__reduce_ex__(protocol)

    def __getstate__(self) -> dict[str, Any]:
        """The definition travels (the Python function by reference, as pickle sends functions);
        what this process compiled, loaded and generated to launch it does not."""
        state = {name: value for name, value in self.__dict__.items() if name not in _PROCESS_STATE}
        if self._dependencies is not None:  # Triton's cache_key travels (torch inductor reads it without fn)
            state["_sent_cache_key"] = self._dependencies.source_hash
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__globals__ = getattr(state.get("fn"), "__globals__", None)
        self._new_process_state()

    @property
    def used_global_vals(self) -> Any:
        """Triton's record of the globals a launch checks, ``(name, id(globals)) -> (value,
        globals)`` (torch inductor clears and restores it around pickling, which this allows)."""
        if "_used_global_vals" in self.__dict__:
            return self.__dict__["_used_global_vals"]
        return {(name, id(self.__globals__)): (value, self.__globals__) for name, _, value in self._watched}

    @used_global_vals.setter
    def used_global_vals(self, value: Any) -> None:
        self.__dict__["_used_global_vals"] = value

    # ---- what it is ----
    @property
    def name(self) -> str:
        return self.__name__

    @property
    def src(self) -> str:
        """The function's source from its ``def`` line (as Triton's), dedented.  Assigning to it patches the kernel (as
        :meth:`_unsafe_update_src`)."""
        if self._src is None:
            self._src = function_source(self.fn)
        return self._src

    @src.setter
    def src(self, new_src: str) -> None:
        self._unsafe_update_src(new_src)

    def _unsafe_update_src(self, new_src: str) -> None:
        """Triton's source patching: from now on the kernel is the function ``new_src`` defines
        (in this kernel's module); compiled specializations are dropped, so the next launch
        compiles the new source.  Kernels that call this one keep what they compiled."""
        from .source_patch import patched_function

        fresh = JITFunction(patched_function(self.fn, new_src), version=self.version, repr=self.repr,
                            launch_metadata=self.launch_metadata, debug=self.debug, noinline=self.noinline,
                            do_not_specialize=self.do_not_specialize,
                            do_not_specialize_on_alignment=self.do_not_specialize_on_alignment)
        self.cache.clear()
        # the cache's hook is bound to self; the hooks added stay
        self.__dict__.update({**fresh.__dict__, "cache": self.cache, "pre_run_hooks": self.pre_run_hooks})
        self._src = textwrap.dedent(new_src)

    @property
    def cache_key(self) -> str:
        """A hash of the kernel's source and of what it calls and reads (Triton's ``cache_key``);
        a kernel unpickled without its function keeps the one it was sent with."""
        if self.fn is None and "_sent_cache_key" in self.__dict__:
            return self.__dict__["_sent_cache_key"]
        return self.dependencies().source_hash

    @property
    def device_caches(self) -> DeviceCaches:
        """Triton's per-device ``(kernel_cache, key_cache, target, backend, binder)``; kernellab
        keeps one cache for every device, so each device's entry holds that one cache, and
        ``device_caches.clear()`` empties it (Triton's way to compile again)."""
        return DeviceCaches(self)

    @property
    def source_file(self) -> str:
        return self.fn.__code__.co_filename

    @property
    def first_line(self) -> int:
        return self.fn.__code__.co_firstlineno

    @property
    def rewriter(self) -> Any:
        """What Triton's interpreter (``InterpretedFunction.rewriter``) tells of the kernel's source:
        ``fn``, ``filename`` and ``def_file_lineno``, the file line of the ``def`` (below any
        decorators), which the source locations of every stage count from."""
        from ..frontend.source import load_source

        source = load_source(self)
        where = source.location(source.tree)
        return types.SimpleNamespace(fn=self.fn, filename=where.file, def_file_lineno=where.line)

    def rewrite(self) -> Callable:
        """Triton's ``InterpretedFunction.rewrite()``: the Python function the interpreter runs;
        kernellab's interpreter runs the kernel's Tile IR, lowered from this function itself."""
        return self.fn

    def __repr__(self) -> str:
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"`{self.__name__}` is a @jit function: launch it with {self.__name__}[grid](...), or call "
                           "it from inside another @jit function")

    # ---- dependencies and globals ----
    def dependencies(self) -> Any:
        """What the frontend found this kernel depends on (callees, globals read, source hash)."""
        if self._dependencies is None:
            from ..frontend import dependencies

            self._dependencies = dependencies(self)
        return self._dependencies

    def global_values(self) -> dict[str, Any]:
        """Name -> value of every compile-time global the kernel and its callees read."""
        return dict(self.dependencies().globals)

    def _watch_globals(self) -> list[tuple[str, Callable[[], Any], Any]]:
        """``(name, reader, value)`` of the globals read whose value is compiled in without being
        declared constexpr (plain numbers, strings, tuples): they are checked at every launch."""
        deps = self.dependencies()
        readers = getattr(deps, "readers", {})
        return [(name, readers[name], value) for name, value in deps.globals.items()
                if name in readers and _is_watched_global(value)]

    def _check_globals(self) -> None:
        for name, read, value in self._watched:
            current = read()
            if not _same(current, value):
                now = repr(current) if isinstance(current, (int, float, str, bool, tuple, type(None))) else "deleted"
                raise RuntimeError(f"global `{name}` changed since `{self.__name__}` was compiled ({value!r} -> "
                                   f"{now}); declare it tl.constexpr or pass it as an argument")

    # ---- launching ----
    def _make_binder(self) -> Callable:
        if self._unsupported:
            raise TypeError(self._unsupported)
        self._watched = self._watch_globals()
        hooked = _hooked_launch(self.launch_metadata)
        self._binder, self._layout, self.binder_source = make_binder(self.__name__, self.params, self.cache, self._miss,
                                                    self._unusual_call,
                                                    self._check_globals if self._watched else None,
                                                    self._variant_binder, hooked)
        self._head = None if self.pre_run_hooks else self._binder
        if hooked is None and not self._watched and config.native_launch():  # plain globals: the binder checks them
            # (whether this interpreter can run native functions is asked where one is made)
            self._native = NativeLaunches(self)
            self._binder.__globals__["_kl_native"] = self._native
        return self._binder

    def _variant_binder(self, debug: Any = None, **options: Any) -> Callable:
        """The binder of this kernel compiled with a launch's ``debug=`` / ``enable_fp_fusion=`` /
        ``launch_cooperative_grid=`` / ``launch_pdl=`` (Triton's per-launch compile options): a copy
        of the kernel with them, made once each."""
        wanted = {**self._variant_options, "debug": self.debug if debug is None else bool(debug)}
        wanted.update({name: flag(name, value) if name in VARIANT_OPTIONS else value
                       for name, value in options.items() if value is not None})
        key = tuple(sorted(wanted.items()))
        variant = self._variants.get(key)
        if variant is None:
            variant = JITFunction(self.fn, version=self.version, repr=self.repr, launch_metadata=self.launch_metadata,
                                  debug=wanted.pop("debug"), noinline=self.noinline,
                                  do_not_specialize=self.do_not_specialize,
                                  do_not_specialize_on_alignment=self.do_not_specialize_on_alignment)
            variant._src = self._src
            variant._variant_options = wanted
            self._variants[key] = variant
        return variant.binder

    @property
    def binder(self) -> Callable:
        return self._binder or self._make_binder()

    def __getitem__(self, grid: Any, *_: Any) -> Callable[..., CompiledKernel]:
        """The head of the launch chain with ``grid`` bound (as a method's ``self``: binding
        and calling cost less than with ``functools.partial``).  With ``kernellab.torch``
        imported, what its intercept returns while torch traces.  (``*_``, never given by a
        subscript, keeps CPython from calling this function directly for ``kernel[grid]``, so
        that the class's subscript slot can be native: ``runtime/native/subscript.py``.)"""
        if _torch_intercept is not None:
            traced = _torch_intercept(self, grid)
            if traced is not None:
                return traced
        if self.pre_run_hooks:
            return partial(self._run_hooked, grid)
        if grid is None:  # a method's self cannot be None; the binder explains what a grid is
            return partial(self._head or self.binder, grid)
        return MethodType(self._head or self.binder, grid)

    # ---- the launch chain (runtime.native.fastpath) ----
    def launch_head(self) -> Callable:
        """The function ``kernel[grid]`` binds the grid to."""
        return self._head or self.binder

    def set_launch_head(self, function: Callable) -> None:
        # hooks: every launch through __getitem__'s Python (see add_pre_run_hook) or the binder
        if not self.pre_run_hooks and _hooked_launch(None) is None:
            self._head = function

    def reset_launch_path(self) -> None:
        """Make the launch path again on the next launch (Triton's launch hooks were set or
        removed: ``launch_hooks``); what was compiled stays."""
        self._drop_native()
        self._binder = self._head = self._native = None

    def _drop_native(self) -> None:
        self._head = None if self.pre_run_hooks else self._binder
        if self._native is not None:
            self._native.clear()

    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> CompiledKernel:
        """Triton's ``run``: bind, compile if needed and launch (or only compile if ``warmup``)."""
        if self.pre_run_hooks and not warmup:
            return self._run_hooked(grid, *args, **kwargs)
        return self.binder(grid, *args, warmup=warmup, **kwargs)

    def add_pre_run_hook(self, hook: Callable[..., Any]) -> None:
        """Triton's pre-run hooks: ``hook(*args, **kwargs)`` gets each launch's arguments just
        before the kernel runs (not for ``warmup``)."""
        if not callable(hook):
            raise TypeError(f"a pre-run hook of `{self.__name__}` must be callable, not {type(hook).__name__}")
        self.pre_run_hooks.append(hook)
        self._head = None  # the native kernel[grid] (C method or slot) binds no head: Python runs the hooks

    def _run_hooked(self, grid: Any, *args: Any, **kwargs: Any) -> CompiledKernel:
        if not kwargs.get("warmup"):
            for hook in self.pre_run_hooks:
                hook(*args, **kwargs)
        return (self._head or self.binder)(grid, *args, **kwargs)

    def warmup(self, *args: Any, grid: Any = (1,), **kwargs: Any) -> CompiledKernel:
        """Compile for these arguments without running; dtypes (``tl.float32``, numpy or torch
        dtypes, ``"*fp32"``) may stand for pointer arguments.  Returns the CompiledKernel."""
        # a dtype given for a constexpr parameter is its value (Liger-Kernel passes tl.float32 so), not a pointer
        values = {p.name for p in self.params if p.is_constexpr}
        mocked = [a if p.is_constexpr else specialize.mock_argument(a) for p, a in zip(self.params, args)]
        mocked += args[len(self.params):]
        named = {k: specialize.mock_argument(v) if k in self.arg_names and k not in values else v
                 for k, v in kwargs.items()}
        launch = self[grid]
        mode = active_mode.get()
        if mode is not None:  # inside AsyncCompileMode: compile on its executor, return a FutureKernel
            # keyed by the function itself (it hashes by identity), never its id: a function dropped
            # after its warmup frees its id for the next one, which would get the first one's kernel
            key = (self, repr(mocked), repr(sorted(named.items())))
            return mode.submit(key, lambda: launch(*mocked, warmup=True, **named), lambda kernel: None)
        return launch(*mocked, warmup=True, **named)

    def _unusual_call(self, extra: tuple, unknown: dict[str, Any]) -> dict[str, Any]:
        """The binder's call with extra positional or unknown keyword arguments: Triton's per-launch
        compile options among them (given, not None) are returned, for the kernel's variant compiled
        with them; anything else is reported (:meth:`_bad_call`)."""
        options = {k: v for k, v in unknown.items()
                   if (k in VARIANT_OPTIONS or k in TUNING_HINTS) and k not in self.arg_names}
        if not extra and len(options) == len(unknown):
            return {k: v for k, v in options.items() if v is not None}
        self._bad_call(extra, {k: v for k, v in unknown.items() if k not in options})

    def _bad_call(self, extra: tuple, unknown: dict[str, Any]) -> NoReturn:
        if unknown:
            names = ", ".join(f"`{k}`" for k in unknown)
            options = ", ".join(k for k in LAUNCH_KEYWORDS if k not in self.arg_names)
            plural = "s" if len(unknown) > 1 else ""
            params = ", ".join(self.arg_names)
            raise KernelArgumentError(f"`{self.__name__}` got unexpected keyword argument{plural} {names}; its "
                                      f"parameters are ({params}) and the launch options are ({options})")
        params = ", ".join(self.arg_names)
        raise KernelArgumentError(f"`{self.__name__}` takes {self._count()} arguments ({params}); got "
                                  f"{len(self.arg_names) + len(extra)} positional arguments")

    def _count(self) -> str:
        required = sum(not p.has_default for p in self.params)
        return f"{required}" if required == len(self.params) else f"{required} to {len(self.params)}"

    def _check_missing(self, arguments: Iterable[Any]) -> None:
        missing = [p.name for p, value in zip(self.params, arguments) if value is MISSING]
        if missing:
            listing = ", ".join(f"`{name}`" for name in missing)
            params = ", ".join(self.arg_names)
            raise KernelArgumentError(f"`{self.__name__}` takes {self._count()} arguments ({params}); "
                                      f"missing {listing}")

    def _in_order(self, values: tuple, constants: tuple) -> list[Any]:
        """The arguments in parameter order, from the binder's value and constexpr tuples."""
        value_iter, constant_iter = iter(values), iter(constants)
        return [next(constant_iter) if p.is_constexpr else next(value_iter) for p in self.params]

    def _miss(self, key: tuple, values: tuple, constants: tuple, num_warps: Any, num_stages: Any, num_ctas: Any,
              maxnreg: Any, ir_override: Any = None, warmup: bool = False) -> CompiledKernel | None:
        """Compile (or load) the specialization of a launch the in-memory cache lacks.  Triton's
        ``knobs.runtime.jit_cache_hook`` is asked first (a true answer: nothing is compiled or
        launched, and None returned), ``jit_post_compile_hook`` told after."""
        self._check_missing(self._in_order(values, constants))
        spec = specialize.from_keys(self, self._layout.arg_keys(key), constants)
        target = select_target(self._layout.forced_target(key), spec.pointers, self.__name__)
        options = {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": num_ctas, "maxnreg": maxnreg,
                   "debug": self.debug, "ir_override": ir_override, **self._variant_options}
        cache_hook, post_compile_hook = _jit_hooks()
        if cache_hook is not None and self._call_hook(cache_hook, key, spec, target, options, warmup):
            return None
        kernel = self._compile(spec, target, options)
        kernel.bind_values([p.name for p in self.params if not p.is_constexpr], {name for name, _ in spec.pointers})
        self.cache[key] = kernel
        if post_compile_hook is not None:
            self._call_hook(post_compile_hook, key, spec, target, options, warmup)
        return kernel

    def _compile(self, spec: specialize.Specialization, target: str, options: dict[str, Any]) -> CompiledKernel:
        try:
            kernel = compile_specialization(self, spec, target, options)
        except OptionValueError as error:
            raise OptionValueError(f"`{self.__name__}` cannot be compiled with these options: {error}") from None
        self.stats[kernel.origin] += 1
        return kernel

    def _call_hook(self, hook: Callable, key: tuple, spec: specialize.Specialization, target: str,
                   options: dict[str, Any], warmup: bool) -> Any:
        from .specialization_data import call_hook

        return call_hook(hook, self, key, spec, target, options, warmup)

    def preload(self, specialization_data: str) -> CompiledKernel:
        """Triton's ``preload``: compile (or load from the disk cache) the specialization that
        ``specialization_data`` (from a JIT hook's ``compile["specialization_data"]``) describes."""
        from .specialization_data import deserialize

        spec, target, options = deserialize(self, specialization_data)
        return self._compile(spec, target, options)


def compile_specialization(jit: JITFunction, spec: specialize.Specialization, target: str,
                           options: dict[str, Any]) -> CompiledKernel:
    """The one way a specialization becomes a CompiledKernel: ``kernel[grid]``, ``warmup``,
    ``kl.compile`` and ``%%tile_kernel`` all end here (through the disk cache)."""
    return compile_specialized(jit, spec.signature, spec.constexprs, spec.arg_attrs, target, options)


def _hooked_launch(launch_metadata: Callable | None) -> Callable | None:
    """With Triton's launch hooks set, what a binder calls to launch (``launch_hooks.launch``
    for a kernel with this ``launch_metadata`` function); None without (``launch_hooks`` is not
    even imported until the knobs set a hook)."""
    hooks = sys.modules.get("kernellab.runtime.launch_hooks")
    if hooks is None or not hooks.launching_with_hooks():
        return None
    return partial(hooks.launch, launch_metadata)


def live_kernels() -> list[JITFunction]:
    """Every JITFunction of this process still alive."""
    return [kernel for kernel in list(_BY_SERIAL.values()) if isinstance(kernel, JITFunction)]


def _jit_hooks() -> tuple[Callable | None, Callable | None]:
    """Triton's ``knobs.runtime.jit_cache_hook`` and ``jit_post_compile_hook`` (None while
    ``kernellab.knobs`` is not imported: nothing can have set them)."""
    knobs = sys.modules.get("kernellab.knobs")
    if knobs is None:
        return None, None
    return knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook


_torch_intercept: Callable[[JITFunction, Any], Any] | None = None
_torch_eager_when: tuple[tuple, tuple] | None = None
_SERIALS = itertools.count()

# Triton's name for the table of dtype spellings -> signature spellings (``float32`` -> ``fp32``).
type_canonicalisation_dict = CANONICAL_SPELLINGS
_BY_SERIAL: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def register_serial(kernel: Any) -> int:
    """A number naming ``kernel`` (a JITFunction, Autotuner or Heuristics) in this process."""
    serial = next(_SERIALS)
    _BY_SERIAL[serial] = kernel
    return serial


def by_serial(serial: int) -> Any:
    """The live kernel whose ``.serial`` this is."""
    return _BY_SERIAL[serial]


def set_torch_intercept(intercept: Callable[[JITFunction, Any], Any] | None,
                        eager_when: tuple[tuple, tuple] | None = None) -> None:
    """``kernellab.torch``'s hook: ``kernel[grid]`` asks ``intercept(kernel, grid)`` first and
    uses what it returns unless ``None``.  ``__getitem__`` then stays a Python function (the
    native C method is not installed, or is removed), so TorchDynamo can trace it; ``None``
    removes the hook (and lets the C method back).  ``eager_when``: ``(entries, lists)``, when
    the intercept returns ``None`` exactly while ``mapping[key] is expected`` for each entry and
    each list is empty: then the class's subscript slot asks that natively
    (``runtime/native/subscript.py``)."""
    global _torch_intercept, _torch_eager_when
    _torch_intercept = intercept
    _torch_eager_when = eager_when if intercept is not None else None
    fastpath = sys.modules.get("kernellab.runtime.native.fastpath")
    if fastpath is not None:
        fastpath.intercept_changed(JITFunction)


def torch_intercept() -> Callable[[JITFunction, Any], Any] | None:
    return _torch_intercept


def torch_eager_when() -> tuple[tuple, tuple] | None:
    return _torch_eager_when


def jit(fn: Callable | None = None, *, version: Any = None, repr: Callable | None = None,
        launch_metadata: Callable | None = None, do_not_specialize: Iterable[int | str] | None = None,
        do_not_specialize_on_alignment: Iterable[int | str] | None = None, debug: bool | None = None,
        noinline: bool | None = None) -> Any:
    """Make ``fn`` a kernel: ``@jit`` or ``@jit(do_not_specialize=["n"], ...)``."""
    options = dict(version=version, repr=repr, launch_metadata=launch_metadata, do_not_specialize=do_not_specialize,
                   do_not_specialize_on_alignment=do_not_specialize_on_alignment, debug=debug, noinline=noinline)
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)


class _MarkedConstexprFunction(type):
    def __instancecheck__(cls, value: Any) -> bool:
        return is_constexpr_function(value)


class ConstexprFunction(metaclass=_MarkedConstexprFunction):
    """Triton's class of ``@constexpr_function`` objects, for ``isinstance`` checks (torch
    inductor's): kernellab's decorator marks the function itself, which gives ``fn`` and ``src``
    as Triton's objects do; every marked function is an instance."""


__all__ = ["jit", "JITFunction", "KernelInterface", "KernelParam", "compile_specialization", "TensorWrapper",
           "reinterpret", "type_canonicalisation_dict", "ConstexprFunction"]
