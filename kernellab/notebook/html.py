"""The compile report as HTML that needs no JavaScript.

The source and every stage sit side by side in panes (each stage a collapsible
``<details>``), the pass timeline below them (``pass_view.py``).  Every line that came from
source line *L* carries the class ``L<L>`` and one of twelve colours, the same in every pane;
hovering any of them lights up all of them (one scoped ``:has(.L<L>:hover)`` rule per source
line).  A gutter beside each stage line names its source line too, so the link survives where
styles are stripped.  Backgrounds are translucent hues and text keeps the page's colour, so
the report reads in light and dark themes.  All text goes through ``html.escape``.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
from collections.abc import Iterable
from typing import Any

MAX_LINES = 2500      # lines shown per pane (the JSON keeps everything)
PALETTE = 12          # colours; source line L gets colour (L - first_line) % PALETTE
FOLD = 40             # a run of at least this many lines with no source line is folded

CSS = """
.kl-report{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;margin:.25em 0}
.kl-report .kl-head{display:flex;flex-wrap:wrap;gap:.35em;align-items:baseline;margin-bottom:.4em}
.kl-report .kl-name{font-weight:600;font-size:14px;margin-right:.4em}
.kl-report .kl-chip{border:1px solid rgba(127,127,127,.45);border-radius:.8em;padding:0 .55em;white-space:nowrap}
.kl-report .kl-notes{margin:.2em 0 .4em 0;padding:0;list-style:none}
.kl-report .kl-notes li{padding:.1em .4em;border-left:3px solid rgba(127,127,127,.6)}
.kl-report .kl-notes li.kl-warning{border-left-color:hsl(35 90% 50%)}
.kl-report .kl-notes li.kl-error{border-left-color:hsl(0 80% 50%);white-space:pre-wrap;
  font-family:var(--jp-code-font-family,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace)}
.kl-report .kl-panes{display:flex;gap:.5em;overflow-x:auto;align-items:flex-start;padding-bottom:.3em}
.kl-report .kl-pane{flex:0 0 auto;width:max(22em,calc(100% / var(--kl-n,3) - .5em));min-width:12em;
  border:1px solid rgba(127,127,127,.35);border-radius:4px;resize:horizontal;overflow:hidden}
.kl-report details.kl-pane:not([open]){width:auto;resize:none}
.kl-report:has(.kl-wide:checked) .kl-panes{flex-direction:column;align-items:stretch}
.kl-report:has(.kl-wide:checked) .kl-pane{width:auto!important;resize:none}
.kl-report:has(.kl-wrap:checked) .l{white-space:pre-wrap;overflow-wrap:anywhere}
.kl-report .kl-toggles{display:flex;flex-wrap:wrap;gap:.8em;margin:0 0 .3em 0;opacity:.85}
.kl-report .kl-toggles label,.kl-report .kl-filters label{white-space:nowrap;cursor:pointer}
.kl-report .kl-filters{display:flex;flex-wrap:wrap;gap:.2em .8em;padding:.15em .5em;font-size:12px;
  border-bottom:1px solid rgba(127,127,127,.25);opacity:.85}
.kl-report .kl-pane:has(.kl-h-directive:checked) .fd,.kl-report .kl-pane:has(.kl-h-comment:checked) .fc,
.kl-report .kl-pane:has(.kl-h-label:checked) .fl,.kl-report .kl-pane:has(.kl-h-constant:checked) .fk{display:none}
.kl-report .kl-title,.kl-report summary{padding:.2em .5em;font-weight:600;cursor:default;
  border-bottom:1px solid rgba(127,127,127,.25);white-space:nowrap}
.kl-report summary{cursor:pointer}
.kl-report .kl-title small,.kl-report summary small{font-weight:400;opacity:.75}
.kl-report pre.kl-code{margin:0;padding:.2em 0;height:min(36em,65vh);min-height:6em;resize:vertical;overflow:auto;
  font-size:12px;line-height:1.4;
  font-family:var(--jp-code-font-family,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace);background:none}
.kl-report .l{display:block;padding-right:.6em;border-left:3px solid transparent;white-space:pre}
.kl-report .l>i,.kl-report .l>b{display:inline-block;min-width:3.2em;padding-right:.6em;text-align:right;
  font-style:normal;font-weight:400;opacity:.55;user-select:none;-webkit-user-select:none}
.kl-report .l>b{min-width:2.4em;opacity:.85}
.kl-report .l.d>i{opacity:1;font-weight:700;color:hsl(35 95% 45%)}
.kl-report .l[class*=" c"]{background:hsl(var(--kl-h) 80% 55% / .13);border-left-color:hsl(var(--kl-h) 75% 50%)}
.kl-report .kl-fold>summary{font-style:italic;opacity:.7;border:none;padding:0 0 0 3.8em;font-weight:400;
  font-family:var(--jp-ui-font-family,system-ui,sans-serif)}
