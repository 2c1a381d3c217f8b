"""``kernel[grid](...)`` inside ``torch.compile``, ``torch.export`` and fake-tensor tracing.

While torch traces (``torch.compiler.is_compiling()``, or a kernellab op's fake run),
``kernel[grid]`` returns :func:`traced_launch` bound to the kernel and grid instead of the
launch chain.  It is plain Python that TorchDynamo inlines: it binds the arguments by the
kernel's parameter list, evaluates a callable grid on them, and calls one torch op,

    kernellab::launch(str call, SymInt[] grid, Tensor(a!)[] written, Tensor[] read,
                      SymInt[] ints, float[] floats) -> ()

``call`` names the registered call shape (``calls.py``); ``written`` holds the tensors the
kernel's Tile IR writes and ``read`` the others, so torch knows exactly what is mutated (it
functionalizes the op and re-inplaces it).  The op's eager kernel launches the kernel with
``kernel[grid](...)`` on torch's current stream; its fake kernel does nothing.  The set-up of a
call (binding names, analysing writes) runs once per call shape, at trace time, through
``torch._dynamo.assume_constant_result``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

from ..errors import KernelArgumentError
from ..runtime import jit as jit_module
from . import checks, wrappers
from .calls import TRACED_OPTIONS, check_options, device_of, lookup, missing_argument, register_call

LIBRARY = torch.library.Library("kernellab", "FRAGMENT")
LIBRARY.define("launch(str call, SymInt[] grid, Tensor(a!)[] written, Tensor[] read, SymInt[] ints, "
               "float[] floats) -> ()")

_FAKE_RUNS: list = []  # not empty while a kernellab op runs its body on fake tensors


@contextmanager
def fake_runs() -> Iterator[None]:
    """Launches inside are ``kernellab::launch`` ops (no-ops on fake tensors)."""
    _FAKE_RUNS.append(True)
    try:
        yield
    finally:
        _FAKE_RUNS.pop()


def _profiling() -> bool:
    return torch.autograd.profiler._is_profiler_enabled


def launch_eager(call: str, grid: list, written: list, read: list, ints: list, floats: list) -> None:
    spec = lookup(call)
    args = spec.arguments(written, read, ints, floats)
    if _profiling():
        with torch.profiler.record_function(spec.kernel.__name__):
            spec.launch(grid, args)
        return
    spec.launch(grid, args)


def _launch_fake(call: str, grid: list, written: list, read: list, ints: list, floats: list) -> None:
    return None


LIBRARY.impl("launch", launch_eager, "CompositeExplicitAutograd")
torch.library.register_fake("kernellab::launch", _launch_fake, lib=LIBRARY)


# ---- the parts of a traced launch that run as plain Python at trace time ----

# Each takes the kernel's ``serial`` (an int Dynamo reads as a constant) rather than the kernel:
# torch releases before 2.13 convert only constants for assume_constant_result functions.

@torch._dynamo.assume_constant_result
def _parameters(serial: int) -> tuple:
    """``(name, is_constexpr, has_default, default, provided)`` per parameter of the kernel
    under any autotune/heuristics wrappers (``provided``: a wrapper supplies it)."""
    kernel = jit_module.by_serial(serial)
    provided = wrappers.provided(kernel)
    return tuple((p.name, p.is_constexpr, p.has_default, p.default if p.has_default else None, p.name in provided)
                 for p in wrappers.base_jit(kernel).params)


@torch._dynamo.assume_constant_result
def _traced_options() -> tuple:
    """The launch options a traced launch passes on (a constant to Dynamo: no guard per name)."""
    return TRACED_OPTIONS


@torch._dynamo.assume_constant_result
def _plain(serial: int) -> bool:
    """Whether the kernel is a plain jit kernel (no autotune or heuristics: one variant)."""
    return getattr(jit_module.by_serial(serial), "__kernellab_jit__", False)


@torch._dynamo.assume_constant_result
def _register(serial: int, kinds: tuple, constexprs: tuple, options: tuple, variants: tuple) -> tuple:
    return register_call(jit_module.by_serial(serial), kinds, constexprs, options, variants)


@torch._dynamo.assume_constant_result
def _missing(serial: int, name: str) -> None:
    raise missing_argument(jit_module.by_serial(serial), name)


@torch._dynamo.assume_constant_result
def _unknown(serial: int, names: tuple) -> None:
    wrappers.base_jit(jit_module.by_serial(serial))._bad_call((), dict.fromkeys(names))


@torch._dynamo.assume_constant_result
def _tuple_argument(serial: int, name: str) -> None:
    raise KernelArgumentError(
        f"`{jit_module.by_serial(serial).__name__}`: argument `{name}` is a tuple holding tensors or symbolic "
        "sizes, which kernellab cannot trace yet (torch.compile, torch.export, kernellab.torch ops); pass its "
        "elements as separate arguments (tuples of plain Python values are compiled in and work)")


def _holds_traced(value: Any) -> bool:
    if isinstance(value, tuple):
        return any(_holds_traced(item) for item in value)
    return isinstance(value, (torch.Tensor, torch.SymInt, torch.SymFloat, torch.SymBool))


@torch._dynamo.assume_constant_result
def _refuse(serial: int, options: tuple) -> None:
    check_options(jit_module.by_serial(serial), dict(options))


# The functions below read the kernel's serial once and pass it on: Dynamo guards on every read.

def _launch_options(serial: int, kwargs: dict) -> tuple:
    refused = tuple((k, kwargs.pop(k)) for k in ("stream", "warmup") if k in kwargs)
    if refused:
        _refuse(serial, refused)
    return tuple((k, kwargs.pop(k)) for k in _traced_options() if k in kwargs)


def _variants(kernel: Any, serial: int, bound: dict) -> list:
    return [{}] if _plain(serial) else wrappers.variants(kernel, bound)


def _bind(serial: int, args: tuple, kwargs: dict) -> dict:
    params = _parameters(serial)
    bound = {}
    for i, (name, _constexpr, has_default, default, provided) in enumerate(params):
        if i < len(args):
            bound[name] = args[i]
        elif name in kwargs:
            bound[name] = kwargs.pop(name)
        elif has_default:
            bound[name] = default
        elif not provided:
            _missing(serial, name)
    if len(args) > len(params) or kwargs:
        _unknown(serial, tuple(kwargs))
    return bound


def _classify(serial: int, bound: dict) -> tuple[list, list, list, list, list]:
    """``(kinds, constexprs, tensors, ints, floats)`` of bound arguments (``calls.CallSpec``)."""
    kinds, constexprs, tensors, ints, floats = [], [], [], [], []
    for name, is_constexpr, _has_default, _default, _provided in _parameters(serial):
        if name not in bound:  # supplied by an autotune config or a heuristic
            continue
        value = bound[name]
        if is_constexpr:  # compiled in: a symbolic size is specialized (Dynamo guards on its value)
            if isinstance(value, bool):
                value = bool(value)
            elif isinstance(value, int):
                value = int(value)
            constexprs.append((name, value))
        elif isinstance(value, tuple) and _holds_traced(value):
            _tuple_argument(serial, name)
        elif isinstance(value, torch.Tensor):
            kinds.append(("tensor", name, value.dtype, value.device.type))
            tensors.append(value)
        elif isinstance(value, bool):
            kinds.append(("bool", name))
            ints.append(int(value))
        elif isinstance(value, (int, torch.SymInt)):
            kinds.append(("int", name))
            ints.append(value)
        elif isinstance(value, (float, torch.SymFloat)):
            kinds.append(("float", name))
            floats.append(value)
        else:
            kinds.append(("const", name, value))
    return kinds, constexprs, tensors, ints, floats


def describe(kernel: Any, args: tuple, kwargs: dict) -> tuple[tuple, tuple, str, tuple]:
    """``(kinds, constexprs, device type, variants)`` of a launch's arguments (outside tracing)."""
    kwargs = dict(kwargs)
    serial = kernel.serial
    _launch_options(serial, kwargs)
    bound = _bind(serial, args, kwargs)
    kinds, constexprs, tensors, _, _ = _classify(serial, bound)
    device = device_of({t.device.type for t in tensors})
    variants = tuple(tuple(v.items()) for v in _variants(kernel, serial, bound))
    return tuple(kinds), tuple(constexprs), device, variants


