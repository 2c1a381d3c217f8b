"""The launcher without a GPU: grid and resource checks against known device limits, parameter
packing read back from memory through a stand-in for ``cuLaunchKernelEx``, and the errors of
illegal launches, which must come before anything is launched."""

from __future__ import annotations

import ctypes
import struct
import threading

import numpy as np
import pytest

from kernellab.backends.cuda import driver, launcher
from kernellab.backends.cuda.launcher import bf16_bits, check_resources, normalize_grid, param_of
from kernellab.errors import LaunchError, OutOfResources
from kernellab.ir import types as T

from .driver_kit import H200

# -- grids --------------------------------------------------------------------------------------


def test_grids_of_one_to_three_dimensions():
    assert normalize_grid((7,), H200) == (7, 1, 1)
    assert normalize_grid([3, 5], H200) == (3, 5, 1)
    assert normalize_grid((2, 3, 4), H200) == (2, 3, 4)
    assert normalize_grid(9, H200) == (9, 1, 1)
    assert normalize_grid((np.int64(4), 1, 1), H200) == (4, 1, 1)


def test_empty_grids_run_nothing():
    assert normalize_grid((0,), H200) is None and normalize_grid((5, 0, 2), H200) is None


@pytest.mark.parametrize("grid, message", [
    ((2**31,), r"grid dimension 0 is 2147483648, over the device's limit of 2147483647"),
    ((1, 65536), r"grid dimension 1 is 65536, over the device's limit of 65535"),
    ((1, 1, 70000), r"grid dimension 2 is 70000"),
    ((-1,), "cannot be negative"),
    ((1, 2, 3, 4), "1 to 3 dimensions"),
    ((), "1 to 3 dimensions"),
    ((1.5,), "tuple of 1 to 3 ints"),
    ("abc", "tuple of 1 to 3 ints"),
])
def test_illegal_grids_name_the_limit(grid, message):
    with pytest.raises(LaunchError, match=message):
        normalize_grid(grid, H200)


# -- resources ------------------------------------------------------------------------------------

def test_threads_over_the_device_limit_are_out_of_resources():
    check_resources({"num_warps": 32}, H200)
    with pytest.raises(OutOfResources, match="threads per block") as caught:
        check_resources({"num_warps": 64}, H200)
    assert (caught.value.required, caught.value.limit) == (2048, 1024)


def test_shared_memory_over_the_opt_in_limit_is_out_of_resources():
    check_resources({"num_warps": 4, "shared": 232448}, H200)
    with pytest.raises(OutOfResources, match="shared memory") as caught:
        check_resources({"num_warps": 4, "shared": 200_000, "shared_static": 40_000}, H200)
    assert (caught.value.required, caught.value.limit) == (240_000, 232448)


def test_registers_limit_the_threads_of_a_loaded_kernel():
    loaded = {"registers": 254, "shared_static": 0, "max_threads_per_block": 256}
    check_resources({"num_warps": 8}, H200, loaded)
    with pytest.raises(OutOfResources, match="254 registers per thread"):
        check_resources({"num_warps": 16}, H200, loaded)


# -- parameters -----------------------------------------------------------------------------------

@pytest.mark.parametrize("spelling, code, kind", [
    ("*fp32", "Q", "pointer"), ("ptr<f16>", "Q", "pointer"), (T.pointer(T.i8), "Q", "pointer"),
    ("i1", "i", "int"), ("i8", "i", "int"), ("i16", "i", "int"), ("i32", "i", "int"), ("i64", "q", "int"),
    ("u8", "I", "int"), ("u32", "I", "int"), ("u64", "Q", "int"),
    ("fp16", "e", "float"), ("bf16", "H", "bf16"), ("fp32", "f", "float"), ("fp64", "d", "float"),
])
def test_parameter_storage(spelling, code, kind):
    param = param_of(spelling)
    assert (param.code, param.kind) == (code, kind)


