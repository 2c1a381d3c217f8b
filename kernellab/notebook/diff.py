"""How a stage changed between two compilations: line marks for side-by-side panes and a
unified diff (``difflib``), as data and as HTML."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from .html import esc

DIFF_CSS = """
.kl-report .kl-diff{margin:.3em 0;max-height:28em;overflow:auto;font-size:12px;line-height:1.35;
  font-family:var(--jp-code-font-family,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace)}
.kl-report .kl-diff span{display:block;white-space:pre}
.kl-report .kl-diff .kl-add{background:hsl(130 60% 45% / .18)}
.kl-report .kl-diff .kl-del{background:hsl(0 70% 55% / .18)}
.kl-report .kl-diff .kl-hunk{opacity:.65}
"""


@dataclass
class StageDiff:
    """``added``/``removed`` line counts, the unified diff's lines, and per-side changed lines
    (1-based) for marking panes."""

    added: int = 0
    removed: int = 0
    unified: list[str] = field(default_factory=list)
    changed_before: set[int] = field(default_factory=set)
    changed_after: set[int] = field(default_factory=set)

    @property
    def same(self) -> bool:
        return not self.added and not self.removed

    def summary(self) -> str:
        return "unchanged" if self.same else f"+{self.added} −{self.removed} lines"


def stage_diff(before: str, after: str, context: int = 2) -> StageDiff:
    """The difference between two texts of one stage."""
    a, b = before.splitlines(), after.splitlines()
    found = StageDiff()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        found.removed += i2 - i1
        found.added += j2 - j1
        found.changed_before.update(range(i1 + 1, i2 + 1))
        found.changed_after.update(range(j1 + 1, j2 + 1))
    found.unified = list(difflib.unified_diff(a, b, "before", "after", n=context, lineterm=""))
    return found


def diff_html(diff: StageDiff, max_lines: int = 600) -> str:
    """The unified diff as HTML (inside a ``.kl-report``)."""
    if diff.same:
        return '<div class="kl-diff"><span>(no change)</span></div>'
    parts = []
    for line in diff.unified[2:max_lines + 2]:
        kind = {"+": "kl-add", "-": "kl-del", "@": "kl-hunk"}.get(line[:1], "")
        parts.append(f'<span class="{kind}">{esc(line)}</span>')
    if len(diff.unified) > max_lines + 2:
        parts.append(f"<span>… {len(diff.unified) - max_lines - 2} more diff lines</span>")
    return f'<div class="kl-diff">{"".join(parts)}</div>'


__all__ = ["StageDiff", "stage_diff", "diff_html", "DIFF_CSS"]