def _grids(grid: Any, bound: dict, variants: list) -> list:
    """The grid for each variant, each padded to three dimensions, one flat list."""
    flat = []
    for variant in variants:
        found = grid({**bound, **variant}) if callable(grid) else grid
        found = [found] if isinstance(found, (int, torch.SymInt)) else list(found)
        flat += (found + [1, 1])[:3]
    return flat


def traced_launch(kernel: Any, grid: Any, *args: Any, **kwargs: Any) -> None:
    """``kernel[grid](*args, **kwargs)`` as one ``kernellab::launch`` op (see the module doc)."""
    serial = kernel.serial
    options = _launch_options(serial, kwargs)
    bound = _bind(serial, args, kwargs)
    kinds, constexprs, tensors, ints, floats = _classify(serial, bound)
    variants = _variants(kernel, serial, bound)
    call, written = _register(serial, tuple(kinds), tuple(constexprs), options,
                              tuple(tuple(v.items()) for v in variants))
    grid = _grids(grid, bound, variants)
    writes = [t for t, w in zip(tensors, written) if w]
    reads = [t for t, w in zip(tensors, written) if not w]
    if checks.WATCHES:
        _verify(kernel, kinds, written, tensors)
    torch.ops.kernellab.launch(call, grid, writes, reads, ints, floats)


