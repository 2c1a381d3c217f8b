"""The CPU target: Tile IR -> LLVM IR (host triple) -> machine code, run over host threads.

Registered as ``cpu`` in :mod:`kernellab.backends`.
"""

from __future__ import annotations

import importlib.util

from .. import register

if importlib.util.find_spec("llvmlite") is None:  # loading needs no LLVM, compiling does
    raise ModuleNotFoundError("the cpu target needs llvmlite (pip install llvmlite)", name=__name__)

from .backend import CPUBackend  # noqa: E402

register("cpu", lambda target: CPUBackend())

__all__ = ["CPUBackend"]
