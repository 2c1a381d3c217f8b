"""Configs compile before any is timed, in parallel where it pays: forked cache warmers on the
CPU target, threads on CUDA, one by one on the interpreter."""

from __future__ import annotations

import os

import numpy as np
import pytest

import kernellab as kl
from kernellab.runtime.autotuning import compile as jobs

from . import kernels as K
from .conftest import ScriptedBench

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


@pytest.mark.parametrize(("requested", "target", "count", "expected"), [
    ("auto", "cpu", 4, "processes"), ("auto", "cuda", 4, "threads"), ("auto", "interpret", 4, "sequential"),
    ("auto", "cpu", 1, "sequential"), (True, "cpu", 4, "processes"), (False, "cpu", 4, "sequential"),
    ("threads", "interpret", 4, "threads"), ("processes", "cuda", 3, "processes"),
])
def test_choose_strategy(requested, target, count, expected, monkeypatch):
    monkeypatch.setattr(jobs, "_cores", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    monkeypatch.setenv("KERNELLAB_CACHE", "1")
    assert jobs.choose_strategy(requested, target, count) == expected


def test_processes_need_the_disk_cache_and_several_idle_cores(monkeypatch):
    monkeypatch.setattr(jobs, "_cores", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    assert jobs.choose_strategy("auto", "cpu", 4) == "sequential"
    assert jobs.choose_strategy("processes", "cpu", 4) == "threads"
    monkeypatch.setenv("KERNELLAB_CACHE", "1")
    monkeypatch.setattr(os, "getloadavg", lambda: (1.8, 1.0, 1.0))  # another process keeps a core busy
    assert jobs.choose_strategy("auto", "cpu", 4) == "sequential"
    assert jobs.choose_strategy("processes", "cpu", 4) == "processes"  # asked for: two workers anyway
    monkeypatch.setattr(jobs, "_cores", lambda: 1)
    assert jobs.choose_strategy("threads", "cpu", 4) == "sequential"


def test_an_unknown_strategy_is_rejected(fresh):
    with pytest.raises(ValueError, match="parallel_compile must be one of auto, processes, threads, sequential"):
        kl.autotune([kl.Config({"BLOCK": 32})], key=["n"], parallel_compile="gpu")(fresh(K.add_kernel))


@pytest.mark.parametrize("strategy", ["sequential", "threads", pytest.param("processes", marks=needs_fork)])
def test_every_strategy_compiles_every_config_before_timing(strategy, placed, inputs, fresh, monkeypatch,
                                                            tmp_path):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(jobs, "_cores", lambda: 2)
    kernel = fresh(K.small_blocks_only)
    compiled_before_timing = []

    def bench(fn, quantiles):
        compiled_before_timing.append(len(kernel.cache))
        fn()
        return [1.0, 1.0, 1.0]

    blocks = (16, 32, 64, 128)
    tuner = kl.autotune([kl.Config({"BLOCK": b}) for b in blocks], key=["n"], do_bench=bench,
                        parallel_compile=strategy)(kernel)
    n = 300
    x, y = inputs.normal(n), inputs.normal(n)
    out = placed.put(inputs.poisoned(n))
    tuner[K.grid_for(n)](placed.put(x), placed.put(y), out, n)
    np.testing.assert_array_equal(placed.get(out), x + y)
    assert compiled_before_timing == [3, 3, 3]  # BLOCK=128 fails to compile and is never timed
    frame = tuner.results.set_index("BLOCK")
    assert "BLOCK must be at most 64" in frame.loc[128, "failure"]
    assert (frame.loc[[16, 32, 64], "compile_s"] > 0).all()


@needs_fork
def test_forked_workers_fill_the_disk_cache(inputs, fresh, monkeypatch, tmp_path):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    kernel = fresh(K.add_kernel)
    x = inputs.normal(64)
    work = [lambda b=b: kernel.warmup(x, x, x, 64, BLOCK=b) for b in (16, 32, 64)]
    progress = []
    jobs.warm_in_processes(work, 2, progress.append)
    assert sum(progress) == 3 and kernel.cache == {}  # the workers compiled, this process did not
    outcomes = jobs.compile_all(work, "sequential")
    assert [o.kernel.origin for o in outcomes] == ["disk"] * 3
    assert all(o.failure is None and o.compile_seconds > 0 for o in outcomes)


@needs_fork
def test_a_worker_that_dies_does_not_hang_the_sweep(fresh, monkeypatch, tmp_path):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))

    def crash():
        os._exit(3)

    progress = []
    jobs.warm_in_processes([crash, crash, lambda: None], 2, progress.append)
    assert sum(progress) <= 1


def test_launch_target_follows_the_runtime(inputs, monkeypatch):
    monkeypatch.delenv("KERNELLAB_TARGET", raising=False)
    monkeypatch.delenv("KERNELLAB_INTERPRET", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    from kernellab.runtime.targets import default_host_target

    x = inputs.normal(8)
    assert jobs.launch_target(K.add_kernel, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 8}) == default_host_target()
    monkeypatch.setenv("KERNELLAB_INTERPRET", "1")
    assert jobs.launch_target(K.add_kernel, {"x_ptr": x}) == "interpret"


def test_timing_waits_for_every_compile_with_scripted_times(placed, inputs, fresh):
    bench = ScriptedBench([2.0, 1.0])
    tuner = kl.autotune([kl.Config({"BLOCK": 32}), kl.Config({"BLOCK": 64})], key=["n"], do_bench=bench)(
        fresh(K.add_kernel))
    x = placed.put(inputs.normal(128))
    tuner[K.grid_for(128)](x, x, placed.put(inputs.poisoned(128)), 128)
    assert tuner.best_config.kwargs == {"BLOCK": 64} and bench.calls == 2
