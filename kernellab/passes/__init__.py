"""Target-independent Tile IR passes.  Each is a named :class:`Pass` (``Pass(name, fn)``, with
``fn(module) -> module`` rewriting in place); :class:`PassPipeline` runs them, timing each and
recording the IR after it (``pipeline.py``)."""

from __future__ import annotations

from ..ir.core import Module
from .canonicalize import canonicalize
from .combine import combine
from .cse import cse
from .dce import dce
from .inline import inline
from .licm import licm
from .pipeline import (
    Callback,
    Pass,
    PassPipeline,
    PassRecord,
    Recording,
    active_recording,
    kernel_passes,
    read_trail,
    record_pass,
    recording,
    trail_text,
)

PASSES: dict[str, Pass] = {
    item.name: item for item in (
        Pass("inline", inline, "inline every call of a jit function not marked noinline"),
        Pass("canonicalize", canonicalize, "fold constants through the op references, apply identities"),
        Pass("cse", cse, "merge pure ops computing the same value"),
        Pass("dce", dce, "remove ops whose results are unused and that write nothing"),
        Pass("combine", combine, "fold an add of a zero-accumulator dot into the dot (Triton's combine)"),
        Pass("licm", licm, "hoist loop-invariant pure ops out of loops"),
    )
}

DEFAULT_PIPELINE = ("inline", "canonicalize", "cse", "dce", "combine", "licm", "canonicalize", "dce")


def pipeline(names: tuple[str, ...] | list[str], callback: Callback | None = None) -> PassPipeline:
    """A :class:`PassPipeline` of the named passes (ValueError naming an unknown one)."""
    return PassPipeline(list(names), callback=callback)


def run_passes(module: Module, names: tuple[str, ...] | list[str]) -> Module:
    """Run the named passes in order."""
    return pipeline(names).run(module)


def default_pipeline(module: Module) -> Module:
    """inline, canonicalize, cse, dce, combine, licm, canonicalize, dce."""
    return run_passes(module, DEFAULT_PIPELINE)


__all__ = ["PASSES", "DEFAULT_PIPELINE", "default_pipeline", "run_passes", "pipeline", "inline", "canonicalize",
           "combine", "cse", "dce", "licm", "Pass", "PassPipeline", "PassRecord", "Recording", "recording",
           "record_pass", "active_recording", "trail_text", "read_trail", "kernel_passes"]
