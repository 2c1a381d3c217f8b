"""The compile report's JSON: the schema, and line maps for every stage of every target read
from the compiler's own locations (checked against what each stage's lines do)."""

from __future__ import annotations

import json
import re

import pytest
from nb_stage_kernels import halve, line_of, stages_kernel

from kernellab.notebook import bundle as schema
from kernellab.notebook import linemaps
from kernellab.notebook.compile_report import report
from kernellab.runtime.targets import backend_available

SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
TARGETS = ["interpret", "cpu"] + (["cuda:sm_90a"] if backend_available("cuda") else [])

# For each stage: what a line from the load, the sqrt and the store of stages_kernel contains.
WHAT = {
    "tile": {"load": "= load(", "sqrt": "= sqrt(", "store": "store("},
    "tile.gpu": {"load": "= load(", "sqrt": "= sqrt(", "store": "store("},
    "py": {"load": "load_", "sqrt": "sqrt_", "store": "store_"},
    "llvm": {"load": ("load ", "ld.global"), "sqrt": "sqrt", "store": ("store ", "st.global")},
    "asm": {"sqrt": "sqrt"},
    "ptx": {"load": "ld.global", "sqrt": "sqrt.", "store": "st.global"},
    "sass": {"load": "LDG", "store": "STG"},
}
NEEDLES = {"load": "x = tl.load", "sqrt": "tl.sqrt(x)", "store": "tl.store(out_ptr"}


@pytest.fixture(scope="module", params=TARGETS)
def stages_report(request):
    return report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target=request.param)


def test_the_bundle_follows_the_schema(stages_report):
    data = stages_report.bundle
    schema.validate(data)
    assert data["version"] == schema.SCHEMA_VERSION
    assert data["kernel"] == "stages_kernel"
    json.dumps(data, allow_nan=False)
    for key in ("compile_seconds", "signature", "constexprs", "num_warps"):
        assert key in data["metadata"], key
    assert "line_maps" not in data["metadata"]
    if data["target"].startswith("cuda"):
        assert data["metadata"]["registers"] > 0 and data["metadata"]["spills"] == 0
        assert isinstance(data["metadata"]["binary_stages"]["cubin"], int)


def test_the_source_covers_the_kernel_and_its_callee_in_the_same_file(stages_report):
    source = stages_report.bundle["source"]
    assert source["file"] == stages_kernel.source_file
    assert source["first_line"] == halve.first_line
    assert "def stages_kernel" in source["text"] and "return v * 0.5" in source["text"]


def test_every_stage_links_its_lines_to_the_lines_they_came_from(stages_report):
    expected_stages = {"interpret": ["tile", "py"], "cpu": ["tile", "llvm", "asm"],
                       "cuda:sm_90a": ["tile", "tile.gpu", "llvm", "ptx", "sass"]}[stages_report.bundle["target"]]
    assert stages_report.stage_names == expected_stages
    for stage in stages_report.bundle["stages"]:
        text = stage["text"].splitlines()
        assert stage["lines"], f"{stage['name']} has no linked lines"
        by_source: dict[int, list[str]] = {}
        for stage_line, source_line in stage["lines"]:
            by_source.setdefault(source_line, []).append(text[stage_line - 1])
        for what, needle in WHAT[stage["name"]].items():
            source_line = line_of(NEEDLES[what])
            alternatives = needle if isinstance(needle, tuple) else (needle,)
            found = [line for line in by_source.get(source_line, []) if any(n in line for n in alternatives)]
            assert found, (stage["name"], what)
        if "sqrt" in WHAT[stage["name"]]:   # only the sqrt line became a square root
            elsewhere = [line for source_line, lines in by_source.items() if source_line != line_of("tl.sqrt(x)")
                         for line in lines if WHAT[stage["name"]]["sqrt"] in line]
            assert not elsewhere, (stage["name"], elsewhere)


def test_the_inlined_callee_links_to_its_own_line(stages_report):
    callee = line_of("return v * 0.5")
    for stage in stages_report.bundle["stages"]:
        if stage["name"] in ("asm", "sass"):   # machine code may fold the multiply into its neighbours
            continue
        assert callee in {source_line for _, source_line in stage["lines"]}, stage["name"]


def test_tile_maps_from_metadata_and_from_the_printed_locations_agree(stages_report):
    compiled = stages_report.compiled
    recorded = {line: (path, source_line) for line, path, source_line in linemaps.recorded(compiled.metadata, "tile")}
    printed = linemaps.tile_locations(compiled.asm["tile"])
    assert printed
    for line, path, source_line in printed:
        assert recorded[line] == (path, source_line)