.kl-report .kl-more{display:block;opacity:.7;font-style:italic;padding-left:.6em}
""" + "".join(f".kl-report .c{i}{{--kl-h:{(i * 360 * 5 // PALETTE) % 360}}}\n" for i in range(PALETTE))


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def report_id(bundle: dict[str, Any]) -> str:
    """A stable id for one report (its CSS scope)."""
    digest = hashlib.sha1(json.dumps(bundle, sort_keys=True, default=str).encode()).hexdigest()
    return f"kl-r-{digest[:12]}"


def colour(line: int, first_line: int) -> int:
    return (line - first_line) % PALETTE


# ---------------------------------------------------------------------------------------------
# Pieces
# ---------------------------------------------------------------------------------------------

def _ms(seconds: Any) -> str:
    if not isinstance(seconds, (int, float)):
        return ""
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-4 else f"{seconds * 1e6:.0f} µs"


def _reported_metadata(target: str) -> tuple[str, ...]:
    """The metadata keys ``target``'s backend reports (none for a target unknown here)."""
    from .. import backends

    try:
        return backends.capabilities(target).reported_metadata
    except (ValueError, ImportError):
        return ()


def chips(bundle: dict[str, Any]) -> list[str]:
    """Short facts about the compiled kernel, as text."""
    meta = bundle["metadata"]
    facts = [bundle["target"]]
    facts += [f"{key}={meta[key]}" for key in ("num_warps", "num_stages") if meta.get(key) is not None]
    reported = _reported_metadata(bundle["target"])
    for key, label in (("registers", "registers"), ("spills", "spill bytes"), ("shared", "shared bytes")):
        if key in reported and meta.get(key) is not None:
            facts.append(f"{meta[key]} {label}")
    constexprs = meta.get("constexprs") or {}
    facts.extend(f"{name}={value}" for name, value in constexprs.items())
    total = (meta.get("compile_seconds") or {}).get("total")
    if total is not None:
        facts.append(f"compiled in {_ms(total)}")
    for key, value in (meta.get("run") or {}).items():
        facts.append(f"{key} {value}")
    return facts


FILTER_CLASS = {"directive": "fd", "comment": "fc", "label": "fl", "constant": "fk"}  # asm_filters' kinds
FILTER_LABEL = {"directive": "directives", "comment": "comments", "label": "unused labels",
                "constant": "constant pools"}


def _line(number_text: str, text: str, source_line: int | None, first_line: int, gutter: str | None,
          changed: bool = False, kind: str | None = None) -> str:
    classes = "l d" if changed else "l"
    if kind is not None:
        classes += f" {FILTER_CLASS[kind]}"
    if source_line is not None:
        classes += f" L{source_line} c{colour(source_line, first_line)}"
    at = "" if gutter is None else f"<b>{esc(gutter)} </b>"
    return f'<span class="{classes}"><i>{esc(number_text)} </i>{at}{esc(text)}\n</span>'


def _fold(lines: list[str], shown: int) -> str:
    """Unlinked lines folded away (prologues, code the compiler made up); ``shown`` of them are
    not hidden by a filter."""
    return (f'<details class="kl-fold"><summary>{shown} lines with no source line</summary>'
            f'{"".join(lines)}</details>')


def code_block(text: str, links: dict[int, int], first_line: int, *, numbering_from: int = 1,
               source_gutter: bool = True, max_lines: int = MAX_LINES, changed: set[int] | None = None,
               kinds: dict[int, str] | None = None) -> str:
    """A ``<pre>`` of ``text`` whose line ``n`` (counted from ``numbering_from``) links to source
    line ``links[n]``; runs of ``FOLD`` or more unlinked lines are folded into a ``<details>``;
    ``changed`` lines (an A/B view's differences) get their number marked; ``kinds`` marks the
    lines the pane's filters hide (asm_filters)."""
    kinds = kinds or {}
    lines = text.splitlines()
    parts = ['<pre class="kl-code">']
    unlinked: list[str] = []
    shown = 0  # unlinked lines no filter hides: only they count toward a fold
    for index, line in enumerate(lines[:max_lines]):
        number = numbering_from + index
        source_line = links.get(number)
        gutter = (str(source_line) if source_line is not None else "") if source_gutter else None
        rendered = _line(str(number), line, source_line, first_line, gutter, changed is not None and number in changed,
                         kinds.get(number))
        if source_line is None:
            unlinked.append(rendered)
            shown += number not in kinds
            continue
        parts.append(_fold(unlinked, shown) if shown >= FOLD else "".join(unlinked))
        unlinked, shown = [], 0
        parts.append(rendered)
    parts.append(_fold(unlinked, shown) if links and shown >= FOLD else "".join(unlinked))
    if len(lines) > max_lines:
        parts.append(f'<span class="kl-more">… {len(lines) - max_lines} more lines (all of them are in the '
                     'report\'s JSON)</span>')
    parts.append("</pre>")
    return "".join(parts)


