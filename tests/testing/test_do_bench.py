"""kl.testing.do_bench and do_bench_cudagraph: how many runs, what is returned, which clock."""

from __future__ import annotations

import time

import numpy as np
import pytest

import kernellab as kl
from kernellab.runtime.autotuning import timing


def busy(ms: float):
    """A function that takes ``ms`` milliseconds (busy-waiting: sleeping overshoots)."""
    calls = []

    def fn():
        calls.append(1)
        end = time.perf_counter() + ms / 1e3
        while time.perf_counter() < end:
            pass

    fn.calls = calls
    return fn


def test_times_a_known_duration_on_the_host_clock():
    fn = busy(0.5)
    median, low, high = kl.testing.do_bench(fn, warmup=5, rep=10, quantiles=[0.5, 0.2, 0.8], device="cpu")
    assert 0.5 <= low <= median <= high < 25
    # one first call, 5 to estimate, then about warmup/0.5 and rep/0.5 runs
    assert 1 + 5 + 1 + 1 <= len(fn.calls) <= 1 + 5 + 10 + 20


def test_a_one_off_slow_call_does_not_set_the_number_of_runs():
    """The estimate is the median of five calls: a slow second call (a kernel's second launch
    makes its native launch path) among them leaves the benchmark its many runs."""
    fast = busy(0.2)

    def fn():
        fast()
        if len(fast.calls) == 2:
            time.sleep(0.05)

    kl.testing.do_bench(fn, warmup=2, rep=10, device="cpu")
    assert len(fast.calls) >= 1 + 5 + 20  # 10 ms of 0.2 ms runs (one 50 ms call: 1 run)


def test_return_modes():
    fn = busy(0.2)
    times = kl.testing.do_bench(fn, warmup=1, rep=4, return_mode="all", device="cpu")
    assert isinstance(times, list) and 1 <= len(times) <= 20 and min(times) >= 0.2
    for mode in ("min", "max", "mean", "median"):
        value = kl.testing.do_bench(fn, warmup=1, rep=2, return_mode=mode, device="cpu")
        assert isinstance(value, float) and value >= 0.2
    assert isinstance(kl.testing.do_bench(fn, warmup=1, rep=2, quantiles=[0.5], device="cpu"), float)


def test_summaries_match_numpy():
    times = [3.0, 1.0, 2.0, 10.0]
    assert timing.summarize(times, None, "mean") == 4.0
    assert timing.summarize(times, None, "median") == 2.5
    assert timing.summarize(times, [0.0, 1.0], "mean") == [1.0, 10.0]
    assert timing.summarize(times, [0.5], "min") == 2.5
    assert timing.summarize(times, None, "all") == times


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="return_mode must be one of min, max, mean, median, all"):
        kl.testing.do_bench(lambda: None, return_mode="average")
    with pytest.raises(ValueError, match=r"quantiles are fractions in \[0, 1\]"):
        kl.testing.do_bench(lambda: None, quantiles=[50])
    with pytest.raises(ValueError, match="device must be 'cpu', 'cuda' or None"):
        kl.testing.do_bench(lambda: None, device="tpu")


def test_grad_to_none_is_cleared_before_every_timed_run():
    class Tensor:
        grad = "stale"

    tensor = Tensor()
    seen = []

    def fn():
        seen.append(tensor.grad)
        tensor.grad = "accumulated"

    times = kl.testing.do_bench(fn, warmup=0, rep=0.01, grad_to_none=[tensor], return_mode="all", device="cpu")
    assert seen[-len(times):] == [None] * len(times)


def test_the_host_clock_is_used_when_no_gpu_is_in_use(monkeypatch):
    monkeypatch.setattr(timing, "gpu_in_use", lambda: False)
    assert isinstance(timing._timer(None), timing.HostTimer)
    assert isinstance(timing._timer("interpret"), timing.HostTimer)


def test_cudagraph_timing_on_the_host_batches_the_calls():
    fn = busy(0.2)
    mean = kl.testing.do_bench_cudagraph(fn, rep=2, device="cpu")
    assert 0.2 <= mean < 10
    low, high = kl.testing.do_bench_cudagraph(fn, rep=2, quantiles=[0.1, 0.9], device="cpu")
    assert 0.2 <= low <= high
    # first call, 5 to estimate, then 10 batches of rep/estimate calls
    assert len(fn.calls) >= 1 + 5 + 10


def test_times_a_kernel_on_every_target(target, inputs, monkeypatch):
    from tests.autotune import kernels as K

    n = 4096
    x, y = inputs.normal(n), inputs.normal(n)
    out = inputs.poisoned(n)
    if target == "cuda":
        x, y, out = kl.to_device(x), kl.to_device(y), kl.to_device(out)
    else:
        monkeypatch.setenv("KERNELLAB_TARGET", target)
    ms = kl.testing.do_bench(lambda: K.add_kernel[(n // 256,)](x, y, out, n, BLOCK=256), warmup=1, rep=5,
                             device="cuda" if target == "cuda" else "cpu")
    assert 0 < ms < 1000


@pytest.mark.gpu
def test_gpu_timing_uses_events_and_flushes_l2(inputs):
    from tests.autotune import kernels as K

    n = 1 << 20
    x, y, out = (kl.to_device(inputs.normal(n)) for _ in range(3))
    run = lambda: K.add_kernel[(n // 1024,)](x, y, out, n, BLOCK=1024)  # noqa: E731
    run()
    assert timing.gpu_in_use()
    median, low, high = kl.testing.do_bench(run, quantiles=[0.5, 0.2, 0.8])
    assert 0 < low <= median <= high < 10
    graph = kl.testing.do_bench_cudagraph(run, rep=5)
    assert 0 < graph < 10
    np.testing.assert_array_equal(out.numpy(), x.numpy() + y.numpy())
