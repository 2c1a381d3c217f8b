"""``Benchmark`` and ``perf_report`` (Triton's semantics): a function measured over a grid of
arguments, plotted (``chart.py``: interactive Plotly in a notebook, matplotlib pictures) and
tabulated (pandas).

::

    @perf_report(Benchmark(x_names=["size"], x_vals=[2**i for i in range(12, 20)], x_log=True,
                           line_arg="provider", line_vals=["kernellab", "numpy"],
                           line_names=["kernellab", "numpy"], ylabel="GB/s",
                           plot_name="vector-add-performance", args={}))
    def benchmark(size, provider):
        ...
        return gbps(ms), gbps(max_ms), gbps(min_ms)     # or one number

    benchmark.run(print_data=True, save_path="results/")  # writes <plot_name>.png/.csv, results.html

The function returns a value per point, or ``(y, y_min, y_max)``, drawn as a line with a shaded
band.  ``run(show_plots, print_data, save_path, return_df, **kwargs)``: ``kwargs`` are passed to
the function; ``save_path`` gets a png and a csv per benchmark and one ``results.html`` showing
them all (interactive figures, with ``plotly.min.js`` written beside it: the page works offline;
the pngs where scripts do not run); ``return_df`` returns the DataFrame (a list of them for
several benchmarks).  ``show_plots`` in Jupyter displays the interactive chart (hover, zoom,
legend toggling; a static picture for nbconvert and GitHub); elsewhere matplotlib's window, or
nothing without a display (its Agg backend).
"""

from __future__ import annotations

import html
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import config
from ..runtime.autotuning.results import in_notebook
from .chart import Chart


class Benchmark:
    """One plot: ``x_names`` take each of ``x_vals`` (a value for all of them, or a tuple with one
    per name); ``line_arg`` takes each of ``line_vals``, one line each, labelled by ``line_names``;
    ``args`` are fixed keyword arguments."""

    def __init__(self, x_names: Sequence[str], x_vals: Sequence[Any], line_arg: str, line_vals: Sequence[Any],
                 line_names: Sequence[str], plot_name: str, args: dict[str, Any], xlabel: str = "",
                 ylabel: str = "", x_log: bool = False, y_log: bool = False,
                 styles: Sequence[tuple[str, str]] | None = None):
        if len(line_names) != len(line_vals):
            raise ValueError(f"Benchmark {plot_name!r}: {len(line_vals)} line_vals but {len(line_names)} line_names; "
                             "give one name per line")
        if styles is not None and len(styles) < len(line_vals):
            raise ValueError(f"Benchmark {plot_name!r}: styles needs a (color, linestyle) pair per line")
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.x_log = x_log
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.y_log = y_log
        self.styles = styles
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.plot_name = plot_name
        self.args = dict(args)

    def points(self) -> list[dict[str, Any]]:
        """The x arguments of each point, by name."""
        found = []
        for x in self.x_vals:
            values = list(x) if isinstance(x, (list, tuple)) else [x] * len(self.x_names)
            if len(values) != len(self.x_names):
                raise ValueError(f"Benchmark {self.plot_name!r}: x value {x!r} has {len(values)} entries for "
                                 f"{len(self.x_names)} x_names ({', '.join(self.x_names)})")
            found.append(dict(zip(self.x_names, values)))
        return found


def _split(result: Any) -> tuple[Any, Any, Any]:
    """``(y, y_min, y_max)`` from what a benchmark function returned."""
    if isinstance(result, (tuple, list)):
        if len(result) != 3:
            raise ValueError(f"a benchmark function returns a number or (y, y_min, y_max), got {result!r}")
        return result[0], result[1], result[2]
    return result, None, None


def _pyplot() -> Any:
    import matplotlib

    headless = "ipykernel" not in sys.modules and not config.plots_to_screen()
    if "matplotlib.pyplot" not in sys.modules and headless:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


