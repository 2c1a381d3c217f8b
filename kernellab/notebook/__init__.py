"""kernellab in Jupyter: ``%%tile_kernel``, compile reports, tuning widgets and live sweeps.

* ``%load_ext kernellab`` then ``%%tile_kernel [options]`` (``magics.py``; ``%%tile_kernel?``).
* :func:`report` (``compile_report.py``): a kernel's stages linked to its source, as a MIME bundle
  (``application/vnd.kernellab.compile+json``, HTML without JavaScript, text).
* :func:`compare` (``ab_view.py``): two configs' stages and timings side by side.
* :func:`explore` (``explorer.py``): sliders over constexprs, num_warps, num_stages.
* :func:`sweep` (``sweeps.py``): configs x sizes, plotted and tabulated as results arrive.
* ``tutorial``: where the teaching notebooks run and how big their problems are.

Submodules load on first use (IPython, ipywidgets and matplotlib only when needed).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY: dict[str, tuple[str, str | None]] = {
    "report": ("kernellab.notebook.compile_report", "report"),
    "CompileReport": ("kernellab.notebook.compile_report", "CompileReport"),
    "compare": ("kernellab.notebook.ab_view", "compare"),
    "explore": ("kernellab.notebook.explorer", "explore"),
    "sweep": ("kernellab.notebook.sweeps", "sweep"),
    "sweep_benchmark": ("kernellab.notebook.sweeps", "sweep_benchmark"),
    "ABView": ("kernellab.notebook.ab_view", "ABView"),
    "tutorial": ("kernellab.notebook.tutorial", None),
    "TileKernelMagics": ("kernellab.notebook.magics", "TileKernelMagics"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'kernellab.notebook' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext kernellab.notebook`` (``%load_ext kernellab`` does the same)."""
    from .magics import load_ipython_extension as load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    from .magics import unload_ipython_extension as unload

    unload(shell)


__all__ = [*_LAZY, "load_ipython_extension", "unload_ipython_extension"]
