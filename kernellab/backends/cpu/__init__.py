"""The CPU target: Tile IR -> LLVM IR (host triple) -> machine code, run over host threads.

Registered as ``cpu`` in :mod:`kernellab.backends`.  The backend itself (``backend.py``: the
launcher, the thread pool's schedule) is imported when a ``cpu`` backend is first made, not with
this package: the runtime's native launch path imports ``objload`` from here on its own.
"""

from __future__ import annotations

import importlib.util

from ...lazy import lazy_attributes, names_from
from .. import register
from ..capabilities import DOT_INPUT_PRECISIONS, Capabilities

if importlib.util.find_spec("llvmlite") is None:  # loading needs no LLVM, compiling does
    raise ModuleNotFoundError("the cpu target needs llvmlite (pip install llvmlite)", name=__name__)


def _make_backend(target: str):
    from .backend import CPUBackend

    return CPUBackend()


# Forked processes warm the disk cache in a sweep (llvmlite's global lock serializes threads).
CAPABILITIES = Capabilities(
    name="cpu", gpu=False, launches_host_arrays=True, array_location="cpu", min_dot_size=(1, 1, 1),
    dot_input_precisions=DOT_INPUT_PRECISIONS, default_dot_input_precision="ieee", debug_by_default=False,
    parallel_compile="processes", timer="host", native_launch="host_grid")

register("cpu", _make_backend, CAPABILITIES)
__getattr__, __dir__ = lazy_attributes(globals(), names_from(".backend", "CPUBackend"))

__all__ = ["CPUBackend"]
