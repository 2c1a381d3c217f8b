"""A fixed-seed sample of malformed kernels and launches, each in a child process: every case
must run or end in a user-facing error naming the kernel (never an internal error, a crash or
a hang)."""

from __future__ import annotations

from kernellab.fuzz import malformed
from kernellab.runtime.targets import available_targets

CASES = 80


def test_malformed_kernels_and_launches_end_in_user_facing_errors():
    targets = [t for t in available_targets() if t in ("interpret", "cpu")]
    summary = malformed.run(CASES, seed=20261202, targets=targets, batch=CASES, timeout=300)
    assert summary.cases == CASES
    assert not summary.problems, "\n\n".join(summary.problems)


def test_cases_are_made_from_their_seed_alone():
    first, again = malformed.make_case(11), malformed.make_case(11)
    assert (first.what, first.source) == (again.what, again.source)
    kinds = {malformed.make_case(seed).launch is None for seed in range(40)}
    assert kinds == {True, False}  # both source mutations and bad launches
