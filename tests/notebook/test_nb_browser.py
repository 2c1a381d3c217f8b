"""A rendered compile report in headless Chromium (Debian's ``chromium``; ``./dev test``
installs it): the panes sit side by side, linked lines are coloured alike in every pane, the
hover rules parse, and screenshots (light and dark page) are written under the test's tmp_path
(``pytest --basetemp=DIR`` keeps them to look at)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from nb_stage_kernels import stages_kernel

from kernellab.notebook.compile_report import report
from kernellab.runtime.targets import backend_available

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (./dev test installs Debian's chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]

# Test-only probe: measures the rendered report and writes what it found into the page.
PROBE = """<script>
addEventListener('load', () => {
  const box = e => e.getBoundingClientRect();
  const panes = [...document.querySelectorAll('.kl-report .kl-pane')];
  const colourOf = line => [...document.querySelectorAll('.kl-report .L' + line)].map(
      e => getComputedStyle(e).borderLeftColor + '|' + getComputedStyle(e).backgroundColor);
  const linked = [...document.querySelectorAll('.kl-report .kl-source .l[class*=" L"]')]
      .map(e => e.className.match(/ L(\\d+)/)[1]);
  const rules = [...document.styleSheets].flatMap(s => [...s.cssRules]).map(r => r.selectorText || '');
  const result = {
    panes: panes.map(p => ({stage: p.dataset.stage || 'source', left: box(p).left, top: box(p).top,
                            width: box(p).width, lines: p.querySelectorAll('.l').length})),
    colours: Object.fromEntries(linked.map(line => [line, colourOf(line)])),
    plainBackground: getComputedStyle(document.querySelector('.kl-report .l:not([class*=" L"])')).backgroundColor,
    hoverRules: rules.filter(r => r.includes(':has(') && r.includes(':hover')).length,
    hasSupported: CSS.supports('selector(:has(a))'),
  };
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""


def _page(body: str, dark: bool = False) -> str:
    style = "background:#1e1e1e;color:#d4d4d4;" if dark else "background:#fff;color:#111;"
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>kernellab report</title></head>'
            f'<body style="{style}font-family:sans-serif;margin:8px">{body}</body></html>')


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.fixture(scope="module")
def rendered():
    target = "cuda:sm_90a" if backend_available("cuda") else "cpu"
    rep = report(stages_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                 constexprs={"BLOCK": 128}, target=target)
    return rep


def test_panes_and_linked_lines_in_chromium(rendered, tmp_path):
    page = tmp_path / "probe.html"
    page.write_text(_page(rendered.html() + PROBE), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1400,900", "--dump-dom", page.as_uri()).stdout
    found = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))

    stages = [stage["name"] for stage in rendered.bundle["stages"]]
    assert [pane["stage"] for pane in found["panes"]] == ["source", *stages]
    lefts = [pane["left"] for pane in found["panes"]]
    assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts)           # side by side, left to right
    assert len({round(pane["top"]) for pane in found["panes"]}) == 1            # in one row
    for pane, stage in zip(found["panes"][1:], rendered.bundle["stages"]):
        assert pane["lines"] == len(stage["text"].splitlines())

    linked = {line for stage in rendered.bundle["stages"] for _, line in stage["lines"]}
    linked |= {line for entry in rendered.bundle["passes"] for _, line in entry["lines"]}  # the pass timeline's
    assert {int(line) for line in found["colours"]} == linked
    for line, styles in found["colours"].items():
        assert len(styles) > 1 and len(set(styles)) == 1, line                # one colour across panes
        assert "rgba(" in styles[0] and not styles[0].endswith("rgba(0, 0, 0, 0)"), styles[0]
    assert found["plainBackground"] == "rgba(0, 0, 0, 0)"
    assert found["hasSupported"] and found["hoverRules"] == len(linked)


def test_screenshot_of_the_report(rendered, tmp_path):
    for dark in (False, True):
        page = tmp_path / f"report{'-dark' if dark else ''}.html"
        page.write_text(_page(rendered.html(), dark), encoding="utf-8")
        shot = tmp_path / f"report{'-dark' if dark else ''}.png"
        _chromium(tmp_path, "--window-size=1200,640", f"--screenshot={shot}", page.as_uri())
        data = shot.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 20_000     # a page with content, not a blank one


