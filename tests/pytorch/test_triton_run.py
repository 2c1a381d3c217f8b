"""``CompiledKernel.run`` with torch tensors, as torch inductor's wrappers call it: Triton's
launcher arguments, then every kernel argument; tensors, fitting ints and floats take the
function made for the kernel, the rest the general conversion (which accepts or explains)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import LaunchError


@kl.jit
def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def _compiled(target: str) -> kl.CompiledKernel:
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32"}
    return kl.compile(axpy, signature=signature, constexprs={"BLOCK": 32}, target=target)


def test_run_launches_torch_tensors(host_target, gen):
    compiled = _compiled(host_target)
    x, y = torch.randn(100, generator=gen), torch.randn(100, generator=gen)
    out = torch.zeros(100)
    run = compiled.run
    assert compiled.run is run  # made once
    run(4, 1, 1, None, compiled.function, compiled.packed_metadata, None, None, None, x, y, out, 100, 2.5, 32)
    torch.testing.assert_close(out, 2.5 * x + y)
    out.zero_()  # an int where a float goes, a numpy array among tensors: the general conversion
    run(4, 1, 1, None, None, None, None, None, None, x, y.numpy(), out, np.int64(100), 2, 32)
    torch.testing.assert_close(out, 2 * x + y)


def test_run_refuses_what_launch_refuses(host_target, gen):
    run = _compiled(host_target).run
    x = torch.randn(8, generator=gen)
    with pytest.raises(LaunchError, match="does not fit in i32"):
        run(1, 1, 1, None, None, None, None, None, None, x, x, x, 2**31, 1.0, 32)
    with pytest.raises(TypeError, match="takes its 6 arguments"):
        run(1, 1, 1, None, None, None, None, None, None, x, x, x)
    with pytest.raises(LaunchError, match="pointer parameter"):
        run(1, 1, 1, None, None, None, None, None, None, "x", x, x, 8, 1.0, 32)


def test_a_zero_grid_runs_nothing_and_calls_the_hooks(host_target, gen):
    compiled = _compiled(host_target)
    x, out = torch.randn(8, generator=gen), torch.zeros(8)
    seen = []
    compiled.run(0, 1, 1, None, None, None, "metadata", seen.append, seen.append, x, x, out, 8, 1.0, 32)
    assert seen == ["metadata", "metadata"] and not out.any()


def test_run_takes_addresses_where_the_launcher_does(gen, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    compiled = _compiled("cpu")
    x, y = torch.randn(64, generator=gen), torch.randn(64, generator=gen)
    out = torch.zeros(64)
    compiled.run(2, 1, 1, None, None, None, None, None, None, x.data_ptr(), y, out.data_ptr(), 64, 1.0, 32)
    torch.testing.assert_close(out, x + y)
    out.zero_()  # the general conversion too (an int alpha for fp32)
    compiled.run(2, 1, 1, None, None, None, None, None, None, x.data_ptr(), y.data_ptr(), out, 64, 1, 32)
    torch.testing.assert_close(out, x + y)
