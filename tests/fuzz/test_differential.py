"""A fixed-seed differential run: random well-typed kernels on the interpreter and the CPU
target (and CUDA with a device), each compared with the generator's numpy reference; and the
shrinker, which must cut a failing kernel down while it keeps failing."""

from __future__ import annotations

import numpy as np
import pytest

from kernellab.fuzz import differential
from kernellab.fuzz.data import expected, make_arrays
from kernellab.fuzz.generator import generate
from kernellab.fuzz.program import Scan
from kernellab.fuzz.runner import Runner, compare
from kernellab.fuzz.shrinker import shrink
from tests.conftest import TARGETS

KERNELS = 128  # of 4 programs each: 512 programs
PARTS = 4
# The CPU target compiles each kernel with LLVM's -O1 here (the long run, python -m kernellab.fuzz,
# uses the default -O3): -O3's vectorizer triples the compile time of a suite that must stay fast.
OPTIONS = {"cpu": {"opt_level": 1}}


def _targets() -> list[str]:
    return [p.values[0] for p in TARGETS]


def test_random_kernels_agree_with_the_reference_on_every_target(tmp_path):
    summary = differential.run(KERNELS, seed=20261202, targets=_targets(), parts=PARTS, options=OPTIONS,
                               folder=str(tmp_path))
    assert summary.programs == KERNELS * PARTS >= 500
    assert not summary.findings, "\n\n".join(f.describe() for f in summary.findings)


def test_a_wrong_output_is_a_mismatch(tmp_path):
    program = generate(7)
    arrays = make_arrays(program)
    want = expected(program, arrays)
    got = {name: np.array(want[name][0], copy=True) if name in want else array for name, array in arrays.items()}
    store = program.stores[0]
    assert compare(program, "interpret", got, want) == []
    flat = got[store.name].reshape(-1)
    flat[0] = flat[0] + np.ones((), flat.dtype) if flat.dtype != np.bool_ else ~flat[0]
    found = compare(program, "interpret", got, want)
    assert [m.output for m in found] == [store.name]


def test_the_shrinker_keeps_the_failure_and_drops_the_rest(tmp_path):
    program = next(p for p in (generate(seed) for seed in range(200))
                   if any(isinstance(s.expr, Scan) for s in p.body if hasattr(s, "expr")))
    runner = Runner(["interpret"], str(tmp_path))

    def fails(candidate) -> bool:  # a stand-in bug: "any kernel with a scan is wrong"
        runner.check(candidate)  # every candidate must still compile and run
        return any(isinstance(s.expr, Scan) for s in candidate.body if hasattr(s, "expr"))

    shrunk, checks = shrink(program, fails, budget=300)
    assert fails(shrunk) and checks > 0
    assert len(shrunk.body) < len(program.body)
    assert len(shrunk.stores) == 1 and len(shrunk.body) <= 4, shrunk.source()


@pytest.mark.parametrize("seed", [3])
def test_a_finding_prints_the_seed_and_the_minimal_kernel(seed, tmp_path):
    program = generate(seed)
    finding = differential.Finding(seed, [], program, [], 0)
    text = finding.describe()
    assert f"seed {seed}" in text and "@kernellab.jit" in text and f"--seed {seed} --n 1" in text
