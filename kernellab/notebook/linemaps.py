"""Line maps: which source line each line of a compiler stage came from.

Every map is read from the locations the compiler itself wrote, never guessed from the text:

* Tile IR (``tile``, ``tile.gpu``): the runtime's own map (``metadata["line_maps"]``) when it
  has one for the stage, else the printed ``#fN = "path"`` file table and the
  ``loc(#fN:line:col)`` at the end of op lines.
* LLVM IR (``llvm``): ``!dbg !N`` on instructions (and on ``define``), resolved through
  ``!N = !DILocation(line: .., scope: !S)`` and the scope chain (``DISubprogram``,
  ``DILexicalBlock[File]``) to its ``!DIFile(filename: .., directory: ..)``.
* Assembly (host ``asm``, ``ptx``): the ``.file N "dir" "name"`` (or ``.file N "path"``) table;
  a ``.loc N line col`` holds for the instructions that follow it, up to the next ``.loc``.
* SASS (``nvdisasm -g``): ``//## File "path", line N`` holds for the instructions that follow.
* The interpreter's ``py`` stage: the backend's map in ``metadata["line_maps"]["py"]``.

A location is ``(stage_line, file, line)`` with 1-based lines; :func:`to_source` keeps those in
one source file (and a line range) as ``[stage_line, source_line]`` pairs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import Any

Located = tuple[int, str, int]   # (stage line, file, source line)

# ---------------------------------------------------------------------------------------------
# Tile IR
# ---------------------------------------------------------------------------------------------

_TILE_FILE = re.compile(r'^#f(\d+) = ("(?:[^"\\]|\\.)*")\s*$')
_TILE_LOC = re.compile(r"loc\(#f(\d+):(\d+):(\d+)\)")


def _json_string(quoted: str) -> str:
    import json

    return json.loads(quoted)


def tile_locations(text: str) -> list[Located]:
    """Locations printed in Tile IR (the last ``loc(...)`` of a line is its op's)."""
    files: dict[str, str] = {}
    found: list[Located] = []
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TILE_FILE.match(line)
        if header:
            files[header.group(1)] = _json_string(header.group(2))
            continue
        locs = _TILE_LOC.findall(line)
        if locs and locs[-1][0] in files:
            file_id, source_line, _ = locs[-1]
            found.append((number, files[file_id], int(source_line)))
    return found


# ---------------------------------------------------------------------------------------------
# LLVM IR
# ---------------------------------------------------------------------------------------------

_LL_NODE = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
_LL_FIELD = re.compile(r'(\w+):\s*("(?:[^"\\]|\\.)*"|![0-9]+|[^,()]+)')
_LL_DBG = re.compile(r"!dbg !(\d+)")
_LL_ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2})")


def _ll_string(quoted: str) -> str:
    """An LLVM metadata string (``\\XX`` hex escapes) as text."""
    body = quoted[1:-1]
    raw = _LL_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), body)
    return raw.encode("latin-1", "backslashreplace").decode("utf-8", "replace")


def _ll_nodes(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    nodes = {}
    for line in text.splitlines():
        match = _LL_NODE.match(line)
        if match:
            fields = {key: value.strip() for key, value in _LL_FIELD.findall(match.group(3))}
            nodes[match.group(1)] = (match.group(2), fields)
    return nodes


def _ll_file(nodes: dict[str, tuple[str, dict[str, str]]], ref: str) -> str | None:
    """The path of the DIFile that scope ``!ref`` belongs to."""
    seen = set()
    while ref not in seen and ref in nodes:
        seen.add(ref)
        kind, fields = nodes[ref]
        if kind == "DIFile":
            name = _ll_string(fields.get("filename", '""'))
            directory = _ll_string(fields.get("directory", '""'))
            return name if not directory or os.path.isabs(name) else os.path.join(directory, name)
        target = fields.get("file") or fields.get("scope")
        if target is None or not target.startswith("!"):
            return None
        ref = target[1:]
    return None


def llvm_locations(text: str) -> list[Located]:
    """Locations of LLVM IR lines from their ``!dbg`` attachments."""
    nodes = _ll_nodes(text)
    resolved: dict[str, tuple[str, int] | None] = {}

    def where(ref: str) -> tuple[str, int] | None:
        if ref not in resolved:
            kind, fields = nodes.get(ref, ("", {}))
            line = fields.get("line", "0")
            scope = fields.get("scope", "") if kind == "DILocation" else f"!{ref}"
            path = _ll_file(nodes, scope[1:]) if kind in ("DILocation", "DISubprogram") else None
            resolved[ref] = (path, int(line)) if path is not None and line.isdigit() and int(line) > 0 else None
        return resolved[ref]

    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _LL_DBG.search(line)
        if match and not line.startswith("!"):
            place = where(match.group(1))
            if place is not None:
                found.append((number, place[0], place[1]))
    return found


# ---------------------------------------------------------------------------------------------
# Assembly (.file / .loc): host assembly and PTX
# ---------------------------------------------------------------------------------------------

_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_ASM_FILE = re.compile(r"^\s*\.file\s+(\d+)\s+" + _QUOTED + r"(?:\s+" + _QUOTED + r")?")
_ASM_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)")


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def is_instruction(line: str) -> bool:
    """Whether an assembly line is an instruction (not a directive, label, comment or brace)."""
    stripped = line.strip()
    if not stripped or stripped[0] in ".#;/{}()" or stripped.endswith(":"):
        return False
    return not stripped.startswith(("//", "$L", "@@"))


