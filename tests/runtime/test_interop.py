"""Arrays from other libraries as kernel arguments, and the target they select."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import LaunchError
from kernellab.ir import types as T
from kernellab.runtime import interop, specialize
from kernellab.runtime.targets import default_host_target, select_target

from . import sample_kernels as sk


@pytest.fixture
def unforced(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KERNELLAB_TARGET", "KERNELLAB_INTERPRET", "TRITON_INTERPRET"):
        monkeypatch.delenv(name, raising=False)


class FakeDeviceArray:
    """Something that lives on a GPU, as far as ``__cuda_array_interface__`` says."""

    def __init__(self, n: int, address: int = 0x7F00_0000_1000):
        self.n, self.address = n, address

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"data": (self.address, False), "shape": (self.n,), "typestr": "<f4", "strides": None, "version": 3}


class HostArrayWithHook:
    """kernellab's device-array protocol on host memory."""

    def __init__(self, array: np.ndarray):
        self.array = array

    def __kernellab_buffer__(self) -> interop.Buffer:
        return interop.to_buffer(self.array)


class DLPackOnly:
    """An array known only through the DLPack protocol."""

    def __init__(self, array: np.ndarray):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_numpy_views_know_their_allocation(rng):
    owner = rng.standard_normal(100).astype(np.float32)
    start = owner.ctypes.data
    view = owner.reshape(10, 10)[1:3]
    buffer = interop.to_buffer(view, "x_ptr")
    assert (buffer.address, buffer.nbytes, buffer.base, buffer.extent) == (start + 40, 80, start, 400)
    assert (buffer.device, buffer.dtype, buffer.name, buffer.owner is view) == ("cpu", T.f32, "x_ptr", True)
    strided = interop.to_buffer(owner[::2])
    assert strided.nbytes == 49 * 8 + 4 and strided.extent == 400
    reversed_ = interop.to_buffer(owner[::-1])
    assert reversed_.address == start + 396 and reversed_.nbytes == 400 and reversed_.base == start


def test_host_view_is_the_whole_allocation(rng):
    owner = rng.standard_normal(16).astype(np.float32)
    buffer = interop.to_buffer(owner[4:8])
    view = buffer.host_view().view(np.float32)
    assert view.shape == (16,)
    view[0] = 42.0
    assert owner[0] == 42.0


def test_the_last_array_over_foreign_memory_owns_it():
    raw = bytearray(64)
    array = np.frombuffer(raw, dtype=np.float64)[2:]
    buffer = interop.to_buffer(array)
    assert buffer.extent == 64 and buffer.address == buffer.base + 16 and buffer.nbytes == 48


@pytest.mark.parametrize("versioned", [False, True])
def test_dlpack_capsules(rng, versioned):
    array = rng.standard_normal((4, 6)).astype(np.float16)[1:, ::2]
    capsule = array.__dlpack__(max_version=(1, 0)) if versioned else array.__dlpack__()
    assert interop.is_capsule(capsule)
    buffer = interop.to_buffer(capsule, "c")
    assert buffer.address == array.__array_interface__["data"][0]
    assert buffer.dtype is T.f16 and buffer.device == "cpu" and buffer.name == "c"
    assert buffer.nbytes == interop.to_buffer(array).nbytes


