"""The compile report's HTML (no JavaScript, escaped, scoped CSS, linked lines) and its text."""

from __future__ import annotations

import re

from nb_stage_kernels import stages_kernel
from notebook_cells import magic

from kernellab.notebook import html as render
from kernellab.notebook.compile_report import report

SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
HOSTILE_CELL = '''@kl.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # </pre><script>alert("x")</script> & <img src=x onerror=alert(1)>
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''


def _css_rules(page: str) -> list[str]:
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    return [rule.strip() for rule in re.findall(r"([^{}]+)\{[^{}]*\}", style) if rule.strip()]


def test_no_javascript_and_everything_escaped(shell):
    result = magic(shell, '--signature "x_ptr=*fp32, out_ptr=*fp32, n=i32" --constexprs "BLOCK=64" --target cpu',
                   HOSTILE_CELL)
    page = result.report.html()
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert not re.search(r"\son[a-z]+=", page.replace("onerror=alert(1)&gt;", ""))
    assert "&lt;/pre&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img" in page


def test_panes_details_and_linked_lines():
    rep = report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cpu")
    page = rep.html()
    data = rep.bundle
    assert page.count('<details class="kl-pane kl-stage"') == len(data["stages"]) == 3
    assert re.findall(r'data-stage="([^"]+)"', page) == ["tile", "llvm", "asm"]
    assert page.count('<section class="kl-pane kl-source">') == 1
    linked = {line for stage in data["stages"] for _, line in stage["lines"]}
    for line in linked:   # a hover rule per linked source line, and the line itself carries the class
        assert f":has(.L{line}:hover) .L{line}" in page
        assert re.search(rf'class="l L{line} c\d+"><i>{line} </i>', page)
    pairs = sum(len(stage["lines"]) for stage in data["stages"])
    panes = page.split('<section class="kl-passes">')[0]  # the pass timeline links its own lines
    assert len(re.findall(r'class="l L\d+ c\d+"><i>\d+ </i><b>\d+ </b>', panes)) == pairs


def test_css_is_scoped_to_the_report():
    rep = report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="interpret")
    scope = render.report_id(rep.bundle)
    assert f'<div class="kl-report" id="{scope}">' in rep.html()
    for rule in _css_rules(rep.html()):
        for selector in rule.split(","):
            assert selector.strip().startswith((".kl-report", f"#{scope}")), selector


def test_the_same_source_line_has_the_same_colour_everywhere():
    rep = report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cpu")
    colours: dict[str, set[str]] = {}
    for line, colour in re.findall(r'class="l L(\d+) (c\d+)"', rep.html()):
        colours.setdefault(line, set()).add(colour)
    assert colours and all(len(found) == 1 for found in colours.values())


def test_long_unlinked_runs_fold_and_long_stages_are_cut():
    text = "\n".join(f"line {i}" for i in range(1, 121))
    links = {1: 5, 100: 6}
    block = render.code_block(text, links, 5, max_lines=110)
    assert block.count('<details class="kl-fold"><summary>98 lines with no source line</summary>') == 1
    assert "… 10 more lines" in block
    assert block.count('class="l') == 110


def test_plain_text_summarizes():
    rep = report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cpu")
    text = rep.text()
    assert text.startswith("stages_kernel: cpu · num_warps=4")
    for stage in rep.bundle["stages"]:
        assert f"stage {stage['name']}: {len(stage['text'].splitlines())} lines · {len(stage['lines'])} linked" in text


def test_the_source_is_named_as_the_notebook_shows_it(shell):
    """A %%tile_kernel cell's source is "cell lines A–B" (as the JupyterLab viewer says), not the
    internal file name <tile_kernel-HASH>; a kernel from a file is "file.py:A–B"."""
    result = magic(shell, '--signature "x_ptr=*fp32, out_ptr=*fp32, n=i32" --constexprs "BLOCK=64" --target cpu',
                   HOSTILE_CELL)
    last = 1 + len(HOSTILE_CELL.splitlines())
    assert _source_titles(result.report) == [f"cell lines 2–{last}"] * 2
    rep = report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cpu")
    first = rep.bundle["source"]["first_line"]
    last = first + len(rep.bundle["source"]["text"].splitlines()) - 1
    assert _source_titles(rep) == [f"nb_stage_kernels.py:{first}–{last}"] * 2


def _source_titles(rep) -> list[str]:
    """How the HTML's source pane and the plain text name the source."""
    in_html = re.search(r'class="kl-title">source <small>(.*?)</small>', rep.html()).group(1)
    in_text = next(line for line in rep.text().splitlines() if line.startswith("source: "))
    return [in_html, in_text.removeprefix("source: ")]
