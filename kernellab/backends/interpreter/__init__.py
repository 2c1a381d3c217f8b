"""The interpreter backend: eager numpy execution of Tile IR, program by program — the living
spec of every op.

It compiles a module once into Python source (the ``py`` stage: one line per op calling the
op's numpy reference, Python control flow, the launch-invariant prologue hoisted out of the
program loop) and runs the grid sequentially, checking every masked-in memory access against
the allocation of the argument it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import register
from .backend import InterpreterBackend, InterpreterLauncher
from .buffers import InterpreterBuffer, as_buffer

register("interpret", lambda target: InterpreterBackend(target), InterpreterBackend.capabilities)


def run(module: Any, grid: Sequence[int] | int, args: Sequence[Any], **options: Any) -> None:
    """Compile ``module`` for the interpreter and launch it once (a convenience for tests and
    notebooks; the runtime goes through ``backends.get('interpret')``)."""
    backend = InterpreterBackend()
    opts = backend.options(**options)
    launcher = backend.load(backend.compile(module, opts, {}), {})
    launcher(grid, list(args))


__all__ = ["InterpreterBackend", "InterpreterLauncher", "InterpreterBuffer", "as_buffer", "run"]