def hover_css(scope: str, source_lines: Iterable[int]) -> str:
    """One rule per linked source line: hovering any of its lines lights up all of them."""
    return "".join(f"#{scope}:has(.L{line}:hover) .L{line}{{background:hsl(var(--kl-h) 85% 55% / .45);"
                   f"outline:1px solid hsl(var(--kl-h) 80% 45%)}}\n" for line in sorted(set(source_lines)))


def source_pane(bundle: dict[str, Any], linked: set[int]) -> str:
    source = bundle["source"]
    first = source["first_line"]
    count = len(source["text"].splitlines())
    links = {line: line for line in range(first, first + count) if line in linked}
    body = code_block(source["text"], links, first, numbering_from=first, source_gutter=False)
    return (f'<section class="kl-pane kl-source"><div class="kl-title">source <small>{esc(source_note(source))}'
            f"</small></div>{body}</section>")


def source_note(source: dict[str, Any]) -> str:
    """Where a report's source is, as the notebook shows it: ``cell lines 2–9`` for a
    ``%%tile_kernel`` cell (its file name is internal), else ``file.py:12–20`` (the JupyterLab
    viewer says the same)."""
    file = source.get("file") or ""
    first = source["first_line"]
    last = first + max(1, len(source["text"].splitlines())) - 1
    where = "cell lines " if not file or file.startswith("<tile_kernel") else f"{os.path.basename(file)}:"
    return f"{where}{first}–{last}"


def stage_summary(stage: dict[str, Any]) -> str:
    count = len(stage["text"].splitlines())
    parts = [f"{count} lines", f"{len(stage['lines'])} linked"]
    timing = _ms(stage.get("seconds"))
    if timing:
        parts.append(timing)
    return " · ".join(parts)


def filter_bar(filters: dict[str, list[int]]) -> str:
    """Checkboxes (on) that hide each kind of line the stage has (CSS does the hiding)."""
    boxes = [f'<label><input type="checkbox" class="kl-h-{kind}" checked> {FILTER_LABEL[kind]} '
             f'<small>({len(filters[kind])})</small></label>' for kind in FILTER_CLASS if filters.get(kind)]
    return f'<div class="kl-filters"><span>hide:</span>{"".join(boxes)}</div>' if boxes else ""


def stage_pane(stage: dict[str, Any], first_line: int, open_: bool = True) -> str:
    links = {stage_line: source_line for stage_line, source_line in stage["lines"]}
    filters = stage.get("filters") or {}
    kinds = {number: kind for kind, numbers in filters.items() for number in numbers}
    body = code_block(stage["text"], links, first_line, kinds=kinds)
    state = " open" if open_ else ""
    return (f'<details class="kl-pane kl-stage" data-stage="{esc(stage["name"])}"{state}>'
            f'<summary>{esc(stage["name"])} <small>{esc(stage_summary(stage))}</small></summary>'
            f'{filter_bar(filters)}{body}</details>')


TOGGLES = ('<div class="kl-toggles"><label><input type="checkbox" class="kl-wide"> full width (panes stacked)</label>'
           '<label><input type="checkbox" class="kl-wrap"> wrap long lines</label>'
           '<span>drag a pane\'s corner to resize it</span></div>')


def notes(bundle: dict[str, Any]) -> str:
    items = [f'<li class="kl-{esc(note["severity"])}">{esc(note["message"])}</li>' for note in bundle["diagnostics"]]
    return f'<ul class="kl-notes">{"".join(items)}</ul>' if items else ""


def header(bundle: dict[str, Any]) -> str:
    facts = "".join(f'<span class="kl-chip">{esc(fact)}</span>' for fact in chips(bundle))
    return f'<div class="kl-head"><span class="kl-name">{esc(bundle["kernel"])}</span>{facts}</div>'


# ---------------------------------------------------------------------------------------------
# The whole report
# ---------------------------------------------------------------------------------------------

def render(bundle: dict[str, Any], open_stages: Iterable[str] | None = None) -> str:
    """The report's HTML.  ``open_stages``: the stages shown expanded (all by default)."""
    from . import pass_view

    scope = report_id(bundle)
    linked = {source_line for stage in bundle["stages"] for _, source_line in stage["lines"]}
    linked |= pass_view.pass_source_lines(bundle)
    first = bundle["source"]["first_line"]
    opened = None if open_stages is None else set(open_stages)
    panes = [source_pane(bundle, linked)]
    panes += [stage_pane(stage, first, opened is None or stage["name"] in opened) for stage in bundle["stages"]]
    return (f'<div class="kl-report" id="{scope}"><style>{CSS}{pass_view.CSS}{hover_css(scope, linked)}</style>'
            f'{header(bundle)}{notes(bundle)}{TOGGLES}<div class="kl-panes" style="--kl-n:{len(panes)}">'
            f'{"".join(panes)}</div>'
            f'{pass_view.render_passes(bundle, scope)}</div>')


__all__ = ["render", "code_block", "hover_css", "chips", "esc", "report_id", "CSS", "MAX_LINES", "stage_summary",
           "header", "notes", "source_pane", "stage_pane", "filter_bar", "TOGGLES"]
