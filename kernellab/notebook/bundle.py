"""The compile report's JSON (``application/vnd.kernellab.compile+json``, DESIGN §7).

Schema, version 2::

    {
      "version": 2,
      "kernel": "add",                      # the kernel's name
      "target": "cpu",                      # cpu | interpret | cuda:sm_90a ...
      "options": {...},                     # the compile options as the backend resolved them
      "source": {"file": path, "first_line": 2, "text": "..."},
      "stages": [{"name": "tile",           # in pipeline order; "source" is not repeated here
                  "text": "...",
                  "lines": [[stage_line, source_line], ...],
                  "seconds": 0.0002,        # compile time of the stage (null when not timed)
                  "filters": {"directive": [3, 4], "comment": [...], "label": [...], "constant": [...]}}],
                                            # assembly stages only (asm_filters.py): lines a reader
                                            # usually hides; optional
      "metadata": {...},                    # the CompiledKernel's metadata without its line maps:
                                            # registers, spills, shared, compile_seconds, ...
      "diagnostics": [{"severity": "info" | "warning" | "error", "message": "...",
                       "stage": name or null}],
      "passes": [{"name", "dialect", "ms", "changed", "base", "text", "lines"}]
                                            # the IR after each pass (pass_bundle.py)
    }

Lines are 1-based.  ``stage_line`` counts lines of the stage's text; ``source_line`` counts
lines of ``source.file`` (so ``source.text``'s first line is ``source.first_line``).  A stage
line appears at most once; lines with no location (labels, directives, code the compiler made
up) are absent.  Version 1 is the same without ``passes``; :func:`validate` accepts both.
"""

from __future__ import annotations

import json
import linecache
import re
from dataclasses import dataclass
from typing import Any

from . import asm_filters, linemaps
from .pass_bundle import pass_entries, pass_sources, trail_records, validate_passes

SCHEMA_VERSION = 2
VERSIONS = (1, 2)         # what validate() accepts (1: before the passes list)
MIME = "application/vnd.kernellab.compile+json"
SEVERITIES = ("info", "warning", "error")
_NOT_STAGES = ("source", "passes")
_HIDDEN_METADATA = ("line_maps", "line_map", "options")


@dataclass(frozen=True)
class SourceRegion:
    """The source a report shows: lines ``first_line ..`` of ``file``."""

    file: str
    first_line: int
    text: str

    @property
    def last_line(self) -> int:
        return self.first_line + max(len(self.text.splitlines()), 1) - 1

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "first_line": self.first_line, "text": self.text}


# ---------------------------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------------------------

def lazy_stage_names(compiled: Any) -> list[str]:
    """Stages the backend computes on first use (``sass``) not computed yet."""
    return [name for name in getattr(compiled.asm, "lazy", {}) if name not in compiled.asm]


def stage_text(compiled: Any, name: str) -> str | bytes:
    """A stage of ``compiled`` (a lazy one is computed now); KeyError when it has none."""
    return compiled.asm[name]


def available_stages(compiled: Any) -> list[str]:
    """The textual stages a report can show, in pipeline order (lazy ones last)."""
    textual = [name for name, value in compiled.asm.items() if isinstance(value, str) and name not in _NOT_STAGES]
    return textual + lazy_stage_names(compiled)


def choose_stages(compiled: Any, requested: list[str] | None) -> list[str]:
    """``requested`` checked against what ``compiled`` has (all of them by default)."""
    available = available_stages(compiled)
    if requested is None:
        return available
    unknown = [name for name in requested if name not in available]
    if unknown:
        raise ValueError(f"{compiled.name} compiled for {compiled.target} has no stage "
                         f"{', '.join(map(repr, unknown))}; its stages are {', '.join(available)}")
    return list(requested)


# ---------------------------------------------------------------------------------------------
# Source
# ---------------------------------------------------------------------------------------------

_CALLEE_HEADER = re.compile(r"^# ---- .+ \((.*):(\d+)\) ----$")


def source_extents(compiled: Any) -> list[tuple[str, int, int]]:
    """``(file, first line, last line)`` of the kernel and of every jit function it calls, read
    from the ``source`` stage (the kernel's text, then a ``# ---- name (file:line) ----`` header
    and the text of each callee) and the kernel's ``source_location``."""
    where = compiled.metadata.get("source_location") or {}
    current = [str(where.get("file", "")), int(where.get("first_line") or 1), 0, 0]  # file, first, lines, up to text
    extents = [current]
    for line in compiled.asm.get("source", "").splitlines():
        header = _CALLEE_HEADER.match(line)
        if header:
            current = [header.group(1), int(header.group(2)), 0, 0]
            extents.append(current)
            continue
        current[2] += 1
        if line.strip():
            current[3] = current[2]
    return [(path, first, first + max(used, 1) - 1) for path, first, _, used in extents]


