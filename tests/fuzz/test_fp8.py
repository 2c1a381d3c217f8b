"""fp8 in the differential fuzzer: generated kernels load, compute with (+ - * / maximum minimum,
-x, |x|, comparisons, tl.where) and store tl.float8e5 / tl.float8e4nv values, and cast them to and
from f16/f32; the reference widens fp8 operands to f32, computes there and rounds back (nearest
even, saturating).  The fuzzer never generated fp8 arithmetic, so it missed 9a24792's bug (the CPU
and CUDA targets computed fp8 ops on the bits)."""

from __future__ import annotations

import numpy as np
import pytest

from kernellab.fuzz import differential
from kernellab.fuzz import reference as ref
from kernellab.fuzz.dtypes import FP8, NUMPY, cast
from kernellab.fuzz.generator import generate
from kernellab.fuzz.program import COMPARISONS, Assign, Binary, Cast, Unary
from kernellab.language.semantics import typing as semantics_typing
from tests.conftest import TARGETS

SEEDS = range(1, 81)
OPTIONS = {"cpu": {"opt_level": 1}}


def _nodes(program):
    roots = [s.expr for s in program.body if isinstance(s, Assign)]
    while roots:
        node = roots.pop()
        yield node
        roots.extend(node.children())


def _fp8_seeds() -> list[int]:
    """Seeds whose kernels add, subtract or multiply fp8 values and store fp8 ones."""
    programs = [generate(seed) for seed in SEEDS]
    return [p.seed for p in programs if any(s.dtype in FP8 for s in p.stores) and any(
        isinstance(n, Binary) and n.operand_dtype in FP8 and n.op in ("add", "sub", "mul") for n in _nodes(p))][:3]


def test_fp8_values_are_loaded_computed_with_cast_and_stored():
    programs = [generate(seed) for seed in SEEDS]
    nodes = [n for p in programs for n in _nodes(p)]
    arithmetic = {n.op for n in nodes if isinstance(n, Binary) and n.operand_dtype in FP8}
    assert {"add", "sub", "mul", "div", "max", "min"} <= arithmetic and len(arithmetic & set(COMPARISONS)) >= 3
    assert {n.op for n in nodes if isinstance(n, Unary) and n.dtype in FP8} == {"neg", "abs"}
    casts = {(n.x.dtype, n.dtype) for n in nodes if isinstance(n, Cast)}
    assert any(a in FP8 for a, _ in casts) and any(b in FP8 for _, b in casts)
    assert {s.dtype for p in programs for s in p.stores} >= set(FP8)
    without = sum(not any(load.var.dtype in FP8 for load in p.loads) for p in programs)
    assert without >= len(programs) // 3  # fp8 is one of many things a kernel does


def test_fp8_kernels_agree_with_the_reference_on_every_target(tmp_path):
    seeds = _fp8_seeds()
    assert len(seeds) == 3
    targets = [p.values[0] for p in TARGETS]
    for seed in seeds:
        summary = differential.run(1, seed=seed, targets=targets, options=OPTIONS, folder=str(tmp_path))
        assert not summary.findings, "\n\n".join(f.describe() for f in summary.findings)


# 30 * 300 and -300 * 300 with the operands rounded to the type first (e4nv: 30 and 288, a
# product past 448; e5: 32, a tie to even, and 320: 10240, and -102400 past 57344), and 1 * 2**-5
@pytest.mark.parametrize("dtype, big, products", [("float8e4nv", 448.0, [448.0, -448.0, 2.0**-5]),
                                                  ("float8e5", 57344.0, [10240.0, -57344.0, 2.0**-5])])
def test_the_reference_rounds_fp8_results_to_nearest_even_and_saturates(dtype, big, products):
    x = cast(np.array([30.0, -300.0, 1.0, np.nan], np.float32), "float32", dtype)
    y = cast(np.array([300.0, 300.0, 2.0**-5, 1.0], np.float32), "float32", dtype)
    value, err = ref.binary("mul", (x, ref.zero_err(x)), (y, ref.zero_err(y)), dtype)
    assert value.dtype == NUMPY[dtype] and (err == 0).all()  # exact operands: one rounding, compared exactly
    assert np.asarray(value, np.float64)[:3].tolist() == products and np.isnan(np.asarray(value, np.float64)[3])
    wide = cast(np.array([1e6, -np.inf], np.float32), "float32", dtype)
    assert np.asarray(wide, np.float64).tolist() == [big, -big]
    negative = (-np.asarray(x, np.float32)).astype(NUMPY[dtype])
    assert ref.agrees(negative, *ref.unary("neg", (x, ref.zero_err(x)), dtype), dtype).all()
    other_nan = np.array([np.nan], np.float32).astype(NUMPY[dtype])
    assert ref.agrees(-other_nan, other_nan, ref.zero_err(other_nan), dtype).all()  # NaN's sign does not count


def test_the_fuzzer_finds_fp8_arithmetic_on_the_bits(tmp_path, monkeypatch):
    """9a24792's bug, put back: fp8 ops no longer routed through f32 (the CPU target then
    computes on the bits); the fp8 kernels must fail there."""
    if "cpu" not in [p.values[0] for p in TARGETS]:
        pytest.skip("no CPU target")
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "cache"))  # no wrong binary outlives the test
    monkeypatch.setattr(semantics_typing, "FP8_COMPUTED_OPS", frozenset())
    summary = differential.run(1, seed=_fp8_seeds()[0], targets=["cpu"], do_shrink=False,
                               options={"cpu": {"opt_level": 0}}, folder=str(tmp_path / "kernels"))
    assert summary.findings and all(m.target == "cpu" for m in summary.findings[0].mismatches)
