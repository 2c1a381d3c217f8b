"""What the magic, the tuning widget, the A/B view and the sweeps share: compiling a kernel for
example arguments on a chosen target, launching it there, timing it and checking its output.

A kernel's arguments are given by name (:func:`named_arguments`); they are specialized by the
runtime's own rules (``runtime.specialize``: dtypes, 16-byte alignment, ints equal to 1), so a
report shows the code a launch with those arguments runs.  Host numpy arrays passed to a CUDA
target are copied to the device for the launch and back afterwards.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import Any

from .. import config
from ..runtime.specialize import Specialization, from_arguments

QUANTILES = (0.5, 0.2, 0.8)
OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg", "debug", "ir_override")


def base_kernel(kernel: Any) -> Any:
    """The JITFunction under autotune/heuristics wrappers."""
    from ..runtime.autotuning.compile import base_jit

    return base_jit(kernel)


def named_arguments(kernel: Any, args: Any) -> dict[str, Any]:
    """``args`` (a sequence in parameter order, all of them or the leading ones, or a dict by
    name) as a dict by parameter name."""
    jit = base_kernel(kernel)
    if isinstance(args, dict):
        unknown = [name for name in args if name not in jit.arg_names]
        if unknown:
            raise TypeError(f"`{jit.__name__}` has no parameter {', '.join(map(repr, unknown))}; its parameters are "
                            f"{', '.join(jit.arg_names)}")
        return dict(args)
    values = list(args)
    if len(values) > len(jit.arg_names):
        raise TypeError(f"`{jit.__name__}` takes {len(jit.arg_names)} arguments ({', '.join(jit.arg_names)}); "
                        f"got {len(values)}")
    return dict(zip(jit.arg_names, values))


def split_options(kernel: Any, settings: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``settings`` split into (kernel parameters such as constexprs, compile options)."""
    jit = base_kernel(kernel)
    params = {name: value for name, value in settings.items() if name in jit.arg_names}
    options = {name: value for name, value in settings.items() if name not in jit.arg_names}
    unknown = [name for name in options if name not in OPTION_NAMES]
    if unknown:
        raise TypeError(f"{', '.join(map(repr, unknown))} is neither a parameter of `{jit.__name__}` "
                        f"({', '.join(jit.arg_names)}) nor a compile option ({', '.join(OPTION_NAMES)})")
    return params, options


def wrapper_settings(kernel: Any, named: dict[str, Any] | None, has_config: bool) -> tuple[dict[str, Any], list[str]]:
    """Meta-parameters the autotune/heuristics wrappers around a kernel add: an autotuner's first
    config (unless the caller chose a config), heuristics' values (given the arguments)."""
    settings: dict[str, Any] = {}
    notes = []
    layer = kernel
    while not getattr(layer, "__kernellab_jit__", False):
        configs = getattr(layer, "configs", None)
        if configs and not has_config:
            settings.update(configs[0].all_kwargs())
            notes.append(f"autotuned over {len(configs)} configs: showing the first ({configs[0]})")
        values = getattr(layer, "values", None)
        if isinstance(values, dict) and named is not None:
            for name, heuristic in values.items():
                settings[name] = heuristic({**named, **settings})
        layer = layer.fn
    return settings, notes


# ---------------------------------------------------------------------------------------------
# Specialization and compiling
# ---------------------------------------------------------------------------------------------

def specialize(kernel: Any, named: dict[str, Any]) -> Specialization:
    """The specialization of ``kernel`` for these arguments: the runtime's own path
    (``runtime.specialize.from_arguments``), as a launch computes it."""
    return from_arguments(base_kernel(kernel), named)


def choose_target(kernel: Any, spec: Specialization, requested: str | None) -> str:
    """``requested``, else the environment's forced target, else where the arguments live."""
    from ..runtime.targets import select_target

    if requested:
        return requested
    return select_target(config.forced_target(), spec.pointers, base_kernel(kernel).__name__)


def compile_for(kernel: Any, spec: Specialization, target: str, options: dict[str, Any]) -> Any:
    """Compile (through the runtime's caches) one specialization for ``target``."""
    from ..runtime.jit import compile_specialization

    return compile_specialization(base_kernel(kernel), spec, target, dict(options))


# ---------------------------------------------------------------------------------------------
# Launching, timing, checking
# ---------------------------------------------------------------------------------------------

def is_cuda(target: str) -> bool:
    """Whether ``target`` launches on a GPU (its backend's capabilities)."""
    from .. import backends

    return backends.capabilities(target).gpu


def _holds_host_array(value: Any) -> bool:
    import numpy as np

    if isinstance(value, tuple):
        return any(_holds_host_array(v) for v in value)
    return isinstance(value, np.ndarray)