def kernel_region(compiled: Any, located: list[linemaps.Located]) -> SourceRegion:
    """The kernel's lines in its file, widened to the jit functions it calls from the same file
    and to every line of that file a stage maps to."""
    extents = source_extents(compiled)
    path = extents[0][0]
    spans = [(first, last) for file, first, last in extents if linemaps.same_file(file, path)]
    spans += [(line, line) for _, file, line in located if linemaps.same_file(file, path)]
    low, high = min(first for first, _ in spans), max(last for _, last in spans)
    file_lines = linecache.getlines(path)
    if not file_lines:
        own = compiled.asm.get("source", "").split("\n# ---- ", 1)[0]
        return SourceRegion(path, extents[0][1], own)
    return SourceRegion(path, low, "".join(file_lines[low - 1:min(high, len(file_lines))]))


# ---------------------------------------------------------------------------------------------
# The bundle
# ---------------------------------------------------------------------------------------------

def _diagnostic(severity: str, message: str, stage: str | None = None) -> dict[str, Any]:
    return {"severity": severity, "message": message, "stage": stage}


def _texts(compiled: Any, names: list[str], diagnostics: list[dict[str, Any]]) -> dict[str, str]:
    texts = {}
    for name in names:
        try:
            value = stage_text(compiled, name)
        except Exception as error:  # a lazy stage's tool is missing or failed: say so, show the rest
            diagnostics.append(_diagnostic("warning", f"stage {name} is not available: {error}", name))
            continue
        texts[name] = value if isinstance(value, str) else value.decode("utf-8", "replace")
    return texts


def _metadata(compiled: Any) -> dict[str, Any]:
    metadata = {key: value for key, value in compiled.metadata.items() if key not in _HIDDEN_METADATA}
    binary = {name: len(value) for name, value in compiled.asm.items() if isinstance(value, bytes | bytearray)}
    if binary:
        metadata["binary_stages"] = binary
    return json.loads(json.dumps(metadata, default=str))


