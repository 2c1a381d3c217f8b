"""The eager fast path of ``kernellab.torch.op`` (``fastcall.py``): after an op's first call, plain
calls skip the dispatcher through a generated ``__call__``; every input rule still raises the
error naming the argument, and whatever is not plain still goes through torch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
import kernellab.torch as klt  # noqa: E402
from kernellab.torch import fastcall  # noqa: E402
from tests.runtime.sample_kernels import add_kernel  # noqa: E402

BLOCK = 128


def _launch_add(x, y, out):
    n = x.numel()
    add_kernel[(kl.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)


@klt.op("kltest_fast::add", mutates_args=(), dtypes={"x": (torch.float32,)})
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    _launch_add(x, y, out)
    return out


@klt.op("kltest_fast::add_cpu", mutates_args=(), device_types="cpu")
def add_cpu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return add(x, y)


@klt.op("kltest_fast::add_all", mutates_args=("out",))
def add_all(xs: list[torch.Tensor], y: torch.Tensor, out: torch.Tensor) -> None:
    for x in xs:
        _launch_add(x, y, out)


def _xy(gen, n=256):
    return torch.randn(n, generator=gen), torch.randn(n, generator=gen)


def _warm(op, *args):
    op(*args)
    assert op.checked_eagerly


def test_plain_ops_get_a_generated_call_and_list_ops_do_not():
    assert type(add).__call__ is not klt.KernelOp.__call__
    assert "return fn(a0, a1)" in type(add).__call__.__kernellab_source__
    assert type(add_all).__call__ is klt.KernelOp.__call__
    assert isinstance(add, klt.KernelOp) and isinstance(add_all, klt.KernelOp)


def test_the_fast_path_skips_the_dispatcher(gen, monkeypatch):
    x, y = _xy(gen)
    _warm(add, x, y)
    dispatched = []
    real = add.default
    monkeypatch.setattr(add, "default", lambda *a, **k: dispatched.append(a) or real(*a, **k))
    assert torch.equal(add(x, y), x + y)
    assert dispatched == []
    assert torch.equal(add(x, y=y), x + y)  # a keyword: the general path, still no dispatcher
    assert dispatched == []
    with torch.profiler.profile() as prof:  # a profiler: through the dispatcher, so it sees the op
        assert torch.equal(add(x, y), x + y)
    assert len(dispatched) == 1
    assert "kltest_fast::add" in {e.name for e in prof.events()}


def test_autocast_on_the_cpu_goes_through_the_dispatcher(gen, monkeypatch):
    x, y = _xy(gen)
    _warm(add, x, y)
    dispatched = []
    real = add.default
    monkeypatch.setattr(add, "default", lambda *a, **k: dispatched.append(a) or real(*a, **k))
    with torch.autocast("cpu"):  # torch.is_autocast_enabled() alone asks about CUDA: False here
        assert torch.equal(add(x, y), x + y)
    assert len(dispatched) == 1


def test_rules_still_name_the_argument_after_the_first_call(gen):
    x, y = _xy(gen, 512)
    _warm(add, x[:256], y[:256])
    with pytest.raises(ValueError, match="argument `y` is not contiguous"):
        add(x[:256], y[::2])
    with pytest.raises(TypeError, match="argument `x` has dtype torch.float64"):
        add(x[:256].double(), y[:256])
    _warm(add_cpu, x[:256], y[:256])
    with pytest.raises(ValueError, match="argument `x` is a meta tensor; this op takes cpu tensors"):
        add_cpu(torch.empty(256, device="meta"), torch.empty(256, device="meta"))
    with pytest.raises(ValueError, match="argument `y` is on meta but `x` is on cpu"):
        add(x[:256], torch.empty(256, device="meta"))


@klt.op("kltest_fast::double", mutates_args=())
def double(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    _launch_add(x, x, out)
    return out


double.register_autograd(lambda ctx, grad: 2 * grad)


def test_meta_tensors_go_to_the_fake_kernel_not_to_a_launch(gen):
    x, y = _xy(gen)
    meta = torch.empty(256, device="meta")
    for call in (lambda: add(meta, meta), lambda: add(meta, y=meta)):  # fast path, general path
        _warm(add, x, y)
        result = call()
        assert result.device.type == "meta" and result.shape == x.shape


def test_inputs_needing_a_gradient_go_through_autograd(gen):
    x, _ = _xy(gen)
    _warm(double, x)
    leaf = x.clone().requires_grad_(True)
    double(leaf).sum().backward()
    assert torch.equal(leaf.grad, torch.full_like(x, 2.0))
    with torch.no_grad():
        assert not double(leaf).requires_grad


def test_list_parameters_are_checked_item_by_item(gen):
    x, y = _xy(gen, 512)
    out = torch.zeros(256)
    add_all([x[:256]], y[:256], out)
    assert torch.equal(out, x[:256] + y[:256])
    with pytest.raises(ValueError, match="argument `xs` is not contiguous"):
        add_all([x[:256], x[::2]], y[:256], out)


def test_ops_with_keyword_only_tensors_use_the_general_path(gen):
    @klt.op("kltest_fast::add_kw", mutates_args=(), schema="(Tensor x, *, Tensor y) -> Tensor")
    def add_kw(x, *, y):
        return add(x, y)

    x, y = _xy(gen)
    assert type(add_kw).__call__ is klt.KernelOp.__call__
    assert torch.equal(add_kw(x, y=y), x + y)
    assert fastcall.make(add_kw.inputs, add_kw.fn, add_kw.default) is None


def test_the_first_eager_call_does_not_recompile_a_compiled_caller(gen):
    @klt.op("kltest_fast::add_once", mutates_args=())
    def add_once(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return add(x, y)

    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm

    compiled = torch.compile(lambda a, b: add_once(a, b), backend=counting, fullgraph=True)
    x, y = _xy(gen)
    assert torch.equal(compiled(x, y), x + y)
    _warm(add_once, x, y)  # flips checked_eagerly: a guard on it would recompile
    assert torch.equal(compiled(x, y), x + y)
    assert len(graphs) == 1
