"""Fault injection, writers: a process killed (SIGKILL) at each step of its writes, 8 processes
filling one cache at once, and a kernel's source edited with its modification time restored --
later processes launch every kernel correctly (never a crash, never an old kernel)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

import pytest

from . import faults

pytestmark = pytest.mark.slow


@pytest.fixture
def module(tmp_path):
    return faults.kernels_file(tmp_path / "src")


def _steps(tmp_path, module, mode: str) -> int:
    counted = faults.run_child(tmp_path / f"count-{mode}", module, mode)
    faults.assert_good(counted, "counting write steps")
    assert counted.steps > 10, counted.steps
    return counted.steps


def test_kill_9_at_each_write_step_leaves_a_cache_that_works(tmp_path, module, request):
    long = request.config.getoption("--long")
    cases = []
    for mode in ("launch", "tune"):
        steps = _steps(tmp_path, module, mode)
        cases += [(mode, step, half) for step in range(1, steps + 1) for half in (False, True)]
    rng = random.Random(31)
    chosen = cases if long else [rng.choice([c for c in cases if c[0] == "launch"]),
                                 rng.choice([c for c in cases if c[0] == "launch"]),
                                 rng.choice([c for c in cases if c[0] == "tune"])]
    for mode, step, half in chosen:
        cache = tmp_path / f"kill-{mode}-{step}-{int(half)}"
        env = faults.child_env(cache, FAULT_KILL_AT=str(step), FAULT_HALF=str(int(half)))
        killed = faults.run_child(cache, module, mode, env=env)
        assert killed.returncode in (-signal.SIGKILL, 0), killed.describe()
        faults.assert_launches(cache, module, f"SIGKILL at write step {step} of {mode} (half-way: {half})")


def test_eight_processes_filling_one_cache_at_once(tmp_path, module):
    cache = tmp_path / "cache"
    command = [sys.executable, str(faults.CHILD), str(module), "launch", "2.0"]
    writers = [subprocess.Popen(command, env=faults.child_env(cache), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True) for _ in range(8)]
    outputs = [writer.communicate(timeout=300)[0] for writer in writers]
    for writer, output in zip(writers, outputs):
        assert writer.returncode == 0 and '"ok": true' in output, output[-3000:]
    assert not [p.name for p in cache.iterdir() if p.name.startswith((".tmp-", ".trash-"))]
    faults.assert_launches(cache, module, "8 concurrent writers")


def test_an_edit_with_its_modification_time_restored_is_seen(tmp_path, module):
    cache = tmp_path / "cache"
    faults.assert_good(faults.run_child(cache, module, factor=2.0), "the first version")
    before = os.stat(module)
    text = module.read_text()
    assert text.count("* 2.0") == 1
    module.write_text(text.replace("* 2.0", "* 3.0"))  # the same size, as cp -p / rsync -a / tar leave it
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(module).st_size == before.st_size and os.stat(module).st_mtime_ns == before.st_mtime_ns
    for _ in range(2):
        faults.assert_good(faults.run_child(cache, module, factor=3.0), "an edit with its mtime restored")
