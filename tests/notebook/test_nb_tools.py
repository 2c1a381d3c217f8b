"""The tuning widget, the A/B view and the live sweeps, on the CPU target."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from nb_stage_kernels import add_but_the_last, add_grid, add_kernel

import kernellab as kl
from kernellab.notebook.ab_view import ABView, compare
from kernellab.notebook.bundle import available_stages
from kernellab.notebook.compile_report import report
from kernellab.notebook.explorer import explore
from kernellab.notebook.sweeps import sweep, sweep_benchmark
from kernellab.runtime.autotuning.results import COLUMNS
from kernellab.testing.chart import PLOTLY_MIME

BUDGET = {"warmup": 1, "rep": 2}


@pytest.fixture
def add_args(inputs):
    n = 3000 + int(inputs.rng.integers(1, 500))
    return (inputs.normal(n), inputs.normal(n), inputs.poisoned(n), n)


def reference(x, y, out, n):
    return x + y


# ---------------------------------------------------------------------------------------------
# explore
# ---------------------------------------------------------------------------------------------

def test_explore_compiles_once_per_setting_checks_and_times(add_args):
    panel = explore(add_kernel, add_args, {"BLOCK": [128, 256, 512], "num_warps": [1, 4]}, grid=add_grid,
                    reference=reference, target="cpu", **BUDGET)
    first = panel.update(BLOCK=128)
    assert first.check == "ok" and first.ms > 0 and not first.cached
    assert first.rates["GB/s"] == pytest.approx(sum(a.nbytes for a in add_args[:3]) / (first.ms * 1e-3) / 1e9)
    second = panel.update(BLOCK=512, num_warps=4)
    assert second.compiled.metadata["constexprs"]["BLOCK"] == 512 and second.compiled.metadata["num_warps"] == 4
    assert panel.last_diff is not None and not panel.last_diff.same    # tile<128x..> became tile<512x..>
    assert panel.stage == "asm"
    again = panel.update(BLOCK=128, num_warps=1)
    assert again.cached and again.compiled is first.compiled
    table = panel.results
    assert list(table["BLOCK"]) == [128, 512, 128] and list(table["cached"]) == [False, False, True]
    assert (table["check"] == "ok").all()
    np.testing.assert_array_equal(add_args[2], add_args[0] + add_args[1])


def test_explore_poisons_the_output_so_a_missed_element_fails_the_check(add_args):
    x, y, out, n = add_args
    out[:] = x + y            # already right: only poisoning can reveal the bug
    panel = explore(add_but_the_last, add_args, {"BLOCK": [256]}, grid=add_grid, reference=reference,
                    target="cpu", **BUDGET)
    trial = panel.update(BLOCK=256)
    assert trial.check != "ok" and "nan location mismatch" in trial.check
    assert np.isnan(out[-1]) and not np.isnan(out[:-1]).any()
    assert not trial.ok and "kl-error" in panel.panel_html(trial)


def test_explore_widget_sliders_drive_it(add_args):
    panel = explore(add_kernel, add_args, {"BLOCK": [128, 256], "num_warps": [2, 4]}, grid=add_grid,
                    reference=reference, target="cpu", stage="tile", **BUDGET)
    widget = panel.widget
    sliders = {control.description: control for control in widget.children[0].children}
    assert list(sliders["BLOCK"].options) == [128, 256] and not sliders["BLOCK"].continuous_update
    sliders["BLOCK"].value = 256          # what releasing the slider does
    sliders["num_warps"].value = 4
    assert [t.settings for t in panel.trials] == [{"BLOCK": 256, "num_warps": 2}, {"BLOCK": 256, "num_warps": 4}]
    assert panel.last_diff.same           # on the CPU num_warps leaves Tile IR alone


def test_explore_says_it_is_busy_while_compiling_and_its_stage_menu_switches_the_diff(add_args):
    panel = explore(add_kernel, add_args, {"BLOCK": [128, 256]}, grid=add_grid, target="cpu", **BUDGET)
    widget = panel.widget
    menu, busy = widget.children[1].children
    seen = []
    busy.observe(lambda change: seen.append((change["new"], panel._controls["BLOCK"].disabled)), names="value")
    panel._controls["BLOCK"].value = 256                 # releasing the slider
    assert "compiling and timing BLOCK=256" in seen[0][0] and seen[0][1]      # busy, controls disabled
    assert seen[-1] == ("", False)                                             # done, enabled again
    assert set(menu.options) >= {"tile", "llvm", "asm"} and menu.value == "asm"
    assert "stage <b>asm</b>" in panel.panel_html(panel.trials[-1])           # the first try shows the stage
    panel.update(BLOCK=128)
    menu.value = "tile"                                  # choosing a stage: no recompiling, a new diff
    assert panel.stage == "tile" and len(panel.trials) == 2
    assert "<b>tile</b> against the setting before" in panel.panel_html(panel.trials[-1])
    assert not panel.last_diff.same                      # tile<128> -> tile<256>
    with pytest.raises(KeyError, match="no stage 'sass'"):
        panel.watch("sass")
    figure = panel.chart().plotly()                      # every try, hovering names its setting
    line = next(t for t in figure["data"] if t.get("mode") == "lines+markers")
    assert line["x"] == [1, 2] and line["text"] == ["BLOCK=256", "BLOCK=128"] and "%{text}" in line["hovertemplate"]


def test_explore_stage_menu_offers_only_the_stages_a_report_shows_as_text(add_args):
    """The machine code (``obj``, ``cubin``) and the pass trail's JSON are not stages to read:
    choosing them showed the ELF bytes decoded as text, and the trail's JSON, in the panel."""
    panel = explore(add_kernel, add_args, {"BLOCK": [128, 256]}, grid=add_grid, target="cpu", **BUDGET)
    menu = panel.widget.children[1].children[0]
    panel.update(BLOCK=256)
    compiled = panel.trials[-1].compiled
    assert "obj" in compiled.asm and "passes" in compiled.asm     # what the menu must leave out
    assert list(menu.options) == available_stages(compiled)
    for name in ("obj", "passes", "source"):
        with pytest.raises(KeyError, match=f"no stage {name!r}"):
            panel.watch(name)
    for name in menu.options:
        menu.value = name
        shown = panel.panel_html(panel.trials[-1])
        assert f"stage <b>{name}</b>" in shown and "\x7fELF" not in shown and "\ufffd" not in shown


