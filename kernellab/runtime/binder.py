"""The launch path, generated once per kernel.

``kernel[grid](*args, **kw)`` calls a function generated (``exec``) from the kernel's exact
parameter list, so Python itself binds positional and keyword arguments and defaults; no
``inspect`` runs per call.  For ``add(x_ptr, y_ptr, n, BLOCK: tl.constexpr)`` it reads::

    def _kl_binder(_kl_grid, x_ptr=_kl_missing, y_ptr=_kl_missing, n=_kl_missing, BLOCK=_kl_missing,
                   *_kl_extra, num_warps=None, num_stages=None, num_ctas=None, maxnreg=None, stream=None,
                   warmup=False, **_kl_unknown):
        if _kl_unknown or _kl_extra:
            _kl_options = _kl_unusual_call(_kl_extra, _kl_unknown)
            if _kl_options:  # debug=, enable_fp_fusion=, launch_cooperative_grid=, launch_pdl=
                return _kl_variant(**_kl_options)(_kl_grid, x_ptr, y_ptr, n, BLOCK, num_warps=num_warps, ...)
        _kl_k0, _kl_v0 = _kl_S[_kl_type(x_ptr)](x_ptr)        # specialization key, launch value
        _kl_k1, _kl_v1 = _kl_S[_kl_type(y_ptr)](y_ptr)
        _kl_k2, _kl_v2 = _kl_S[_kl_type(n)](n)
        _kl_key = (_kl_k0, _kl_k1, _kl_k2, BLOCK, _kl_type(BLOCK), num_warps, num_stages, num_ctas, maxnreg,
                   _kl_forced())
        _kl_kernel = _kl_cache_get(_kl_key)
        if _kl_kernel is None:
            _kl_kernel = _kl_miss(_kl_key, (x_ptr, y_ptr, n), (BLOCK,), num_warps, num_stages, num_ctas, maxnreg,
                                  ir_override, warmup)
            if _kl_kernel is None:  # knobs.runtime.jit_cache_hook said it compiles it
                return None
        if warmup:
            return _kl_kernel
        if _kl_type(_kl_grid) is not _kl_tuple:
            _kl_grid = _kl_resolve_grid(_kl_grid, {'x_ptr': x_ptr, 'y_ptr': y_ptr, 'n': n, 'BLOCK': BLOCK}, _kl_kernel)
        _kl_kernel._run(_kl_grid, (_kl_v0, _kl_v1, _kl_v2), (x_ptr, y_ptr, n), stream)
        if _kl_native is not None:
            _kl_native(_kl_key, _kl_kernel, (x_ptr, y_ptr, n, BLOCK), (num_warps, num_stages, num_ctas, maxnreg,
                       ir_override), stream)
        return _kl_kernel

Every parameter has a default (``_kl_missing`` for required ones) and extra positional
arguments land in ``_kl_extra``, so Python never rejects a call: a missing argument makes a
key no launch ever stored, and the miss path names it; too many or unknown arguments are
reported by ``_kl_unusual_call``.  Triton's per-launch compile options (:data:`VARIANT_OPTIONS`) also
arrive in ``_kl_unknown``, so the common launch pays no test for them: ``_kl_unusual_call`` returns
those given (not None), and the launch runs the kernel's variant compiled with them.

The key's layout (one entry per non-constexpr parameter, then value and type of each constexpr
parameter, the four compile options, and the forced target) is what :class:`KeyLayout` reads
back on a miss.  Kernels that read non-constexpr globals get one more line that checks them.

``_kl_native`` (a global of the binder, ``None`` when the native launch path is off) is told of
every launch the binder makes, so that it can put a native launch function for that
specialization in front of the binder (``runtime.native.fastpath``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import config
from ..backends.options import AMD_TUNING_OPTIONS
from ..codecache import compile_cached
from ..errors import KernelArgumentError, LaunchError, user_errors, without_frames
from . import specialize
from .compiled import resolve_grid

COMPILE_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "ir_override")
# A launch that gives one of VARIANT_OPTIONS runs the kernel's variant compiled so (``_kl_variant``).
VARIANT_OPTIONS = ("debug", "enable_fp_fusion", "launch_cooperative_grid", "launch_pdl")
# Triton's AMD tuning options make a variant too: its target accepts or refuses them (backends/options.py)
TUNING_HINTS = tuple(AMD_TUNING_OPTIONS)
LAUNCH_KEYWORDS = (*COMPILE_OPTIONS, "stream", "warmup", *VARIANT_OPTIONS)
PREFIX = "_kl_"

_TABLE_NAMES = {id(specialize.FULL): "_kl_S", id(specialize.NO_ALIGN): "_kl_A", id(specialize.NO_SPEC): "_kl_N"}


@dataclass(frozen=True)
class KeyLayout:
    """Where things sit in a binder's cache key."""

    value_count: int
    constexpr_count: int

    def arg_keys(self, key: tuple) -> tuple:
        return key[:self.value_count]

    def forced_target(self, key: tuple) -> str | None:
        return key[-1]


