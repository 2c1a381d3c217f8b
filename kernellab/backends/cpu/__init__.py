"""The CPU target: Tile IR -> LLVM IR (host triple) -> machine code, run over host threads.

Registered as ``cpu`` in :mod:`kernellab.backends`.  The backend itself (``backend.py``: the
launcher, the thread pool's schedule) is imported when a ``cpu`` backend is first made, not with
this package: the runtime's native launch path imports ``objload`` from here on its own.
"""

from __future__ import annotations

import importlib.util

from ...lazy import lazy_attributes, names_from
from .. import register

if importlib.util.find_spec("llvmlite") is None:  # loading needs no LLVM, compiling does
    raise ModuleNotFoundError("the cpu target needs llvmlite (pip install llvmlite)", name=__name__)


def _make_backend(target: str):
    from .backend import CPUBackend

    return CPUBackend()


register("cpu", _make_backend)
__getattr__, __dir__ = lazy_attributes(globals(), names_from(".backend", "CPUBackend"))

__all__ = ["CPUBackend"]