def test_explore_refuses_a_stage_it_cannot_show(add_args):
    panel = explore(add_kernel, add_args, {"BLOCK": [128]}, grid=add_grid, target="cpu", stage="obj", **BUDGET)
    panel.widget
    with pytest.raises(KeyError, match="no stage 'obj'; this kernel has tile, llvm, asm"):
        panel.update(BLOCK=128)


def test_explore_refuses_unknown_knobs(add_args):
    panel = explore(add_kernel, add_args, {"BLOCK": [128]}, grid=add_grid, target="cpu")
    with pytest.raises(KeyError, match="no knob BLOCKS"):
        panel.update(BLOCKS=1)


# ---------------------------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------------------------

def test_compare_shows_both_configs_stage_by_stage(add_args):
    view = compare(add_kernel, add_args, {"BLOCK": 128}, {"BLOCK": 1024}, grid=add_grid, reference=reference,
                   target="cpu")
    assert view.stage_names() == ["tile", "llvm", "asm"]
    assert [run["check"] for run in view.runs] == ["ok", "ok"]
    assert view.speedup() == pytest.approx(view.runs[0]["ms"] / view.runs[1]["ms"])
    tile = view.diff("tile")
    assert tile.added and tile.removed and any("tile<1024x" in line for line in tile.unified)
    page = view.html()
    assert page.count('<div class="kl-ab-pair">') == 3 and page.count("<details") >= 3
    assert "<script" not in page
    data = view._repr_mimebundle_()["application/vnd.kernellab.compare+json"]
    json.dumps(data, allow_nan=False)
    assert data["labels"] == ["A", "B"] and data["a"]["metadata"]["constexprs"] == {"BLOCK": 128}
    line = next(t for t in view.chart().plotly()["data"] if t.get("mode") == "lines+markers")
    assert line["x"] == ["A", "B"] and line["text"] == ["BLOCK=128", "BLOCK=1024"]       # hover names the config
    assert line["y"] == pytest.approx([run["ms"] * 1e3 for run in view.runs])
    assert PLOTLY_MIME in view.chart()._repr_mimebundle_()


def test_compare_shows_a_failed_check_as_its_summary_with_the_details_folded(add_args):
    """A failed check's numpy report (a dozen lines of arrays) was the table cell itself: the
    table shows its summary, the report folds under it (and stays whole in the data)."""
    view = compare(add_kernel, add_args, {"BLOCK": 128}, {"BLOCK": 256}, grid=add_grid,
                   reference=lambda x, y, out, n: x - y, target="cpu", bench=False)
    assert all("ACTUAL" in run["check"] for run in view.runs)
    rows = [line for line in view.text().splitlines() if line.startswith(("A: ", "B: "))]
    assert len(rows) == 2 and all("Mismatched elements" in row and "ACTUAL" not in row for row in rows)
    cells = re.findall(r"<td>(<details>.*?</details>)</td>", view.html(), re.S)
    assert len(cells) == 2
    for cell in cells:
        summary = re.search(r"<summary>(.*?)</summary>", cell, re.S).group(1)
        assert "Mismatched elements" in summary and "ACTUAL" not in summary
        assert "ACTUAL: array" in re.search(r"<pre[^>]*>(.*?)</pre>", cell, re.S).group(1)


def test_abview_of_two_compiled_kernels():
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    a = kl.compile(add_kernel, signature=sig, constexprs={"BLOCK": 64}, target="cpu")
    b = kl.compile(add_kernel, signature=sig, constexprs={"BLOCK": 64}, target="cpu", num_warps=8)
    view = ABView.of(a, b, labels=["4 warps", "8 warps"], stages=["tile"])
    assert view.diff("tile").same and view.speedup() is None
    assert "4 warps vs 8 warps" in view.text()


