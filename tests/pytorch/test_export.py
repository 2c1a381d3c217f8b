"""torch.export of modules calling kernellab ops and raw kernel launches; the exported program
runs and matches eager."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
from tests.pytorch import examples as ex  # noqa: E402
from tests.pytorch.test_compile import add_kernel  # noqa: E402


class NormSoftmax(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(0.5, 1.5, width))
        self.bias = torch.nn.Parameter(torch.linspace(-1, 1, width))

    def forward(self, x):
        return ex.softmax(ex.layer_norm(x, self.weight, self.bias))


class RawLaunch(torch.nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        add_kernel[(kl.cdiv(x.numel(), 128),)](x, y, out, x.numel(), BLOCK=128)
        return out * 2


@pytest.mark.parametrize("strict", [False, True])
def test_export_a_module_with_kernellab_ops(gen, strict):
    module = NormSoftmax(40)
    x = torch.randn(6, 40, generator=gen)
    program = torch.export.export(module, (x,), strict=strict)
    names = {str(node.target) for node in program.graph.nodes if node.op == "call_function"}
    assert "kltest.layer_norm_forward.default" in names and "kltest.softmax.default" in names
    x2 = torch.randn(6, 40, generator=gen)
    assert torch.allclose(program.module()(x2), module(x2))


@pytest.mark.parametrize("strict", [False, True])
def test_export_a_raw_launch(gen, strict):
    x, y = torch.randn(500, generator=gen), torch.randn(500, generator=gen)
    program = torch.export.export(RawLaunch(), (x, y), strict=strict)
    assert any("kernellab.launch" in str(node.target) for node in program.graph.nodes)
    assert torch.equal(program.module()(x, y), (x + y) * 2)
