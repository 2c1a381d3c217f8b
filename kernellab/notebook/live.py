"""A plot and a table that grow as measurements arrive (the live part of a sweep).

The points live in a :class:`~kernellab.testing.chart.Chart` (interactive Plotly figure, static
matplotlib picture).  In a notebook the view is shown in one output slot: a progress bar, the
figure (redrawn into an ipywidgets ``Output`` as each point arrives: a fresh Plotly output each
time, since JupyterLab's Plotly renderer does not redraw an updated one) and a compact table of
the values so far.  When the sweep ends that slot is replaced (a display-handle update) by the
final figure with its static fallback, and the widgets are closed: a saved notebook holds no
widget the reopened page could not find, and the table is left to the sweep's ``.results``, so
nothing is shown twice.  Outside a notebook it only keeps the data.
"""

from __future__ import annotations

import math
from typing import Any

from ..runtime.autotuning.results import in_notebook
from ..testing.chart import Chart

TABLE_CSS = ("max-width:100%;overflow-x:auto;font-size:90%", "border-collapse:collapse")


class LivePlot:
    """Series of points, drawn and tabulated; ``add`` one point at a time."""

    def __init__(self, title: str, xlabel: str, ylabel: str, total: int, *, x_log: bool = False,
                 y_log: bool = False, live: bool | None = None):
        self.chart = Chart(title, xlabel, ylabel, x_log=x_log, y_log=y_log)
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.total = total
        self.done = 0
        self.live = in_notebook() if live is None else bool(live)
        self.redraws = 0
        self.shown = False           # the final figure was displayed by finish()
        self._widgets: dict[str, Any] = {}
        self._handle: Any = None

    @property
    def series(self) -> dict[str, Any]:
        return self.chart.series

    # ---- data ----
    def add(self, line: str, x: Any, y: float, low: float | None = None, high: float | None = None) -> None:
        self.chart.add(line, x, y, low, high)
        self.done += 1
        if self.live:
            self._refresh()

    def frame(self) -> Any:
        """A DataFrame: one row per x, one column per series (and ``-min``/``-max`` ones)."""
        import pandas as pd

        rows: dict[Any, dict[str, Any]] = {}
        for line, series in self.series.items():
            for p in series.points:
                row = rows.setdefault(p.x, {self.xlabel: p.x})
                row.update({line: p.y, f"{line}-min": p.low, f"{line}-max": p.high})
        names = list(self.series)
        columns = [self.xlabel, *names, *(f"{n}-min" for n in names), *(f"{n}-max" for n in names)]
        return pd.DataFrame(list(rows.values()), columns=columns)

    def table_html(self) -> str:
        """The values so far (x and one column per series), in a box that scrolls sideways rather
        than overflowing the output."""
        frame = self.frame()[[self.xlabel, *self.series]]
        table = frame.to_html(index=False, na_rep="", border=0,
                              float_format=lambda v: "—" if not math.isfinite(v) else f"{v:.4g}")
        table = table.replace('<table class="dataframe">', f'<table class="dataframe" style="{TABLE_CSS[1]}">', 1)
        return f'<div class="kl-live-table" style="{TABLE_CSS[0]}">{table}</div>'

    # ---- drawing ----
    def figure(self) -> Any:
        """The plot as a matplotlib Figure (perf_report's look)."""
        return self.chart.figure()

    def png(self) -> bytes:
        return self.chart.png()

    def bundle(self) -> dict[str, Any]:
        """The final output: the interactive figure with its static fallback."""
        return self.chart.bundle(static=True)

    # ---- the notebook view ----
    def show(self) -> None:
        """Display the view (a progress bar, the plot, the table) once, before the first point."""
        if not self.live:
            return
        import ipywidgets as widgets
        from IPython.display import display

        self._widgets = {"progress": widgets.IntProgress(value=0, min=0, max=max(self.total, 1),
                                                         description=self.title[:20]),
                         "status": widgets.HTML(f"0 / {self.total}"), "plot": widgets.Output(),
                         "table": widgets.HTML()}
        w = self._widgets
        w["row"] = widgets.HBox([w["progress"], w["status"]])
        w["view"] = widgets.VBox([w["row"], w["plot"], w["table"]], layout=widgets.Layout(max_width="100%"))
        self._handle = display(w["view"], display_id=True)

    def _refresh(self) -> None:
        from IPython.display import display

        self.redraws += 1
        if not self._widgets:
            return
        w = self._widgets
        w["progress"].value = self.done
        w["status"].value = f"{self.done} / {self.total}"
        w["plot"].clear_output(wait=True)
        with w["plot"]:
            display(self.chart.bundle(static=False), raw=True)
        w["table"].value = self.table_html()

    def finish(self) -> None:
        """Replace the live view by the final figure (a plain output, so a saved or rendered
        notebook shows it without widget state) and close the widgets."""
        if not self._widgets:
            return
        if self._handle is not None:            # None outside IPython: nothing was shown
            self._handle.update(self.bundle(), raw=True)
            self.shown = True
        for widget in self._widgets.values():
            widget.close()
        self._widgets = {}


__all__ = ["LivePlot"]