def test_report_of_a_kernel_uses_its_latest_compilation(add_args):
    with pytest.raises(ValueError, match="has not been compiled yet"):
        report(kl.jit(add_kernel.fn))
    add_kernel[add_grid({"n": add_args[3], "BLOCK": 256})](*add_args, BLOCK=256)
    assert report(add_kernel).bundle["metadata"]["constexprs"] == {"BLOCK": 256}


# ---------------------------------------------------------------------------------------------
# sweeps
# ---------------------------------------------------------------------------------------------

def _make_args(inputs):
    def make(size):
        return (inputs.normal(size), inputs.normal(size), inputs.poisoned(size), size)
    return make


def test_sweep_configs_by_sizes_with_the_autotuners_table(inputs):
    configs = [kl.Config({"BLOCK": 128}), {"BLOCK": 512, "num_warps": 8}, {"BLOCK": 100}]   # 100: not a power of 2
    run = sweep(add_kernel, [1000, 5000], _make_args(inputs), configs=configs, grid=add_grid, metric="GB/s",
                reference=reference, target="cpu", live=True, **BUDGET)
    table = run.results
    assert len(table) == 6 and list(table.columns[:len(COLUMNS) + 1]) == [*COLUMNS[:2], "size", *COLUMNS[2:]]
    failed = table[table["BLOCK"] == 100]
    assert failed["failure"].str.contains("power of 2|power of two").all() and (failed["ms"] == math.inf).all()
    good = table[table["BLOCK"] != 100]
    assert good["failure"].isna().all() and (good["ms"] > 0).all() and (good["GB/s"] > 0).all()
    assert table.groupby("size")["best"].sum().tolist() == [1, 1]
    assert run.plot.redraws == 6                       # the live view redrew as each result arrived
    assert len(run.figure.axes[0].lines) == 2          # one line per config that ran
    # what the cell shows says that some failed and where to read why (the chart just lacks them)
    shown = run._repr_mimebundle_()["text/plain"]
    assert "4 measured, 2 failed" in shown and "failure" in shown


def test_sweep_takes_an_autotuned_kernels_configs(inputs):
    tuned = kl.autotune(configs=[kl.Config({"BLOCK": 64}), kl.Config({"BLOCK": 256}, num_warps=2)], key=["n"])(
        add_kernel)
    run = sweep(tuned, [700], _make_args(inputs), grid=add_grid, target="cpu", live=False, **BUDGET)
    assert list(run.results["BLOCK"]) == [64, 256] and list(run.results["num_warps"]) == [4, 2]
    assert run.plot.redraws == 0


def test_sweep_benchmark_runs_a_perf_report_live():
    calls = []

    @kl.testing.perf_report(kl.testing.Benchmark(
        x_names=["size"], x_vals=[1, 2, 4], line_arg="provider", line_vals=["a", "b"], line_names=["A", "B"],
        ylabel="GB/s", plot_name="toy", args={"scale": 10}))
    def bench(size, provider, scale):
        calls.append((size, provider))
        value = size * scale * (2 if provider == "b" else 1)
        return value, value - 1, value + 1

    run = sweep_benchmark(bench, live=True)
    assert calls == [(1, "a"), (1, "b"), (2, "a"), (2, "b"), (4, "a"), (4, "b")]
    table = run.results
    assert list(table["size"]) == [1, 2, 4] and list(table["B"]) == [20, 40, 80] and list(table["A-min"]) == [9, 19, 39]
    assert run.plot.redraws == 6 and len(run.figure.axes[0].lines) == 2
    if run.plot.shown:                        # an IPython shell (another test started one) showed the chart
        assert set(run._repr_mimebundle_()) == {"text/plain"}               # so the object is one line
    quiet = sweep_benchmark(bench, live=False)                              # nothing shown: the object is the chart
    assert not quiet.plot.shown and quiet.plot.redraws == 0
    bundle = quiet._repr_mimebundle_()
    figure = bundle[PLOTLY_MIME]
    assert [t["name"] for t in figure["data"] if t.get("showlegend", True)] == ["A", "B"]
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml") and "image/png" not in bundle


# ---------------------------------------------------------------------------------------------
# placing arguments for a target that does not launch host memory
# ---------------------------------------------------------------------------------------------

def test_placed_copies_the_arrays_of_tuple_arguments_and_back(monkeypatch, inputs):
    from kernellab import backends
    from kernellab.notebook import launch as notebook_launch

    class Copy:
        def __init__(self, array):
            self.data = array.copy()

        def numpy(self):
            return self.data

    class StandIn:  # a device backend's to_device, without a device
        def to_device(self, array):
            return Copy(array)

    monkeypatch.setattr(backends, "get", lambda target: StandIn())
    x, y, z = inputs.normal(8), inputs.normal(8), inputs.normal(8)
    with notebook_launch.placed({"pair": (x, (y, 3)), "z": z, "n": 8}, "cuda:sm_90a") as moved:
        assert isinstance(moved["pair"][0], Copy) and isinstance(moved["pair"][1][0], Copy)
        assert moved["pair"][1][1] == 3 and moved["n"] == 8 and isinstance(moved["z"], Copy)
        moved["pair"][1][0].data[:] = 7
    assert y.tolist() == [7] * 8
