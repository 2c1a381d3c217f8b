"""Which assembly lines a reader usually hides, as Compiler Explorer's filters do.

Four kinds, each a filter the report's viewers turn on by default and let the reader toggle:

* ``directive``: assembler directives (``.loc``, ``.cfi_*``, ``.p2align``, ``.file``,
  ``.section``, ``.globl``...), and every line of a debug-info section;
* ``comment``: lines that hold only a comment;
* ``label``: labels nothing refers to (``.Lfunc_begin0:``, ``.Ltmp3:``; a label an instruction
  or a jump table names, or a global symbol, stays);
* ``constant``: constant pools (a ``.LCPI0_3:`` label and the data lines under it).

Lines are only marked, never removed, so every line keeps its number and its link to the
source.  PTX keeps its declarations (``.reg``, ``.param``, ``.entry``...): only ``.loc``,
``.file`` and debug sections count as directives there.
"""

from __future__ import annotations

import re

KINDS = ("directive", "comment", "label", "constant")
ASSEMBLY_STAGES = ("asm", "ptx", "sass")  # the stages these filters apply to

_COMMENT = {"asm": ("#", "//", ";", "@"), "ptx": ("//",), "sass": ("//", "/*")}
_LABEL = re.compile(r"^\s*([A-Za-z_.$][\w.$@]*):")
_DIRECTIVE = re.compile(r"^\s*(\.[A-Za-z_][\w.]*)")
_DATA = {".long", ".quad", ".byte", ".short", ".word", ".hword", ".xword", ".value", ".zero", ".ascii", ".asciz",
         ".string", ".float", ".double", ".4byte", ".8byte", ".2byte", ".int", ".single", ".p2align", ".align",
         ".b8", ".b16", ".b32", ".b64"}
_CONSTANT_POOL = re.compile(r"^\s*\.?L(CPI\d+_\d+|C\d+|\.str[\w.]*|__unnamed_\d+):")
_PTX_DIRECTIVES = (".loc", ".file", ".pragma")
_WORD = re.compile(r"[A-Za-z_.$][\w.$@]*")


def classify(text: str, stage: str) -> dict[str, list[int]]:
    """Kind -> the 1-based numbers of ``text``'s lines of that kind (kinds with none left out);
    empty for a stage that is not assembly."""
    if stage not in ASSEMBLY_STAGES:
        return {}
    lines = text.splitlines()
    kinds: dict[int, str] = {}
    debug = _debug_lines(lines, stage)
    for number in debug:
        kinds[number] = "directive"
    kinds.update(_constant_pools(lines, kinds))
    used = _referenced_names(lines, kinds, stage)
    for number, line in enumerate(lines, start=1):
        if number in kinds:
            continue
        kind = _kind(line, stage, used)
        if kind is not None:
            kinds[number] = kind
    found: dict[str, list[int]] = {}
    for number in sorted(kinds):
        found.setdefault(kinds[number], []).append(number)
    return found


def _kind(line: str, stage: str, used: set[str]) -> str | None:
    stripped = line.strip()
    if not stripped:
        return None
    if stripped.startswith(_COMMENT[stage]):
        return "comment"
    label = _LABEL.match(line)
    if label is not None:
        return None if label.group(1) in used else "label"
    directive = _DIRECTIVE.match(line)
    if directive is None:
        return None
    if stage == "ptx":
        return "directive" if directive.group(1) in _PTX_DIRECTIVES else None
    return "directive"


def _debug_lines(lines: list[str], stage: str) -> set[int]:
    """Lines of debug-info sections: from ``.section .debug...`` to the next section (in PTX, to
    the end of the section's braced block; ``@@DWARF`` lines too)."""
    found: set[int] = set()
    inside = opened = False
    depth = 0
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        starts = re.match(r"\.section\s+\.?debug", stripped) is not None
        if stage != "ptx":
            if stripped.startswith((".section", ".text", ".data", ".bss")):
                inside = starts
            if inside:
                found.add(number)
            continue
        if stripped.startswith("@@DWARF"):
            found.add(number)
        if starts:
            inside, opened, depth = True, False, 0
        if not inside:
            continue
        found.add(number)
        depth += stripped.count("{") - stripped.count("}")
        opened = opened or depth > 0
        if opened and depth <= 0:
            inside = False
    return found


def _constant_pools(lines: list[str], kinds: dict[int, str]) -> dict[int, str]:
    """A constant pool's label and the data directives (and blank lines) under it."""
    found: dict[int, str] = {}
    inside = False
    for number, line in enumerate(lines, start=1):
        if number in kinds:
            inside = False
            continue
        if _CONSTANT_POOL.match(line):
            inside = True
            found[number] = "constant"
            continue
        directive = _DIRECTIVE.match(line)
        if inside and (not line.strip() or (directive is not None and directive.group(1) in _DATA)):
            found[number] = "constant"
            continue
        inside = False
    return found


def _referenced_names(lines: list[str], kinds: dict[int, str], stage: str) -> set[str]:
    """Names an instruction, a data line (a jump table) or a ``.globl`` names (so its label
    stays); references from other directives (``.size``, ``.type``) and debug info do not count."""
    used: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if kinds.get(number) == "directive" or line.strip().startswith(_COMMENT[stage]):
            continue
        label = _LABEL.match(line)
        rest = line[label.end():] if label is not None else line
        directive = _DIRECTIVE.match(rest)
        if directive is not None and directive.group(1) not in _DATA and directive.group(1) not in (
                ".globl", ".global", ".weak", ".entry", ".visible", ".func"):
            continue
        used.update(_WORD.findall(rest))
    return used


__all__ = ["ASSEMBLY_STAGES", "KINDS", "classify"]
