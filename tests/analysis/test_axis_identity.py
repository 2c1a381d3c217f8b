"""The axis analysis keys its facts by value: a pass that asks while it rewrites the function
(the CUDA async pipeline) may erase a value, and a value made afterwards may get the erased
one's ``id``; it must not be given the erased value's facts."""

from __future__ import annotations

import gc

from kernellab.analysis.axis import AxisAnalysis
from kernellab.ir.core import Value
from kernellab.ir.parser import parse_function


def test_a_value_made_after_an_analyzed_value_was_erased_has_no_facts(rng):
    size = int(2 ** rng.integers(4, 10))
    function = parse_function(f"func @k() {{\n  %offs = arange {{start = 0, end = {size}}} : tile<{size}xi32>\n"
                              "  return\n}\n")
    analysis = AxisAnalysis(function)
    arange = function.body.ops[0]
    ty = arange.result.type
    assert analysis.info(arange.result).contiguity == (size,)
    function.body.remove(arange)  # erased, as a rewrite does; its result dies with it
    del arange
    gc.collect()
    fresh = [Value(ty) for _ in range(4096)]
    assert [v for v in fresh if analysis.info(v).contiguity != (1,)] == []