def _tuple(items: list[str]) -> str:
    if len(items) == 1:
        return f"({items[0]},)"
    return f"({', '.join(items)})"


def binder_source(name: str, params: list[Any], check_globals: bool, hooked: bool = False) -> str:
    """The Python source of the binder for ``params`` (``KernelParam`` objects); ``hooked``: one
    whose launches go through ``_kl_launch_hooked`` (Triton's launch hooks are set), with no
    native launch path."""
    names = [p.name for p in params]
    header = ["_kl_grid"] + [f"{p.name}=_kl_default_{p.num}" if p.has_default else f"{p.name}=_kl_missing"
                             for p in params]
    keywords = [f"{k}={'False' if k == 'warmup' else 'None'}" for k in LAUNCH_KEYWORDS
                if k not in names and k not in VARIANT_OPTIONS]  # those arrive in **_kl_unknown
    signature = ", ".join(header + ["*_kl_extra"] + keywords + ["**_kl_unknown"])
    values = [p for p in params if not p.is_constexpr]
    constants = [p for p in params if p.is_constexpr]
    lines = [f"def _kl_binder({signature}):",
             "  try:",  # the body is indented one more level below (see the end of this function)
             "    if _kl_unknown or _kl_extra:",
             "        _kl_options = _kl_unusual_call(_kl_extra, _kl_unknown)"]  # raises unless variant options
    forwarded = ", ".join(["_kl_grid", *names, *(f"{k}={k}" for k in LAUNCH_KEYWORDS if k not in names
                                                  and k not in VARIANT_OPTIONS)])
    lines += ["        if _kl_options:",  # Triton's per-launch compile options: the variant compiled with them
              f"            return _kl_variant(**_kl_options)({forwarded})"]
    if check_globals:
        lines.append("    _kl_check_globals()")
    for i, p in enumerate(values):
        table = _TABLE_NAMES[id(specialize.table_for(p.do_not_specialize, p.do_not_specialize_on_alignment))]
        lines.append(f"    _kl_k{i}, _kl_v{i} = {table}[_kl_type({p.name})]({p.name})")
    key = ([f"_kl_k{i}" for i in range(len(values))]
           + [part for p in constants for part in (p.name, f"_kl_type({p.name})")]
           + list(COMPILE_OPTIONS) + ["_kl_forced()"])
    value_args = _tuple([p.name for p in values]) if values else "()"
    constant_args = _tuple([p.name for p in constants]) if constants else "()"
    meta = "{" + ", ".join(f"{n!r}: {n}" for n in names) + "}"
    launch_values = _tuple([f"_kl_v{i}" for i in range(len(values))]) if values else "()"
    lines += [
        f"    _kl_key = {_tuple(key)}",
        "    _kl_kernel = _kl_cache_get(_kl_key)",
        "    if _kl_kernel is None:",
        f"        _kl_kernel = _kl_miss(_kl_key, {value_args}, {constant_args}, {', '.join(COMPILE_OPTIONS)}, warmup)",
        "        if _kl_kernel is None:",  # Triton's jit_cache_hook took the compilation over
        "            return None",
        "    if warmup:",
        "        return _kl_kernel",
        "    if _kl_type(_kl_grid) is not _kl_tuple:",
        f"        _kl_grid = _kl_resolve_grid(_kl_grid, {meta}, _kl_kernel)",
    ]
    if hooked:
        lines.append(f"    _kl_launch_hooked(_kl_kernel, _kl_grid, {launch_values}, {value_args}, stream, {meta})")
    else:
        lines += [
            f"    _kl_kernel._run(_kl_grid, {launch_values}, {value_args}, stream)",
            "    if _kl_native is not None:",
            f"        _kl_native(_kl_key, _kl_kernel, {_tuple(names) if names else '()'}, "
            f"({', '.join(COMPILE_OPTIONS)}), stream)"]
    lines += [
        "    return _kl_kernel",
        # A mistake in the user's kernel or launch: re-raised from here, without kernellab's own
        # frames below (the message already points at the kernel's line).
        "  except _kl_user_errors as _kl_error:",
        "    raise _kl_without_frames(_kl_named(_kl_error)) from _kl_error.__cause__",
    ]
    if constants:  # a constexpr value that cannot be a cache key (an array...) is named
        lines += ["  except TypeError:",
                  f"    _kl_check_hashable({_tuple([repr(p.name) for p in constants])}, {constant_args})",
                  "    raise"]
    return "\n".join(lines) + "\n"