class Mark:
    """A benchmark function with its benchmarks (what ``perf_report`` returns)."""

    def __init__(self, fn: Callable[..., Any], benchmarks: Benchmark | Sequence[Benchmark]):
        self.fn = fn
        self.benchmarks = benchmarks
        self.charts: dict[str, Chart] = {}     # the last run's, by plot_name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def _measure(self, bench: Benchmark, **kwargs: Any) -> Any:
        import pandas as pd

        y_min = [f"{name}-min" for name in bench.line_names]
        y_max = [f"{name}-max" for name in bench.line_names]
        rows = []
        for x_args in bench.points():
            means, lows, highs = [], [], []
            for line in bench.line_vals:
                y, low, high = _split(self.fn(**x_args, **{bench.line_arg: line}, **bench.args, **kwargs))
                means.append(y)
                lows.append(low)
                highs.append(high)
            rows.append(list(x_args.values()) + means + lows + highs)
        return pd.DataFrame(rows, columns=bench.x_names + bench.line_names + y_min + y_max)

    def _plot(self, bench: Benchmark, df: Any, show_plots: bool, save_path: str) -> Chart:
        chart = _chart(bench, df)
        if save_path:
            Path(save_path, f"{bench.plot_name}.png").write_bytes(chart.png())
        if show_plots:
            _show(chart)
        return chart

    def _run(self, bench: Benchmark, save_path: str, show_plots: bool, print_data: bool, diff_col: bool = False,
             save_precision: int = 6, **kwargs: Any) -> Any:
        df = self._measure(bench, **kwargs)
        if bench.plot_name:
            self.charts[bench.plot_name] = self._plot(bench, df, show_plots, save_path)
        df = df[bench.x_names + bench.line_names]
        if diff_col and df.shape[1] == 2:
            first, second = df.columns.tolist()
            df["Diff"] = df[second] - df[first]
        if print_data:
            print(bench.plot_name + ":")
            print(df.to_string())
        if save_path:
            df.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"), float_format=f"%.{save_precision}f",
                      index=False)
        return df

    def run(self, show_plots: bool = False, print_data: bool = False, save_path: str | os.PathLike = "",
            return_df: bool = False, **kwargs: Any) -> Any:
        """Measure every benchmark; see the module docstring."""
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else list(self.benchmarks)
        save = str(save_path) if save_path else ""
        if save:
            Path(save).mkdir(parents=True, exist_ok=True)
        frames = [self._run(bench, save, show_plots, print_data, **kwargs) for bench in benchmarks]
        if save:
            _write_html(Path(save), benchmarks, frames, self.charts)
        if return_df:
            return frames[0] if single else frames
        return None


def _chart(bench: Benchmark, df: Any) -> Chart:
    first_x = bench.x_names[0]
    chart = Chart(bench.plot_name, bench.xlabel or first_x, bench.ylabel, x_log=bench.x_log, y_log=bench.y_log,
                  styles=bench.styles)
    for name in bench.line_names:
        for x, y, low, high in zip(df[first_x], df[name], df[f"{name}-min"], df[f"{name}-max"]):
            chart.add(name, x, _number(y), _number(low), _number(high))
    return chart


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _show(chart: Chart) -> None:
    """The chart in Jupyter (interactive, with its static fallback); elsewhere matplotlib's window."""
    if in_notebook():
        from IPython.display import display

        display(chart.bundle(), raw=True)
        return
    plt = _pyplot()
    figure, ax = plt.subplots()
    chart.draw(ax)
    plt.show()
    plt.close(figure)


def _write_html(folder: Path, benchmarks: list[Benchmark], frames: list[Any], charts: dict[str, Chart]) -> None:
    """``results.html``: each benchmark's interactive figure (its png where scripts do not run)
    and table; plotly.js is written beside it so that the page needs no network."""
    parts = ['<!doctype html><html><head><meta charset="utf-8"><title>benchmark results</title>',
             '<script src="plotly.min.js"></script></head><body>']
    for bench, df in zip(benchmarks, frames):
        name = html.escape(bench.plot_name)
        parts.append(f"<h2>{name}</h2>")
        if bench.plot_name in charts:
            parts.append(charts[bench.plot_name].html(include_plotlyjs=False))
            parts.append(f'<noscript><img src="{name}.png"/></noscript>')
        parts.append(df.to_html(index=False))
    parts.append("</body></html>")
    (folder / "results.html").write_text("\n".join(parts) + "\n", encoding="utf-8")
    if charts:
        from plotly.offline import get_plotlyjs

        (folder / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")


def perf_report(benchmarks: Benchmark | Sequence[Benchmark]) -> Callable[[Callable[..., Any]], Mark]:
    """Mark a function for benchmarking; run it with ``.run(...)`` on the result."""

    def decorator(fn: Callable[..., Any]) -> Mark:
        return Mark(fn, benchmarks)

    return decorator


__all__ = ["Benchmark", "Mark", "perf_report"]
