"""CUDA graphs: kernellab's driver captures launches and replays them (``backends.cuda.graphs``),
and ``do_bench_cudagraph`` replays a graph with torch's CUDA or without it.

A counting kernel tells captured work from executed work: each launch adds one to a counter on
the device, so a capture leaves it alone and every replay adds the captured launches."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

pytestmark = pytest.mark.gpu


@kl.jit
def count_launch(counter_ptr):
    tl.atomic_add(counter_ptr, 1)


def without_torch_cuda(monkeypatch) -> None:
    """Make this process look as if torch had not initialised CUDA (the driver's graph path)."""
    from kernellab.backends.cuda import driver

    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(driver, "_torch_stream", [])


def fresh_counter_kernel():
    """A new jit function per test: its native launch path is made under the test's streams."""
    return kl.jit(count_launch.fn)


def test_capture_records_launches_and_replays_run_them(monkeypatch):
    from kernellab.backends.cuda import graphs

    without_torch_cuda(monkeypatch)
    kernel = fresh_counter_kernel()
    counter = kl.to_device(np.zeros(1, np.int32))
    for _ in range(2):  # the first launch compiles, the second makes the native path
        kernel[(1,)](counter)
    assert counter.numpy()[0] == 2

    with graphs.capture(lambda: [kernel[(4,)](counter) for _ in range(3)]) as graph:
        assert counter.numpy()[0] == 2  # captured, not run
        graph.replay()
        graph.replay()
        times = graph.time_replays_ms(3)
    assert counter.numpy()[0] == 2 + 5 * 3 * 4
    assert len(times) == 3 and all(0 < ms < 100 for ms in times)


def test_a_synchronizing_call_fails_the_capture_clearly(monkeypatch):
    from kernellab.backends.cuda import graphs

    without_torch_cuda(monkeypatch)
    kernel = fresh_counter_kernel()
    counter = kl.to_device(np.zeros(1, np.int32))
    kernel[(1,)](counter)
    with pytest.raises(graphs.CaptureFailed, match="cannot be captured"):
        graphs.capture(lambda: (kernel[(1,)](counter), counter.numpy()))  # a copy to the host waits
    kernel[(1,)](counter)  # the context still works after a failed capture
    assert counter.numpy()[0] == 2


def test_do_bench_cudagraph_replays_a_graph_without_torch(monkeypatch):
    without_torch_cuda(monkeypatch)
    kernel = fresh_counter_kernel()
    counter = kl.to_device(np.zeros(1, np.int32))
    python_calls = []

    def run():
        python_calls.append(1)
        kernel[(1,)](counter)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to back-to-back calls
        ms = kl.testing.do_bench_cudagraph(run, rep=2)
    assert 0 < ms < 1
    # the captured calls ran once per replay (10 replays and the upload replay) on the device
    assert counter.numpy()[0] > 5 * len(python_calls)


def test_do_bench_cudagraph_uses_torchs_graph_once_torch_has_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    kernel = fresh_counter_kernel()
    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    python_calls = []

    def run():
        python_calls.append(1)
        kernel[(1,)](counter)
        counter.add_(1)  # torch's own work is captured too

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms = kl.testing.do_bench_cudagraph(run, rep=2)
    assert 0 < ms < 1
    assert int(counter.item()) > 5 * 2 * len(python_calls)
