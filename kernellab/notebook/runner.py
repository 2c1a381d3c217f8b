"""One kernel tried under different settings: compiled once per specialization (cached here and
in the runtime's caches), launched, checked against a reference and timed.

The tuning widget, the A/B view and the sweeps are built on :class:`Runner`; a
:class:`Trial` is one try, and ``Trial.row()`` its line in their tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import launch
from .tutorial import bench_budget


@dataclass
class Trial:
    """What one setting of the knobs gave."""

    settings: dict[str, Any]
    compiled: Any
    cached: bool
    timings: list[float] = field(default_factory=lambda: [math.nan] * 3)  # median, p20, p80 (ms)
    check: str | None = None            # "ok", or why the output differs; None when not checked
    rates: dict[str, float] = field(default_factory=dict)   # GB/s, TFLOP/s

    @property
    def ms(self) -> float:
        return self.timings[0]

    @property
    def ok(self) -> bool:
        return self.check in (None, "ok")

    def measurements(self) -> dict[str, Any]:
        meta = self.compiled.metadata
        return {"ms": self.timings[0], "ms_p20": self.timings[1], "ms_p80": self.timings[2], **self.rates,
                "check": self.check, "cached": self.cached,
                "compile_s": (meta.get("compile_seconds") or {}).get("total"),
                "registers": meta.get("registers"), "spills": meta.get("spills")}

    def row(self) -> dict[str, Any]:
        """The settings and the measurements (a line of a results table)."""
        return {**self.settings, **self.measurements()}


Reference = Callable[..., Any] | Any


class Runner:
    """Compile, run, check and time ``kernel`` (a jit kernel, or one under autotune/heuristics)."""

    def __init__(self, kernel: Any, grid: Any, target: str | None = None, warmup: float | None = None,
                 rep: float | None = None):
        self.kernel = kernel
        self.jit = launch.base_kernel(kernel)
        self.grid = grid
        self.target = target
        budget = bench_budget()
        self.warmup = budget["warmup"] if warmup is None else warmup
        self.rep = budget["rep"] if rep is None else rep
        self.compiled: dict[str, Any] = {}

    def _prepare(self, args: Any, settings: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any],
                                                                      launch.Specialization, str]:
        params, options = launch.split_options(self.kernel, settings)
        named = {**launch.named_arguments(self.kernel, args), **params}
        extra, _ = launch.wrapper_settings(self.kernel, named, has_config=True)
        named = {**extra, **named}
        spec = launch.specialize(self.kernel, named)
        return named, options, spec, launch.choose_target(self.kernel, spec, self.target)

    def compile(self, args: Any, settings: dict[str, Any]) -> tuple[Any, bool]:
        """(the CompiledKernel for these arguments and settings, whether it was cached here)."""
        named, options, spec, target = self._prepare(args, settings)
        return self._compiled(spec, target, options)

    def _compiled(self, spec: launch.Specialization, target: str, options: dict[str, Any]) -> tuple[Any, bool]:
        import json

        key = json.dumps([spec.key(), target, options], sort_keys=True, default=str)
        found = self.compiled.get(key)
        if found is not None:
            return found, True
        compiled = self.compiled[key] = launch.compile_for(self.kernel, spec, target, options)
        return compiled, False

    def trial(self, args: Any, settings: dict[str, Any], *, bench: bool = True, reference: Reference = None,
              output: str | None = None, bytes_moved: int | Callable[..., int] | None = None,
              flops: float | Callable[..., float] | None = None) -> Trial:
        """Compile (cached), launch once (output poisoned with NaN first when checked), compare
        with ``reference`` (an array, or a function of the arguments as given), then time it."""
        named, options, spec, target = self._prepare(args, settings)
        compiled, cached = self._compiled(spec, target, options)
        trial = Trial(dict(settings), compiled, cached)
        grid = launch.resolve_grid(self.grid, named, spec, options)
        out = None
        if reference is not None:
            out = output or launch.last_array(named, self.jit.arg_names)
        with launch.placed(named, target) as placed:
            if out is not None:
                launch.poison(placed[out])
            launch.launch(compiled, grid, placed)
            if bench:
                trial.timings = launch.bench(compiled, grid, placed, warmup=self.warmup, rep=self.rep)
        if out is not None:
            trial.check = launch.check_close(named[out], expected_value(reference, args)) or "ok"
        meta = {**named, **options}
        moved = bytes_moved(meta) if callable(bytes_moved) else bytes_moved
        work = flops(meta) if callable(flops) else flops
        trial.rates = launch.throughput(trial.ms, moved if moved is not None else launch.array_bytes(named), work)
        return trial


def expected_value(reference: Reference, args: Any) -> Any:
    """``reference`` itself, or called with the arguments as they were given."""
    if not callable(reference):
        return reference
    return reference(**args) if isinstance(args, dict) else reference(*args)


__all__ = ["Runner", "Trial", "expected_value"]