# Test-only probe: chooses passes of the timeline as a reader would (opening their <details>)
# and writes what is shown into the page.
PASS_PROBE = """<script>
addEventListener('load', () => {
  const rows = [...document.querySelectorAll('.kl-report .kl-pass')];
  const shown = () => rows.filter(row => row.open).map(row => Number(row.dataset.pass));
  const visible = row => [...row.querySelectorAll(':scope > pre .l, :scope > pre > .l')]
      .filter(line => line.getBoundingClientRect().height > 0);
  const choose = index => { rows[index].querySelector('summary').click(); };
  const result = {rows: rows.length, initially: shown()};
  const changed = rows.findIndex((row, i) => i > 0 && !row.classList.contains('kl-same')
      && row.querySelector(':scope > pre .l.a'));
  choose(changed);
  result.changed = changed;
  result.afterFirst = shown();
  const lines = visible(rows[changed]);
  result.added = lines.filter(line => line.classList.contains('a')).length;
  result.removed = lines.filter(line => line.classList.contains('r')).length;
  const linked = lines.find(line => / L\\d+/.test(line.className) && line.classList.contains('a'));
  const source = linked.className.match(/ L(\\d+)/)[1];
  const sourceLine = document.querySelector('.kl-report .kl-source .L' + source);
  result.sameColour = getComputedStyle(linked).backgroundColor === getComputedStyle(sourceLine).backgroundColor;
  result.linkedBackground = getComputedStyle(linked).backgroundColor;
  choose(changed + 1);
  result.afterSecond = shown();
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""


def test_choosing_a_pass_in_chromium_shows_its_diff_linked_to_the_source(rendered, tmp_path):
    page = tmp_path / "passes.html"
    page.write_text(_page(rendered.html() + PASS_PROBE), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1400,900", "--dump-dom", page.as_uri()).stdout
    found = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))
    passes = rendered.bundle["passes"]
    assert found["rows"] == len(passes) and found["initially"] == []
    changed = found["changed"]
    assert passes[changed]["changed"] and passes[changed]["base"] is not None
    assert found["afterFirst"] == [changed]                 # the chosen pass only
    assert found["added"] > 0 and found["removed"] >= 0
    assert found["sameColour"] and found["linkedBackground"] != "rgba(0, 0, 0, 0)"
    assert found["afterSecond"] == [changed + 1]            # choosing another closes the first


# Test-only probe: the asm filters and the layout toggles, used as a reader would (clicking the
# checkboxes), and what is then shown.
LAYOUT_PROBE = """<script>
addEventListener('load', () => {
  const report = document.querySelector('.kl-report');
  const asm = report.querySelector('.kl-pane[data-stage="asm"]');
  const shown = selector => [...asm.querySelectorAll(selector)]
      .filter(e => getComputedStyle(e).display !== 'none').length;
  const panes = () => [...report.querySelectorAll('.kl-panes > .kl-pane')].map(p => {
    const box = p.getBoundingClientRect();
    return {top: Math.round(box.top), width: Math.round(box.width), resize: getComputedStyle(p).resize};
  });
  const result = {directives: asm.querySelectorAll('.l.fd').length, shownDirectives: shown('.l.fd'),
                  shownCode: shown('.l:not(.fd):not(.fc):not(.fl):not(.fk)'), before: panes()};
  const hovered = asm.querySelector('.l[class*=" L"]:not(.fd)');
  result.linkedShown = hovered !== null && getComputedStyle(hovered).display !== 'none';
  asm.querySelector('input.kl-h-directive').click();
  result.afterUncheck = shown('.l.fd');
  report.querySelector('input.kl-wide').click();
  result.wide = panes();
  report.querySelector('input.kl-wide').click();
  report.querySelector('input.kl-wrap').click();
  result.wrap = getComputedStyle(asm.querySelector('.l')).whiteSpace;
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""


def test_asm_filters_and_layout_toggles_in_chromium(tmp_path):
    rep = report(stages_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                 constexprs={"BLOCK": 128}, target="cpu")
    page = tmp_path / "layout.html"
    page.write_text(_page(rep.html() + LAYOUT_PROBE), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1400,900", "--dump-dom", page.as_uri()).stdout
    found = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))
    assert found["directives"] > 0 and found["shownDirectives"] == 0         # hidden by default
    assert found["shownCode"] > 0 and found["linkedShown"]
    assert found["afterUncheck"] == found["directives"]                      # the checkbox shows them
    assert all(pane["resize"] == "horizontal" for pane in found["before"])   # each pane resizable
    assert len({pane["top"] for pane in found["before"]}) == 1               # side by side
    tops = [pane["top"] for pane in found["wide"]]
    assert len(set(tops)) == len(tops) and min(p["width"] for p in found["wide"]) > 1000   # full width: stacked
    assert found["wrap"] == "pre-wrap"
    shot = tmp_path / "layout.png"
    page.write_text(_page(rep.html()), encoding="utf-8")
    _chromium(tmp_path, "--window-size=1400,800", f"--screenshot={shot}", page.as_uri())
    assert shot.read_bytes().startswith(b"\x89PNG")


# Test-only probe: where the A/B view's columns and an error note's lines end up.
PANEL_PROBE = """<script>
addEventListener('load', () => {
  const box = e => e ? e.getBoundingClientRect() : null;
  const ab = document.querySelector('.kl-ab');
  const result = {};
  if (ab) {
    result.ab = Math.round(box(ab).width);
    result.abRight = Math.round(box(ab).right);
    result.stagesRight = Math.round(box(ab.querySelector('.kl-ab-stages')).right);
    result.paneWidths = [...ab.querySelectorAll('.kl-ab-stages > .kl-pane')].map(p => Math.round(box(p).width));
  }
  result.errors = [...document.querySelectorAll('.kl-notes li.kl-error')].map(li => li.innerText.split('\\n'));
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""


def _probe_panel(tmp_path: Path, body: str) -> dict:
    page = tmp_path / "panel.html"
    page.write_text(_page(body + PANEL_PROBE), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1400,900", "--dump-dom", page.as_uri()).stdout
    return json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))


def test_ab_view_stages_fill_the_width_beside_the_source(inputs, tmp_path):
    """The A/B view's stage panes take the width the source pane leaves (they took a third of it,
    two 170-pixel code columns per stage in a 1400-pixel window)."""
    from kernellab.notebook.ab_view import compare

    n = 1000 + int(inputs.rng.integers(1, 500))
    args = (inputs.normal(n), inputs.normal(n), inputs.poisoned(n), n)
    view = compare(stages_kernel, args[1:], {"BLOCK": 128}, {"BLOCK": 256},
                   grid=lambda meta: (-(-meta["n"] // meta["BLOCK"]),), target="cpu", bench=False)
    found = _probe_panel(tmp_path, view.html())
    assert found["ab"] > 1300
    assert found["abRight"] - found["stagesRight"] < 20                     # no empty band on the right
    assert min(found["paneWidths"]) > 0.6 * found["ab"]


def test_explore_error_note_keeps_the_caret_under_its_column(inputs, tmp_path):
    """A setting that does not compile shows the compiler's message as it is printed: the source
    line, then the caret on a line of its own (HTML folded the three lines into one)."""
    from kernellab.notebook.explorer import explore

    n = 1000 + int(inputs.rng.integers(1, 500))
    panel = explore(stages_kernel, (inputs.normal(n), inputs.poisoned(n), n), {"BLOCK": [128, 100]},
                    grid=lambda meta: (-(-meta["n"] // meta["BLOCK"]),), target="cpu", warmup=1, rep=2)
    shown = []
    panel._show_html = lambda text, chart=None: shown.append(text)
    panel.values["BLOCK"] = 100             # what choosing it on the slider does
    panel._try()
    lines = _probe_panel(tmp_path, shown[-1])["errors"][0]
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    code = lines[caret - 1]
    assert "tl.arange(0, BLOCK)" in code and code.index("tl.arange") == lines[caret].index("^")
