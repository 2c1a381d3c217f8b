"""The whole path on a GPU: ``kernel[grid](...)`` through the runtime's binder, the code generator,
ptxas and the launcher, with kernellab DeviceArrays, torch tensors and CuPy arrays, and the
errors of illegal launches."""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest

import kernellab as kl
from kernellab.backends.cuda import device_array, driver
from kernellab.errors import LaunchError
from tests.runtime import sample_kernels

from .driver_kit import gpu

pytestmark = [pytest.mark.gpu, gpu]
pytest.importorskip("kernellab.backends.cuda.compiler", reason="the CUDA code generator is not there yet")


# the runtime tests' vector add, as a kernel of its own (its caches and native launches are this file's)
add_kernel = kl.jit(sample_kernels.add_kernel.fn)


@pytest.fixture
def rng():
    return np.random.default_rng(1129)


def test_device_arrays(rng):
    n = 5000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dx, dy = device_array.to_device(x), device_array.to_device(y)
    out = device_array.to_device(np.full(n, np.nan, np.float32))
    kernel = add_kernel[(kl.cdiv(n, 1024),)](dx, dy, out, n, BLOCK=1024)
    np.testing.assert_array_equal(out.numpy(), x + y)
    assert kernel.metadata["registers"] > 0 and kernel.asm["cubin"].startswith(b"\x7fELF")


def test_torch_tensors_on_the_current_stream(rng):
    torch = pytest.importorskip("torch")
    n = 3000
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    out = torch.full((n,), float("nan"), device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        z = x * 2  # queued on `stream`; the kernel must run after it
        add_kernel[(kl.cdiv(n, 512),)](z, y, out, n, BLOCK=512)
    stream.synchronize()
    torch.testing.assert_close(out, x * 2 + y, rtol=0, atol=0)


def test_cupy_arrays(rng):
    cupy = pytest.importorskip("cupy")
    n = 2048
    x = cupy.asarray(rng.standard_normal(n).astype(np.float32))
    y = cupy.asarray(rng.standard_normal(n).astype(np.float32))
    out = cupy.full(n, cupy.nan, dtype=cupy.float32)
    add_kernel[(2,)](x, y, out, n, BLOCK=1024)
    np.testing.assert_array_equal(cupy.asnumpy(out), cupy.asnumpy(x + y))


def test_illegal_launches(rng):
    n = 1024
    dx = device_array.to_device(rng.standard_normal(n).astype(np.float32))
    out = device_array.to_device(np.full(n, np.nan, np.float32))
    host = np.zeros(n, np.float32)
    with pytest.raises(LaunchError, match="different places"):
        add_kernel[(1,)](dx, host, out, n, BLOCK=1024)
    with pytest.raises(LaunchError, match="over the device's limit"):
        add_kernel[(1, 70000)](dx, dx, out, n, BLOCK=1024)
    assert np.isnan(out.numpy()).all()
    add_kernel[(1,)](dx, dx, out, n, BLOCK=1024)
    np.testing.assert_array_equal(out.numpy(), dx.numpy() * 2)


def test_host_cost_of_a_cached_launch(rng):
    """The whole ``kernel[grid](...)`` path (bench/launch_overhead_cuda.py measures it against
    Triton); here only a loose bound that catches a slow path taken by mistake."""
    n = 1024
    dx = device_array.to_device(rng.standard_normal(n).astype(np.float32))
    out = device_array.empty(n)
    for _ in range(50):
        add_kernel[(1,)](dx, dx, out, n, BLOCK=1024)
    samples = []
    for _ in range(5):
        driver.synchronize()
        start = time.perf_counter()
        for _ in range(200):
            add_kernel[(1,)](dx, dx, out, n, BLOCK=1024)
        samples.append((time.perf_counter() - start) / 200)
    assert statistics.median(samples) < 15e-6