def test_unsupported_parameters_are_named():
    with pytest.raises(LaunchError, match="fp8e4nv"):
        param_of("fp8e4nv")
    with pytest.raises(LaunchError, match="tensor descriptors"):
        param_of(T.tile(T.f32, (4,)))


@pytest.mark.parametrize("value", [1.0, -2.5, 3.140625, 1e-3, 65504.0, float("inf"), 1.00390625, 1.01171875])
def test_bf16_bits_round_to_nearest_even(value):
    import ml_dtypes

    expected = int(np.array([value], np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0])
    assert bf16_bits(value) == expected


def test_bf16_bits_keep_nan():
    assert (bf16_bits(float("nan")) & 0x7F80) == 0x7F80 and bf16_bits(float("nan")) & 0x7F


# -- launches through a stand-in for cuLaunchKernelEx ---------------------------------------------

DEVICE_BASE = 0x7F00_0000_0000
_SIZES = {"Q": 8, "q": 8, "i": 4, "I": 4, "e": 2, "H": 2, "f": 4, "d": 8}


class FakeDriver:
    """Records each launch by reading the config and every parameter back from memory."""

    def __init__(self, params, code=0):
        self.params = params
        self.code = code
        self.queued_codes: list[int] = []  # returned first, one per launch
        self.launches: list[dict] = []
        self.checked: list[int] = []
        self.reached: list[int] = []  # asked by a debug=True kernel's fast path
        self.activated: list[int] = []  # contexts made current (for pointer checks, or retries)

    def launch(self, config_address, function, params_address, extra):
        size = struct.calcsize(launcher.CONFIG_FORMAT)
        config = struct.unpack(launcher.CONFIG_FORMAT, ctypes.string_at(config_address, size))
        pointers = (ctypes.c_void_p * max(len(self.params), 1)).from_address(params_address)
        values = [struct.unpack("@" + p.code, ctypes.string_at(pointers[i], _SIZES[p.code]))[0]
                  for i, p in enumerate(self.params)]
        attribute_size = struct.calcsize(launcher.ATTRIBUTE_FORMAT)
        attributes = [struct.unpack(launcher.ATTRIBUTE_FORMAT, ctypes.string_at(config[8] + i * attribute_size,
                                                                                  attribute_size))
                      for i in range(config[9])]  # (CUlaunchAttributeID, its int value)
        self.launches.append({"grid": config[0:3], "block": config[3:6], "shared": config[6], "stream": config[7],
                              "function": function, "values": values, "thread": threading.get_ident(),
                              "attributes": attributes})
        return self.queued_codes.pop(0) if self.queued_codes else self.code

    def reachable(self, address):  # driver.reachability_check()'s function
        self.reached.append(address)
        return DEVICE_BASE <= address < DEVICE_BASE + (1 << 30)

    def pointer_info(self, address):
        self.checked.append(address)
        if DEVICE_BASE <= address < DEVICE_BASE + (1 << 30):
            return driver.PointerInfo(driver.MEMORYTYPE_DEVICE, 0, DEVICE_BASE, 1 << 30)
        return None


SIGNATURE = ["*fp32", "*fp32", "i32", "fp32", "i64", "bf16", "fp16"]


@pytest.fixture
def fake(monkeypatch):
    params = launcher.params_of(SIGNATURE)
    found = FakeDriver(params)
    monkeypatch.setattr(driver, "launch_entry", lambda: found.launch)
    monkeypatch.setattr(driver, "pointer_info", found.pointer_info)
    monkeypatch.setattr(driver, "reachability_check", lambda: found.reachable)
    monkeypatch.setattr(driver, "activate", lambda ordinal=0: found.activated.append(ordinal))
    return found


def make_launcher(signature=SIGNATURE, **metadata):
    params = launcher.params_of(signature)
    meta = {"name": "kern", "num_warps": 4, "signature": {f"arg{i}": s for i, s in enumerate(signature)},
            **metadata}
    return launcher.build(None, 0xF00D, meta, H200, params, int(meta.get("shared", 0)))


