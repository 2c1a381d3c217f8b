"""CUDA tensors (marked gpu; the lead runs them on the H200): torch.compile with zero graph
breaks, launches on torch's current stream, torch.cuda.graph capture and replay,
mode="reduce-overhead", the profiler naming each kernel, a CUDA-only op refusing CPU tensors."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
from kernellab.torch import nativecall  # noqa: E402
from tests.pytorch import examples as ex  # noqa: E402
from tests.pytorch.test_compile import add_then_scale  # noqa: E402
from tests.pytorch.test_ops import add, add_cuda  # noqa: E402
from tests.runtime.sample_kernels import add_kernel  # noqa: E402

pytestmark = pytest.mark.gpu


def _xy(gen, n=4096):
    return (torch.randn(n, generator=gen).cuda(), torch.randn(n, generator=gen).cuda())


def _launch(x, y, out):
    add_kernel[(kl.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_on_cuda_tensors(gen, backend):
    x, y = _xy(gen)
    assert torch._dynamo.explain(add_then_scale)(x, y).graph_break_count == 0
    torch._dynamo.reset()
    compiled = torch.compile(add_then_scale, fullgraph=True, backend=backend)
    assert torch.equal(compiled(x, y), add_then_scale(x, y))


def test_launches_go_on_the_current_stream(gen):
    x, y = _xy(gen, 1 << 20)
    out = torch.full_like(x, float("nan"))
    _launch(x, y, out)  # compiled and loaded before the timing matters
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(100_000_000)  # keeps `stream` busy: a launch elsewhere would run first
        x.fill_(2.0)
        _launch(x, y, out)
    torch.cuda.synchronize()
    assert torch.equal(out, y + 2.0)


def test_cuda_graph_capture_and_replay(gen):
    x, y = _xy(gen)
    out = torch.full_like(x, float("nan"))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        _launch(x, y, out)  # warm-up: compile and load outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        _launch(x, y, out)
    for _ in range(3):
        fresh = torch.randn(x.shape, generator=gen).cuda()
        x.copy_(fresh)
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, fresh + y)


def test_reduce_overhead_replays_kernellab_launches(gen):
    def f(x, y):
        return add(x, y) * 2

    compiled = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):
        x, y = _xy(gen)
        assert torch.equal(compiled(x, y), (x + y) * 2)


def test_reduce_overhead_with_a_raw_launch(gen):
    compiled = torch.compile(add_then_scale, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):
        x, y = _xy(gen)
        assert torch.equal(compiled(x, y), add_then_scale(x, y))


def test_the_profiler_names_each_kernel(gen):
    x, y = _xy(gen)
    out = torch.empty_like(x)
    _launch(x, y, out)
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        _launch(x, y, out)
        ex.softmax(torch.randn(8, 100, generator=gen).cuda())
        torch.cuda.synchronize()
    names = {event.name for event in profile.events()}
    assert "add_kernel" in names, sorted(names)
    assert "softmax_forward_kernel" in names, sorted(names)


def test_autograd_on_cuda(gen):
    x = torch.randn(6, 50, generator=gen, dtype=torch.float64).cuda().requires_grad_()
    w = torch.randn(50, generator=gen, dtype=torch.float64).cuda().requires_grad_()
    b = torch.randn(50, generator=gen, dtype=torch.float64).cuda().requires_grad_()
    assert torch.autograd.gradcheck(ex.layer_norm, (x, w, b))
    assert torch.autograd.gradcheck(ex.softmax, (x,))


def test_a_cuda_op_on_cuda_and_mixed_devices(gen):
    x, y = _xy(gen)
    assert torch.equal(add_cuda(x, y), x + y)
    with pytest.raises(ValueError, match="argument `y` is on cpu but `x` is on cuda:0"):
        add(x, y.cpu())


def test_the_native_call_on_cuda_tensors(gen):
    x, y = _xy(gen)
    for _ in range(3):
        assert torch.equal(add_cuda(x, y), x + y)
    assert nativecall.installed(add_cuda) == nativecall.supported(add_cuda.inputs)
    with pytest.raises(ValueError, match="argument `y` is a cpu tensor; this op takes cuda tensors"):
        add_cuda(x, y.cpu())
    with pytest.raises(TypeError, match="argument `x` has dtype torch.float64"):
        add_cuda(x.double(), y)
    with pytest.raises(ValueError, match="argument `y` is not contiguous"):
        add_cuda(x[:2048], y[::2])
    assert torch.equal(add_cuda(x, y), x + y)
