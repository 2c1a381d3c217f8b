"""Target-independent Tile IR passes.  Each is ``fn(module) -> module`` (rewriting in place)."""

from __future__ import annotations

from collections.abc import Callable

from ..ir.core import Module
from .canonicalize import canonicalize
from .cse import cse
from .dce import dce
from .inline import inline
from .licm import licm

Pass = Callable[[Module], Module]

PASSES: dict[str, Pass] = {
    "inline": inline,
    "canonicalize": canonicalize,
    "cse": cse,
    "dce": dce,
    "licm": licm,
}

DEFAULT_PIPELINE = ("inline", "canonicalize", "cse", "dce", "licm", "canonicalize", "dce")


def run_passes(module: Module, names: tuple[str, ...] | list[str]) -> Module:
    """Run the named passes in order."""
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        raise ValueError(f"unknown pass(es) {unknown}; known: {', '.join(PASSES)}")
    for name in names:
        module = PASSES[name](module)
    return module


def default_pipeline(module: Module) -> Module:
    """inline, canonicalize, cse, dce, licm, canonicalize, dce."""
    return run_passes(module, DEFAULT_PIPELINE)


__all__ = ["PASSES", "DEFAULT_PIPELINE", "default_pipeline", "run_passes", "inline", "canonicalize", "cse", "dce",
           "licm"]
