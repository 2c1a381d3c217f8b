"""The A/B view: one kernel under two configs, stage by stage, with their timings.

``kl.notebook.compare(kernel, args, a={"BLOCK": 256}, b={"BLOCK": 1024}, grid=...)`` compiles
and times both (``runner.Runner``); :meth:`ABView.of` shows two CompiledKernels you already
have.  Each stage present in both is shown as two panes, A beside B, their lines linked to the
one source pane by colour and hover (as in the compile report) and the lines that differ
marked; the summary of each stage counts the lines added and removed.  ``view.chart()`` is the
two timings as an interactive chart (``testing/chart.py``; hover names each config).

MIME bundle: ``application/vnd.kernellab.compare+json`` (``{version, labels, runs, a, b}`` with
``a``/``b`` compile-report bundles), ``text/html`` (no JavaScript) and ``text/plain``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..testing.chart import Chart
from . import bundle as schema
from . import html as render
from .diff import DIFF_CSS, stage_diff
from .runner import Reference, Runner

MIME = "application/vnd.kernellab.compare+json"
AB_CSS = """
.kl-report .kl-ab{display:flex;gap:.5em;align-items:flex-start}
.kl-report .kl-ab>.kl-source{flex:0 1 auto;max-width:32em}
.kl-report .kl-ab-stages{flex:1 1 0;min-width:0;display:flex;flex-direction:column;gap:.4em}
.kl-report .kl-ab-stages>.kl-pane{width:auto;resize:none}
.kl-report .kl-ab-pair{display:flex;gap:.4em}
.kl-report .kl-ab-pair>div{flex:1 1 0;min-width:0}
.kl-report .kl-ab-pair .kl-title{border-bottom:none;font-weight:400}
.kl-report table.kl-runs{border-collapse:collapse;margin:.3em 0}
.kl-report table.kl-runs td,.kl-report table.kl-runs th{padding:.1em .7em;text-align:left;
  border-bottom:1px solid rgba(127,127,127,.3)}
"""


def _settings_text(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in (row.get("settings") or {}).items())


_RUN_COLUMNS = ("config", "time", "rate", "check", "registers")   # what _run_cells gives, in order


def _run_cells(row: dict[str, Any]) -> list[str]:
    ms = row.get("ms")
    time = f"{ms * 1e3:.1f} µs" if isinstance(ms, float) and math.isfinite(ms) else "—"
    rate = next((f"{row[k]:.2f} {k}" for k in ("TFLOP/s", "GB/s") if isinstance(row.get(k), float)), "—")
    return [_settings_text(row) or row.get("label", ""), time, rate, _check_summary(str(row.get("check") or "—")),
            str(row.get("registers") if row.get("registers") is not None else "—")]


def _check_summary(check: str) -> str:
    """A check's verdict on one line: ``ok``, or the line of a failed comparison's report that
    says how many elements differ (the report itself runs to a dozen lines of arrays)."""
    lines = [line.strip() for line in check.splitlines() if line.strip()]
    if len(lines) <= 1:
        return check
    return next((line for line in lines if line.startswith("Mismatched elements")), lines[0])


def _check_html(row: dict[str, Any]) -> str:
    """The check cell: the verdict, and a failed comparison's whole report folded under it."""
    check = str(row.get("check") or "—")
    summary = _check_summary(check)
    if summary == check:
        return render.esc(check)
    return (f"<details><summary>{render.esc(summary)}</summary>"
            f'<pre style="white-space:pre-wrap;margin:0">{render.esc(check)}</pre></details>')


