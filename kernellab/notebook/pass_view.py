"""The compile report's pass timeline as HTML (no JavaScript).

One row per pass of the bundle's ``passes`` list, in order: its number, name, dialect, a bar
as long as its time (relative to the slowest pass) and what it changed.  Each row is a
``<details>`` of one exclusive group (``name``: opening one closes the others), so choosing a
pass shows its IR diffed against the pass before it in the same dialect (``base``): unchanged
runs folded, added lines marked ``+``, removed ones ``−``, and every line that came from
source line *L* carries ``L<L>`` and its colour, so hovering it lights up that line in the
source pane and in every stage (the report's ``:has`` rules).  The first pass of a dialect is
shown whole.  All text goes through ``html.escape``.
"""

from __future__ import annotations

import difflib
from typing import Any

from .html import code_block, colour, esc

CONTEXT = 3           # unchanged lines shown around a change
MAX_LINES = 1500      # lines shown per pass (the JSON keeps everything)

CSS = """
.kl-report .kl-passes{margin-top:.5em;border:1px solid rgba(127,127,127,.35);border-radius:4px}
.kl-report .kl-pass{border-top:1px solid rgba(127,127,127,.18)}
.kl-report .kl-pass>summary{display:flex;gap:.6em;align-items:center;border:none;font-weight:400}
.kl-report .kl-pass[open]>summary{background:rgba(127,127,127,.12);font-weight:600}
.kl-report .kl-pass>summary .kl-n{min-width:1.8em;text-align:right;opacity:.7}
.kl-report .kl-pass>summary .kl-pname{min-width:9em}
.kl-report .kl-pass>summary .kl-dialect{min-width:5em;opacity:.75}
.kl-report .kl-bar{flex:0 0 12em;height:.7em;background:rgba(127,127,127,.12);border-radius:2px}
.kl-report .kl-bar>span{display:block;height:100%;min-width:1px;background:hsl(210 70% 55% / .7);border-radius:2px}
.kl-report .kl-pass.kl-same>summary{opacity:.6}
.kl-report .l.a>i::before{content:"+";float:left;padding-left:.3em}
.kl-report .l.r>i::before{content:"\\2212";float:left;padding-left:.3em}
.kl-report .l.a{box-shadow:inset .35em 0 hsl(130 60% 42% / .8)}
.kl-report .l.r{box-shadow:inset .35em 0 hsl(0 70% 52% / .8);text-decoration:line-through;
  text-decoration-color:rgba(127,127,127,.6)}
.kl-report .kl-nochange{padding:.3em .8em;opacity:.75;font-style:italic}
"""


def _links(entry: dict[str, Any]) -> dict[int, int]:
    return {text_line: source_line for text_line, source_line in entry["lines"]}


def _row(mark: str, number: int, text: str, source_line: int | None, first_line: int) -> str:
    classes = f"l {mark}" if mark else "l"
    if source_line is not None:
        classes += f" L{source_line} c{colour(source_line, first_line)}"
    gutter = "" if source_line is None else str(source_line)
    return f'<span class="{classes}"><i>{number} </i><b>{esc(gutter)} </b>{esc(text)}\n</span>'


def _folded(rows: list[str]) -> str:
    return (f'<details class="kl-fold"><summary>{len(rows)} unchanged lines</summary>{"".join(rows)}</details>'
            if rows else "")


def _equal_run(rows: list[str], first: bool, last: bool) -> str:
    """Unchanged lines: ``CONTEXT`` of them beside each change, the rest folded."""
    head = 0 if first else CONTEXT
    tail = 0 if last else CONTEXT
    if len(rows) <= head + tail + 1:
        return "".join(rows)
    return "".join(rows[:head]) + _folded(rows[head:len(rows) - tail]) + "".join(rows[len(rows) - tail:])


