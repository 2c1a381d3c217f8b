"""The compile report's ``passes`` list: the IR after each step of the compilation.

One entry per record of the compilation's pass trail (``kernellab.passes``; the ``passes``
entry of ``CompiledKernel.asm``), in order::

    {"name": "cse",            # the pass (or backend step: "llvm", "llvm-opt", "py"...)
     "dialect": "tile",        # which IR "text" is: tile, tile.gpu, llvm, asm, ptx, py
     "ms": 0.39,               # its time
     "changed": true,          # whether the IR differs from the one before it
     "base": 3,                # the entry it is diffed against: the previous one of the same
                               # dialect, or null (the first of a dialect: shown whole)
     "text": "...",            # the IR after it, as printed with its locations
     "lines": [[text_line, source_line], ...]}   # as a stage's lines

The lines are read from the locations each text carries (``linemaps``), never guessed.
"""

from __future__ import annotations

from typing import Any

from . import linemaps


def _require(condition: bool, message: str) -> None:
    from .bundle import SchemaError

    if not condition:
        raise SchemaError(message)


def trail_records(compiled: Any) -> list[Any] | None:
    """The compilation's pass records, or None when it kept none (or its trail is damaged)."""
    from ..passes.pipeline import kernel_passes

    try:
        return kernel_passes(compiled)
    except ValueError:
        return None


def _locations(record: Any, metadata: dict[str, Any]) -> list[linemaps.Located] | None:
    """The record's locations: a final stage's through its recorded map (``py``), else read
    from the text by its dialect's parser."""
    if record.stage is not None:
        return linemaps.stage_locations(record.stage, record.ir, metadata)
    parser = linemaps.PARSERS.get(record.dialect)
    return parser(record.ir) if parser is not None else None


def pass_entries(records: list[Any], metadata: dict[str, Any], file: str, first: int, last: int
                 ) -> list[dict[str, Any]]:
    """The bundle's ``passes`` list for ``records`` (their lines kept to source lines
    ``first..last`` of ``file``)."""
    entries: list[dict[str, Any]] = []
    latest: dict[str, int] = {}
    for index, record in enumerate(records):
        found = _locations(record, metadata) or ()
        entries.append({"name": record.name, "dialect": record.dialect, "ms": record.ms, "changed": record.changed,
                        "base": latest.get(record.dialect), "text": record.ir,
                        "lines": linemaps.to_source(found, file, first, last)})
        latest[record.dialect] = index
    return entries


def pass_sources(records: list[Any], metadata: dict[str, Any]) -> list[linemaps.Located]:
    """Every location the records carry (to widen the source region a report shows)."""
    return [loc for record in records for loc in _locations(record, metadata) or ()]


def validate_passes(passes: Any, first: int, last: int, check_lines: Any) -> None:
    """Raise SchemaError naming the first way ``passes`` breaks the schema above."""
    _require(isinstance(passes, list), "passes is a list")
    keys = {"name", "dialect", "ms", "changed", "base", "text", "lines"}
    for index, entry in enumerate(passes):
        _require(isinstance(entry, dict) and set(entry) == keys,
                 f"pass {index} has exactly the keys {sorted(keys)}")
        _require(isinstance(entry["name"], str) and isinstance(entry["dialect"], str)
                 and isinstance(entry["text"], str), f"pass {index}: name, dialect and text are strings")
        _require(isinstance(entry["ms"], (int, float)) and not isinstance(entry["ms"], bool) and entry["ms"] >= 0,
                 f"pass {index}: ms is a number >= 0")
        _require(isinstance(entry["changed"], bool), f"pass {index}: changed is true or false")
        base = entry["base"]
        _require(base is None or (isinstance(base, int) and not isinstance(base, bool) and 0 <= base < index
                                  and passes[base]["dialect"] == entry["dialect"]),
                 f"pass {index}: base is null or an earlier pass of dialect {entry['dialect']!r}, got {base!r}")
        check_lines(f"pass {index} ({entry['name']})", entry["text"], entry["lines"], first, last)


__all__ = ["pass_entries", "pass_sources", "trail_records", "validate_passes"]
