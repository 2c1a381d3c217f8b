"""Autograd through kernellab ops (kernels in both directions): softmax and layer norm
gradcheck'ed in fp64 on the CPU target, opcheck'ed, and a small MLP block trained for a few
steps with the loss matching eager PyTorch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tests.pytorch import examples as ex  # noqa: E402

F64 = torch.float64


def _rand(gen, *shape, dtype=F64, grad=True):
    return torch.randn(*shape, generator=gen, dtype=dtype).requires_grad_(grad)


@pytest.mark.parametrize("shape", [(4, 37), (3, 128)])
def test_softmax_gradcheck(gen, shape):
    x = _rand(gen, *shape)
    assert torch.allclose(ex.softmax(x), torch.softmax(x, dim=-1))
    assert torch.autograd.gradcheck(ex.softmax, (x,))


@pytest.mark.parametrize("shape", [(5, 33), (2, 64)])
def test_layer_norm_gradcheck(gen, shape):
    x, w, b = _rand(gen, *shape), _rand(gen, shape[1]), _rand(gen, shape[1])
    expected = torch.nn.functional.layer_norm(x, (shape[1],), w, b, 1e-5)
    assert torch.allclose(ex.layer_norm(x, w, b), expected)
    assert torch.autograd.gradcheck(ex.layer_norm, (x, w, b))


def test_the_backward_is_the_kernellab_op(gen):
    x = _rand(gen, 3, 20)
    y = ex.softmax(x)
    dy = torch.randn(3, 20, generator=gen, dtype=F64)
    (grad,) = torch.autograd.grad(y, x, dy)
    assert torch.equal(grad, ex.softmax_backward(dy, y.detach()))
    expected = torch.softmax(x, -1)
    assert torch.allclose(grad, torch.autograd.grad(expected, x, dy)[0])


@pytest.mark.parametrize("op, args", [
    ("softmax", lambda g: (_rand(g, 4, 30, dtype=torch.float32),)),
    ("layer_norm_forward", lambda g: (_rand(g, 4, 30), _rand(g, 30), _rand(g, 30), 1e-5)),
])
def test_opcheck_with_autograd(gen, op, args):
    torch.library.opcheck(getattr(ex, op).default, args(gen))


def _train(model, batches, targets, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for step in range(steps):
        probabilities = model(batches[step])
        loss = -torch.log(probabilities.gather(1, targets[step][:, None])).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def _models(gen):
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=gen)))
    reference = ex.MLPBlock(24, 48, 10, kernellab=False)
    ours = ex.MLPBlock(24, 48, 10, kernellab=True)
    ours.load_state_dict(reference.state_dict())
    with torch.no_grad():  # a norm that is not the identity at the start
        for model in (reference, ours):
            model.norm.weight.copy_(torch.linspace(0.5, 1.5, 24))
            model.norm.bias.copy_(torch.linspace(-0.2, 0.2, 24))
    return reference, ours


def test_mlp_block_trains_like_eager_pytorch(gen):
    reference, ours = _models(gen)
    steps = 5
    batches = [torch.randn(16, 24, generator=gen)] * steps  # one batch: the loss must fall
    targets = [torch.randint(0, 10, (16,), generator=gen)] * steps
    expected = _train(reference, batches, targets, steps)
    got = _train(ours, batches, targets, steps)
    assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)
    assert expected[-1] < expected[0]  # it did learn
    for a, b in zip(reference.parameters(), ours.parameters()):
        assert torch.allclose(a, b, atol=1e-5)


def test_compiled_mlp_block_trains_like_eager(gen):
    reference, ours = _models(gen)
    compiled = torch.compile(ours, fullgraph=True, backend="aot_eager")
    steps = 3
    batches = [torch.randn(16, 24, generator=gen) for _ in range(steps)]
    targets = [torch.randint(0, 10, (16,), generator=gen) for _ in range(steps)]
    expected = _train(reference, batches, targets, steps)
    assert _train(compiled, batches, targets, steps) == pytest.approx(expected, rel=1e-5, abs=1e-6)
