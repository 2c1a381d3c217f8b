"""The on-disk result cache: one JSON file per config; a new process times nothing; editing the
config list times only what is new."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import kernellab as kl

from . import kernels as K
from .conftest import ScriptedBench

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    return tmp_path


def sweep(fresh, placed, inputs, blocks, times, n=200, **kwargs):
    """A fresh tuner (as a new process would have) over ``blocks``; returns (tuner, bench)."""
    bench = ScriptedBench(times)
    tuner = kl.autotune([kl.Config({"BLOCK": b}) for b in blocks], key=["n"], do_bench=bench,
                        parallel_compile=False, **kwargs)(fresh(K.add_kernel))
    x, y = inputs.normal(n), inputs.normal(n)
    out = placed.put(inputs.poisoned(n))
    tuner[K.grid_for(n)](placed.put(x), placed.put(y), out, n)
    np.testing.assert_array_equal(placed.get(out), x + y)
    return tuner, bench


def entries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "autotune").glob("*/*.json"))


def test_a_new_tuner_times_nothing(target, placed, inputs, fresh, cache_dir):
    _, first = sweep(fresh, placed, inputs, [32, 64, 128], [3.0, 1.0, 2.0], cache_results=True)
    assert first.calls == 3 and len(entries(cache_dir)) == 3
    tuner, second = sweep(fresh, placed, inputs, [32, 64, 128], [0.1], cache_results=True)
    assert second.calls == 0
    assert tuner.best_config.kwargs == {"BLOCK": 64}
    assert tuner.results.cached.all() and list(tuner.results.ms) == [3.0, 1.0, 2.0]


def test_adding_a_config_times_only_that_one(placed, inputs, fresh, cache_dir):
    sweep(fresh, placed, inputs, [32, 64], [3.0, 1.0], cache_results=True)
    tuner, bench = sweep(fresh, placed, inputs, [32, 64, 128], [0.5], cache_results=True)
    assert bench.calls == 1 and tuner.best_config.kwargs == {"BLOCK": 128}
    assert list(tuner.results.cached) == [True, True, False]
    tuner, bench = sweep(fresh, placed, inputs, [64, 128], [9.0], cache_results=True)  # one removed
    assert bench.calls == 0 and tuner.best_config.kwargs == {"BLOCK": 128}


def test_the_key_and_the_kernel_are_part_of_the_entry(placed, inputs, fresh, cache_dir):
    sweep(fresh, placed, inputs, [32, 64], [3.0, 1.0], cache_results=True)
    _, bench = sweep(fresh, placed, inputs, [32, 64], [1.0, 2.0], n=300, cache_results=True)
    assert bench.calls == 2  # another key
    bench = ScriptedBench([1.0, 2.0])
    other = kl.autotune([kl.Config({"BLOCK": b}) for b in (32, 64)], key=["n"], do_bench=bench,
                        cache_results=True, parallel_compile=False)(fresh(K.small_blocks_only))
    x = placed.put(inputs.normal(200))
    other[K.grid_for(200)](x, x, placed.put(inputs.poisoned(200)), 200)
    assert bench.calls == 2  # another kernel
    folders = {p.parent for p in entries(cache_dir)}
    assert len(folders) == 2 and len(entries(cache_dir)) == 6


def test_entries_are_readable_json(placed, inputs, fresh, cache_dir):
    sweep(fresh, placed, inputs, [32, 64], [3.0, 1.0], cache_results=True)
    records = [json.loads(p.read_text()) for p in entries(cache_dir)]
    assert sorted(r["config"]["kwargs"]["BLOCK"] for r in records) == [32, 64]
    assert all(r["format"] == 1 and r["kernel"] == "add_kernel" for r in records)
    assert all(r["key"] == ["200", '"float32"', '"float32"', '"float32"'] for r in records)
    assert sorted(r["timings"][0] for r in records) == [1.0, 3.0]
    assert not list((cache_dir / "autotune").glob("*/.tmp-*"))


def test_failures_are_cached_as_null_timings(placed, inputs, fresh, cache_dir):
    def run(times):
        bench = ScriptedBench(times)
        tuner = kl.autotune([kl.Config({"BLOCK": b}) for b in (32, 128)], key=["n"], do_bench=bench,
                            cache_results=True, parallel_compile=False)(fresh(K.small_blocks_only))
        x = placed.put(inputs.normal(100))
        tuner[K.grid_for(100)](x, x, placed.put(inputs.poisoned(100)), 100)
        return tuner, bench

    run([1.0])
    tuner, bench = run([1.0])
    assert bench.calls == 0
    failed = tuner.results.set_index("BLOCK").loc[128]
    assert failed.ms == float("inf") and "BLOCK must be at most 64" in failed.failure
    stored = [json.loads(p.read_text()) for p in entries(cache_dir)]
    assert sorted(map(str, (r["timings"] for r in stored))) == ["[1.0, 0.9, 1.1]", "[None, None, None]"]


def test_a_damaged_entry_is_timed_again(placed, inputs, fresh, cache_dir):
    sweep(fresh, placed, inputs, [32, 64], [3.0, 1.0], cache_results=True)
    entries(cache_dir)[0].write_text("{not json")
    _, bench = sweep(fresh, placed, inputs, [32, 64], [2.0], cache_results=True)
    assert bench.calls == 1
    assert all(json.loads(p.read_text())["format"] == 1 for p in entries(cache_dir))


def test_configs_with_a_pre_hook_are_never_stored(placed, inputs, fresh, cache_dir):
    hook = lambda args: None  # noqa: E731
    blocks = [kl.Config({"BLOCK": 32}, pre_hook=hook), kl.Config({"BLOCK": 64})]
    for expected_calls in (2, 1):
        bench = ScriptedBench([1.0, 2.0])
        tuner = kl.autotune(blocks, key=["n"], do_bench=bench, cache_results=True, parallel_compile=False)(
            fresh(K.add_kernel))
        x = placed.put(inputs.normal(64))
        tuner[K.grid_for(64)](x, x, placed.put(inputs.poisoned(64)), 64)
        assert bench.calls == expected_calls
    assert len(entries(cache_dir)) == 1


def test_the_environment_variable_turns_it_on(placed, inputs, fresh, cache_dir, monkeypatch):
    sweep(fresh, placed, inputs, [32, 64], [3.0, 1.0])
    assert entries(cache_dir) == []
    monkeypatch.setenv("KERNELLAB_CACHE_AUTOTUNING", "1")
    sweep(fresh, placed, inputs, [32, 64], [3.0, 1.0])
    _, bench = sweep(fresh, placed, inputs, [32, 64], [3.0, 1.0])
    assert bench.calls == 0 and len(entries(cache_dir)) == 2


def test_an_edited_ir_override_file_is_another_config(placed, inputs, fresh, cache_dir, tmp_path):
    kernel = fresh(K.add_kernel)
    x = inputs.normal(64)
    tile = kernel.warmup(placed.put(x), placed.put(x), placed.put(x), 64, BLOCK=64).asm["tile"]
    edited = tmp_path / "edited.tile"
    edited.write_text(tile)
    before = kl.Config({"BLOCK": 64}, ir_override=edited).digest()
    edited.write_text(tile + "\n")
    assert kl.Config({"BLOCK": 64}, ir_override=edited).digest() != before


def _child_env(cache_dir: Path) -> dict[str, str]:
    """The child writes bytecode (PYTHONDONTWRITEBYTECODE is dropped): an installed kernellab has
    its .pyc files, and the first process here writes them for the later ones."""
    env = {**os.environ, "KERNELLAB_CACHE_DIR": str(cache_dir), "KERNELLAB_TARGET": "cpu", "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _timed_process(cache_dir: Path, *argv: str) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``python *argv`` and return it with its whole wall time as its parent measures it
    (interpreter start, imports, the work, exit)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, env=_child_env(cache_dir), capture_output=True,
                          text=True, timeout=300)
    wall = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    return done, wall


def _run_process(cache_dir: Path, *extra: str) -> dict:
    """One process of ``cached_sweep``: its JSON line, with ``wall`` the whole process's seconds."""
    done, wall = _timed_process(cache_dir, "-m", "tests.autotune.cached_sweep", *extra)
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "wall": wall}


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


