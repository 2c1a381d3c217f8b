"""A meta tensor (shapes only, no memory) launched on directly is refused with a TypeError, on the
first launch and on a launch through the native path made for real tensors; before, both read
address 0 on the host and the process died (SIGSEGV).  Run in child processes, so a regression
fails the test instead of ending the test run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import sys, torch, kernellab as kl, kernellab.language as tl

@kl.jit
def add(x, y, o, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B)
    m = i < n
    tl.store(o + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)

if sys.argv[1] == "after-real-launches":
    a, o = torch.ones(64), torch.empty(64)
    for _ in range(3):  # the second launch makes the native path
        add[(1,)](a, a, o, 64, B=64)
    assert torch.equal(o, a + a)
m = torch.empty(64, device="meta")
try:
    add[(1,)](m, m, m, 64, B=64)
except TypeError as error:
    print("refused:", error)
"""


@pytest.mark.parametrize("when", ["first", "after-real-launches"])
@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_a_meta_tensor_is_refused(tmp_path, when, target):
    env = {**os.environ, "KERNELLAB_TARGET": target, "KERNELLAB_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(ROOT)}
    script = tmp_path / "meta_launch.py"  # a file: kernels need their source
    script.write_text(CHILD)
    done = subprocess.run([sys.executable, str(script), when], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert "refused: a meta tensor has no data" in done.stdout
