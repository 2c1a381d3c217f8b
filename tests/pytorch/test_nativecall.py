"""The native eager call of ``kernellab.torch.op`` (``nativecall.py``): after an op's first call its
class's ``tp_call`` is generated machine code making the fast path's checks; whatever it cannot
take goes to the Python ``__call__`` (same arguments), so every rule still raises the error naming
the argument and every special call still goes through torch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
import kernellab.torch as klt  # noqa: E402
from kernellab.torch import fastcall, nativecall  # noqa: E402
from tests.runtime.sample_kernels import add_kernel  # noqa: E402

BLOCK = 128


def _launch_add(x, y, out):
    n = x.numel()
    add_kernel[(kl.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)


BODY_CALLS = []


@klt.op("kltest_native::add", mutates_args=(), dtypes={"x": (torch.float32, torch.float16)})
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    BODY_CALLS.append(1)
    out = torch.empty_like(x)
    _launch_add(x, y, out)
    return out


@klt.op("kltest_native::scale_add", mutates_args=("out",), device_types="cpu", contiguous=("x",))
def scale_add(x: torch.Tensor, times: int, out: torch.Tensor) -> None:
    if times < 0:
        raise ValueError("times must be >= 0")
    for _ in range(times):
        _launch_add(x, out, out)


def _xy(gen, n=256):
    return torch.randn(n, generator=gen), torch.randn(n, generator=gen)


def _dispatched(monkeypatch, op) -> list:
    """The calls that reach torch's dispatcher from now on."""
    seen: list = []
    real = op.default
    monkeypatch.setattr(op, "default", lambda *a, **k: seen.append(a) or real(*a, **k))
    return seen


@pytest.fixture
def native_add(gen):
    if not nativecall.supported(add.inputs):
        pytest.skip("no native code here")
    x, y = _xy(gen)
    add(x, y)
    if not nativecall.installed(add):
        nativecall.install(add)
    assert add.native_call == "installed" and nativecall.installed(add)
    return add


def test_plain_calls_run_the_native_call_and_skip_the_dispatcher(native_add, gen, monkeypatch):
    x, y = _xy(gen)
    seen = _dispatched(monkeypatch, native_add)
    BODY_CALLS.clear()
    assert torch.equal(native_add(x, y), x + y)
    assert torch.equal(native_add(x.half(), y.half()), x.half() + y.half())  # a second allowed dtype
    assert seen == [] and len(BODY_CALLS) == 2
    nativecall.uninstall(native_add)
    assert not nativecall.installed(native_add)
    assert torch.equal(native_add(x, y), x + y)  # the Python __call__ again
    nativecall.install(native_add)


def test_the_rules_still_name_the_argument(native_add, gen):
    x, y = _xy(gen, 512)
    with pytest.raises(ValueError, match="argument `y` is not contiguous"):
        native_add(x[:256], y[::2])
    with pytest.raises(TypeError, match="argument `x` has dtype torch.float64"):
        native_add(x[:256].double(), y[:256])
    with pytest.raises(ValueError, match="argument `y` is on meta but `x` is on cpu"):
        native_add(x[:256], torch.empty(256, device="meta"))
    assert nativecall.installed(native_add)


def test_special_calls_go_through_torch(native_add, gen, monkeypatch):
    x, y = _xy(gen)
    seen = _dispatched(monkeypatch, native_add)
    with torch.autocast("cpu"):  # torch.is_autocast_enabled() alone says False here
        assert torch.equal(native_add(x, y), x + y)
    assert len(seen) == 1
    with torch.profiler.profile():
        native_add(x, y)
    assert len(seen) == 2

    class Watch(torch.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Watch():
        native_add(x, y)
    assert len(seen) == 3

    class Functions(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Functions():
        native_add(x, y)
    assert len(seen) == 4
    assert torch.equal(torch.func.vmap(native_add)(x[None], y[None])[0], x + y)
    meta = torch.empty(256, device="meta")
    assert native_add(meta, meta).device.type == "meta"


def test_gradients_keywords_and_subclasses_take_the_python_path(native_add, gen, monkeypatch):
    x, y = _xy(gen)
    assert torch.equal(native_add(x, y=y), x + y)
    leaf = x.clone().requires_grad_(True)
    seen = _dispatched(monkeypatch, native_add)
    assert torch.equal(native_add(leaf, y), x + y)
    assert len(seen) == 1  # through autograd
    with torch.no_grad():
        assert torch.equal(native_add(leaf, y), x + y)
    assert len(seen) == 1  # the Python path decides: no gradient wanted, straight to the body

    class Sub(torch.Tensor):
        pass

    assert torch.equal(native_add(x.as_subclass(Sub), y), x + y)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        native_add(x)  # another argument count: the Python path, then the function itself


def test_ints_pass_through_and_the_body_raises_once(gen):
    x = torch.randn(256, generator=gen)
    out = torch.zeros(256)
    scale_add(x, 1, out)
    if not nativecall.supported(scale_add.inputs):
        pytest.skip("no native code here")
    assert nativecall.installed(scale_add)
    out.zero_()
    scale_add(x, 2, out)
    assert torch.equal(out, 2 * x)
    with pytest.raises(ValueError, match="times must be >= 0"):
        scale_add(x, -1, out)
    with pytest.raises(ValueError, match="argument `x` is not contiguous"):
        scale_add(torch.randn(512)[::2], 1, out)
    with pytest.raises(ValueError, match="argument `x` is a meta tensor; this op takes cpu tensors"):
        scale_add(torch.empty(256, device="meta"), 1, torch.empty(256, device="meta"))


def test_assigning_call_gives_the_python_slot_back(gen):
    @klt.op("kltest_native::add_again", mutates_args=())
    def add_again(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return add(x, y)

    x, y = _xy(gen)
    add_again(x, y)
    if not nativecall.supported(add_again.inputs):
        pytest.skip("no native code here")
    assert nativecall.installed(add_again)
    cls = type(add_again)
    calls = []
    python = cls.__call__

    def counted(self, *args, **kwargs):
        calls.append(args)
        return python(self, *args, **kwargs)

    cls.__call__ = counted  # CPython puts its slot back: the native call is gone
    assert not nativecall.installed(add_again)
    assert torch.equal(add_again(x, y), x + y) and len(calls) == 1


def test_the_python_fast_path_asks_about_any_autocast():
    text = type(add).__call__.__kernellab_source__
    assert "autocast()" in text
    assert fastcall._NAMESPACE["autocast"] is nativecall.QUESTIONS[3][1]


def test_one_object_code_per_shape():
    shape = nativecall.shape_of(add.inputs)
    assert shape == nativecall.OpShape(2, ((0, 2), (1, 0)))
    assert nativecall._object(shape) is nativecall._object(nativecall.OpShape(2, ((0, 2), (1, 0))))
    assert "kernellab_op_call_data" in nativecall.generate(shape)