# What a process that only launches tuned kernels the caches hold may cost beyond the Python
# interpreter and numpy, which it cannot do without, as a share of what those two cost.  Issue 5
# set 0.2 s for the whole process on the development machine, where Python + numpy take ~0.11 s
# and kernellab's share measured 0.06-0.07 s (0.6 of it); under the load of other processes both
# grow alike (0.35 and 0.2 s measured), so the bound is a share, not seconds: importing the
# compiler, LLVM or torch on this path would cost several times Python + numpy and fail it.
KERNELLAB_SHARE = 1.0


def test_a_second_process_times_nothing_and_is_fast(cache_dir):
    from kernellab.runtime.targets import backend_available

    if not backend_available("cpu"):
        pytest.skip("needs the CPU backend")
    first = _run_process(cache_dir)
    assert first["timed"] == 4 and first["correct"]
    later, bare = [], []
    # Five of each, interleaved, so that a machine slower than the development one, or busy for a
    # while, slows both alike.
    for _ in range(5):
        later.append(_run_process(cache_dir))
        bare.append(_timed_process(cache_dir, "-c", "import numpy")[1])
    for second in later:
        assert second["timed"] == 0 and second["cached"] == 4 and second["correct"]
        assert second["best"] == first["best"]
    walls = [second["wall"] for second in later]
    share = (_median(walls) - _median(bare)) / _median(bare)
    assert share < KERNELLAB_SHARE, (
        f"a second process took {_median(walls):.3f} s: kernellab's share is {share:.2f} of Python + numpy's "
        f"(medians of {[round(w, 3) for w in walls]} and {[round(w, 3) for w in bare]})")
    third = _run_process(cache_dir, "512")  # one config more: only it is timed
    assert third["timed"] == 1 and third["cached"] == 4