def args(x=DEVICE_BASE, y=DEVICE_BASE + 4096, n=1000, alpha=0.5, big=-(2**40), b=1.5, h=-2.0):
    return [x, y, n, alpha, big, b, h]


def test_first_and_later_launches_pass_every_parameter(fake):
    kern = make_launcher(shared=1024)
    kern((4, 2, 1), args(), 0)
    kern((5, 1, 1), args(n=7, alpha=-1.25, big=3, b=-0.5, h=0.25), 1234)
    first, second = fake.launches
    assert first["grid"] == (4, 2, 1) and first["block"] == (128, 1, 1) and first["shared"] == 1024
    assert first["function"] == 0xF00D and first["stream"] == 0
    assert first["values"] == [DEVICE_BASE, DEVICE_BASE + 4096, 1000, 0.5, -(2**40), bf16_bits(1.5), -2.0]
    assert second["grid"] == (5, 1, 1) and second["stream"] == 1234
    assert second["values"] == [DEVICE_BASE, DEVICE_BASE + 4096, 7, -1.25, 3, bf16_bits(-0.5), 0.25]


@pytest.mark.parametrize("options, expected", [
    ({"launch_cooperative_grid": True}, [(2, 1)]),  # CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    ({"launch_pdl": True}, [(6, 1)]),  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    ({"launch_cooperative_grid": True, "launch_pdl": True}, [(2, 1), (6, 1)]),
])
def test_launch_attributes_reach_every_launch(fake, options, expected):
    # Triton's launch_cooperative_grid / launch_pdl options: cuLaunchKernelEx attributes, on every
    # launch (a kernel that asks for them never takes the fast path, which passes none)
    kern = make_launcher(**options)
    for _ in range(3):
        kern((2, 1, 1), args(), None)
    assert [launch["attributes"] for launch in fake.launches] == [expected] * 3
    assert kern.native_tail() is None
    make_launcher()((2, 1, 1), args(), None)
    assert fake.launches[-1]["attributes"] == []  # none asked for: none passed


def test_only_the_first_launch_checks_pointers_unless_debug(fake):
    kern = make_launcher()
    for _ in range(3):
        kern((1, 1, 1), args(), None)
    assert fake.checked == [DEVICE_BASE, DEVICE_BASE + 4096]
    debug = make_launcher(debug=True)
    for _ in range(2):
        debug((1, 1, 1), args(), None)
    assert len(fake.checked) == 6


def test_a_debug_kernel_asks_the_driver_about_every_pointer_on_its_fast_path(fake):
    # torch inductor compiles every kernel with debug=True: its launches take the fast path too,
    # which asks the driver once per pointer (as Triton's launcher does) instead of the full check
    debug = make_launcher(debug=True)
    for n in range(4):
        debug((1, 1, 1), args(n=n), None)
    assert type(debug).__call__ is not launcher.CudaLauncher.__call__
    assert len(fake.checked) == 4 and fake.reached == [DEVICE_BASE, DEVICE_BASE + 4096] * 2
    host = np.ones(4, np.float32)
    with pytest.raises(LaunchError, match=r"argument 1 \(arg1\) = 0x[0-9a-f]+ is not CUDA memory"):
        debug((1, 1, 1), args(y=host.ctypes.data), None)
    assert [launch["values"][2] for launch in fake.launches] == [0, 1, 2, 3]


def test_the_fast_path_is_made_at_the_second_launch(fake):
    kern = make_launcher()
    kern((1, 1, 1), args(), None)
    assert type(kern).__call__ is launcher.CudaLauncher.__call__ and kern.native_tail() is None
    kern((2, 1, 1), args(), None)
    assert type(kern).__call__ is not launcher.CudaLauncher.__call__  # made, with its buffer
    kern((3, 1, 1), args(n=3), None)
    assert [(launch["grid"][0], launch["values"][2]) for launch in fake.launches] == [(1, 1000), (2, 1000), (3, 3)]


