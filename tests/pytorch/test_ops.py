"""kernellab.torch.op: custom ops (opcheck), automatic and registered fakes, input rules and
undeclared writes (errors name the argument)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
import kernellab.torch as klt  # noqa: E402
from kernellab.torch.checks import UndeclaredMutation  # noqa: E402
from tests.runtime.sample_kernels import add_kernel  # noqa: E402

BLOCK = 128


@klt.op("kltest_ops::add", mutates_args=())
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(kl.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


@klt.op("kltest_ops::add_into", mutates_args=("out",))
def add_into(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = x.numel()
    add_kernel[(kl.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)


@klt.op("kltest_ops::add_cuda", mutates_args=(), device_types="cuda", dtypes=(torch.float32,))
def add_cuda(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    add_kernel[(kl.cdiv(x.numel(), BLOCK),)](x, y, out, x.numel(), BLOCK=BLOCK)
    return out


def _xy(gen, n=1000, dtype=torch.float32):
    return torch.randn(n, generator=gen).to(dtype), torch.randn(n, generator=gen).to(dtype)


def test_the_op_is_a_torch_op(gen, host_target):
    x, y = _xy(gen)
    assert torch.equal(add(x, y), x + y)
    assert torch.equal(torch.ops.kltest_ops.add(x, y), x + y)
    assert str(torch.ops.kltest_ops.add.default._schema) == "kltest_ops::add(Tensor x, Tensor y) -> Tensor"


def test_opcheck(gen):
    x, y = _xy(gen)
    torch.library.opcheck(add.default, (x, y))
    out = torch.full_like(x, float("nan"))
    torch.library.opcheck(add_into.default, (x, y, out))


def test_a_mutating_op_writes_its_output(gen):
    x, y = _xy(gen)
    out = torch.full_like(x, float("nan"))
    add_into(x, y, out)
    assert torch.equal(out, x + y)


def test_compiled_op_has_no_graph_breaks(gen):
    x, y = _xy(gen)

    def f(x, y):
        out = torch.full_like(x, float("nan"))
        add_into(add(x, y), y, out)
        return out

    assert torch._dynamo.explain(f)(x, y).graph_break_count == 0
    assert torch.equal(torch.compile(f, fullgraph=True, backend="aot_eager")(x, y), x + y + y)


def test_fake_tensors_get_shapes_from_the_body(gen):
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        x = mode.from_tensor(torch.empty(7, 3))
        out = add(x, x)
    assert out.shape == (7, 3) and out.dtype == torch.float32


def test_register_fake_replaces_the_automatic_one(gen):
    seen = []

    @klt.op("kltest_ops::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        add_kernel[(kl.cdiv(x.numel(), BLOCK),)](x, x, out, x.numel(), BLOCK=BLOCK)
        return out

    @twice.register_fake
    def _(x):
        seen.append(x.shape)
        return torch.empty_like(x)

    x = torch.randn(300, generator=gen)
    assert torch.equal(torch.compile(twice, fullgraph=True, backend="aot_eager")(x), x * 2)
    assert seen, "the registered fake was not used"


def test_an_undeclared_write_raises_at_registration():
    with pytest.raises(UndeclaredMutation, match="writes its argument `out_ptr`.*op's input `y`"):
        @klt.op("kltest_ops::bad_static", mutates_args=())
        def bad(x: torch.Tensor, y: torch.Tensor) -> None:
            add_kernel[(kl.cdiv(x.numel(), BLOCK),)](x, x, y, x.numel(), BLOCK=BLOCK)


KERNELS = {"add": add_kernel}


def test_an_undeclared_write_the_source_hides_raises_at_the_first_call(gen):
    @klt.op("kltest_ops::bad_dynamic", mutates_args=())
    def bad(x: torch.Tensor, y: torch.Tensor) -> None:
        kernel = KERNELS["add"]  # not resolvable at registration
        kernel[(kl.cdiv(x.numel(), BLOCK),)](x, x, y, x.numel(), BLOCK=BLOCK)

    x, y = _xy(gen)
    with pytest.raises(UndeclaredMutation, match="`out_ptr`.*input `y`"):
        bad(x, y)
    with pytest.raises(Exception, match="UndeclaredMutation.*`out_ptr`.*input `y`"):
        torch.compile(bad, fullgraph=True, backend="aot_eager")(x, y)


def test_cpu_tensors_to_a_cuda_op_name_the_argument(gen):
    x, y = _xy(gen)
    with pytest.raises(ValueError, match="argument `x` is a cpu tensor; this op takes cuda tensors"):
        add_cuda(x, y)


def test_wrong_dtype_names_the_argument(gen):
    @klt.op("kltest_ops::add_f32", mutates_args=(), dtypes={"x": torch.float32, "y": torch.float32})
    def add_f32(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return add(x, y)

    x, y = _xy(gen)
    with pytest.raises(TypeError, match="argument `y` has dtype torch.float16"):
        add_f32(x, y.half())
    with pytest.raises(Exception, match="argument `y` has dtype torch.float16"):
        torch.compile(add_f32, fullgraph=True, backend="aot_eager")(x, y.half())


def test_non_contiguous_names_the_argument(gen):
    x, y = _xy(gen, 2000)
    with pytest.raises(ValueError, match="argument `y` is not contiguous"):
        add(x[:1000], y[::2])


@pytest.mark.parametrize("name", ["add", "a::b::c", "::x"])
def test_bad_names(name):
    with pytest.raises(ValueError, match="namespace::name"):
        klt.op(name, mutates_args=())(lambda x: x)


def test_mutates_args_must_be_names():
    with pytest.raises(TypeError, match="mutates_args"):
        klt.op("kltest_ops::z", mutates_args="out")
