"""Named passes, a pipeline that records what each one did, and the compile's pass trail.

A :class:`Pass` is a name and ``fn(module) -> module``.  :class:`PassPipeline` runs passes in
order and, after each, makes a :class:`PassRecord`: the pass's name, its time, whether it
changed the IR (the printed form differs from the one before it) and the IR after it, printed
with its locations (``loc(#fN:line:col)``); then it calls its ``callback(record, module)``.

A compilation collects the records of every step into one trail (:func:`recording`, which the
runtime's compiler opens around the whole pipeline): the frontend's output, each Tile IR pass,
then the backend's own steps, which a backend adds with :func:`record_pass` (or by running a
``PassPipeline`` of its own passes) without knowing whether anyone records::

    record_pass("layouts", printed_module, dialect="tile.gpu", seconds=elapsed)

``dialect`` says which IR the text is (``tile``, ``tile.gpu``, ``llvm``, ``py``, ``ptx``,
``asm``): a viewer diffs a record against the previous one of the same dialect and reads its
source locations with that dialect's parser.  Outside a recording :func:`record_pass` does
nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..ir.core import Module

PassFunction = Callable[[Module], Module]
Callback = Callable[["PassRecord", "Module | None"], None]
TRAIL_VERSION = 1


@dataclass(frozen=True)
class Pass:
    """A named pass: ``Pass("cse", cse)(module)`` runs it."""

    name: str
    run: PassFunction
    doc: str = ""

    def __call__(self, module: Module) -> Module:
        return self.run(module)


@dataclass
class PassRecord:
    """What one step did: ``ir`` is the IR after it (``dialect`` says which IR)."""

    name: str
    dialect: str
    seconds: float
    changed: bool
    ir: str
    stage: str | None = None   # the compilation's final stage whose text ``ir`` is, when one is

    @property
    def ms(self) -> float:
        return round(self.seconds * 1e3, 4)

    def summary(self) -> dict[str, Any]:
        """``{"name", "ms", "changed"}``: the entry of ``metadata["passes"]``."""
        return {"name": self.name, "ms": self.ms, "changed": self.changed}


@dataclass
class Recording:
    """The trail of one compilation: every record, in order, and an optional callback."""

    records: list[PassRecord] = field(default_factory=list)
    callback: Callback | None = None

    def last_ir(self, dialect: str) -> str | None:
        """The IR of the latest record in ``dialect`` (None when there is none)."""
        return next((record.ir for record in reversed(self.records) if record.dialect == dialect), None)

    def add(self, record: PassRecord, module: Module | None = None) -> None:
        self.records.append(record)
        if self.callback is not None:
            self.callback(record, module)

    def summaries(self) -> list[dict[str, Any]]:
        return [record.summary() for record in self.records]


_ACTIVE: ContextVar[Recording | None] = ContextVar("kernellab_pass_recording", default=None)


@contextmanager
def recording(callback: Callback | None = None) -> Iterator[Recording]:
    """Collect every pass record made in this context (this thread) into one :class:`Recording`;
    ``callback(record, module)`` is called after each step (``module`` is None for steps that
    recorded only text)."""
    trail = Recording(callback=callback)
    token = _ACTIVE.set(trail)
    try:
        yield trail
    finally:
        _ACTIVE.reset(token)


def active_recording() -> Recording | None:
    return _ACTIVE.get()


def record_pass(name: str, ir: str, *, dialect: str, seconds: float = 0.0, changed: bool | None = None,
                module: Module | None = None) -> PassRecord | None:
    """Add a step to the compilation being recorded: ``ir`` is the IR text after it (with its
    source locations as the dialect prints them).  ``changed`` defaults to whether ``ir``
    differs from the previous record of the same dialect (a first record of a dialect changed
    it).  Returns the record, or None when no compilation is being recorded."""
    trail = _ACTIVE.get()
    if trail is None:
        return None
    if not isinstance(name, str) or not name:
        raise ValueError(f"a pass is named by a non-empty string, got {name!r}")
    if not isinstance(ir, str):
        raise TypeError(f"record_pass({name!r}) takes the IR as text, got {type(ir).__name__}")
    if changed is None:
        changed = trail.last_ir(dialect) != ir
    record = PassRecord(name, dialect, float(seconds), bool(changed), ir)
    trail.add(record, module)
    return record


def _as_pass(item: Pass | str | PassFunction) -> Pass:
    """A Pass, the name of one of ``PASSES``, or a function (named by its ``__name__``)."""
    if isinstance(item, Pass):
        return item
    if isinstance(item, str):
        from . import PASSES

        if item not in PASSES:
            raise ValueError(f"unknown pass {item!r}; known: {', '.join(PASSES)}")
        return PASSES[item]
    if callable(item):
        return Pass(getattr(item, "__name__", type(item).__name__), item)
    raise TypeError(f"a PassPipeline runs passes: Pass(name, fn), a pass's name or fn(module) -> module; "
                    f"got {item!r}")


class PassPipeline:
    """Passes run in order, each one timed and its IR recorded.

    ``callback(record, module)`` is called after each pass; the records also go to the
    compilation being recorded (:func:`recording`), if any.  ``dialect`` names the IR the
    passes rewrite (``tile``; a GPU backend's ``tile.gpu``)."""

    def __init__(self, passes: Sequence[Pass | str | PassFunction], *, dialect: str = "tile",
                 callback: Callback | None = None):
        self.passes = tuple(_as_pass(item) for item in passes)
        self.dialect = dialect
        self.callback = callback
        self.records: list[PassRecord] = []
        self.printed: tuple[Module, str, list] | None = None  # the last module, its text and line map

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.passes)

    def run(self, module: Module, before: str | None = None) -> Module:
        """Run every pass on ``module``; returns the module the last one returned.  ``before`` is
        ``module`` printed, when the caller has it (else it is printed here).  Afterwards
        ``printed`` holds the result, its printed text and line map (``print_with_locations``)."""
        from ..ir.printer import print_module, print_with_locations

        trail = _ACTIVE.get()
        if before is None:
            before = print_module(module)
        for item in self.passes:
            start = time.perf_counter()
            module = item.run(module)
            seconds = time.perf_counter() - start
            after, line_map = print_with_locations(module)
            self.printed = (module, after, line_map)
            record = PassRecord(item.name, self.dialect, seconds, after != before, after)
            self.records.append(record)
            if trail is not None:
                trail.add(record, module)
            if self.callback is not None:
                self.callback(record, module)
            before = after
        return module

    def __repr__(self) -> str:
        return f"PassPipeline({', '.join(self.names)}; {self.dialect})"


