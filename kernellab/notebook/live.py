"""A plot and a table that grow as measurements arrive (the live part of a sweep).

Lines of ``(x, y, y_low, y_high)`` points are drawn with matplotlib (a ``Figure`` of its own,
not pyplot's, so nothing is shown twice) in perf_report's style: a line per series, a shaded
band between low and high, log axes when asked.  In a notebook the view is an ipywidgets
``VBox``: a progress bar, the plot (redrawn as a PNG in an ``Output``) and the table (a
DataFrame's HTML), replaced when the sweep ends by the final figure and table as plain outputs;
elsewhere it only keeps the data.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Any

from ..runtime.autotuning.results import in_notebook


@dataclass
class Series:
    points: list[tuple[Any, float, float | None, float | None]] = field(default_factory=list)


class LivePlot:
    """Series of points, drawn and tabulated; ``add`` one point at a time."""

    def __init__(self, title: str, xlabel: str, ylabel: str, total: int, *, x_log: bool = False,
                 y_log: bool = False, live: bool | None = None):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.x_log, self.y_log = x_log, y_log
        self.total = total
        self.done = 0
        self.series: dict[str, Series] = {}
        self.live = in_notebook() if live is None else bool(live)
        self.redraws = 0
        self._widgets: dict[str, Any] = {}
        self._view: Any = None

    # ---- data ----
    def add(self, line: str, x: Any, y: float, low: float | None = None, high: float | None = None) -> None:
        self.series.setdefault(line, Series()).points.append((x, y, low, high))
        self.done += 1
        if self.live:
            self._refresh()

    def frame(self) -> Any:
        """A DataFrame: one row per x, one column per series (and ``-min``/``-max`` ones)."""
        import pandas as pd

        rows: dict[Any, dict[str, Any]] = {}
        for line, series in self.series.items():
            for x, y, low, high in series.points:
                row = rows.setdefault(x, {self.xlabel: x})
                row.update({line: y, f"{line}-min": low, f"{line}-max": high})
        names = list(self.series)
        columns = [self.xlabel, *names, *(f"{n}-min" for n in names), *(f"{n}-max" for n in names)]
        return pd.DataFrame(list(rows.values()), columns=columns)

    # ---- drawing ----
    def figure(self) -> Any:
        """The plot as a matplotlib Figure (perf_report's look)."""
        from matplotlib.figure import Figure

        figure = Figure(figsize=(6.4, 3.8), dpi=90)
        ax = figure.add_subplot()
        for line, series in self.series.items():
            finite = [p for p in series.points if isinstance(p[1], (int, float)) and math.isfinite(p[1])]
            if not finite:
                continue
            xs, ys = [p[0] for p in finite], [p[1] for p in finite]
            drawn = ax.plot(xs, ys, marker="o", markersize=3, label=line)[0]
            band = [p for p in finite if p[2] is not None and p[3] is not None]
            if band:
                ax.fill_between([p[0] for p in band], [p[2] for p in band], [p[3] for p in band], alpha=0.15,
                                color=drawn.get_color())
        ax.set_title(self.title)
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        if self.x_log:
            ax.set_xscale("log", base=2)
        if self.y_log:
            ax.set_yscale("log")
        if self.series:
            ax.legend(fontsize="small")
        ax.grid(alpha=0.3)
        figure.tight_layout()
        return figure

    def png(self) -> bytes:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        figure = self.figure()
        FigureCanvasAgg(figure)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        return buffer.getvalue()

    # ---- the notebook view ----
    def show(self) -> None:
        """Display the view (a progress bar, the plot, the table) once, before the first point."""
        if not self.live:
            return
        import ipywidgets as widgets
        from IPython.display import display

        self._widgets = {"progress": widgets.IntProgress(value=0, min=0, max=max(self.total, 1),
                                                         description=self.title[:20]),
                         "status": widgets.HTML(), "plot": widgets.Output(), "table": widgets.Output()}
        w = self._widgets
        w["row"] = widgets.HBox([w["progress"], w["status"]])
        self._view = widgets.VBox([w["row"], w["plot"], w["table"]])
        display(self._view)

    def _refresh(self) -> None:
        from IPython.display import HTML, Image, display

        self.redraws += 1
        if not self._widgets:
            return
        w = self._widgets
        w["progress"].value = self.done
        w["status"].value = f"{self.done} / {self.total}"
        w["plot"].clear_output(wait=True)
        with w["plot"]:
            display(Image(data=self.png()))
        w["table"].clear_output(wait=True)
        with w["table"]:
            display(HTML(self.frame().to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="")))

    def finish(self) -> None:
        """Replace the live view by the final figure and table as plain outputs (so a saved or
        rendered notebook shows them without widget state)."""
        if not self._widgets:
            return
        from IPython.display import HTML, Image, display

        for widget in self._widgets.values():
            widget.close()
        self._view.close()
        self._widgets = {}
        display(Image(data=self.png()))
        display(HTML(self.frame().to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="")))


__all__ = ["LivePlot", "Series"]