def test_a_host_pointer_is_refused_before_anything_runs(fake):
    host = np.ones(4, np.float32)
    with pytest.raises(LaunchError, match=r"argument 1 \(arg1\) = 0x[0-9a-f]+ is not CUDA memory"):
        make_launcher()((1, 1, 1), args(y=host.ctypes.data), None)
    assert fake.launches == []


@pytest.mark.parametrize("warm", [False, True])
def test_a_host_array_is_refused_before_anything_runs(fake, warm):
    kern = make_launcher()
    if warm:
        kern((1, 1, 1), args(), None)
    with pytest.raises(LaunchError, match=r"argument 0 \(arg0\) is a host array \(ndarray\).*kl.to_device"):
        kern((1, 1, 1), args(x=np.ones(4, np.float32)), None)
    assert len(fake.launches) == int(warm)


@pytest.mark.parametrize("warm", [False, True])
def test_a_grid_over_the_device_limit_is_refused_before_anything_runs(fake, warm):
    kern = make_launcher()
    if warm:
        kern((1, 1, 1), args(), None)
    with pytest.raises(LaunchError, match="grid dimension 1 is 65536, over the device's limit of 65535"):
        kern((1, 65536, 1), args(), None)
    with pytest.raises(LaunchError, match="cannot be negative"):
        kern((-3, 1, 1), args(), None)
    assert len(fake.launches) == int(warm)


def test_empty_grids_launch_nothing(fake):
    kern = make_launcher()
    kern((0, 1, 1), args(), None)
    kern((1, 1, 1), args(), None)
    kern((1, 1, 1), args(), None)  # the fast path is made at the second launch
    fake.code = 1  # the driver refuses an empty grid with CUDA_ERROR_INVALID_VALUE, running nothing
    kern((4, 0, 1), args(), None)  # the fast path passes it on
    assert len(fake.launches) == 3


def test_short_grids_and_device_arrays_take_the_slow_path(fake):
    class CudaArray:
        __cuda_array_interface__ = {"data": (DEVICE_BASE + 64, False), "shape": (4,), "typestr": "<f4", "version": 3}

    kern = make_launcher()
    kern((1, 1, 1), args(), None)
    kern((6,), args(x=CudaArray()), None)
    assert fake.launches[-1]["grid"] == (6, 1, 1) and fake.launches[-1]["values"][0] == DEVICE_BASE + 64


def test_stream_objects_are_read(fake):
    class TorchLikeStream:
        cuda_stream = 0xABC

    kern = make_launcher()
    kern((1, 1, 1), args(), TorchLikeStream())
    kern((1, 1, 1), args(), TorchLikeStream())
    assert [launch["stream"] for launch in fake.launches] == [0xABC, 0xABC]
    with pytest.raises(TypeError, match="not a CUDA stream"):
        kern((1, 1, 1), args(), "stream")


@pytest.mark.parametrize("bad, message", [
    ({"n": 2**40}, r"argument 2 \(arg2\) = 1099511627776 does not fit its parameter type i32"),
    ({"n": "7"}, r"argument 2 \(arg2\) = '7' does not fit its parameter type i32"),
    ({"alpha": "x"}, r"argument 3 \(arg3\) = 'x' does not fit its parameter type fp32"),
])
def test_scalars_that_do_not_fit_are_named(fake, bad, message):
    kern = make_launcher()
    kern((1, 1, 1), args(), None)
    with pytest.raises(LaunchError, match=message):
        kern((1, 1, 1), args(**bad), None)
    assert len(fake.launches) == 1


def test_the_number_of_arguments_is_checked(fake):
    kern = make_launcher()
    with pytest.raises(LaunchError, match="kern takes 7 arguments"):
        kern((1, 1, 1), args()[:-1], None)
    kern((1, 1, 1), args(), None)
    with pytest.raises(LaunchError, match="kern takes 7 arguments"):
        kern((1, 1, 1), args() + [1], None)


