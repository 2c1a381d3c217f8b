"""The perf chart (kernellab.testing.chart): the interactive figure's data, hover text, log axes,
legend groups and theme-neutral colours; its static pictures; perf_report's interactive page."""

from __future__ import annotations

import base64
import json
import math
import re
import subprocess
import sys

import pytest

import kernellab as kl
from kernellab.testing.chart import FONT, PLOTLY_MIME, Chart


def two_series() -> Chart:
    chart = Chart("add", "size", "GB/s", x_log=True, y_log=True)
    for x in (1024, 4096, 16384):
        chart.add("BLOCK=256, warps=4, stages=3", x, x / 100, x / 110, x / 90)
        chart.add("numpy", x, x / 200)
    chart.add("numpy", 65536, math.nan)          # a failed point is left out, not drawn as 0
    return chart


def test_plotly_figure_has_a_line_per_series_with_its_band_grouped_for_the_legend():
    figure = two_series().plotly()
    json.dumps(figure)                                     # plain JSON: a notebook output as it is
    lines = [t for t in figure["data"] if t.get("showlegend", True)]
    bands = [t for t in figure["data"] if t.get("fill") == "toself"]
    assert [t["name"] for t in lines] == ["BLOCK=256, warps=4, stages=3", "numpy"]
    assert lines[1]["x"] == [1024, 4096, 16384]           # the NaN point is not drawn
    assert len(bands) == 1 and bands[0]["legendgroup"] == lines[0]["legendgroup"]
    assert bands[0]["hoverinfo"] == "skip" and bands[0]["y"][:3] == [1024 / 90, 4096 / 90, 16384 / 90]
    assert "%{fullData.name}" in lines[0]["hovertemplate"] and "GB/s = %{y:.4g}" in lines[0]["hovertemplate"]
    assert "range %{customdata[0]" in lines[0]["hovertemplate"] and "range" not in lines[1]["hovertemplate"]


def test_point_labels_are_shown_on_hover_escaped():
    chart = Chart("t", "try", "µs")
    chart.add("time", 1, 2.0, label="BLOCK=<64>")
    chart.add("time", 2, 1.0)
    line = chart.plotly()["data"][0]
    assert line["text"] == ["BLOCK=&lt;64&gt;", ""] and line["hovertemplate"].endswith("<br>%{text}<extra></extra>")
    assert "text" not in two_series().plotly()["data"][1]


def test_layout_log_axes_and_theme_neutral_colours():
    layout = two_series().plotly()["layout"]
    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
    assert layout["xaxis"]["ticktext"] == ["2<sup>10</sup>", "2<sup>12</sup>", "2<sup>14</sup>", "2<sup>16</sup>"]
    assert layout["paper_bgcolor"] == layout["plot_bgcolor"] == "rgba(0,0,0,0)"
    assert layout["font"]["color"] == FONT
    linear = Chart("t", "x", "y")
    linear.add("a", 1, 2.0)
    assert linear.plotly()["layout"]["xaxis"]["type"] == "linear"


def test_titles_are_escaped_for_plotlys_html_labels():
    chart = Chart("<b>x</b> & y", "size <n>", "ms")
    chart.add("a", 1, 1.0)
    layout = chart.plotly()["layout"]
    assert layout["title"]["text"] == "&lt;b&gt;x&lt;/b&gt; &amp; y"
    assert layout["xaxis"]["title"]["text"] == "size &lt;n&gt;"


def test_styles_pick_colours_and_dashes():
    chart = Chart("t", "x", "y", styles=[("red", "--"), ("tab:blue", ":")])
    chart.add("a", 1, 1.0)
    chart.add("b", 1, 2.0)
    lines = chart.plotly()["data"]
    assert [t["line"]["color"] for t in lines] == ["red", "#1f77b4"]
    assert [t["line"]["dash"] for t in lines] == ["dash", "dot"]


def test_bundle_is_plotly_with_a_static_svg_and_no_png():
    bundle = two_series().bundle()
    assert set(bundle) == {PLOTLY_MIME, "image/svg+xml", "text/plain"}
    svg = bundle["image/svg+xml"]
    assert "<svg" in svg and "#7f7f80" in svg                 # grey text, readable on light and dark pages
    assert set(two_series().bundle(static=False)) == {PLOTLY_MIME, "text/plain"}
    assert two_series().png().startswith(b"\x89PNG")


def test_html_is_an_interactive_plotly_div():
    page = two_series().html(include_plotlyjs=False)
    assert "Plotly.newPlot" in page and "BLOCK=256, warps=4, stages=3" in page


def test_perf_report_results_page_works_offline(tmp_path):
    @kl.testing.perf_report(kl.testing.Benchmark(x_names=["n"], x_vals=[1, 2], line_arg="p", line_vals=[1, 2],
                                                 line_names=["one", "two"], plot_name="toy", args={}))
    def bench(n, p):
        return float(n * p)

    bench.run(save_path=tmp_path)
    page = (tmp_path / "results.html").read_text()
    assert '<script src="plotly.min.js"></script>' in page and "Plotly.newPlot" in page
    assert '<noscript><img src="toy.png"/></noscript>' in page
    assert (tmp_path / "plotly.min.js").stat().st_size > 1_000_000 and (tmp_path / "toy.png").exists()
    assert set(bench.charts) == {"toy"}


def test_importing_kernellab_does_not_import_plotting_libraries():
    code = ("import sys, kernellab, kernellab.testing; "
            "print(sorted(m for m in ('plotly', 'matplotlib') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_saved_chart_exports_to_html_as_its_static_picture():
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    output = nbformat.v4.new_output("display_data", data=two_series().bundle())
    cell = nbformat.v4.new_code_cell("chart", outputs=[output])
    page, _ = nbconvert.HTMLExporter().from_notebook_node(nbformat.v4.new_notebook(cells=[cell]))
    picture = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', page)   # the fallback picture
    assert picture and "#7f7f80" in base64.b64decode(picture.group(1)).decode()
    assert "hovertemplate" not in page                                        # not the Plotly JSON as text


def test_perf_report_show_plots_in_jupyter_displays_the_interactive_chart(monkeypatch):
    from kernellab.testing import report

    shown = []
    monkeypatch.setattr(report, "in_notebook", lambda: True)
    monkeypatch.setattr("IPython.display.display", lambda data, raw=False: shown.append((data, raw)))

    @kl.testing.perf_report(kl.testing.Benchmark(x_names=["n"], x_vals=[1, 2], line_arg="p", line_vals=[1],
                                                 line_names=["one"], plot_name="toy", args={}))
    def bench(n, p):
        return float(n)

    bench.run(show_plots=True)
    assert len(shown) == 1 and shown[0][1] and PLOTLY_MIME in shown[0][0] and "image/svg+xml" in shown[0][0]
