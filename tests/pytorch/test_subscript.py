"""``kernel[grid]`` with kernellab.torch imported (``runtime/native/subscript.py``): the class
attribute stays the Python ``__getitem__`` (TorchDynamo traces it), and once a native launch was
made the subscript slot is native: it binds the launch head while torch does not trace, no op's
writes are watched and no op runs on fake tensors, and otherwise calls the Python ``__getitem__``,
whose intercept routes the launch."""

from __future__ import annotations

import functools
import types

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
from kernellab.runtime.native import capi, subscript  # noqa: E402
from kernellab.torch import checks, launch  # noqa: E402
from tests.runtime.sample_kernels import add_kernel  # noqa: E402

BLOCK = 128
pytestmark = pytest.mark.skipif(not capi.supported(), reason="needs a CPython the native path supports")


def _warm(gen):
    x, y = torch.randn(256, generator=gen), torch.randn(256, generator=gen)
    out = torch.empty_like(x)
    for _ in range(3):
        add_kernel[(2,)](x, y, out, 256, BLOCK=BLOCK)
    assert torch.equal(out, x + y)
    return x, y, out


def _native_bound(found) -> bool:
    return type(found) is types.MethodType and type(found.__func__).__name__ == "builtin_function_or_method"


def test_eager_subscripts_bind_the_native_head(gen):
    x, y, out = _warm(gen)
    if launch._eager_when() is None or not subscript.installed(kl.JITFunction):
        pytest.skip("no native subscript with this torch or interpreter")
    assert type(kl.JITFunction.__dict__["__getitem__"]) is types.FunctionType  # what Dynamo traces
    found = add_kernel[(2,)]
    assert _native_bound(found) and found.__self__ == (2,)
    out.fill_(float("nan"))
    found(x, y, out, 256, BLOCK=BLOCK)
    assert torch.equal(out, x + y)


def test_tracing_watching_and_fake_runs_take_the_intercept(gen, monkeypatch):
    _warm(gen)
    if launch._eager_when() is None or not subscript.installed(kl.JITFunction):
        pytest.skip("no native subscript with this torch or interpreter")
    with launch.fake_runs():
        found = add_kernel[(2,)]
    assert isinstance(found, functools.partial) and found.func is launch.traced_launch
    checks.WATCHES.append(checks.Watch("kltest::op", (), []))
    try:
        found = add_kernel[(2,)]
    finally:
        checks.WATCHES.pop()
    assert isinstance(found, functools.partial) and found.func is launch.checked_launch
    monkeypatch.setattr(torch.compiler, "_is_compiling_flag", True)  # export's non-strict tracing sets it
    found = add_kernel[(2,)]
    assert isinstance(found, functools.partial) and found.func is launch.traced_launch
    monkeypatch.undo()
    assert _native_bound(add_kernel[(2,)])


def test_the_slot_goes_with_the_intercept(gen):
    _warm(gen)
    if launch._eager_when() is None:
        pytest.skip("no native subscript with this torch")
    assert subscript.installed(kl.JITFunction)
    launch.uninstall()
    try:
        assert not subscript.installed(kl.JITFunction)
        assert add_kernel[(2,)] is not None
    finally:
        launch.install()
    assert subscript.installed(kl.JITFunction)


def test_pre_run_hooks_run_with_the_native_subscript(gen):
    kernel = kl.jit(add_kernel.fn)
    x, y = torch.randn(256, generator=gen), torch.randn(256, generator=gen)
    out = torch.empty_like(x)
    for _ in range(3):
        kernel[(2,)](x, y, out, 256, BLOCK=BLOCK)
    seen = []
    kernel.add_pre_run_hook(lambda *args, **kwargs: seen.append(args[3]))
    kernel[(2,)](x, y, out, 256, BLOCK=BLOCK)
    assert seen == [256]


def test_no_native_subscript_where_is_compiling_asks_more(monkeypatch):
    assert launch._eager_when() is not None or "_is_compiling_flag" not in vars(torch.compiler)

    def is_compiling() -> bool:
        return torch.compiler._is_compiling_flag or torch.compiler._is_exporting_flag

    monkeypatch.setattr(torch.compiler, "is_compiling", is_compiling)
    assert launch._eager_when() is None