def name_the_kernel(name: str, error: BaseException) -> BaseException:
    """``error`` with a launch error's message prefixed by the kernel's name, unless it names it
    (a launch error raised below the binder — a bad grid, an array of an unsupported dtype —
    does not know which kernel was launched)."""
    if isinstance(error, LaunchError) and error.args and isinstance(error.args[0], str) and \
            f"`{name}`" not in error.args[0]:
        error.args = (f"`{name}`: {error.args[0]}",) + error.args[1:]
    return error


def check_hashable(name: str, names: tuple[str, ...], values: tuple) -> None:
    """Raise a KernelArgumentError naming the constexpr parameter whose value is unhashable (it
    is compiled in, so it must be a compile-time value: an array, or a tuple holding one, is not)."""
    for param, value in zip(names, values):
        try:
            hash(value)
        except TypeError:
            raise KernelArgumentError(
                f"`{name}`: the constexpr parameter `{param}` got a value of type {type(value).__name__}, which "
                "cannot be compiled in (not hashable: an array, or a tuple holding one); pass arrays to parameters "
                "that are not tl.constexpr") from None


class Missing:
    """The default of a parameter the caller did not pass (the miss path reports it)."""

    def __repr__(self) -> str:
        return "<missing argument>"


MISSING = Missing()


def make_binder(name: str, params: list[Any], cache: dict, miss: Callable, unusual_call: Callable,
                check_globals: Callable | None, variant: Callable | None = None, hooked: Callable | None = None
                ) -> tuple[Callable, KeyLayout, str]:
    """Generate the binder; returns ``(binder, layout, source)``.  ``unusual_call(extra, unknown)``
    gets a call's extra positional and unknown keyword arguments: it returns the per-launch compile
    options among them or raises.  ``variant(**options)`` gives
    the binder of the kernel compiled with those of :data:`VARIANT_OPTIONS` a launch gave;
    ``hooked(kernel, grid, values, args, stream, arguments)``, when given, makes each launch
    (``launch_hooks.launch``: Triton's launch hooks around it)."""
    for p in params:
        if p.name.startswith(PREFIX):
            raise TypeError(f"parameter `{p.name}`: names starting with {PREFIX!r} are reserved by kernellab")
    source = binder_source(name, params, check_globals is not None, hooked is not None)
    namespace: dict[str, Any] = {
        "_kl_type": type, "_kl_tuple": tuple, "_kl_S": specialize.FULL, "_kl_A": specialize.NO_ALIGN,
        "_kl_N": specialize.NO_SPEC, "_kl_cache_get": cache.get, "_kl_miss": miss,
        "_kl_unusual_call": unusual_call, "_kl_check_globals": check_globals, "_kl_missing": MISSING,
        "_kl_forced": config.forced_target, "_kl_resolve_grid": resolve_grid, "_kl_native": None,
        "_kl_user_errors": user_errors(config.full_tracebacks()),
        "_kl_named": functools.partial(name_the_kernel, name),
        "_kl_without_frames": without_frames,
        "_kl_check_hashable": functools.partial(check_hashable, name), "_kl_variant": variant,
        "_kl_launch_hooked": hooked,
    }
    namespace.update({f"_kl_default_{p.num}": p.default for p in params if p.has_default})
    code = compile_cached(source, f"<kernellab binder for {name}>")
    exec(code, namespace)  # noqa: S102 - generated from the parameter list only
    layout = KeyLayout(sum(not p.is_constexpr for p in params), sum(p.is_constexpr for p in params))
    binder = namespace["_kl_binder"]
    binder.__qualname__ = binder.__name__ = f"{name}[grid]"
    return binder, layout, source


__all__ = ["make_binder", "binder_source", "KeyLayout", "LAUNCH_KEYWORDS", "COMPILE_OPTIONS", "VARIANT_OPTIONS",
           "TUNING_HINTS"]
