"""kernel[grid](...) on torch tensors inside torch.compile(fullgraph=True): zero graph breaks,
results identical to eager, and torch told exactly which tensors a kernel writes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
import kernellab.language as tl  # noqa: E402
import kernellab.torch as klt  # noqa: E402
from kernellab.errors import KernelArgumentError  # noqa: E402
from tests.runtime.sample_kernels import add_kernel  # noqa: E402


@kl.jit
def scale_in_place(x_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) * factor, mask=m)


def add_then_scale(x, y):
    out = torch.full_like(x, float("nan"))
    n = x.numel()
    add_kernel[lambda meta: (kl.cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=128)
    scale_in_place[(kl.cdiv(n, 128),)](out, n, 3.0, BLOCK=128)
    return out - 1


def _inputs(gen, n=1000):
    return torch.randn(n, generator=gen), torch.randn(n, generator=gen)


def test_zero_graph_breaks(gen):
    x, y = _inputs(gen)
    explained = torch._dynamo.explain(add_then_scale)(x, y)
    assert explained.graph_break_count == 0, explained.break_reasons
    assert explained.graph_count == 1


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_equals_eager(gen, host_target, backend):
    if backend == "inductor" and host_target == "interpret":
        pytest.skip("one inductor compile is enough (the slow part is inductor, not the target)")
    x, y = _inputs(gen)
    compiled = torch.compile(add_then_scale, fullgraph=True, backend=backend)
    assert torch.equal(compiled(x, y), add_then_scale(x, y))
    assert torch.allclose(add_then_scale(x, y), (x + y) * 3 - 1)


def test_dynamic_sizes(gen):
    compiled = torch.compile(add_then_scale, fullgraph=True, backend="aot_eager", dynamic=True)
    for n in (300, 1000, 4097):
        x, y = _inputs(gen, n)
        assert torch.equal(compiled(x, y), add_then_scale(x, y))


class Graphs:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm


def _launch_nodes(gm):
    return [node for node in gm.graph.nodes if node.target is torch.ops.kernellab.launch.default
            or node.target is torch.ops.kernellab.launch]


def test_only_written_tensors_are_mutable_in_the_graph(gen):
    captured = Graphs()
    x, y = _inputs(gen)
    torch.compile(add_then_scale, fullgraph=True, backend=captured)(x, y)
    (gm,) = captured.graphs
    add, scale = _launch_nodes(gm)
    call, grid, written, read, ints, floats = add.args
    assert call.startswith("add_kernel#")
    assert len(written) == 1 and len(read) == 2  # out is written; x and y are only read
    assert written[0].name == scale.args[2][0].name  # out, written again in place by the second kernel
    assert scale.args[3] == [] and scale.args[5] == [3.0]


def test_mutation_of_an_input_is_seen_by_torch(gen):
    def f(x):
        scale_in_place[(kl.cdiv(x.numel(), 64),)](x, x.numel(), 2.0, BLOCK=64)
        return x + 1

    x = torch.randn(500, generator=gen)
    expected_x, expected = x * 2, x * 2 + 1
    got = torch.compile(f, fullgraph=True, backend="aot_eager")(x)
    assert torch.equal(got, expected) and torch.equal(x, expected_x)


def test_in_place_on_a_view(gen):
    def f(x):
        view = x[1::2]
        scale_in_place[(kl.cdiv(view.numel(), 64),)](view.contiguous(), view.numel(), 2.0, BLOCK=64)
        rows = x.view(10, 50)[3]
        scale_in_place[(1,)](rows, 50, 5.0, BLOCK=64)
        return x.sum()

    x = torch.randn(500, generator=gen)
    eager_x = x.clone()
    expected = f(eager_x)
    got = torch.compile(f, fullgraph=True, backend="aot_eager")(x)
    assert torch.equal(x, eager_x) and torch.equal(got, expected)


def test_a_stream_under_compile_is_a_clear_error(gen):
    def f(x, y):
        out = torch.empty_like(x)
        add_kernel[(8,)](x, y, out, x.numel(), BLOCK=128, stream=0)
        return out

    with pytest.raises(Exception, match="torch's current stream"):
        torch.compile(f, fullgraph=True, backend="aot_eager")(*_inputs(gen))


def test_an_extra_positional_argument_is_an_error_under_compile(gen):
    # the traced call reports it as an eager launch does (it once returned without a word)
    def f(x, y):
        out = torch.empty_like(x)
        add_kernel[(8,)](x, y, out, x.numel(), 128, 7)
        return out

    with pytest.raises(Exception, match="positional arguments"):
        torch.compile(f, fullgraph=True, backend="aot_eager")(*_inputs(gen))


def test_a_missing_argument_names_it(gen):
    def f(x, y):
        add_kernel[(8,)](x, y, x.numel(), BLOCK=128)
        return x

    with pytest.raises(Exception, match="missing `n`"):
        torch.compile(f, fullgraph=True, backend="aot_eager")(*_inputs(gen))


def test_eager_launches_still_work_after_import(gen):
    x, y = _inputs(gen)
    out = torch.full_like(x, float("nan"))
    add_kernel[(kl.cdiv(x.numel(), 128),)](x, y, out, x.numel(), BLOCK=128)
    add_kernel[(kl.cdiv(x.numel(), 128),)](x, y, out, x.numel(), BLOCK=128)  # the native path's launch
    assert torch.equal(out, x + y)
    assert klt.written_arguments(add_kernel, x, y, out, x.numel(), BLOCK=128) == ("out_ptr",)


def test_wrong_argument_count_under_compile(gen):
    def f(x, y):
        add_kernel[(8,)](x, y, x, x.numel(), 7, BLOCK=128)
        return x

    with pytest.raises((KernelArgumentError, Exception), match="add_kernel"):
        torch.compile(f, fullgraph=True, backend="aot_eager")(*_inputs(gen))


@kl.jit
def scale_pair(pair, out_ptr, n, factors, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(pair[0] + offs, mask=m) * factors[0] + tl.load(pair[1] + offs, mask=m) * factors[1]
    tl.store(out_ptr + offs, x, mask=m)


@kl.jit
def scale_sum(x_ptr, out_ptr, n, factors, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * (factors[0] + factors[1]), mask=m)


def test_tuple_arguments_under_compile(gen):
    x, y = _inputs(gen)

    def plain(x, y):  # a tuple of Python numbers is compiled in
        out = torch.full_like(x, float("nan"))
        scale_sum[(8,)](x, out, x.numel(), (2.0, 3), BLOCK=128)
        return out

    def of_tensors(x, y):
        out = torch.full_like(x, float("nan"))
        scale_pair[(8,)]((x, y), out, x.numel(), (2.0, 3), BLOCK=128)
        return out

    assert torch.allclose(torch.compile(plain, fullgraph=True, backend="aot_eager")(x, y), x * 5)
    assert torch.allclose(of_tensors(x, y), x * 2 + y * 3)  # eager: through the binder
    with pytest.raises(Exception, match="argument `pair` is a tuple holding tensors"):
        torch.compile(of_tensors, fullgraph=True, backend="aot_eager")(x, y)


@kl.autotune(configs=[kl.Config({"BLOCK": 64}), kl.Config({"BLOCK": 256}, num_warps=8)], key=["n"])
@kl.jit
def tuned_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) - tl.load(y_ptr + offs, mask=m), mask=m)


@kl.heuristics(values={"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@kl.jit
def even_scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)
    else:
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


def tuned(x, y):
    out = torch.full_like(x, float("nan"))
    n = x.numel()
    tuned_add[lambda meta: (kl.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    doubled = torch.full_like(x, float("nan"))
    even_scale[(kl.cdiv(n, 128),)](out, doubled, n, BLOCK=128)
    return doubled


@pytest.mark.parametrize("n", [1000, 1024])
def test_autotuned_and_heuristic_kernels_under_compile(gen, n):
    x, y = _inputs(gen, n)
    explained = torch._dynamo.explain(tuned)(x, y)
    assert explained.graph_break_count == 0, explained.break_reasons
    torch._dynamo.reset()
    got = torch.compile(tuned, fullgraph=True, backend="aot_eager")(x, y)
    assert torch.equal(got, (x - y) * 2)
    assert tuned_add.best_config.kwargs["BLOCK"] in (64, 256)
    assert klt.written_arguments(tuned_add, x, y, x, n) == ("out_ptr",)


def test_a_symbolic_constexpr_is_specialized(gen):
    def f(x, y):
        out = torch.full_like(x, float("nan"))
        n = x.numel()
        add_kernel[(1,)](x, y, out, n, BLOCK=kl.next_power_of_2(n))
        return out

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager", dynamic=True)
    for n in (64, 100):
        x, y = _inputs(gen, n)
        assert torch.equal(compiled(x, y), x + y)