def _to_device(value: Any, backend: Any, copies: list[tuple[Any, Any]]) -> Any:
    """``value`` with its host arrays (those of a tuple argument too) copied to the device;
    ``copies`` gets each (host, device) pair."""
    from ..language.core import same_structure

    if isinstance(value, tuple):
        return same_structure(value, [_to_device(v, backend, copies) for v in value])
    if not _holds_host_array(value):
        return value
    device = backend.to_device(value)
    copies.append((value, device))
    return device


@contextlib.contextmanager
def placed(named: dict[str, Any], target: str) -> Iterator[dict[str, Any]]:
    """The arguments with host numpy arrays (in tuple arguments too) copied to the device for a
    target that does not launch host memory (``backend.to_device``; copied back when the block
    ends); unchanged otherwise."""
    from .. import backends

    if backends.capabilities(target).launches_host_arrays or not any(_holds_host_array(v) for v in named.values()):
        yield named
        return
    backend = backends.get(target)
    copies: list[tuple[Any, Any]] = []
    moved = {name: _to_device(value, backend, copies) for name, value in named.items()}
    try:
        yield moved
    finally:
        for host, device in copies:
            host[...] = device.numpy()


def resolve_grid(grid: Any, named: dict[str, Any], spec: Specialization, options: dict[str, Any]) -> tuple:
    """A launch grid: a tuple, an int, or a function of the launch's named arguments (``meta``)."""
    from ..runtime.compiled import grid3

    if callable(grid):
        grid = grid({**named, **spec.constexprs, **options})
    if isinstance(grid, int):
        return (grid,)
    grid3(grid)             # a LaunchError naming what is wrong: not a tuple, not ints, too many dimensions
    return tuple(grid)


def launch(compiled: Any, grid: tuple, named: dict[str, Any]) -> None:
    """One launch of ``compiled`` with the kernel's arguments by name."""
    args = [named.get(name) for name in compiled.metadata["arg_names"]]
    compiled.launch(grid, *args)


def bench(compiled: Any, grid: tuple, named: dict[str, Any], warmup: float = 25, rep: float = 100) -> list[float]:
    """Median, 20th and 80th percentile time of a launch, in ms (``do_bench``)."""
    from ..runtime.autotuning.timing import do_bench

    device = compiled.target  # do_bench times on its backend's clock
    args = [named.get(name) for name in compiled.metadata["arg_names"]]
    times = do_bench(lambda: compiled.launch(grid, *args), warmup=warmup, rep=rep, quantiles=list(QUANTILES),
                     device=device)
    return [float(t) for t in times]


def array_bytes(named: dict[str, Any]) -> int:
    """Bytes of every array argument (each read or written once: a memory-bound kernel's traffic)."""
    return sum(int(getattr(v, "nbytes", 0)) for v in named.values() if hasattr(v, "nbytes") and hasattr(v, "dtype"))


def throughput(ms: float, bytes_moved: int | None = None, flops: float | None = None) -> dict[str, float]:
    """GB/s and/or TFLOP/s of a run that took ``ms``."""
    found: dict[str, float] = {}
    if not ms or not math.isfinite(ms):
        return found
    if bytes_moved:
        found["GB/s"] = bytes_moved / (ms * 1e-3) / 1e9
    if flops:
        found["TFLOP/s"] = flops / (ms * 1e-3) / 1e12
    return found


def check_close(actual: Any, expected: Any, atol: float | None = None, rtol: float | None = None) -> str | None:
    """``None`` when ``actual`` matches ``expected`` (``assert_close``), else why not."""
    from ..testing.compare import assert_close

    try:
        assert_close(actual, expected, atol=atol, rtol=rtol)
    except AssertionError as error:
        return str(error).strip() or "outputs differ"
    return None


def poison(value: Any) -> None:
    """Fill a float output with NaN before a run (so a kernel that skips elements is caught):
    numpy arrays, and kernellab's device arrays (all bits set: a NaN)."""
    import numpy as np

    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        value[...] = np.nan
    elif callable(getattr(value, "fill_bytes", None)) and np.dtype(value.dtype).kind == "f":
        value.fill_bytes(0xFF)


def last_array(named: dict[str, Any], names: Sequence[str]) -> str:
    """The name of the last array argument (the usual output)."""
    arrays = [name for name in names if hasattr(named.get(name), "dtype") and hasattr(named.get(name), "nbytes")]
    if not arrays:
        raise ValueError("no array argument to check: name the output (out=<reference>)")
    return arrays[-1]


def describe_ms(ms: float) -> str:
    return f"{ms * 1e3:.1f} µs" if ms < 1 else f"{ms:.3f} ms"


__all__ = ["base_kernel", "named_arguments", "split_options", "Specialization", "specialize", "choose_target",
           "compile_for", "placed", "resolve_grid", "launch", "bench", "array_bytes", "throughput", "check_close",
           "poison", "last_array", "wrapper_settings", "is_cuda", "describe_ms", "QUANTILES", "OPTION_NAMES"]