class ABView:
    """Two compilations of one kernel, stage by stage."""

    def __init__(self, a: dict[str, Any], b: dict[str, Any], labels: Sequence[str], runs: list[dict[str, Any]]):
        schema.validate(a)
        schema.validate(b)
        self.a, self.b = a, b
        self.labels = list(labels)
        self.runs = runs

    @classmethod
    def of(cls, compiled_a: Any, compiled_b: Any, labels: Sequence[str] = ("A", "B"),
           stages: list[str] | None = None, runs: list[dict[str, Any]] | None = None) -> ABView:
        """The view of two CompiledKernels (of the same kernel)."""
        a = schema.build(compiled_a, stages)
        region = schema.SourceRegion(a["source"]["file"], a["source"]["first_line"], a["source"]["text"])
        b = schema.build(compiled_b, stages, region)
        runs = runs or [{"label": label} for label in labels]
        return cls(a, b, labels, runs)

    # ---- reading ----
    def stage_names(self) -> list[str]:
        names_b = {stage["name"] for stage in self.b["stages"]}
        return [stage["name"] for stage in self.a["stages"] if stage["name"] in names_b]

    def _stage(self, data: dict[str, Any], name: str) -> dict[str, Any]:
        return next(stage for stage in data["stages"] if stage["name"] == name)

    def diff(self, name: str) -> Any:
        """The :class:`~kernellab.notebook.diff.StageDiff` of one stage, A -> B."""
        return stage_diff(self._stage(self.a, name)["text"], self._stage(self.b, name)["text"])

    def speedup(self) -> float | None:
        """A's time / B's time (above 1: B is faster)."""
        times = [run.get("ms") for run in self.runs]
        if all(isinstance(t, float) and math.isfinite(t) and t > 0 for t in times):
            return times[0] / times[1]
        return None

    def chart(self) -> Chart:
        """Both runs' times (median, 20th-80th percentile band) side by side; hover names the config."""
        chart = Chart(f"{self.a['kernel']}: {' vs '.join(self.labels)}", "config", "µs")
        for label, run in zip(self.labels, self.runs):
            ms = run.get("ms")
            if isinstance(ms, float) and math.isfinite(ms):
                chart.add("time", label, ms * 1e3, _scaled(run.get("ms_p20")), _scaled(run.get("ms_p80")),
                          label=_settings_text(run) or label)
        return chart

    # ---- showing ----
    def _runs_html(self) -> str:
        head = "".join(f"<th>{render.esc(h)}</th>" for h in ("", *_RUN_COLUMNS))
        rows = "".join(f"<tr><th>{render.esc(label)}</th>" + "".join(
            f"<td>{_check_html(run) if column == 'check' else render.esc(cell)}</td>"
            for column, cell in zip(_RUN_COLUMNS, _run_cells(run))) + "</tr>"
            for label, run in zip(self.labels, self.runs))
        ratio = self.speedup()
        verdict = "" if ratio is None else (f"<div>{render.esc(self.labels[1])} takes {1 / ratio:.2f}x the time of "
                                            f"{render.esc(self.labels[0])}</div>")
        return f'<table class="kl-runs"><tr>{head}</tr>{rows}</table>{verdict}'

    def _stage_html(self, name: str) -> str:
        first = self.a["source"]["first_line"]
        diff = self.diff(name)
        sides = []
        for label, data, changed in ((self.labels[0], self.a, diff.changed_before),
                                     (self.labels[1], self.b, diff.changed_after)):
            stage = self._stage(data, name)
            links = {s: line for s, line in stage["lines"]}
            summary = render.esc(render.stage_summary(stage))
            code = render.code_block(stage["text"], links, first, changed=changed)
            sides.append(f'<div><div class="kl-title">{render.esc(label)} <small>{summary}</small></div>{code}</div>')
        return (f'<details class="kl-pane" data-stage="{render.esc(name)}" open><summary>{render.esc(name)} '
                f'<small>{render.esc(diff.summary())}</small></summary><div class="kl-ab-pair">{"".join(sides)}</div>'
                "</details>")

    def html(self) -> str:
        scope = render.report_id({"a": self.a, "b": self.b})
        linked = {line for data in (self.a, self.b) for stage in data["stages"] for _, line in stage["lines"]}
        stages = "".join(self._stage_html(name) for name in self.stage_names())
        title = f'<div class="kl-head"><span class="kl-name">{render.esc(self.a["kernel"])}</span>' \
                f'<span class="kl-chip">{render.esc(self.a["target"])}</span></div>'
        return (f'<div class="kl-report" id="{scope}"><style>{render.CSS}{DIFF_CSS}{AB_CSS}'
                f'{render.hover_css(scope, linked)}</style>{title}{self._runs_html()}<div class="kl-ab">'
                f'{render.source_pane(self.a, linked)}<div class="kl-ab-stages">{stages}</div></div></div>')

    def text(self) -> str:
        lines = [f"{self.a['kernel']} on {self.a['target']}: {self.labels[0]} vs {self.labels[1]}"]
        lines += [f"{label}: " + " | ".join(_run_cells(run)) for label, run in zip(self.labels, self.runs)]
        lines += [f"stage {name}: {self.diff(name).summary()}" for name in self.stage_names()]
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"version": 1, "labels": self.labels, "runs": _json_runs(self.runs), "a": self.a, "b": self.b}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {MIME: self.as_json(), "text/html": self.html(), "text/plain": self.text()}


def _scaled(ms: Any) -> float | None:
    return ms * 1e3 if isinstance(ms, float) and math.isfinite(ms) else None


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


def _json_runs(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_json_value(run) for run in runs]


def compare(kernel: Any, args: Any, a: dict[str, Any], b: dict[str, Any], *, grid: Any = (1,),
            target: str | None = None, stages: list[str] | None = None, labels: Sequence[str] | None = None,
            reference: Reference = None, output: str | None = None, bench: bool = True) -> ABView:
    """Compile ``kernel`` for ``args`` under settings ``a`` and ``b`` (meta-parameters and
    options, e.g. ``{"BLOCK": 256, "num_warps": 4}``), run, check and time both, and show them
    side by side."""
    runner = Runner(kernel, grid, target)
    names = list(labels) if labels else ["A", "B"]
    trials = [runner.trial(args, settings, bench=bench, reference=reference, output=output) for settings in (a, b)]
    runs = [{"label": label, "settings": trial.settings, **trial.measurements()} for label, trial in zip(names, trials)]
    return ABView.of(trials[0].compiled, trials[1].compiled, names, stages, runs)


__all__ = ["ABView", "compare", "MIME"]
