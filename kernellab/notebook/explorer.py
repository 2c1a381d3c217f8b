"""``kl.notebook.explore(kernel, args, space)``: turn a kernel's knobs, see its speed and code change.

One slider (or drop-down) per knob of ``space`` — constexprs such as ``BLOCK``, and
``num_warps`` / ``num_stages`` — plus a drop-down of the stage to watch.  When a slider is
released the kernel is compiled for the new setting (each setting once: ``runner.Runner``
caches), run on ``args`` with its output poisoned, checked against ``reference``, timed, and the
panel shows time, GB/s or TFLOP/s, registers and spills, and a diff of the watched stage against
the setting before (the stage itself on the first try).  While a setting compiles and runs, the
panel says so (the controls are disabled and a busy line names the setting).  Choosing another
stage redraws the diff at once (no recompiling).  ``Explorer.update(**knobs)`` does the same from
code (tests, executed notebooks); ``Explorer.results`` is every try as a DataFrame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..testing.chart import Chart
from . import html as render
from .bundle import available_stages
from .diff import DIFF_CSS, StageDiff, diff_html, stage_diff
from .runner import Reference, Runner, Trial


def _is_number_list(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


class Explorer:
    """The tuning panel of one kernel (display it, or drive it with :meth:`update`)."""

    def __init__(self, kernel: Any, args: Any, space: dict[str, Sequence[Any]], *, grid: Any = (1,),
                 reference: Reference = None, output: str | None = None, stage: str | None = None,
                 target: str | None = None, bytes_moved: int | Callable[..., int] | None = None,
                 flops: float | Callable[..., float] | None = None, initial: dict[str, Any] | None = None,
                 warmup: float | None = None, rep: float | None = None):
        if not space:
            raise ValueError("explore needs a space: {knob: [values...]}, e.g. {'BLOCK': [128, 256, 512]}")
        self.runner = Runner(kernel, grid, target, warmup, rep)
        self.args = args
        self.space = {name: list(values) for name, values in space.items()}
        empty = [name for name, values in self.space.items() if not values]
        if empty:
            raise ValueError(f"explore: knob(s) {', '.join(empty)} have no values to choose from")
        self.values = {name: values[0] for name, values in self.space.items()}
        self.values.update(initial or {})
        self.reference, self.output_name = reference, output
        self.bytes_moved, self.flops = bytes_moved, flops
        self.stage = stage
        self.trials: list[Trial] = []
        self.failures: list[dict[str, Any]] = []
        self.last_diff: StageDiff | None = None
        self._widget: Any = None
        self._controls: dict[str, Any] = {}
        self._out: Any = None
        self._stage_menu: Any = None
        self._busy: Any = None
        self._holding = False

    # ---- trying a setting ----
    def evaluate(self) -> Trial:
        """Compile, run, check and time the current setting; diff the watched stage."""
        trial = self.runner.trial(self.args, dict(self.values), reference=self.reference, output=self.output_name,
                                  bytes_moved=self.bytes_moved, flops=self.flops)
        previous = self.trials[-1] if self.trials else None
        self.stage = self.stage or _default_stage(trial.compiled)
        _check_stage(trial.compiled, self.stage)
        self.trials.append(trial)
        self._diff_last_two(previous)
        return trial

    def _diff_last_two(self, previous: Trial | None) -> None:
        trial = self.trials[-1]
        self.last_diff = None
        if previous is not None and _shows(previous.compiled, self.stage) and _shows(trial.compiled, self.stage):
            self.last_diff = stage_diff(_text(previous.compiled, self.stage), _text(trial.compiled, self.stage))

    def watch(self, stage: str) -> None:
        """Show (and diff) another stage of the last two tries, as the stage drop-down does."""
        if self.trials:
            _check_stage(self.trials[-1].compiled, stage)
        self.stage = stage
        if len(self.trials) > 0:
            self._diff_last_two(self.trials[-2] if len(self.trials) > 1 else None)
            self._show(self.trials[-1])

    def update(self, **knobs: Any) -> Trial:
        """Set knobs (as the sliders would) and try the new setting."""
        unknown = [name for name in knobs if name not in self.space]
        if unknown:
            raise KeyError(f"explore: no knob {', '.join(unknown)}; the knobs are {', '.join(self.space)}")
        self.values.update(knobs)
        self._holding = True
        try:
            for name, value in knobs.items():
                if name in self._controls:
                    self._controls[name].value = value
        finally:
            self._holding = False
        self._set_busy(True)
        try:
            trial = self.evaluate()
        finally:
            self._set_busy(False)
        self._show(trial)
        return trial

    @property
    def results(self) -> Any:
        """Every setting tried so far (and the ones that failed), as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([trial.row() for trial in self.trials] + self.failures)

    def chart(self) -> Chart:
        """Every try's time (its 20th-80th percentile band), in order; hovering names the setting."""
        chart = Chart(f"{_kernel_name(self.runner)}: every try", "try", "µs")
        for index, trial in enumerate(self.trials, 1):
            if not math.isfinite(trial.ms):
                continue
            label = ", ".join(f"{k}={v}" for k, v in trial.settings.items())
            chart.add("time", index, trial.ms * 1e3, trial.timings[1] * 1e3, trial.timings[2] * 1e3, label=label)
        return chart

    def best(self) -> Trial | None:
        good = [t for t in self.trials if t.ok and math.isfinite(t.ms)]
        return min(good, key=lambda t: t.ms) if good else None

    # ---- the panel ----
    def panel_html(self, trial: Trial) -> str:
        """The status panel of one try (no JavaScript)."""
        facts = [("setting", ", ".join(f"{k}={v}" for k, v in trial.settings.items())),
                 ("time", f"{trial.ms * 1e3:.1f} µs" if math.isfinite(trial.ms) else "—")]
        facts += [(name, f"{value:.2f}") for name, value in trial.rates.items()]
        facts.append(("check", trial.check or "not checked"))
        compile_s = (trial.compiled.metadata.get("compile_seconds") or {}).get("total")
        facts.append(("compile", "cached" if trial.cached else f"{(compile_s or 0) * 1e3:.0f} ms"))
        for key in ("registers", "spills"):
            if trial.compiled.metadata.get(key) is not None:
                facts.append((key, str(trial.compiled.metadata[key])))
        best = self.best()
        if best is not None:
            facts.append(("best so far", f"{', '.join(f'{k}={v}' for k, v in best.settings.items())} "
                                          f"({best.ms * 1e3:.1f} µs)"))
        chips = "".join(f'<span class="kl-chip">{render.esc(k)}: {render.esc(v)}</span>' for k, v in facts)
        bad = "" if trial.ok else f'<ul class="kl-notes"><li class="kl-error">{render.esc(trial.check)}</li></ul>'
        diff = ""
        if self.last_diff is not None:
            diff = (f"<div>stage <b>{render.esc(self.stage)}</b> against the setting before: "
                    f"{render.esc(self.last_diff.summary())}</div>{diff_html(self.last_diff)}")
        elif _shows(trial.compiled, self.stage):
            text = _text(trial.compiled, self.stage)
            diff = (f"<div>stage <b>{render.esc(self.stage)}</b> ({len(text.splitlines())} lines)</div>"
                    f'<div style="max-height:24em;overflow:auto">'
                    f"{render.code_block(text, {}, 1, source_gutter=False, max_lines=400)}</div>")
        return (f'<div class="kl-report"><style>{render.CSS}{DIFF_CSS}</style><div class="kl-head">{chips}</div>'
                f"{bad}{diff}</div>")

    @property
    def widget(self) -> Any:
        """The ipywidgets panel (built on first use)."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self) -> Any:
        import ipywidgets as widgets

        for name, values in self.space.items():
            kind = widgets.SelectionSlider if _is_number_list(values) else widgets.Dropdown
            control = kind(options=values, value=self.values[name], description=name, continuous_update=False)
            control.observe(self._changed(name), names="value")
            self._controls[name] = control
        stages = [self.stage] if self.stage else []
        self._stage_menu = widgets.Dropdown(options=stages, value=self.stage, description="stage",
                                            layout=widgets.Layout(width="14em"))
        self._stage_menu.observe(self._stage_chosen, names="value")
        self._busy = widgets.HTML(layout=widgets.Layout(min_height="1.6em"))
        self._out = widgets.Output()
        return widgets.VBox([widgets.HBox(list(self._controls.values())),
                             widgets.HBox([self._stage_menu, self._busy]), self._out])

    def _stage_chosen(self, change: dict) -> None:
        if self._holding or not change["new"]:
            return
        self.watch(change["new"])

    def _set_busy(self, busy: bool) -> None:
        """Say that a setting compiles and runs (disabling the controls meanwhile), or that it is done."""
        if self._busy is None:
            return
        for control in [*self._controls.values(), self._stage_menu]:
            control.disabled = busy
        setting = ", ".join(f"{k}={v}" for k, v in self.values.items())
        self._busy.value = (f'<span class="kl-busy" role="status">⏳ compiling and timing '
                            f"{render.esc(setting)}…</span>" if busy else "")

    def _sync_stage_menu(self) -> None:
        if self._stage_menu is None or not self.trials:
            return
        self._holding = True
        try:
            self._stage_menu.options = available_stages(self.trials[-1].compiled)
            self._stage_menu.value = self.stage
        finally:
            self._holding = False

    def _changed(self, name: str) -> Callable[[dict], None]:
        def handler(change: dict) -> None:
            if self._holding:
                return
            self.values[name] = change["new"]
            self._try()

        return handler

    def _try(self) -> None:
        self._set_busy(True)
        try:
            trial = self.evaluate()
        except Exception as error:  # a setting that does not compile or run: show it, keep the panel alive
            self._set_busy(False)
            self.failures.append({**self.values, "check": f"{type(error).__name__}: {error}"})
            self._show_html(f'<div class="kl-report"><style>{render.CSS}</style><ul class="kl-notes">'
                            f'<li class="kl-error">{render.esc(type(error).__name__)}: {render.esc(error)}</li></ul>'
                            "</div>")
            return
        self._set_busy(False)
        self._show(trial)

    def _show(self, trial: Trial) -> None:
        self._sync_stage_menu()
        chart = self.chart() if len(self.trials) > 1 else None
        self._show_html(self.panel_html(trial), chart)

    def _show_html(self, text: str, chart: Chart | None = None) -> None:
        if self._out is None:
            return
        from IPython.display import HTML, display

        self._out.clear_output(wait=True)
        with self._out:
            display(HTML(text))
            if chart is not None:      # a fresh Plotly output each time (the renderer draws a new one)
                display(chart.bundle(static=False), raw=True)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
        self._try()


def _kernel_name(runner: Runner) -> str:
    from .launch import base_kernel

    return base_kernel(runner.kernel).__name__


def _shows(compiled: Any, stage: str | None) -> bool:
    """Whether ``stage`` is one of the textual stages of ``compiled`` (a lazy one included)."""
    return stage in available_stages(compiled)


def _check_stage(compiled: Any, stage: str) -> None:
    if not _shows(compiled, stage):
        raise KeyError(f"explore: no stage {stage!r}; this kernel has {', '.join(available_stages(compiled))}")


def _text(compiled: Any, stage: str) -> str:
    value = compiled.asm[stage]
    return value if isinstance(value, str) else value.decode("utf-8", "replace")


def _default_stage(compiled: Any) -> str:
    """The machine-level stage to watch: PTX on a GPU, host assembly on the CPU, else the last."""
    for name in ("ptx", "asm", "llvm", "py", "tile"):
        if name in compiled.asm:
            return name
    return next(iter(compiled.asm))


def explore(kernel: Any, args: Any, space: dict[str, Sequence[Any]], **options: Any) -> Explorer:
    """A tuning panel for ``kernel`` run on ``args`` over ``space`` (knob -> values): see
    :class:`Explorer` for the options (``grid``, ``reference``, ``output``, ``stage``,
    ``target``, ``bytes_moved``, ``flops``, ``initial``, ``warmup``, ``rep``)."""
    return Explorer(kernel, args, space, **options)


__all__ = ["Explorer", "explore"]