# ---------------------------------------------------------------------------------------------
# The parsers on hand-written stage text
# ---------------------------------------------------------------------------------------------

def test_assembly_locations():
    text = "\n".join([
        '\t.file\t"<string>"',
        '\t.file\t1 "/work" "k.py"',
        '\t.file\t2 "/other/lib.py"',
        "kernel:",
        "\t.loc\t1 5 0",
        "\tpushq\t%rbx",
        "\t.cfi_offset %rbx, -16",
        "\t.loc\t1 0 3 is_stmt 0",          # line 0: code the compiler made up
        "\tmovq\t%rdi, %rax",
        "\t.loc\t2 7 1",
        ".LBB0_1:",
        "\tvaddps\t%ymm0, %ymm1, %ymm2",
        "\t// a comment",
        "\t@%p1 ld.global.b32 %r1, [%rd1];",
    ])
    assert linemaps.asm_locations(text) == [(6, "/work/k.py", 5), (12, "/other/lib.py", 7),
                                            (14, "/other/lib.py", 7)]


def test_llvm_locations_follow_scopes_to_files():
    text = "\n".join([
        'define void @"k"(ptr %".1") !dbg !3',
        "{",
        "entry:",
        '  %".2" = load float, ptr %".1", !dbg !4',
        '  %".3" = fmul float %".2", 2.0, !dbg !6',
        '  ret void',
        "}",
        '!0 = !DIFile(directory: "/work", filename: "k.py")',
        '!1 = !DIFile(filename: "lib\\5Cx.py", directory: "/other")',
        "!3 = distinct !DISubprogram(name: \"k\", file: !0, line: 4, scopeLine: 4, unit: !9)",
        "!4 = !DILocation(line: 6, column: 3, scope: !3)",
        "!5 = !DILexicalBlockFile(scope: !3, file: !1, discriminator: 0)",
        "!6 = !DILocation(column: 9, line: 12, scope: !5)",
    ])
    assert linemaps.llvm_locations(text) == [(1, "/work/k.py", 4), (4, "/work/k.py", 6),
                                             (5, "/other/lib\\x.py", 12)]


def test_sass_and_tile_locations():
    sass = "\n".join(['\t//## File "/work/k.py", line 8', "        /*0000*/  LDC R1, c[0x0][0x28] ;",
                      ".L_x_0:", "        /*0010*/  S2R R0, SR_TID.X ;", '\t//## File "/work/k.py", line 9',
                      "        /*0020*/  EXIT ;"])
    assert linemaps.sass_locations(sass) == [(2, "/work/k.py", 8), (4, "/work/k.py", 8), (6, "/work/k.py", 9)]
    tile = '#f0 = "/work/k.py"\nfunc @k() {\n  %0 = constant {value = 1} : i32 loc(#f0:3:4)\n  return\n}'
    assert linemaps.tile_locations(tile) == [(3, "/work/k.py", 3)]


def test_to_source_keeps_one_file_and_range():
    located = [(1, "/a.py", 3), (2, "/b.py", 3), (3, "/a.py", 99), (4, "/a.py", 4), (4, "/a.py", 5)]
    assert linemaps.to_source(located, "/a.py", 2, 10) == [[1, 3], [4, 4]]


# ---------------------------------------------------------------------------------------------
# validate() refuses what breaks the schema
# ---------------------------------------------------------------------------------------------

def _valid() -> dict:
    return report(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": 64}, target="interpret").bundle


@pytest.mark.parametrize("damage, message", [
    (lambda b: b.update(version=99), "version"),
    (lambda b: b.pop("diagnostics"), "exactly the keys"),
    (lambda b: b["stages"][0]["lines"].append([1, b["source"]["first_line"]]), "out of order"),
    (lambda b: b["stages"][0]["lines"].append([10_000, b["source"]["first_line"]]), "out of order or past"),
    (lambda b: b["stages"][0]["lines"].insert(0, [1, 100_000]), "outside"),
    (lambda b: b["source"].update(first_line=0), "first_line"),
    (lambda b: b["diagnostics"].append({"severity": "fatal", "message": "x"}), "diagnostic"),
    (lambda b: b["metadata"].update(bad=float("nan")), "JSON compliant"),
])
def test_validate_refuses_broken_bundles(damage, message):
    data = _valid()
    damage(data)
    with pytest.raises((schema.SchemaError, ValueError), match=message):
        schema.validate(data)


def test_unknown_stages_are_refused_with_the_list_of_stages():
    with pytest.raises(ValueError, match=re.escape("has no stage 'ptx'; its stages are tile, llvm, asm")):
        report(stages_kernel, ["tile", "ptx"], signature=SIGNATURE, constexprs={"BLOCK": 64}, target="cpu")
