"""Live sweeps: configs x sizes, plotted and tabulated as each result arrives.

Two sources, as Triton users know them:

* ``sweep(kernel, sizes, make_args, configs=..., grid=...)``: ``kernel`` is a jit kernel (then
  ``configs`` lists ``kl.Config`` objects or dicts of settings) or an ``@autotune`` kernel (its
  own configs by default).  Every config is compiled (once per specialization), run, checked
  when a ``reference`` is given (a function of the arguments, as ``make_args`` returns them),
  and timed on ``make_args(size)`` for every size.  The results
  are the autotuner's table (``runtime.autotuning.results``: one row per config and size, with
  ``ms``, its 20th/80th percentiles, compile time and failure) plus the size and the metric.
* ``sweep_benchmark(mark)``: a ``@perf_report(Benchmark(...))`` function, measured point by
  point; the results are the DataFrame ``Mark.run(return_df=True)`` gives.

Either draws a ``LivePlot`` (``live.py``) while it runs and ends with its perf_report-style
chart (``.chart``: interactive in the notebook, with a static fallback; ``.figure`` is the
matplotlib picture) and DataFrame (``.results``).  A live run has already shown its chart, so
the object itself then displays as one line of text (nothing is shown twice).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..runtime.autotuning.config import Config
from ..runtime.autotuning.results import SweepRecord, results_frame
from ..testing.chart import Chart
from . import launch
from .live import LivePlot
from .runner import Reference, Runner

METRICS = ("ms", "GB/s", "TFLOP/s")


def _as_config(kernel: Any, item: Any) -> Config:
    if isinstance(item, Config):
        return item
    if not isinstance(item, dict):
        raise TypeError(f"sweep's configs are kl.Config objects or dicts of settings, got {item!r}")
    params, options = launch.split_options(kernel, item)
    return Config(params, **{k: v for k, v in options.items() if k in ("num_warps", "num_stages", "num_ctas",
                                                                         "maxnreg")})


def _label(config: Config) -> str:
    parts = [f"{k}={v}" for k, v in config.kwargs.items()]
    parts += [f"warps={config.num_warps}", f"stages={config.num_stages}"]
    return ", ".join(parts)


def _metric(trial_rates: dict[str, float], timings: list[float], metric: str) -> tuple[float, float, float]:
    """(value, low, high) of the metric; a rate's band comes from the slow and fast times."""
    ms, p20, p80 = timings
    if metric == "ms":
        return ms, p20, p80
    rate = trial_rates.get(metric)
    if rate is None or not math.isfinite(ms):
        return math.nan, math.nan, math.nan
    return rate, rate * ms / p80, rate * ms / p20


class Sweep:
    """Configs x sizes of one kernel (see the module docstring)."""

    def __init__(self, kernel: Any, sizes: Sequence[Any], make_args: Callable[[Any], Any], *,
                 configs: Sequence[Any] | None = None, grid: Any = (1,), size_name: str = "size",
                 metric: str = "ms", bytes_moved: Callable[..., int] | int | None = None,
                 flops: Callable[..., float] | float | None = None, reference: Reference = None,
                 target: str | None = None, warmup: float | None = None, rep: float | None = None,
                 live: bool | None = None, x_log: bool = True):
        if metric not in METRICS:
            raise ValueError(f"sweep's metric is one of {', '.join(METRICS)}, got {metric!r}")
        self.kernel = kernel
        self.sizes = list(sizes)
        self.make_args = make_args
        chosen = configs if configs is not None else getattr(kernel, "configs", None) or [{}]
        self.configs = [_as_config(kernel, item) for item in chosen]
        self.metric, self.size_name = metric, size_name
        self.bytes_moved, self.flops, self.reference = bytes_moved, flops, reference
        self.runner = Runner(kernel, grid, target, warmup, rep)
        self.records: list[SweepRecord] = []
        self.rates: list[dict[str, float]] = []   # GB/s, TFLOP/s of each record
        self.plot = LivePlot(launch.base_kernel(kernel).__name__, size_name, metric,
                             len(self.sizes) * len(self.configs), x_log=x_log, live=live)

    def run(self) -> Sweep:
        self.plot.show()
        name = launch.base_kernel(self.kernel).__name__
        try:
            for size in self.sizes:
                for config in self.configs:
                    record = SweepRecord(name, (size,), config)
                    self.rates.append(self._measure(record, size))
                    self.records.append(record)
        finally:                   # an interrupted sweep still leaves its chart, not a dead widget
            self.plot.finish()
        self._mark_best()
        return self

    def _measure(self, record: SweepRecord, size: Any) -> dict[str, float]:
        args = self.make_args(size)
        try:
            trial = self.runner.trial(args, record.config.all_kwargs(), reference=self.reference,
                                      bytes_moved=self.bytes_moved, flops=self.flops)
        except Exception as error:  # one config failing (resources, a compile error) must not stop the sweep
            record.failure = f"{type(error).__name__}: {error}"
            self.plot.add(_label(record.config), size, math.nan)
            return {}
        record.timings = list(trial.timings)
        record.compile_s = (trial.compiled.metadata.get("compile_seconds") or {}).get("total")
        record.failure = None if trial.ok else f"check: {trial.check}"
        value, low, high = _metric(trial.rates, trial.timings, self.metric)
        self.plot.add(_label(record.config), size, value, low, high)
        return trial.rates

    def _mark_best(self) -> None:
        by_size: dict[Any, list[SweepRecord]] = {}
        for record in self.records:
            if record.failure is None:
                by_size.setdefault(record.key, []).append(record)
        for records in by_size.values():
            min(records, key=lambda r: r.timings[0]).best = True

    @property
    def results(self) -> Any:
        """The autotuner's table of every (config, size), with the size and the metric."""
        frame = results_frame(self.records)
        frame.insert(2, self.size_name, [record.key[0] for record in self.records])
        if self.metric != "ms":
            frame[self.metric] = [rates.get(self.metric, math.nan) for rates in self.rates]
        return frame

    @property
    def figure(self) -> Any:
        return self.plot.figure()

    @property
    def chart(self) -> Chart:
        return self.plot.chart

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundle(self.plot, repr(self))

    def __repr__(self) -> str:
        failed = sum(record.failure is not None for record in self.records)
        failures = f", {failed} failed (.results' failure column says why)" if failed else ""
        return f"<Sweep of {launch.base_kernel(self.kernel).__name__}: {len(self.configs)} configs x " \
               f"{len(self.sizes)} sizes, {len(self.records) - failed} measured{failures}>"