def asm_locations(text: str) -> list[Located]:
    """Locations of instructions from ``.file`` / ``.loc`` directives."""
    files: dict[str, str] = {}
    for line in text.splitlines():
        match = _ASM_FILE.match(line)
        if match:
            first, second = _unescape(match.group(2)), match.group(3)
            if second is None:
                files[match.group(1)] = first
            else:
                name = _unescape(second)
                files[match.group(1)] = name if not first or os.path.isabs(name) else os.path.join(first, name)
    found: list[Located] = []
    current: tuple[str, int] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        loc = _ASM_LOC.match(line)
        if loc:
            path, source_line = files.get(loc.group(1)), int(loc.group(2))
            current = (path, source_line) if path is not None and source_line > 0 else None
        elif current is not None and is_instruction(line):
            found.append((number, current[0], current[1]))
    return found


# ---------------------------------------------------------------------------------------------
# SASS (nvdisasm -g)
# ---------------------------------------------------------------------------------------------

_SASS_LINE = re.compile(r'//## File "([^"]*)", line (\d+)')
_SASS_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/")


def sass_locations(text: str) -> list[Located]:
    """Locations of SASS instructions from nvdisasm's line-info comments."""
    found: list[Located] = []
    current: tuple[str, int] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        info = _SASS_LINE.search(line)
        if info:
            source_line = int(info.group(2))
            current = (info.group(1), source_line) if source_line > 0 else None
        elif current is not None and _SASS_INSTRUCTION.match(line):
            found.append((number, current[0], current[1]))
    return found


# ---------------------------------------------------------------------------------------------
# One stage
# ---------------------------------------------------------------------------------------------

PARSERS: dict[str, Callable[[str], list[Located]]] = {
    "tile": tile_locations,
    "tile.gpu": tile_locations,
    "llvm": llvm_locations,
    "asm": asm_locations,
    "ptx": asm_locations,
    "sass": sass_locations,
}


def recorded(metadata: dict[str, Any], stage: str) -> list[Located] | None:
    """The map a compiler recorded for ``stage`` (``[[stage_line, file, line, col], ...]``)."""
    entries = (metadata.get("line_maps") or {}).get(stage)
    if not entries:
        return None
    return [(int(entry[0]), str(entry[1]), int(entry[2])) for entry in entries if int(entry[2]) > 0]


def stage_locations(stage: str, text: str, metadata: dict[str, Any]) -> list[Located] | None:
    """The locations of one stage's lines, or ``None`` when nothing in it says where they came
    from (a stage kernellab does not know how to read)."""
    found = recorded(metadata, stage)
    if found is not None:
        return found
    parser = PARSERS.get(stage)
    return parser(text) if parser is not None else None


def same_file(a: str, b: str) -> bool:
    return os.path.normpath(a) == os.path.normpath(b)


def to_source(located: Iterable[Located], source_file: str, first: int, last: int) -> list[list[int]]:
    """``[[stage_line, source_line], ...]`` for the locations in ``source_file`` between lines
    ``first`` and ``last`` (one pair per stage line, in order)."""
    pairs: dict[int, int] = {}
    for stage_line, path, line in located:
        if first <= line <= last and stage_line not in pairs and same_file(path, source_file):
            pairs[stage_line] = line
    return [[stage_line, pairs[stage_line]] for stage_line in sorted(pairs)]


def files_of(located: Iterable[Located]) -> set[str]:
    return {path for _, path, _ in located}


__all__ = ["Located", "tile_locations", "llvm_locations", "asm_locations", "sass_locations", "stage_locations",
           "recorded", "to_source", "same_file", "files_of", "is_instruction", "PARSERS"]