def test_kernels_without_parameters(monkeypatch):
    found = FakeDriver(())
    monkeypatch.setattr(driver, "launch_entry", lambda: found.launch)
    kern = make_launcher([])
    kern((2, 1, 1), [], None)
    kern((3, 1, 1), (), None)
    assert [launch["grid"] for launch in found.launches] == [(2, 1, 1), (3, 1, 1)]


def test_a_second_thread_gets_its_own_buffer(fake):
    kern = make_launcher()
    kern((1, 1, 1), args(n=1), None)
    done = threading.Event()

    def other():
        kern((2, 1, 1), args(n=2), None)
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    kern((3, 1, 1), args(n=3), None)
    assert done.is_set()
    assert [(launch["grid"][0], launch["values"][2]) for launch in fake.launches] == [(1, 1), (2, 2), (3, 3)]
    assert fake.launches[1]["thread"] != fake.launches[0]["thread"] == fake.launches[2]["thread"]


def test_driver_failures_name_the_call_and_the_launch(fake):
    kern = make_launcher()
    kern((1, 1, 1), args(), None)
    fake.code = 999
    with pytest.raises(driver.CudaError, match=r"cuLaunchKernelEx failed .*launching kern with grid \(2, 1, 1\)"):
        kern((2, 1, 1), args(), None)
    fake.code = 701
    with pytest.raises(OutOfResources, match="registers"):
        kern((2, 1, 1), args(), None)


def test_a_thread_without_a_context_is_given_one(fake):
    kern = make_launcher()
    kern((1, 1, 1), args(), None)
    assert fake.activated == [0]  # before checking the pointers of the first launch
    fake.queued_codes = [driver.ERROR_INVALID_CONTEXT]
    kern((2, 1, 1), args(), None)
    assert fake.activated == [0, 0] and [launch["grid"][0] for launch in fake.launches] == [1, 2, 2]


def test_launches_without_a_stream_follow_torchs_current_stream(fake, monkeypatch):
    """With torch's CUDA initialised, ``stream=None`` means torch's current stream (as in
    Triton); an explicit stream still wins."""
    import types

    current = {"stream": 0x5000}
    torch = types.SimpleNamespace(
        cuda=types.SimpleNamespace(is_initialized=lambda: True),
        _C=types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: current["stream"] + device))
    kern = make_launcher()
    kern((1, 1, 1), args(), None)  # torch not initialised yet: the legacy default stream
    monkeypatch.setitem(__import__("sys").modules, "torch", torch)
    monkeypatch.setattr(driver, "_torch_stream", [])
    kern((1, 1, 1), args(), None)
    current["stream"] = 0x6000
    kern((1, 1, 1), args(), None)
    kern((1, 1, 1), args(), 77)
    assert [launch["stream"] for launch in fake.launches] == [0, 0x5000, 0x6000, 77]


def test_torch_initialised_before_the_first_launch(fake, monkeypatch):
    import types

    current = {"stream": 0x7000}
    getter = lambda device: current["stream"]  # noqa: E731 - torch's getter stand-in
    torch = types.SimpleNamespace(cuda=types.SimpleNamespace(is_initialized=lambda: True),
                                  _C=types.SimpleNamespace(_cuda_getCurrentRawStream=getter))
    monkeypatch.setitem(__import__("sys").modules, "torch", torch)
    monkeypatch.setattr(driver, "_torch_stream", [])
    assert driver.current_stream_function() is getter
    kern = make_launcher()
    for stream in (0x7000, 0x7100):
        current["stream"] = stream
        kern((1, 1, 1), args(), None)
    assert [launch["stream"] for launch in fake.launches] == [0x7000, 0x7100]