def _bundle(plot: LivePlot, text: str) -> dict[str, Any]:
    """The chart (with its static fallback), or one line when the live view already showed it."""
    if plot.shown:
        return {"text/plain": f"{text} (its chart is shown above; .results is the table)"}
    return {**plot.bundle(), "text/plain": text}


def sweep(kernel: Any, sizes: Sequence[Any], make_args: Callable[[Any], Any], **options: Any) -> Sweep:
    """Measure ``kernel`` for every config and size, drawing as it goes; see :class:`Sweep`."""
    return Sweep(kernel, sizes, make_args, **options).run()


# ---------------------------------------------------------------------------------------------
# perf_report benchmarks
# ---------------------------------------------------------------------------------------------

class BenchmarkSweep:
    """A ``perf_report`` function measured point by point (``Mark``'s DataFrame at the end)."""

    def __init__(self, mark: Any, live: bool | None = None, **kwargs: Any):
        benchmarks = mark.benchmarks
        self.bench = benchmarks if not isinstance(benchmarks, (list, tuple)) else benchmarks[0]
        self.mark = mark
        self.kwargs = kwargs
        bench = self.bench
        total = len(bench.x_vals) * len(bench.line_vals)
        self.plot = LivePlot(bench.plot_name, bench.xlabel or bench.x_names[0], bench.ylabel, total,
                             x_log=bench.x_log, y_log=bench.y_log, live=live)

    def run(self) -> BenchmarkSweep:
        from ..testing.report import _split

        bench = self.bench
        self.plot.show()
        try:
            for point in bench.points():
                x = point[bench.x_names[0]]
                for value, name in zip(bench.line_vals, bench.line_names):
                    y, low, high = _split(self.mark.fn(**point, **{bench.line_arg: value}, **bench.args,
                                                       **self.kwargs))
                    self.plot.add(name, x, y, low, high)
        finally:
            self.plot.finish()
        return self

    @property
    def results(self) -> Any:
        frame = self.plot.frame()
        return frame.rename(columns={self.plot.xlabel: self.bench.x_names[0]})

    @property
    def figure(self) -> Any:
        return self.plot.figure()

    @property
    def chart(self) -> Chart:
        return self.plot.chart

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundle(self.plot, f"<BenchmarkSweep {self.bench.plot_name}>")


def sweep_benchmark(mark: Any, live: bool | None = None, **kwargs: Any) -> BenchmarkSweep:
    """Run a ``@perf_report`` function live (its first Benchmark); ``kwargs`` go to the function."""
    return BenchmarkSweep(mark, live, **kwargs).run()


__all__ = ["Sweep", "sweep", "BenchmarkSweep", "sweep_benchmark", "METRICS"]