def _verify(kernel: Any, kinds: list, written: tuple, tensors: list) -> None:
    names = [k[1] for k in kinds if k[0] == "tensor"]
    checks.verify_writes(kernel, [(n, t) for n, t, w in zip(names, tensors, written) if w])


def checked_launch(kernel: Any, grid: Any, *args: Any, **kwargs: Any) -> Any:
    """An eager launch inside a kernellab op whose writes are being checked (its first call)."""
    given = {k: v for k, v in kwargs.items() if k not in ("stream", "warmup")}
    serial = kernel.serial
    options = _launch_options(serial, given)
    bound = _bind(serial, args, given)
    kinds, constexprs, tensors, _, _ = _classify(serial, bound)
    variants = tuple(tuple(v.items()) for v in _variants(kernel, serial, bound))
    _, written = register_call(kernel, tuple(kinds), tuple(constexprs), options, variants)
    _verify(kernel, kinds, written, tensors)
    return wrappers.launcher(kernel, grid)(*args, **kwargs)


_is_compiling = torch.compiler.is_compiling  # one global read (Dynamo knows the function itself)


def _intercept(kernel: Any, grid: Any) -> Any:
    """What ``kernel[grid]`` is while torch traces (``None``: the ordinary launch chain)."""
    if _is_compiling() or _FAKE_RUNS:
        return functools.partial(traced_launch, kernel, grid)
    if checks.WATCHES:
        return functools.partial(checked_launch, kernel, grid)
    return None


# what torch.compiler.is_compiling() reads where it is "not scripting and the flag" (torch 2.3-2.13)
_IS_COMPILING_READS = {"torch", "jit", "is_scripting", "_is_compiling_flag"}


def _eager_when() -> tuple[tuple, tuple] | None:
    """When :func:`_intercept` returns None (for the native subscript): ``is_compiling()`` is
    ``torch.compiler._is_compiling_flag`` outside Dynamo's tracing (where the slot never runs),
    no op's writes are watched, no fake run.  None where ``is_compiling`` reads something else."""
    compiler = torch.compiler
    reads = set(getattr(getattr(compiler.is_compiling, "__code__", None), "co_names", ()))
    flag = vars(compiler).get("_is_compiling_flag")
    if "_is_compiling_flag" not in reads or not reads <= _IS_COMPILING_READS or type(flag) is not bool:
        return None
    return ((vars(compiler), "_is_compiling_flag", False),), (checks.WATCHES, _FAKE_RUNS)


def install() -> None:
    """Route ``kernel[grid]`` through :func:`_intercept` (kept in Python, so Dynamo can inline it;
    in eager code a native subscript slot asks the same questions first)."""
    jit_module.set_torch_intercept(_intercept, _eager_when())


def uninstall() -> None:
    """Undo :func:`install` (``kernel[grid]`` is the plain launch chain again, native included)."""
    jit_module.set_torch_intercept(None)


__all__ = ["install", "uninstall", "traced_launch", "launch_eager", "LIBRARY"]