def diff_rows(before: dict[str, Any], after: dict[str, Any], first_line: int) -> tuple[str, int, int]:
    """``after``'s text diffed against ``before``'s as HTML rows; with the added and removed
    line counts."""
    a, b = before["text"].splitlines(), after["text"].splitlines()
    links_a, links_b = _links(before), _links(after)
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    parts: list[str] = []
    added = removed = shown = 0
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if shown >= MAX_LINES:
            parts.append('<span class="kl-more">… more changes (all of them are in the report\'s JSON)</span>')
            break
        if tag == "equal":
            rows = [_row("", j + 1, b[j], links_b.get(j + 1), first_line) for j in range(j1, j2)]
            parts.append(_equal_run(rows, index == 0, index == len(opcodes) - 1))
            continue
        parts += [_row("r", i + 1, a[i], links_a.get(i + 1), first_line) for i in range(i1, i2)]
        parts += [_row("a", j + 1, b[j], links_b.get(j + 1), first_line) for j in range(j1, j2)]
        removed, added, shown = removed + i2 - i1, added + j2 - j1, shown + i2 - i1 + j2 - j1
    return "".join(parts), added, removed


def _ms(value: float) -> str:
    return f"{value:.2f} ms" if value >= 0.01 else f"{value * 1e3:.0f} µs"


def pass_body(passes: list[dict[str, Any]], index: int, first_line: int) -> tuple[str, str]:
    """``(what changed, the HTML shown when the pass is chosen)`` for pass ``index``."""
    entry = passes[index]
    base = entry["base"]
    if base is None:
        body = code_block(entry["text"], _links(entry), first_line, max_lines=MAX_LINES)
        return f"{len(entry['text'].splitlines())} lines, first {entry['dialect']}", body
    if not entry["changed"]:
        note = f"no change: the IR is the same as after pass {base} ({passes[base]['name']})"
        return "unchanged", f'<div class="kl-nochange">{esc(note)}</div>'
    rows, added, removed = diff_rows(passes[base], entry, first_line)
    return f"+{added} −{removed} lines against pass {base}", f'<pre class="kl-code">{rows}</pre>'


def render_passes(bundle: dict[str, Any], scope: str) -> str:
    """The timeline of every pass in ``bundle`` (empty when it has none)."""
    passes = bundle.get("passes") or []
    if not passes:
        return ""
    first_line = bundle["source"]["first_line"]
    slowest = max(max(entry["ms"] for entry in passes), 1e-9)
    changed = sum(1 for entry in passes if entry["changed"])
    total = sum(entry["ms"] for entry in passes)
    rows = []
    for index, entry in enumerate(passes):
        summary, body = pass_body(passes, index, first_line)
        width = 100 * entry["ms"] / slowest
        state = "" if entry["changed"] else " kl-same"
        rows.append(f'<details class="kl-pass{state}" name="{scope}-passes" data-pass="{index}">'
                    f'<summary><span class="kl-n">{index}</span><span class="kl-pname">{esc(entry["name"])}</span>'
                    f'<span class="kl-dialect">{esc(entry["dialect"])}</span>'
                    f'<span class="kl-bar" title="{esc(_ms(entry["ms"]))}"><span style="width:{width:.1f}%"></span>'
                    f'</span><span>{esc(_ms(entry["ms"]))}</span><small>{esc(summary)}</small></summary>'
                    f"{body}</details>")
    title = f"{len(passes)} steps · {changed} changed the IR · {_ms(total)}"
    return (f'<section class="kl-passes"><div class="kl-title">passes <small>{esc(title)}</small></div>'
            f'{"".join(rows)}</section>')


def pass_source_lines(bundle: dict[str, Any]) -> set[int]:
    """The source lines some pass's IR links to (for the report's hover rules)."""
    return {source_line for entry in bundle.get("passes") or [] for _, source_line in entry["lines"]}


__all__ = ["render_passes", "pass_body", "diff_rows", "pass_source_lines", "CSS", "CONTEXT", "MAX_LINES"]
