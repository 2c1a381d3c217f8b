"""README.md's quick start, as a newcomer runs it: its ``%%tile_kernel`` cell through IPython."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _quick_start_cells() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_quick_start_cell_compiles_runs_and_checks(ipython):
    cells = [cell for cell in _quick_start_cells() if cell.startswith("%%tile_kernel")]
    assert len(cells) == 1
    result = ipython.run_cell(cells[0])
    assert result.success, result.error_in_exec
    report = result.result
    assert report.run["check"] == "out_ptr ok" and report.run["ms"] > 0
    assert {"tile", "llvm"} <= set(report.report.stage_names)
    assert report.run["grid"] == [5]                      # kl.cdiv(5000, 1024) programs
