"""What a sweep leaves behind: a record per config (the tuner's ``results`` DataFrame), the
``KERNELLAB_PRINT_AUTOTUNING`` report, and the progress bar shown while it runs.

The progress bar is tqdm's ``tqdm.auto``: a widget in Jupyter, text in a terminal; it shows
when asked (``progress=True``) or, by default, in a notebook or when stderr is a terminal.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from .config import Config

COLUMNS = ("kernel", "key", "config", "best", "ms", "ms_p20", "ms_p80", "compile_s", "failure", "cached",
           "num_warps", "num_stages", "num_ctas", "maxnreg")


@dataclass
class SweepRecord:
    """One config's row in a sweep."""

    kernel: str
    key: tuple
    config: Config
    timings: list[float] = field(default_factory=lambda: [math.inf] * 3)   # median, p20, p80 (ms)
    compile_s: float | None = None
    failure: str | None = None
    cached: bool = False   # the timing came from the on-disk result cache
    best: bool = False

    def row(self) -> dict[str, Any]:
        ms, p20, p80 = (list(self.timings) + [math.nan] * 3)[:3]
        values = {name: value for name, value in asdict(self).items() if name in COLUMNS}
        values.update(key=self.key, config=str(self.config), ms=ms, ms_p20=p20, ms_p80=p80,
                      num_warps=self.config.num_warps, num_stages=self.config.num_stages,
                      num_ctas=self.config.num_ctas, maxnreg=self.config.maxnreg)
        values.update(self.config.kwargs)
        return values


def results_frame(records: list[SweepRecord]) -> Any:
    """The records as a pandas DataFrame (a column per meta-parameter too)."""
    import pandas as pd

    rows = [record.row() for record in records]
    extra = sorted({name for row in rows for name in row} - set(COLUMNS))
    return pd.DataFrame(rows, columns=[*COLUMNS, *extra])


def _ms(value: float) -> str:
    return f"{value:.4f}" if math.isfinite(value) else "inf"


def report(name: str, key: tuple, records: list[SweepRecord], seconds: float, best: Config) -> str:
    """The text ``KERNELLAB_PRINT_AUTOTUNING=1`` prints after a sweep."""
    cached = sum(r.cached for r in records)
    lines = [f"kernellab autotuning for function {name},", f"with key as {key},",
             f"finished after {seconds:.2f}s ({len(records) - cached} timed, {cached} from the result cache),",
             f"best config selected: {best};"]
    for record in sorted(records, key=lambda r: r.timings):
        mark = "*" if record.best else " "
        status = f"  ({record.failure.splitlines()[0]})" if record.failure else ""
        where = " [cached]" if record.cached else ""
        lines.append(f" {mark} {_ms(record.timings[0]):>10} ms  {record.config}{where}{status}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------------------------

def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def show_progress(requested: bool | None) -> bool:
    if requested is not None:
        return bool(requested)
    stderr = sys.stderr
    return in_notebook() or bool(getattr(stderr, "isatty", lambda: False)())


class _Silent:
    def update(self, n: int = 1) -> None:
        return None

    def set_description(self, text: str) -> None:
        return None


@contextmanager
def progress_bar(total: int, description: str, shown: bool) -> Iterator[Any]:
    """A tqdm bar (``update(n)``) over ``total`` steps, or a silent stand-in."""
    if not shown or total <= 0:
        yield _Silent()
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is a dependency; without it there is simply no bar
        yield _Silent()
        return
    bar = tqdm(total=total, desc=description, leave=False, unit="config")
    try:
        yield bar
    finally:
        bar.close()


__all__ = ["SweepRecord", "results_frame", "report", "progress_bar", "show_progress", "in_notebook", "COLUMNS"]
