"""``kl.notebook.report(kernel_or_compiled)``: a compile report you can display or read.

A :class:`CompileReport` holds the JSON bundle (``bundle.py``) and displays as a MIME bundle:
``application/vnd.kernellab.compile+json`` (for the JupyterLab extension), ``text/html``
(``html.py``, no JavaScript) and ``text/plain`` (a summary).
"""

from __future__ import annotations

import json
from typing import Any

from . import bundle as schema
from . import html as render_html


class CompileReport:
    """A compiled kernel's stages linked to its source (see ``bundle.py`` for the schema)."""

    def __init__(self, data: dict[str, Any], compiled: Any = None):
        schema.validate(data)
        self.bundle = data
        self.compiled = compiled

    # ---- reading it ----
    @property
    def kernel(self) -> str:
        return self.bundle["kernel"]

    @property
    def stage_names(self) -> list[str]:
        return [stage["name"] for stage in self.bundle["stages"]]

    def stage(self, name: str) -> dict[str, Any]:
        for stage in self.bundle["stages"]:
            if stage["name"] == name:
                return stage
        raise KeyError(f"this report has no stage {name!r}; it has {', '.join(self.stage_names)}")

    def lines_of(self, source_line: int) -> dict[str, list[int]]:
        """Stage name -> the stage lines that came from ``source_line``."""
        return {stage["name"]: [s for s, line in stage["lines"] if line == source_line]
                for stage in self.bundle["stages"]}

    def to_json(self) -> str:
        return json.dumps(self.bundle, indent=1)

    # ---- showing it ----
    def html(self) -> str:
        return render_html.render(self.bundle)

    def text(self) -> str:
        """A plain-text summary: facts, diagnostics, and each stage's size and links."""
        data = self.bundle
        lines = [f"{data['kernel']}: " + " · ".join(render_html.chips(data)),
                 f"source: {render_html.source_note(data['source'])}"]
        lines += [f"stage {stage['name']}: {render_html.stage_summary(stage)}" for stage in data["stages"]]
        passes = data.get("passes") or []
        if passes:
            steps = ", ".join(entry["name"] + ("" if entry["changed"] else " (unchanged)") for entry in passes)
            changed = sum(entry["changed"] for entry in passes)
            lines.append(f"passes ({changed} of {len(passes)} changed the IR): {steps}")
        lines += [f"{note['severity']}: {note['message']}" for note in data["diagnostics"]]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {schema.MIME: self.bundle, "text/html": self.html(), "text/plain": self.text()}

    def __repr__(self) -> str:
        return f"<CompileReport {self.kernel} for {self.bundle['target']}: {', '.join(self.stage_names)}>"


def latest_compiled(kernel: Any) -> Any:
    """The most recently compiled specialization of a jit kernel (or of the kernel under an
    autotune/heuristics wrapper)."""
    from ..runtime.autotuning.compile import base_jit

    jit = base_jit(kernel)
    if not jit.cache:
        raise ValueError(f"`{jit.__name__}` has not been compiled yet: launch it once, call "
                         f"{jit.__name__}.warmup(...), or pass signature={{...}} and constexprs={{...}} to report()")
    return list(jit.cache.values())[-1]


def as_compiled(kernel_or_compiled: Any, signature: dict[str, Any] | None = None,
                constexprs: dict[str, Any] | None = None, target: str | None = None, **options: Any) -> Any:
    """A CompiledKernel from a CompiledKernel, or from a kernel (compiled here when a signature
    is given, else its latest compiled specialization)."""
    from ..runtime import CompiledKernel, compile
    from ..runtime.autotuning.compile import base_jit

    if isinstance(kernel_or_compiled, CompiledKernel):
        return kernel_or_compiled
    if signature is not None or constexprs is not None:
        return compile(base_jit(kernel_or_compiled), signature=signature, constexprs=constexprs, target=target,
                       **options)
    return latest_compiled(kernel_or_compiled)


def report(kernel_or_compiled: Any, stages: list[str] | None = None, *, signature: dict[str, Any] | None = None,
           constexprs: dict[str, Any] | None = None, target: str | None = None,
           source: schema.SourceRegion | None = None, extra: dict[str, Any] | None = None,
           **options: Any) -> CompileReport:
    """The compile report of a CompiledKernel, or of a kernel: compiled for ``signature`` /
    ``constexprs`` / ``target`` / options when given, else its latest compilation.  ``stages``
    picks the stages shown (all of them by default)."""
    compiled = as_compiled(kernel_or_compiled, signature, constexprs, target, **options)
    return CompileReport(schema.build(compiled, stages, source, extra), compiled)


__all__ = ["CompileReport", "report", "as_compiled", "latest_compiled"]
