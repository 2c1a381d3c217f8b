"""A perf chart: lines of measured points, drawn interactively (Plotly) or as a static picture
(matplotlib), in perf_report's style (a line per series, a shaded band between each point's low
and high, log axes when asked).

One chart serves ``perf_report``, the live sweeps and the notebook views:

* :meth:`Chart.plotly` is the figure as Plotly JSON, built here as plain data (no plotly import),
  so a notebook output is ``application/vnd.plotly.v1+json``, which JupyterLab 4 (the renderer
  comes with the ``plotly`` package) and VS Code draw natively: hovering a point shows its series
  (a sweep's series is its config) and value, drag zooms, double-click resets, a legend click
  hides a series and its band.
* Theme: the figure has a transparent background and draws text in a mid grey that reads on
  light and dark pages; kernellab's JupyterLab extension recolours that grey to the theme's
  font colour (``extension/style/plots.css`` finds it by its exact value, :data:`FONT`).
* :meth:`Chart.bundle` adds a static fallback (SVG, drawn by matplotlib) for nbconvert and
  GitHub, which do not run Plotly; :meth:`Chart.png` is perf_report's ``save_path`` picture and
  :meth:`Chart.html` a stand-alone interactive page (``plotly`` is needed only there).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

PLOTLY_MIME = "application/vnd.plotly.v1+json"
FONT = "rgb(127, 127, 128)"             # the chart's text colour; the extension's CSS looks for it
GRID = "rgba(127, 127, 128, 0.25)"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
DASHES = {"-": "solid", "--": "dash", ":": "dot", "-.": "dashdot", "solid": "solid", "dashed": "dash",
          "dotted": "dot", "dashdot": "dashdot"}


@dataclass
class Point:
    x: Any
    y: float
    low: float | None = None
    high: float | None = None
    label: str | None = None      # shown on hover (a setting, a config)


@dataclass
class Series:
    points: list[Point] = field(default_factory=list)

    def finite(self) -> list[Point]:
        return [p for p in self.points if _finite(p.y)]

    def band(self) -> list[Point]:
        return [p for p in self.finite() if _finite(p.low) and _finite(p.high)]


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _tick(value: Any) -> str:
    """``2<sup>k</sup>`` for a power of two (sizes), else the value."""
    if isinstance(value, int) and value > 1 and value & (value - 1) == 0:
        return f"2<sup>{value.bit_length() - 1}</sup>"
    return f"{value:g}" if isinstance(value, float) else str(value)


class Chart:
    """Series of ``(x, y, low, high)`` points with a title and axes (``add`` one at a time)."""

    def __init__(self, title: str, xlabel: str, ylabel: str, *, x_log: bool = False, y_log: bool = False,
                 styles: Sequence[tuple[str, str]] | None = None):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.x_log, self.y_log = x_log, y_log
        self.styles = list(styles) if styles else []
        self.series: dict[str, Series] = {}

    def add(self, line: str, x: Any, y: float, low: float | None = None, high: float | None = None,
            label: str | None = None) -> None:
        self.series.setdefault(line, Series()).points.append(Point(x, y, low, high, label))

    def _style(self, index: int) -> tuple[str, str]:
        if index < len(self.styles):
            color, dash = self.styles[index]
            return _css_color(color), DASHES.get(dash or "-", "solid")
        return PALETTE[index % len(PALETTE)], "solid"

    # ---- Plotly ----
    def traces(self) -> list[dict[str, Any]]:
        """Per series: its band (hidden from legend and hover) and its line, grouped so that a
        legend click toggles both."""
        traces: list[dict[str, Any]] = []
        numeric = all(_finite(p.x) for series in self.series.values() for p in series.points)
        x_text = f"{_escape(self.xlabel)} = %{{x{':,' if numeric else ''}}}"
        for index, (name, series) in enumerate(self.series.items()):
            points = series.finite()
            if not points:              # a config that failed everywhere has nothing to draw
                continue
            color, dash = self._style(index)
            band = series.band()
            if band:
                traces.append({"type": "scatter", "x": [p.x for p in band] + [p.x for p in reversed(band)],
                               "y": [p.high for p in band] + [p.low for p in reversed(band)], "fill": "toself",
                               "fillcolor": color, "opacity": 0.18, "line": {"width": 0}, "hoverinfo": "skip",
                               "showlegend": False, "legendgroup": name, "name": name})
            traces.append({
                "type": "scatter", "mode": "lines+markers", "name": name, "legendgroup": name,
                "x": [p.x for p in points], "y": [p.y for p in points],
                "customdata": [[p.low, p.high] if _finite(p.low) and _finite(p.high) else [None, None]
                               for p in points],
                "line": {"color": color, "dash": dash, "width": 2}, "marker": {"size": 6},
                "hovertemplate": (f"<b>%{{fullData.name}}</b><br>{x_text}<br>"
                                  f"{_escape(self.ylabel or 'value')} = %{{y:.4g}}"
                                  + ("<br>range %{customdata[0]:.4g} – %{customdata[1]:.4g}" if band else "")
                                  + ("<br>%{text}" if any(p.label for p in points) else "")
                                  + "<extra></extra>"),
            })
            if any(p.label for p in points):
                traces[-1]["text"] = [_escape(p.label or "") for p in points]
        return traces

    def _axis(self, title: str, log: bool, values: list[Any]) -> dict[str, Any]:
        axis: dict[str, Any] = {"title": {"text": _escape(title)}, "type": "log" if log else "linear",
                                "gridcolor": GRID, "zerolinecolor": GRID, "linecolor": GRID, "automargin": True}
        distinct = sorted({v for v in values if _finite(v)})
        if log and 1 < len(distinct) <= 16:
            axis.update(tickmode="array", tickvals=distinct, ticktext=[_tick(v) for v in distinct])
        elif 1 < len(distinct) <= 12 and all(float(v).is_integer() for v in distinct):   # tries, small sizes
            axis.update(tickmode="array", tickvals=distinct, ticktext=[f"{v:g}" for v in distinct])
        return axis

    def plotly(self) -> dict[str, Any]:
        """The figure as Plotly JSON ``{data, layout, config}``."""
        xs = [p.x for series in self.series.values() for p in series.points]
        layout = {
            "title": {"text": _escape(self.title), "x": 0.02, "font": {"size": 14}},
            "xaxis": self._axis(self.xlabel, self.x_log, xs),
            "yaxis": self._axis(self.ylabel, self.y_log, []),
            "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
            "font": {"color": FONT, "size": 12},
            "legend": {"bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}},
            "hovermode": "closest", "height": 380, "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
            "modebar": {"bgcolor": "rgba(0,0,0,0)", "color": FONT},
            "meta": {"kernellab": "chart"},
        }
        return {"data": self.traces(), "layout": layout,
                "config": {"displaylogo": False, "scrollZoom": False}}

    def html(self, include_plotlyjs: str | bool = "cdn", full_html: bool = False) -> str:
        """A page (or a ``<div>``) with the interactive figure (plotly's ``to_html``)."""
        import plotly.io as pio

        figure = self.plotly()
        return pio.to_html({"data": figure["data"], "layout": figure["layout"]}, config=figure["config"],
                           include_plotlyjs=include_plotlyjs, full_html=full_html, validate=False)

    # ---- matplotlib ----
    def figure(self, neutral: bool = False) -> Any:
        """The chart as a matplotlib ``Figure`` (not pyplot's: nothing is shown twice).
        ``neutral``: a transparent background and grey text, for light and dark pages alike."""
        from matplotlib.figure import Figure

        figure = Figure(figsize=(6.4, 3.8), dpi=90)
        self.draw(figure.add_subplot(), neutral)
        figure.tight_layout()
        return figure

    def draw(self, ax: Any, neutral: bool = False) -> None:
        """Draw the chart on matplotlib axes."""
        for index, (name, series) in enumerate(self.series.items()):
            points = series.finite()
            if not points:
                continue
            color, dash = self._style(index)
            style = {"solid": "-", "dash": "--", "dot": ":", "dashdot": "-."}[dash]
            ax.plot([p.x for p in points], [p.y for p in points], marker="o", markersize=3, label=name,
                    color=color, ls=style)
            band = series.band()
            if band:
                ax.fill_between([p.x for p in band], [p.low for p in band], [p.high for p in band], alpha=0.15,
                                color=color)
        ax.set_title(self.title)
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        if self.x_log:
            ax.set_xscale("log", base=2)
        if self.y_log:
            ax.set_yscale("log")
        if self.series:
            ax.legend(fontsize="small", framealpha=0.0 if neutral else 0.8)
        ax.grid(alpha=0.3)
        if neutral:
            _neutral(ax.figure, ax)

    def _picture(self, fmt: str, neutral: bool) -> bytes:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        figure = self.figure(neutral)
        FigureCanvasAgg(figure)
        buffer = io.BytesIO()
        figure.savefig(buffer, format=fmt, transparent=neutral)
        return buffer.getvalue()

    def png(self, neutral: bool = False) -> bytes:
        return self._picture("png", neutral)

    def svg(self) -> str:
        return self._picture("svg", neutral=True).decode("utf-8")

    # ---- notebook output ----
    def bundle(self, static: bool = True) -> dict[str, Any]:
        """The notebook output: Plotly JSON, a static SVG (``static``) and a line of text.
        (No PNG: JupyterLab's Plotly renderer would show a PNG instead of the live figure.)"""
        data: dict[str, Any] = {PLOTLY_MIME: self.plotly(), "text/plain": f"<chart {self.title}>"}
        if static:
            data["image/svg+xml"] = self.svg()
        return data

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.bundle()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _css_color(color: str) -> str:
    """A colour as CSS: matplotlib's names (``tab:blue``, ``C0``) become hex."""
    if ":" in color or (len(color) == 2 and color[0] == "C" and color[1].isdigit()):
        from matplotlib.colors import to_hex

        return to_hex(color)
    return color


def _neutral(figure: Any, ax: Any) -> None:
    grey = "#7f7f80"
    figure.patch.set_alpha(0.0)
    ax.patch.set_alpha(0.0)
    ax.title.set_color(grey)
    ax.xaxis.label.set_color(grey)
    ax.yaxis.label.set_color(grey)
    ax.tick_params(colors=grey, which="both")
    for spine in ax.spines.values():
        spine.set_color(grey)
    legend = ax.get_legend()
    if legend is not None:
        for text in legend.get_texts():
            text.set_color(grey)


__all__ = ["Chart", "Point", "Series", "PLOTLY_MIME", "FONT"]
