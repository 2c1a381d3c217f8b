"""Loading and launching on a real GPU with hand-written PTX: results, parameter passing, shared
memory, resource errors, illegal launches, threads, device arrays, torch and CuPy."""

from __future__ import annotations

import gc
import threading
import time

import ml_dtypes
import numpy as np
import pytest

from kernellab.backends.cuda import device_array, driver, launcher, ptxas
from kernellab.backends.cuda.backend import CudaBackend
from kernellab.errors import LaunchError, OutOfResources

from .driver_kit import ADD_PTX, ADD_TYPES, ECHO_PTX, ECHO_TYPES, SHARED_PTX, gpu, pressure_ptx

pytestmark = [pytest.mark.gpu, gpu]

BLOCK = 128


@pytest.fixture
def rng():
    return np.random.default_rng(20261129)


def add_metadata(**extra):
    return {"name": "add_kernel", "num_warps": BLOCK // 32, "arg_types": ADD_TYPES, "shared": 0,
            "signature": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, **extra}


def load(ptx, metadata, cubin=True):
    image = ptxas.assemble(ptx, driver.properties(0).arch).cubin if cubin and ptxas.find_ptxas() else ptx
    return launcher.load(driver.load_module(image, 0), metadata, driver.properties(0))


def inputs(rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = device_array.to_device(np.full(n, np.nan, np.float32))
    return x, y, device_array.to_device(x), device_array.to_device(y), out


@pytest.mark.parametrize("cubin", [True, False], ids=["cubin", "ptx-jit"])
def test_add_matches_numpy(rng, cubin):
    add = load(ADD_PTX, add_metadata(), cubin)
    for n in (1, 1000, 4099):
        x, y, dx, dy, out = inputs(rng, n)
        add(((n + BLOCK - 1) // BLOCK, 1, 1), [dx.data_ptr(), dy.data_ptr(), out.data_ptr(), n])
        np.testing.assert_array_equal(out.numpy(), x + y)


def test_backend_load_runs_the_kernel(rng):
    asm = {"ptx": ADD_PTX}
    if ptxas.find_ptxas():
        asm["cubin"] = ptxas.assemble(ADD_PTX, driver.properties(0).arch).cubin
    add = CudaBackend().load(asm, add_metadata(arch=driver.properties(0).arch))
    x, y, dx, dy, out = inputs(rng, 300)
    add((3, 1, 1), [dx.data_ptr(), dy.data_ptr(), out.data_ptr(), 300])
    np.testing.assert_array_equal(out.numpy(), x + y)
    assert add.metadata["registers"] > 0


def test_every_scalar_type_reaches_the_kernel():
    echo = load(ECHO_PTX, {"name": "echo", "num_warps": 1, "arg_types": ECHO_TYPES})
    out = device_array.to_device(np.full(80, 0xEE, np.uint8))
    values = [True, -5, -300, -123456, -(2**40) + 3, 4_000_000_000, 1.5, -2.75, 3.25, -1e-300]
    echo((1, 1, 1), [out.data_ptr(), *values])
    raw = out.numpy()
    expected = [np.bool_(True), np.int8(-5), np.int16(-300), np.int32(-123456), np.int64(-(2**40) + 3),
                np.uint32(4_000_000_000), np.float16(1.5), ml_dtypes.bfloat16(-2.75), np.float32(3.25),
                np.float64(-1e-300)]
    for slot, value in enumerate(expected):
        got = raw[8 * slot: 8 * slot + value.itemsize].tobytes()
        assert got == np.array([value]).tobytes(), f"parameter {slot + 1} ({ECHO_TYPES[slot + 1]})"


def test_dynamic_shared_memory_over_48_kib():
    nbytes = 100_000
    roll = load(SHARED_PTX, {"name": "shared_roll", "num_warps": 8, "arg_types": ["*u32", "u32"], "shared": nbytes})
    out = device_array.to_device(np.zeros(256, np.uint32))
    roll((1, 1, 1), [out.data_ptr(), nbytes])
    np.testing.assert_array_equal(out.numpy(), (np.arange(256) + 1) % 256 + 1)


def test_shared_memory_over_the_device_limit_is_out_of_resources():
    limit = driver.properties(0).max_shared_per_block_optin
    with pytest.raises(OutOfResources, match="shared memory"):
        load(SHARED_PTX, {"name": "shared_roll", "num_warps": 8, "arg_types": ["*u32", "u32"], "shared": limit + 16})


def test_threads_over_the_device_limit_are_out_of_resources():
    with pytest.raises(OutOfResources, match="threads per block"):
        CudaBackend().load({"ptx": ADD_PTX}, add_metadata(num_warps=64))


def test_registers_over_the_device_limit_are_out_of_resources():
    if ptxas.find_ptxas() is None:
        pytest.skip("needs ptxas for a register-heavy cubin")
    with pytest.raises(OutOfResources, match="registers per thread"):
        load(pressure_ptx(200), {"name": "pressure", "num_warps": 32, "arg_types": ["*fp32"]})


def test_illegal_launches_are_refused_and_the_context_survives(rng):
    add = load(ADD_PTX, add_metadata())
    x, y, dx, dy, out = inputs(rng, 256)
    host = np.zeros(256, np.float32)
    with pytest.raises(LaunchError, match="not CUDA memory"):
        add((2, 1, 1), [dx.data_ptr(), dy.data_ptr(), host.ctypes.data, 256])
    with pytest.raises(LaunchError, match="host array"):
        add((2, 1, 1), [dx.data_ptr(), dy.data_ptr(), host, 256])
    with pytest.raises(LaunchError, match="over the device's limit of 65535"):
        add((2, 65536, 1), [dx.data_ptr(), dy.data_ptr(), out.data_ptr(), 256])
    add((0, 1, 1), [dx.data_ptr(), dy.data_ptr(), out.data_ptr(), 256])
    assert np.isnan(out.numpy()).all() and not host.any()
    add((2, 1, 1), [dx.data_ptr(), dy.data_ptr(), out.data_ptr(), 256])
    np.testing.assert_array_equal(out.numpy(), x + y)


def test_launches_from_several_threads(rng):
    add = load(ADD_PTX, add_metadata())
    n = 2048
    jobs = [inputs(rng, n) for _ in range(4)]
    errors = []

    def run(job):
        try:
            _, _, dx, dy, out = job
            for _ in range(50):
                add((n // BLOCK, 1, 1), [dx.data_ptr(), dy.data_ptr(), out.data_ptr(), n])
        except Exception as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for x, y, _, _, out in jobs:
        np.testing.assert_array_equal(out.numpy(), x + y)


def test_launch_host_cost_is_small(rng):
    add = load(ADD_PTX, add_metadata())
    _, _, dx, dy, out = inputs(rng, 1024)
    values = [dx.data_ptr(), dy.data_ptr(), out.data_ptr(), 1024]
    grid = (8, 1, 1)
    for _ in range(100):
        add(grid, values)
    driver.synchronize()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(2000):
            add(grid, values)
        samples.append((time.perf_counter() - start) / 2000)
        driver.synchronize()
    # the best burst is the launch's cost; the others measure what else shares the host's cores
    assert min(samples) < 10e-6, samples


# -- device arrays -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.uint8, np.bool_, ml_dtypes.bfloat16])
def test_device_array_round_trip(rng, dtype):
    host = (rng.standard_normal((3, 5, 7)) * 50).astype(dtype)
    array = device_array.to_device(host)
    assert array.shape == host.shape and array.dtype == host.dtype and array.strides == host.strides
    assert array.nbytes == host.nbytes and array.device == "cuda:0" and array.data_ptr() > 0
    np.testing.assert_array_equal(array.numpy(), host)
    again = (rng.standard_normal((3, 5, 7)) * 50).astype(dtype)
    np.testing.assert_array_equal(array.copy_from(again).numpy(), again)


def test_empty_zeros_and_interface():
    empty = device_array.empty((4, 6), np.float64)
    zeros = device_array.zeros(10, np.int32, device="cuda:0")
    assert empty.shape == (4, 6) and not zeros.numpy().any() and isinstance(device_array.empty(3, device="cpu"),
                                                                         np.ndarray)
    interface = empty.__cuda_array_interface__
    assert interface["data"] == (empty.data_ptr(), False) and interface["typestr"] == "<f8"
    assert interface["version"] == 3 and interface["shape"] == (4, 6)
    info = driver.pointer_info(empty.data_ptr())
    assert info is not None and info.memory_type == driver.MEMORYTYPE_DEVICE and info.size >= empty.nbytes


def test_device_memory_is_freed_when_collected():
    big = device_array.empty(1 << 28, np.float32)  # 1 GiB
    address = big.data_ptr()
    found = driver.pointer_info(address)
    assert found is not None and found.size >= 1 << 30
    del big
    gc.collect()
    # freed: the driver no longer knows the address (other test workers, which share the device,
    # cannot change that, where they do change the free-memory figure)
    assert driver.pointer_info(address) is None


# -- torch and CuPy --------------------------------------------------------------------------------

def test_torch_tensors_and_streams(rng):
    torch = pytest.importorskip("torch")
    add = load(ADD_PTX, add_metadata())
    n = 5000
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    out = torch.full((n,), float("nan"), device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        add(((n + BLOCK - 1) // BLOCK, 1, 1), [x.data_ptr(), y.data_ptr(), out.data_ptr(), n], stream)
    stream.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    out.fill_(float("nan"))
    stream.wait_stream(torch.cuda.current_stream())
    add(((n + BLOCK - 1) // BLOCK, 1, 1), [x, y, out, n], stream.cuda_stream)  # tensors read in place
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    with pytest.raises(LaunchError, match="host array"):
        add((1, 1, 1), [x.cpu(), y, out, n])


def test_device_arrays_are_read_by_torch_and_written_by_kernels(rng):
    torch = pytest.importorskip("torch")
    host = rng.standard_normal(64).astype(np.float32)
    array = device_array.to_device(host)
    tensor = torch.as_tensor(array, device="cuda")
    assert tensor.data_ptr() == array.data_ptr()
    torch.testing.assert_close(tensor.cpu(), torch.from_numpy(host), rtol=0, atol=0)
    tensor.mul_(2)
    np.testing.assert_array_equal(array.numpy(), host * 2)


def test_cupy_arrays_and_streams(rng):
    cupy = pytest.importorskip("cupy")
    add = load(ADD_PTX, add_metadata())
    n = 3000
    x = cupy.asarray(rng.standard_normal(n).astype(np.float32))
    y = cupy.asarray(rng.standard_normal(n).astype(np.float32))
    out = cupy.full(n, cupy.nan, dtype=cupy.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    cupy.cuda.Device().synchronize()
    add(((n + BLOCK - 1) // BLOCK, 1, 1), [x.data.ptr, y.data.ptr, out.data.ptr, n], stream)
    stream.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(out), cupy.asnumpy(x + y))
    mine = device_array.to_device(np.arange(10, dtype=np.int32))
    assert int(cupy.asarray(mine).sum()) == 45 and cupy.asarray(mine).data.ptr == mine.data_ptr()
