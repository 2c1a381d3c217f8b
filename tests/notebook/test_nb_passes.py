"""The compile report's per-pass view: the bundle's ``passes`` list and the HTML timeline."""

from __future__ import annotations

import copy
import re

import pytest
from nb_stage_kernels import line_of, stages_kernel

from kernellab.notebook import bundle as schema
from kernellab.notebook import pass_view
from kernellab.notebook.compile_report import report
from kernellab.passes import DEFAULT_PIPELINE

SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
STEPS = {"interpret": [("py", "py")], "cpu": [("llvm", "llvm"), ("llvm-opt", "llvm"), ("asm", "asm")]}


@pytest.fixture(scope="module", params=["interpret", "cpu"])
def passes_report(request):
    return report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target=request.param)


def test_the_bundle_lists_every_pass_with_its_ir(passes_report):
    data = passes_report.bundle
    schema.validate(data)
    passes = data["passes"]
    names = [(entry["name"], entry["dialect"]) for entry in passes]
    assert names == [("lower", "tile"), *((name, "tile") for name in DEFAULT_PIPELINE), *STEPS[data["target"]]]
    assert [{"name": e["name"], "ms": e["ms"], "changed": e["changed"]} for e in passes] == \
        data["metadata"]["passes"]
    assert passes[-len(STEPS[data["target"]]) - 1]["text"] == passes_report.stage("tile")["text"]
    assert "func @halve" in passes[0]["text"] and "func @halve" not in passes[1]["text"]


def test_each_pass_is_diffed_against_the_previous_one_of_its_dialect(passes_report):
    passes = passes_report.bundle["passes"]
    latest: dict[str, int] = {}
    for index, entry in enumerate(passes):
        assert entry["base"] == latest.get(entry["dialect"])
        latest[entry["dialect"]] = index


def test_pass_lines_link_to_the_source_they_came_from(passes_report):
    sqrt, store = line_of("tl.sqrt(x)"), line_of("tl.store(out_ptr")
    for entry in passes_report.bundle["passes"]:
        if entry["dialect"] not in ("tile", "py"):
            continue
        lines = entry["text"].splitlines()
        linked = dict(entry["lines"])
        assert sqrt in linked.values() and store in linked.values(), entry["name"]
        for text_line, source_line in entry["lines"]:
            if source_line == sqrt and entry["dialect"] == "tile":
                assert "sqrt(" in lines[text_line - 1], (entry["name"], lines[text_line - 1])


def _damaged(data, damage):
    data = copy.deepcopy(data)
    damage(data)
    return data


@pytest.mark.parametrize("damage, message", [
    (lambda b: b.pop("passes"), "exactly the keys"),
    (lambda b: b["passes"][1].pop("base"), "exactly the keys"),
    (lambda b: b["passes"][1].update(base=1), "base is null or an earlier pass"),
    (lambda b: b["passes"][-1].update(base=0), "base is null or an earlier pass"),   # py/asm against tile
    (lambda b: b["passes"][1].update(changed="yes"), "changed is true or false"),
    (lambda b: b["passes"][1].update(ms=-1), "ms is a number"),
    (lambda b: b["passes"][1]["lines"].append([1, b["source"]["first_line"]]), "out of order"),
    (lambda b: b["passes"][1]["lines"].insert(0, [1, 100_000]), "outside"),
    (lambda b: b.update(version=1), "exactly the keys"),   # version 1 has no passes
])
def test_validate_refuses_broken_pass_lists(passes_report, damage, message):
    with pytest.raises(schema.SchemaError, match=message):
        schema.validate(_damaged(passes_report.bundle, damage))


def test_a_version_1_bundle_still_validates(passes_report):
    old = _damaged(passes_report.bundle, lambda b: (b.pop("passes"), b.update(version=1)))
    schema.validate(old)


def test_the_html_timeline_has_a_row_per_pass_in_one_exclusive_group(passes_report):
    page = passes_report.html()
    passes = passes_report.bundle["passes"]
    rows = re.findall(r'<details class="kl-pass( kl-same)?" name="(kl-r-[0-9a-f]+)-passes" data-pass="(\d+)">', page)
    assert [int(index) for _, _, index in rows] == list(range(len(passes)))
    assert len({group for _, group, _ in rows}) == 1 and "<script" not in page.lower()
    assert [bool(same) for same, _, _ in rows] == [not entry["changed"] for entry in passes]
    for entry in passes:
        assert f'<span class="kl-pname">{entry["name"]}</span>' in page


def test_a_chosen_pass_shows_its_changes_linked_to_the_source(passes_report):
    passes = passes_report.bundle["passes"]
    first = passes_report.bundle["source"]["first_line"]
    inline = passes[1]  # halve's body moves into the kernel, its call goes
    body, added, removed = pass_view.diff_rows(passes[0], inline, first)
    assert added > 0 and removed > 0
    call = next(i for i, line in enumerate(passes[0]["text"].splitlines(), 1) if "call(" in line)
    source_of_call = dict(passes[0]["lines"])[call]
    assert re.search(rf'class="l r L{source_of_call} c\d+"><i>{call} </i><b>{source_of_call} </b>[^<]*call\(', body)
    assert re.search(r'class="l a L\d+ c\d+"><i>\d+ </i>', body)
    summary, shown = pass_view.pass_body(passes, 1, first)
    assert summary == f"+{added} −{removed} lines against pass 0" and body in shown
    unchanged = next(i for i, entry in enumerate(passes) if not entry["changed"])
    assert "no change" in pass_view.pass_body(passes, unchanged, first)[1]
    whole = pass_view.pass_body(passes, 0, first)[1]
    assert whole.count('<span class="l') == len(passes[0]["text"].splitlines())


def test_pass_names_are_escaped(passes_report):
    data = _damaged(passes_report.bundle, lambda b: b["passes"][2].update(name='<img src=x onerror=alert(1)>'))
    page = pass_view.render_passes(data, "kl-r-test")
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_text_summary_names_the_passes(passes_report):
    text = passes_report.text()
    line = next(line for line in text.splitlines() if line.startswith("passes ("))
    assert "lower, inline" in line and "licm" in line
    unchanged = [entry["name"] for entry in passes_report.bundle["passes"] if not entry["changed"]]
    assert line.count("(unchanged)") == len(unchanged) > 0