def _resource_notes(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    notes = []
    if metadata.get("spills"):
        notes.append(_diagnostic("warning", f"{metadata['spills']} bytes of registers spill to local memory "
                                            "(smaller blocks or fewer stages may avoid it)"))
    for warning in metadata.get("ptxas_warnings") or ():
        notes.append(_diagnostic("warning", f"ptxas: {warning}"))
    cap = metadata.get("register_cap") or {}
    if cap.get("used"):
        before, after = cap["registers"]
        ctas = cap.get("ctas_per_sm") or ["?", "?"]
        notes.append(_diagnostic("info", f"registers capped at {cap['cap']} ({before} -> {after}) to fit "
                                         f"{ctas[1]} CTAs per SM instead of {ctas[0]}; "
                                         "KERNELLAB_CUDA_REGISTER_CAP=0 turns it off"))
    return notes


def build(compiled: Any, stages: list[str] | None = None, source: SourceRegion | None = None,
          extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report of ``compiled`` (a CompiledKernel) as a JSON-able dict (schema above).

    ``source`` is the region of the source to map to (a notebook cell); by default the
    kernel's own lines in its file.  ``extra`` is merged into the metadata (run times...)."""
    diagnostics: list[dict[str, Any]] = []
    texts = _texts(compiled, choose_stages(compiled, stages), diagnostics)
    located = {name: linemaps.stage_locations(name, text, compiled.metadata) for name, text in texts.items()}
    records = trail_records(compiled)
    if records is None:
        records = []
        diagnostics.append(_diagnostic("info", "this compilation kept no IR after its passes"))
    if source is None:
        found = [loc for found in located.values() for loc in found or ()]
        source = kernel_region(compiled, found + pass_sources(records, compiled.metadata))
    seconds = compiled.metadata.get("compile_seconds") or {}
    stage_entries = []
    for name, text in texts.items():
        found = located[name]
        lines = linemaps.to_source(found or (), source.file, source.first_line, source.last_line)
        if found is None:
            diagnostics.append(_diagnostic("info", f"stage {name} carries no source locations kernellab can read",
                                           name))
        elif not lines:
            diagnostics.append(_diagnostic("info", f"no line of stage {name} maps to the source shown", name))
        entry = {"name": name, "text": text, "lines": lines, "seconds": seconds.get(name)}
        filters = asm_filters.classify(text, name)
        if filters:
            entry["filters"] = filters
        stage_entries.append(entry)
    metadata = _metadata(compiled)
    metadata.update(extra or {})
    diagnostics.extend(_resource_notes(metadata))
    return {
        "version": SCHEMA_VERSION,
        "kernel": compiled.name,
        "target": compiled.target,
        "options": json.loads(json.dumps(compiled.metadata.get("options") or {}, default=str)),
        "source": source.as_json(),
        "stages": stage_entries,
        "metadata": metadata,
        "diagnostics": diagnostics,
        "passes": pass_entries(records, compiled.metadata, source.file, source.first_line, source.last_line),
    }


# ---------------------------------------------------------------------------------------------
# Checking a bundle
# ---------------------------------------------------------------------------------------------

class SchemaError(ValueError):
    """A bundle does not follow the schema."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise SchemaError(message)


def validate(bundle: Any) -> None:
    """Raise :class:`SchemaError` naming the first way ``bundle`` breaks the schema."""
    _require(isinstance(bundle, dict), "a bundle is a JSON object")
    version = bundle.get("version")
    _require(version in VERSIONS and isinstance(version, int) and not isinstance(version, bool),
             f"version {version!r} is not one of {VERSIONS}")
    expected = {"version", "kernel", "target", "options", "source", "stages", "metadata", "diagnostics"}
    if version >= 2:
        expected.add("passes")
    _require(set(bundle) == expected, f"a version {version} bundle has exactly the keys {sorted(expected)}, "
                                      f"got {sorted(bundle)}")
    _require(isinstance(bundle["kernel"], str) and isinstance(bundle["target"], str), "kernel and target are strings")
    _require(isinstance(bundle["options"], dict) and isinstance(bundle["metadata"], dict),
             "options and metadata are objects")
    source = bundle["source"]
    _require(isinstance(source, dict) and isinstance(source.get("text"), str)
             and isinstance(source.get("first_line"), int) and source["first_line"] >= 1,
             "source is {file, first_line >= 1, text}")
    first = source["first_line"]
    last = first + max(len(source["text"].splitlines()), 1) - 1
    _require(isinstance(bundle["stages"], list), "stages is a list")
    for stage in bundle["stages"]:
        _require(isinstance(stage, dict) and {"name", "text", "lines"} <= set(stage),
                 "a stage has name, text and lines")
        check_lines(f"stage {stage['name']}", stage["text"], stage["lines"], first, last)
        _check_filters(stage)
    if "passes" in bundle:
        validate_passes(bundle["passes"], first, last, check_lines)
    for note in bundle["diagnostics"]:
        _require(isinstance(note, dict) and note.get("severity") in SEVERITIES and isinstance(note.get("message"), str),
                 f"a diagnostic is {{severity in {SEVERITIES}, message, stage}}, got {note!r}")
    json.dumps(bundle, allow_nan=False)


def _check_filters(stage: dict[str, Any]) -> None:
    """A stage's optional ``filters``: kind -> line numbers of its text (asm_filters.py)."""
    filters = stage.get("filters", {})
    count = len(str(stage["text"]).splitlines())
    _require(isinstance(filters, dict) and set(filters) <= set(asm_filters.KINDS),
             f"stage {stage['name']}: filters maps {', '.join(asm_filters.KINDS)} to line numbers")
    for kind, numbers in filters.items():
        _require(isinstance(numbers, list) and all(isinstance(n, int) and 1 <= n <= count for n in numbers),
                 f"stage {stage['name']}: filters[{kind!r}] holds line numbers of its text")


def check_lines(label: str, text: Any, lines: Any, first: int, last: int) -> None:
    """``lines`` (``[[text_line, source_line], ...]``) of a stage or pass called ``label``:
    text lines in order and within ``text``, source lines within ``first..last``."""
    _require(isinstance(text, str) and isinstance(lines, list), f"{label}: text is a string and lines a list")
    count = len(text.splitlines())
    previous = 0
    for pair in lines:
        _require(isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, int) for v in pair),
                 f"{label}: a line pair is [text_line, source_line], got {pair!r}")
        _require(previous < pair[0] <= count, f"{label}: line {pair[0]} is out of order or past its {count} lines")
        _require(first <= pair[1] <= last, f"{label}: source line {pair[1]} is outside {first}..{last}")
        previous = pair[0]


__all__ = ["SCHEMA_VERSION", "VERSIONS", "check_lines",
           "MIME", "SourceRegion", "build", "validate", "SchemaError", "available_stages",
           "choose_stages", "stage_text", "kernel_region", "source_extents"]