def test_dlpack_objects_launch(inputs, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x, y, out = inputs.normal(64), inputs.normal(64), inputs.poisoned(64)
    sk.add_kernel[(1,)](DLPackOnly(x), y, DLPackOnly(out), 64, BLOCK=64)
    np.testing.assert_array_equal(out, x + y)


def test_kernellab_buffer_hook_launch(inputs, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x, y, out = inputs.normal(64), inputs.normal(64), inputs.poisoned(64)
    compiled = sk.add_kernel[(1,)](HostArrayWithHook(x), y, HostArrayWithHook(out), 64, BLOCK=64)
    np.testing.assert_array_equal(out, x + y)
    assert compiled.metadata.specialization["x_ptr"] == {"divisibility": 16}


def test_cuda_array_interface_is_a_device_array():
    fake = FakeDeviceArray(16)
    buffer = interop.to_buffer(fake, "y")
    assert (buffer.address, buffer.nbytes, buffer.device, buffer.dtype) == (fake.address, 64, "cuda", T.f32)
    assert interop.location_of(fake) == "cuda" and interop.location_of(3) is None
    assert specialize.FULL[FakeDeviceArray](fake) == ("*fp32@cuda/16", fake.address)


def test_mixing_host_and_device_arrays_is_an_error(inputs, unforced):
    x, out = inputs.normal(16), inputs.poisoned(16)
    with pytest.raises(LaunchError) as info:
        sk.add_kernel[(1,)](x, FakeDeviceArray(16), out, 16, BLOCK=16)
    message = str(info.value)
    assert "`x_ptr` on cpu" in message and "`y_ptr` on cuda" in message and "`out_ptr` on cpu" in message
    assert "kl.to_device" in message


def test_target_selection():
    assert select_target(None, [("x", "cpu"), ("y", "cpu")], "k") == default_host_target()
    assert select_target(None, [], "k") == default_host_target()
    assert select_target(None, [("x", "cuda:0"), ("y", "cuda:0"), ("m", "any")], "k") == "cuda"
    assert select_target(None, [("x", "cuda"), ("y", "cuda:1")], "k") == "cuda"
    assert select_target("interpret", [("x", "cuda:0")], "k") == "interpret"
    with pytest.raises(LaunchError, match="`x` on cuda:0, `y` on cuda:1"):
        select_target(None, [("x", "cuda:0"), ("y", "cuda:1")], "k")


def test_not_an_array():
    with pytest.raises(LaunchError, match="pointer parameter.*not str"):
        interop.to_buffer("x", "x_ptr")


# ---- torch (optional) ----

def test_torch_cpu_tensors(inputs, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    base = torch.from_numpy(inputs.normal(128))
    view = base[32:96]
    buffer = interop.to_buffer(view, "t")
    assert buffer.address == view.data_ptr() and buffer.base == base.data_ptr() and buffer.extent == 512
    assert buffer.nbytes == 256 and buffer.device == "cpu" and buffer.dtype is T.f32
    y = torch.from_numpy(inputs.normal(64))
    out = torch.full((64,), float("nan"))
    compiled = sk.add_kernel[(1,)](view, y, out, 64, BLOCK=64)
    np.testing.assert_array_equal(out.numpy(), (view + y).numpy())
    assert compiled.metadata.signature["x_ptr"] == "*fp32"


def test_torch_bfloat16_through_a_view(inputs):
    torch = pytest.importorskip("torch")
    tensor = torch.from_numpy(inputs.normal(8)).to(torch.bfloat16)
    host = interop.host_array(tensor)
    assert host.dtype == T.bf16.np_dtype
    np.testing.assert_array_equal(host.astype(np.float32), tensor.float().numpy())
    assert specialize.FULL[type(tensor)](tensor)[0].startswith("*bf16@cpu")


# ---- objects with data_ptr() and dtype (Triton's rule; FlagGems' StridedBuffer, typed pointers) ----

class Storage:
    """An allocation as torch's untyped_storage() describes one."""

    def __init__(self, array: np.ndarray):
        self.array = array

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def nbytes(self) -> int:
        return self.array.nbytes


class TypedPointer:
    """An address and an element type, and optionally the allocation around it."""

    def __init__(self, array: np.ndarray, offset: int = 0, storage: bool = True):
        self.array, self.dtype = array, array.dtype
        self.address = array.ctypes.data + offset * array.itemsize
        self.storage = Storage(array) if storage else None

    def data_ptr(self) -> int:
        return self.address

    def untyped_storage(self) -> Storage | None:
        return self.storage


class ReversedView(TypedPointer):
    """A view with a negative stride (FlagGems' StridedBuffer, which torch views cannot be)."""

    def __init__(self, array: np.ndarray):
        super().__init__(array, offset=array.size - 1, storage=False)
        self.shape = array.shape

    def stride(self) -> tuple[int, ...]:
        return (-1,)


def test_data_ptr_objects_are_pointers(inputs):
    owner = inputs.normal(64)
    buffer = interop.to_buffer(TypedPointer(owner, offset=8), "p")
    assert (buffer.address, buffer.base, buffer.extent) == (owner.ctypes.data + 32, owner.ctypes.data, 256)
    assert (buffer.dtype, buffer.device, buffer.name) == (T.f32, "cpu", "p")
    flipped = interop.to_buffer(ReversedView(owner))
    assert (flipped.address, flipped.base, flipped.extent) == (owner.ctypes.data + 252, owner.ctypes.data, 256)
    key, address = specialize.FULL[TypedPointer](TypedPointer(owner, offset=1))
    assert key == "*fp32@cpu" and address == owner.ctypes.data + 4


def test_data_ptr_objects_launch(inputs, host_target):
    x, y, out = inputs.normal(80), inputs.normal(64), inputs.poisoned(64)
    sk.add_kernel[(1,)](TypedPointer(x, offset=16), y, TypedPointer(out), 64, BLOCK=64)
    np.testing.assert_array_equal(out, x[16:] + y)
    flipped = inputs.poisoned(64)
    view = ReversedView(y)
    gather_kernel[(1,)](view, flipped, view.stride()[0], 64, BLOCK=64)
    np.testing.assert_array_equal(flipped, y[::-1])


@kl.jit
def gather_kernel(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * stride, mask=offs < n), mask=offs < n)