# ---------------------------------------------------------------------------------------------
# The trail as a compilation stores it (the ``passes`` entry of ``CompiledKernel.asm``)
# ---------------------------------------------------------------------------------------------

def trail_text(records: Sequence[PassRecord], stages: dict[str, str | bytes]) -> str:
    """The records' IR as JSON text, deterministic (their times and changes are the compiled
    kernel's ``metadata["passes"]``): a record whose IR is one of ``stages`` (the compilation's
    final stages) names it (``"stage": "tile"``) instead of repeating it."""
    same = {value: name for name, value in stages.items() if isinstance(value, str)}
    entries = []
    for record in records:
        entry: dict[str, Any] = {"name": record.name, "dialect": record.dialect}
        stage = same.get(record.ir)
        if stage is not None:
            entry["stage"] = stage
        else:
            entry["text"] = record.ir
        entries.append(entry)
    return json.dumps({"version": TRAIL_VERSION, "passes": entries}, separators=(",", ":"))


def read_trail(text: str, stages: dict[str, Any], summaries: Sequence[dict[str, Any]]) -> list[PassRecord]:
    """The records of :func:`trail_text` again: ``stages`` gives the texts records name,
    ``summaries`` (``metadata["passes"]``) their times and changes.  ValueError when ``text``
    is not such a trail or does not match ``summaries``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"the pass trail is not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("version") != TRAIL_VERSION or not isinstance(data.get("passes"), list):
        raise ValueError(f"the pass trail is not version {TRAIL_VERSION} of {{version, passes: [...]}}")
    if len(data["passes"]) != len(summaries):
        raise ValueError(f"the pass trail has {len(data['passes'])} records and the metadata {len(summaries)}")
    try:
        return [_read_record(entry, stages, summary) for entry, summary in zip(data["passes"], summaries)]
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"a pass record of the trail is damaged ({type(error).__name__}: {error})") from None


def kernel_passes(compiled: Any) -> list[PassRecord]:
    """The pass records of a ``CompiledKernel`` (its ``asm["passes"]`` and ``metadata["passes"]``);
    ValueError when it has none or they are damaged."""
    text, summaries = compiled.asm.get("passes"), compiled.metadata.get("passes")
    if not isinstance(text, str) or not isinstance(summaries, list):
        raise ValueError(f"`{compiled.metadata.get('name')}` kept no pass records")
    return read_trail(text, compiled.asm, summaries)


def _read_record(entry: dict[str, Any], stages: dict[str, Any], summary: dict[str, Any]) -> PassRecord:
    if entry["name"] != summary["name"]:
        raise ValueError(f"the pass trail's {entry['name']!r} is {summary['name']!r} in the metadata")
    ir = entry["text"] if "text" in entry else stages[entry["stage"]]
    return PassRecord(str(entry["name"]), str(entry["dialect"]), float(summary["ms"]) / 1e3, bool(summary["changed"]),
                      ir if isinstance(ir, str) else ir.decode("utf-8", "replace"), entry.get("stage"))


__all__ = ["Callback", "Pass", "PassRecord", "PassPipeline", "Recording", "recording", "record_pass",
           "active_recording", "trail_text", "read_trail", "kernel_passes", "TRAIL_VERSION"]