def test_launches_on_makes_a_stream_current_for_launches_without_one(fake, monkeypatch):
    monkeypatch.setattr(driver, "_torch_stream", [])
    monkeypatch.delitem(__import__("sys").modules, "torch", raising=False)
    kern = make_launcher()
    kern((1, 1, 1), args(), None)
    with driver.launches_on(0x8000):
        kern((1, 1, 1), args(), None)
        with driver.launches_on(0x8100):
            kern((1, 1, 1), args(), None)
        kern((1, 1, 1), args(), 55)  # a stream given to the launch still wins
        kern((1, 1, 1), args(), None)
    kern((1, 1, 1), args(), None)
    assert [launch["stream"] for launch in fake.launches] == [0, 0x8000, 0x8100, 55, 0x8000, 0]


def test_tensor_maps_are_encoded_from_the_launch_and_passed_after_the_parameters(monkeypatch):
    """A kernel whose rings TMA fills takes one 128-byte tensor map per descriptor after its own
    parameters (metadata["tma"], tma.py): the launcher encodes it from the launch's values
    (dims and box innermost first, byte strides), 64-byte aligned in the parameter buffer, once
    per distinct base/dims/strides, and keeps such kernels off the generated fast paths."""
    signature = ["*fp16", "i32", "i32", "i32"]  # a_ptr, M, K, stride
    spec = {"base": 0, "dims": [["arg", 1], ["arg", 2]], "strides": [["arg", 3], ["const", 1]], "box": [128, 64],
            "data_type": 6, "swizzle": 3, "element_bytes": 2, "nan": False}
    encoded: list[tuple] = []

    def encode(data_type, address, dims, strides, box, swizzle, nan_fill):
        encoded.append((data_type, address, dims, strides, box, swizzle, nan_fill))
        return bytes([len(encoded)]) * 128

    seen: list[bytes] = []

    def launch(config_address, function, params_address, extra):
        pointers = (ctypes.c_void_p * 5).from_address(params_address)
        seen.append(ctypes.string_at(pointers[4], 128))
        return 0

    found = FakeDriver(launcher.params_of(signature))
    monkeypatch.setattr(driver, "launch_entry", lambda: launch)
    monkeypatch.setattr(driver, "pointer_info", found.pointer_info)
    monkeypatch.setattr(driver, "activate", lambda ordinal=0: None)
    monkeypatch.setattr(driver, "encode_tensor_map", encode)
    kern = make_launcher(signature, tma=[spec])
    for _ in range(3):
        kern((1, 1, 1), [DEVICE_BASE, 1000, 328, 336], None)
    kern((1, 1, 1), [DEVICE_BASE + 4096, 1000, 328, 336], None)
    assert encoded == [(6, DEVICE_BASE, [328, 1000], [672], [64, 128], 3, False),
                       (6, DEVICE_BASE + 4096, [328, 1000], [672], [64, 128], 3, False)]
    assert seen == [b"\x01" * 128] * 3 + [b"\x02" * 128]
    assert kern._offsets[4] % 64 == 0 and type(kern).__call__ is launcher.CudaLauncher.__call__
    assert kern.native_tail() is None


def test_null_parameters_after_the_kernels_own(monkeypatch):
    """An edited PTX declaring trailing 64-bit parameters (Triton's scratch pointers) gets null
    pointers for them, on the first launch and on the fast path; no native launch is made."""
    fake = FakeDriver(launcher.params_of(SIGNATURE + ["*i8", "*i8"]))
    monkeypatch.setattr(driver, "launch_entry", lambda: fake.launch)
    monkeypatch.setattr(driver, "pointer_info", fake.pointer_info)
    monkeypatch.setattr(driver, "activate", lambda ordinal=0: fake.activated.append(ordinal))
    kern = make_launcher(null_params=2)
    for n in (11, 12, 13):
        kern((1, 1, 1), args(n=n), None)
    assert [launch["values"][2] for launch in fake.launches] == [11, 12, 13]
    assert all(launch["values"][-2:] == [0, 0] for launch in fake.launches)
    assert all(launch["values"][:5] == args(n=launch["values"][2])[:5] for launch in fake.launches)
    assert kern.native_tail() is None
