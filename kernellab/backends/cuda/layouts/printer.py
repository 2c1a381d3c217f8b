"""The ``tile.gpu`` stage: Tile IR with the layout of every tile result.

The text is the Tile IR's printed form; each line that defines tiles ends with a comment that
names their layouts (``// #L0`` or ``// #L0, #L1`` for several results, ``args: ...`` for region
arguments), and the layouts themselves are listed once at the top::

    #L0 = #blocked<sizePerThread=[4], threadsPerWarp=[32], warpsPerCTA=[4], order=[0]>
    ...
    %x = load(%px, mask=%m) : tile<1024xf32> loc(#f0:5:8)  // #L0

Lazy tiles (index arithmetic, masks, pointer tiles: see ``assign.py``) show every layout the
lowering materialized them in.  The stage is for reading; it is not parsed back.
"""

from __future__ import annotations

import json

from ....ir.core import Function, Location, Module, Op, Value
from ....ir.printer import Printer
from .assign import LayoutPlan
from .linear import Layout


class GpuPrinter(Printer):
    def __init__(self, plans: dict[str, LayoutPlan]):
        super().__init__()
        self.plans = plans
        self.plan: LayoutPlan | None = None
        self.aliases: dict[str, str] = {}

    def alias(self, layout: Layout) -> str:
        """One alias per printed form: a recipe applied to several shapes shares it."""
        text = layout.describe()
        if text not in self.aliases:
            self.aliases[text] = f"#L{len(self.aliases)}"
        return self.aliases[text]

    def annotate(self, values: list[Value]) -> str:
        if self.plan is None:
            return ""
        parts = []
        for v in values:
            layouts = self.plan.printed_layouts(v)
            if layouts:
                parts.append("|".join(self.alias(layout) for layout in layouts))
        return ", ".join(parts)

    def function(self, function: Function) -> None:
        self.plan = self.plans.get(function.name)
        super().function(function)

    def op(self, op: Op, indent: int) -> None:
        start = len(self.lines)
        super().op(op, indent)
        note = self.annotate(op.results)
        if note:
            self.lines[start] += "  // " + note
        arg_regions = [r for r in op.regions if r.args]
        region_start = "  " * (indent + 1) + "^("
        arg_lines = [i for i in range(start + 1, len(self.lines)) if self.lines[i].startswith(region_start)]
        for line, region in zip(arg_lines, arg_regions):
            note = self.annotate(region.args)
            if note:
                self.lines[line] += "  // args: " + note

    def text(self) -> str:
        files = [f"#f{i} = {json.dumps(path)}" for path, i in sorted(self.files.items(), key=lambda kv: kv[1])]
        layouts = [f"{name} = {text}" for text, name in self.aliases.items()]
        return "\n".join(files + layouts + self.lines) + "\n"


def print_gpu(module: Module, plans: dict[str, LayoutPlan]) -> tuple[str, list[tuple[int, Location]]]:
    """The ``tile.gpu`` text and its line map ``(1-based line, source location)``."""
    printer = GpuPrinter(plans)
    printer.module(module)
    text = printer.text()
    offset = len(printer.files) + len(printer.aliases)
    line_map = [(offset + i + 1, loc) for i, loc in enumerate(printer.locs) if loc is not None]
    return text, line_map
