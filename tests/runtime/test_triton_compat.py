"""Host-side Triton code that tutorials write, run with ``import kernellab as triton``."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as triton
import kernellab.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        numerator = tl.exp(row - tl.max(row, axis=0))
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / tl.sum(numerator, axis=0),
                 mask=mask)


def test_active_driver_describes_this_machine():
    driver = triton.runtime.driver.active
    target = driver.get_current_target()
    assert target.backend in ("cuda", "cpu") and target.warp_size >= 1
    properties = driver.utils.get_device_properties(driver.get_current_device())
    for name in ("multiprocessor_count", "max_shared_mem", "max_num_regs", "warpSize"):
        assert properties[name] > 0
    if target.backend == "cuda":
        assert properties["sm_clock_rate"] > 0 and properties["mem_clock_rate"] > 0


def test_the_cuda_backend_is_active_where_torch_sees_a_device(monkeypatch):
    """torch inductor's compile workers are forked from a process that initialised CUDA, so they
    cannot initialise the driver themselves; they ask ``backends["nvidia"].driver.is_active()``
    before compiling (``set_driver_to_gpu``), which then answers as Triton's does: torch sees it."""
    import sys
    from types import SimpleNamespace

    from kernellab.runtime import driver, targets

    nvidia = type("NvidiaDriver", (driver.TargetDriver,), {"TARGETS": ("cuda",)})  # as triton_backends() makes it
    monkeypatch.setattr(driver, "target_available", lambda name: False)  # the driver API unusable here
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: True),
                                                              version=SimpleNamespace(hip=None)))
    assert nvidia.is_active()
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: False),
                                                              version=SimpleNamespace(hip=None)))
    assert not nvidia.is_active()
    monkeypatch.delitem(sys.modules, "torch")
    assert nvidia.is_active() == targets.target_available("cuda")


def test_softmax_tutorial_host_code(rng, monkeypatch):
    """The fused-softmax tutorial's launch: warmup, occupancy from n_regs and shared memory,
    then the compiled kernel launched with every argument (constexprs included)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    driver = triton.runtime.driver.active
    device = driver.get_active_torch_device()
    properties = driver.utils.get_device_properties(device.index)
    num_sm, num_regs = properties["multiprocessor_count"], properties["max_num_regs"]
    size_smem, warp_size = properties["max_shared_mem"], properties["warpSize"]
    x = torch.from_numpy(rng.standard_normal((37, 100)).astype(np.float32))
    if device.type != "cpu":
        pytest.skip("this test runs the tutorial on the interpreter")
    y = torch.full_like(x, float("nan"))
    n_rows, n_cols = x.shape
    block_size, num_warps, num_stages = triton.next_power_of_2(n_cols), 8, 2
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block_size,
                                   num_stages=num_stages, num_warps=num_warps, grid=(1,))
    kernel._init_handles()
    occupancy = num_regs // (kernel.n_regs * warp_size * num_warps)
    occupancy = min(occupancy, size_smem // kernel.metadata.shared)  # as the tutorial writes it
    num_programs = min(num_sm * occupancy, n_rows)
    assert torch.isnan(y).all()
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, block_size, num_stages)
    np.testing.assert_allclose(y.numpy(), torch.softmax(x, dim=1).numpy(), rtol=1e-5, atol=1e-7)
