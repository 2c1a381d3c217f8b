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


def test_the_set_up_section_names_every_package_the_lab_installs():
    """README's "what each installs" lists the lab's dependencies (pyproject.toml's); it had left
    plotly out."""
    import tomllib

    project = tomllib.loads((README.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0] for requirement in project["dependencies"]]
    section = README.read_text(encoding="utf-8").split("## Set-up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    lab_line = next(item for item in section.split("\n- ") if item.startswith("`./dev lab`"))
    missing = [name for name in names if name.lower() not in lab_line.lower()]
    assert not missing, missing
