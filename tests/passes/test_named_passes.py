"""Named passes, the recording pipeline and its callback, record_pass and the stored trail."""

from __future__ import annotations

import pytest

from kernellab.ir.parser import parse_module
from kernellab.ir.printer import print_module
from kernellab.passes import (
    DEFAULT_PIPELINE,
    PASSES,
    Pass,
    PassPipeline,
    pipeline,
    read_trail,
    record_pass,
    recording,
    trail_text,
)
from tests.passes.test_pipeline import VECTOR_ADD


def test_every_pass_is_a_named_object():
    for name, item in PASSES.items():
        assert isinstance(item, Pass) and item.name == name and item.doc
        module = item(parse_module(VECTOR_ADD))  # a Pass runs like the function it names
        assert print_module(parse_module(print_module(module))) == print_module(module)


def test_the_pipeline_records_each_pass_and_calls_back():
    seen = []
    passes = pipeline(DEFAULT_PIPELINE, callback=lambda record, module: seen.append((record, print_module(module))))
    module = passes.run(parse_module(VECTOR_ADD))
    assert [record.name for record in passes.records] == list(DEFAULT_PIPELINE)
    assert [record for record, _ in seen] == passes.records
    for record, printed in seen:
        assert record.ir == printed and record.dialect == "tile" and record.seconds >= 0
        assert "loc(#f0:" in record.ir  # the IR after the pass keeps its locations
    assert passes.records[-1].ir == print_module(module)
    changed = {record.name: record.changed for record in passes.records[:4]}
    assert changed["inline"] and changed["canonicalize"]  # the call to combine goes, x * 1.0 folds
    assert not passes.records[-1].changed  # the second dce finds nothing left to remove
    assert passes.records[0].summary() == {"name": "inline", "ms": passes.records[0].ms, "changed": True}


def test_changed_compares_the_ir_before_and_after():
    module = parse_module(VECTOR_ADD)
    passes = PassPipeline([PASSES["inline"], PASSES["inline"]])
    passes.run(module)
    assert [record.changed for record in passes.records] == [True, False]
    assert passes.records[0].ir == passes.records[1].ir


def test_a_pipeline_takes_passes_their_names_or_functions():
    def tag_kernel(module):
        module.kernel.attrs["tagged"] = True
        return module

    passes = PassPipeline([PASSES["inline"], "cse", tag_kernel])
    assert passes.names == ("inline", "cse", "tag_kernel")
    passes.run(parse_module(VECTOR_ADD))
    assert passes.records[-1].changed and "tagged = true" in passes.records[-1].ir
    with pytest.raises(TypeError, match="PassPipeline runs passes"):
        PassPipeline([42])
    with pytest.raises(ValueError, match="unknown pass.*vectorize"):
        PassPipeline(["cse", "vectorize"])
    with pytest.raises(ValueError, match="unknown pass.*vectorize"):
        pipeline(["cse", "vectorize"])


def test_record_pass_outside_a_compilation_does_nothing():
    assert record_pass("layouts", "text", dialect="tile.gpu") is None


def test_record_pass_adds_a_step_to_the_recording():
    calls = []
    with recording(callback=lambda record, module: calls.append((record.name, module))) as trail:
        first = record_pass("layouts", "a\nb\n", dialect="tile.gpu", seconds=0.002)
        same = record_pass("pipeline", "a\nb\n", dialect="tile.gpu", seconds=0.001)
        other = record_pass("llvm", "a\nb\n", dialect="llvm")
        with pytest.raises(TypeError, match="as text"):
            record_pass("ptx", b"bytes", dialect="ptx")
        with pytest.raises(ValueError, match="non-empty"):
            record_pass("", "x", dialect="ptx")
    assert trail.records == [first, same, other]
    assert (first.changed, same.changed, other.changed) == (True, False, True)  # per dialect
    assert first.ms == 2.0 and calls == [("layouts", None), ("pipeline", None), ("llvm", None)]
    assert record_pass("after", "x", dialect="tile") is None  # the recording ended with its block
    assert trail.summaries() == [{"name": "layouts", "ms": 2.0, "changed": True},
                                 {"name": "pipeline", "ms": 1.0, "changed": False},
                                 {"name": "llvm", "ms": 0.0, "changed": True}]


def test_a_pipeline_inside_a_recording_adds_its_records():
    with recording() as trail:
        record_pass("lower", VECTOR_ADD, dialect="tile")
        pipeline(["inline", "dce"]).run(parse_module(VECTOR_ADD))
    assert [record.name for record in trail.records] == ["lower", "inline", "dce"]


def test_the_trail_names_final_stages_instead_of_repeating_them():
    with recording() as trail:
        record_pass("lower", "func a", dialect="tile")
        record_pass("cse", "func b", dialect="tile")
        record_pass("py", "def f(): pass", dialect="py")
        record_pass("dce", "func b", dialect="tile", seconds=0.5)
    stages = {"source": "...", "tile": "func b", "py": "def f(): pass"}
    text = trail_text(trail.records, stages)
    assert text.count("func b") == 0 and text.count("func a") == 1
    assert text == trail_text(trail.records, stages) and '"ms"' not in text  # deterministic: no times
    back = read_trail(text, stages, trail.summaries())
    assert [(r.name, r.dialect, r.ir, r.changed, r.stage) for r in back] == [
        ("lower", "tile", "func a", True, None), ("cse", "tile", "func b", True, "tile"),
        ("py", "py", "def f(): pass", True, "py"), ("dce", "tile", "func b", False, "tile")]
    assert back[3].seconds == 0.5


ONE = [{"name": "a", "ms": 1.0, "changed": True}]


@pytest.mark.parametrize("damaged, summaries", [
    ("not json", ONE), ('{"version": 9, "passes": []}', []), ('{"version": 1, "passes": [{}]}', ONE),
    ('{"version": 1, "passes": [{"name": "a", "dialect": "tile", "stage": "gone"}]}', ONE),
    ('{"version": 1, "passes": [{"name": "a", "dialect": "tile", "text": "x"}]}', []),
    ('{"version": 1, "passes": [{"name": "b", "dialect": "tile", "text": "x"}]}', ONE),
])
def test_a_damaged_trail_is_a_value_error(damaged, summaries):
    with pytest.raises(ValueError, match="trail"):
        read_trail(damaged, {"tile": "x"}, summaries)
