"""The CPU target: Tile IR -> LLVM IR (host triple) -> machine code, run over host threads.

Registered as ``cpu`` in :mod:`kernellab.backends`.
"""

from __future__ import annotations

from .. import register
from .backend import CPUBackend

register("cpu", lambda target: CPUBackend())

__all__ = ["CPUBackend"]
