"""The native launch path (``runtime.native.fastpath``): from a specialization's third launch on,
``kernel[grid](...)`` runs generated machine code that checks the call and launches (on the CPU
target: runs the grid function; on CUDA: calls cuLaunchKernel, here a stand-in); every other
call goes to the Python binder, with the same results and the same errors, and
``KERNELLAB_NATIVE_LAUNCH=0`` keeps everything in Python."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.runtime.native import capi, fastpath
from kernellab.runtime.targets import backend_available

from . import sample_kernels as sk

pytestmark = pytest.mark.skipif(not (backend_available("cpu") and capi.supported()),
                                reason="needs the cpu target and a CPython the native path supports")


@kl.jit
def affine(x_ptr, out_ptr, n, scale, shift, flip, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(x_ptr + offs, mask=mask) * scale + shift
    tl.store(out_ptr + offs, tl.where(flip, -y, y), mask=mask)


def expected(x, scale, shift, flip):
    y = (x * np.float32(scale) + np.float32(shift)).astype(x.dtype)
    return -y if flip else y


@pytest.fixture(params=["native", "python"])
def path(request, monkeypatch):
    monkeypatch.setenv("KERNELLAB_NATIVE_LAUNCH", "1" if request.param == "native" else "0")
    monkeypatch.delenv("KERNELLAB_TARGET", raising=False)
    monkeypatch.delenv("KERNELLAB_INTERPRET", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    return request.param


def is_native(kernel: kl.JITFunction) -> bool:
    return type(kernel._head).__name__ == "builtin_function_or_method"


def run_affine(kernel, inputs, n, scale=1.5, shift=-3, flip=False, dtype=np.float32, grid=None, **kwargs):
    x, out = inputs.normal(n, dtype), inputs.poisoned(n, dtype)
    block = kwargs.get("BLOCK", 128)
    compiled = kernel[grid or (kl.cdiv(n, block),)](x, out, n, scale, shift, flip, **kwargs)
    np.testing.assert_allclose(out, expected(x, scale, shift, flip), rtol=1e-6)
    return compiled


def test_the_native_function_takes_over_after_the_second_launch(path, inputs):
    kernel = kl.jit(affine.fn)
    first = run_affine(kernel, inputs, 1000)
    assert not is_native(kernel)  # a kernel launched once never pays for a native function
    assert run_affine(kernel, inputs, 1000, 0.25, 5, True) is first
    assert is_native(kernel) == (path == "native")
    for scale, shift, flip in [(2.0, 5, True), (-0.5, 7, False), (3.25, -11, True)]:
        assert run_affine(kernel, inputs, 1000, scale, shift, flip) is first
    assert kernel.stats["compiled"] + kernel.stats["disk"] == 1


def test_arguments_by_position_keyword_and_default(path, inputs):
    kernel = kl.jit(affine.fn)
    x, out = inputs.normal(300), inputs.poisoned(300)
    kernel[(3,)](x, out, 300, 0.5, 2, False)  # BLOCK from its default
    np.testing.assert_allclose(out, expected(x, 0.5, 2, False), rtol=1e-6)
    for call in (lambda: kernel[(3,)](x, out, 300, 0.5, 2, True, 128),
                 lambda: kernel[(3,)](x, out, n=300, scale=0.5, shift=2, flip=True),
                 lambda: kernel[(3,)](out_ptr=out, x_ptr=x, flip=True, shift=2, scale=0.5, n=300, BLOCK=128)):
        out[:] = np.nan
        call()
        np.testing.assert_allclose(out, expected(x, 0.5, 2, True), rtol=1e-6)
    assert len(kernel.cache) == 1


def test_other_specializations_fall_back_and_get_their_own(path, inputs):
    kernel = kl.jit(affine.fn)
    sizes = [1000, 1024, 1, 1000, 1024, 1]  # i32, i32 divisible by 16, the constant 1
    for n in sizes:
        run_affine(kernel, inputs, n)
    if path == "native":
        assert len(kernel._native.installed) == 3
    for _ in range(2):
        run_affine(kernel, inputs, 1000, dtype=np.float64)  # another dtype
        x, out = inputs.normal(1001), inputs.poisoned(1001)
        kernel[(8,)](x[1:], out[1:], 1000, 1.5, -3, False)  # pointers off the 16-byte alignment
        np.testing.assert_allclose(out[1:], expected(x[1:], 1.5, -3, False), rtol=1e-6)
        assert np.isnan(out[0])
        run_affine(kernel, inputs, 1000, scale=2)  # an int where a float was: a new key
    assert len(kernel.cache) == 6
    if path == "native":
        assert len(kernel._native.installed) == fastpath.MAX_SPECIALIZATIONS and not kernel._native.refused
    for n in sizes:  # every specialization still runs, natively or not
        run_affine(kernel, inputs, n)
    assert len(kernel.cache) == 6


def test_wrong_calls_get_the_binders_errors(path, inputs):
    kernel = kl.jit(affine.fn)
    run_affine(kernel, inputs, 256)
    x, out = inputs.normal(256), inputs.poisoned(256)
    with pytest.raises(TypeError, match="missing `flip`"):
        kernel[(2,)](x, out, 256, 1.5, -3)
    with pytest.raises(TypeError, match="unexpected keyword argument `flipped`"):
        kernel[(2,)](x, out, 256, 1.5, -3, flipped=True)
    with pytest.raises(TypeError, match="got 8 positional arguments"):
        kernel[(2,)](x, out, 256, 1.5, -3, False, 128, 9)
    with pytest.raises(TypeError, match="multiple values"):
        kernel[(2,)](x, out, 256, 1.5, -3, False, n=256)
    with pytest.raises(TypeError, match="argument `x_ptr`"):
        kernel[(2,)](object(), out, 256, 1.5, -3, False)
    assert np.isnan(out).all()


def test_grid_forms(path, inputs):
    kernel = kl.jit(affine.fn)
    run_affine(kernel, inputs, 1000)
    run_affine(kernel, inputs, 1000, grid=[8])
    run_affine(kernel, inputs, 1000, grid=lambda meta: (kl.cdiv(1000, meta["BLOCK"]),))
    run_affine(kernel, inputs, 1000, grid=(8, 1, 1))
    x, out = inputs.normal(256), inputs.poisoned(256)
    kernel[(0,)](x, out, 256, 1.5, -3, False)  # an empty grid runs nothing
    kernel[(2, 0)](x, out, 256, 1.5, -3, False)
    assert np.isnan(out).all()


def test_the_subscript(path, inputs):
    from kernellab.errors import LaunchError

    kernel = kl.jit(affine.fn)
    x, out = inputs.normal(256), inputs.poisoned(256)
    with pytest.raises(LaunchError, match="a grid is a tuple"):
        kernel[None](x, out, 256, 1.5, -3, False)
    for _ in range(3):
        run_affine(kernel, inputs, 256)
    if path == "native":  # kernel[grid] itself is then a C method (the first native function made it so)
        assert type(kl.JITFunction.__dict__["__getitem__"]).__name__ == "method_descriptor"
    launch = kernel[(2,)]
    launch(x, out, 256, 1.5, -3, False)
    np.testing.assert_allclose(out, expected(x, 1.5, -3, False), rtol=1e-6)
    with pytest.raises(LaunchError, match="a grid is a tuple"):
        kernel[None](x, out, 256, 1.5, -3, False)
    with pytest.raises(TypeError):
        kl.JITFunction.__getitem__(kernel)


def test_pre_run_hooks_added_after_the_native_path_run(path, inputs):
    kernel = kl.jit(affine.fn)
    for _ in range(3):
        run_affine(kernel, inputs, 256)
    seen = []
    kernel.add_pre_run_hook(lambda *args, **kwargs: seen.append(args[2]))
    run_affine(kernel, inputs, 256)  # a native kernel[grid] binds no head: the Python path runs the hook
    run_affine(kernel, inputs, 200)
    assert seen == [256, 200]
    assert kernel._head is None and kernel.launch_head() is kernel.binder


def test_launch_options_warmup_and_stream(path, inputs):
    kernel = kl.jit(affine.fn)
    run_affine(kernel, inputs, 512, num_warps=4)
    run_affine(kernel, inputs, 512, num_warps=4)
    x, out = inputs.normal(512), inputs.poisoned(512)
    compiled = kernel[(4,)](x, out, 512, 1.5, -3, False, num_warps=4, warmup=True)
    assert compiled.metadata.num_warps == 4 and np.isnan(out).all()  # compiled, not run
    kernel[(4,)](x, out, 512, 1.5, -3, False, num_warps=4, stream=0)
    np.testing.assert_allclose(out, expected(x, 1.5, -3, False), rtol=1e-6)
    assert len(kernel.cache) == 1


def test_a_forced_target_is_seen_at_once(path, inputs, monkeypatch):
    kernel = kl.jit(affine.fn)
    assert run_affine(kernel, inputs, 256).target == "cpu"
    run_affine(kernel, inputs, 256)
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    assert run_affine(kernel, inputs, 256).target == "interpret"
    monkeypatch.delenv("KERNELLAB_TARGET")
    assert run_affine(kernel, inputs, 256).target == "cpu"
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")  # the same target, a new value object
    assert run_affine(kernel, inputs, 256).target == "cpu"
    assert run_affine(kernel, inputs, 256).target == "cpu"


def test_kernels_reading_plain_globals_stay_in_python(path, inputs):
    kernel = kl.jit(sk.scale_by_global.fn)
    for _ in range(3):
        x, out = inputs.normal(100), inputs.poisoned(100)
        kernel[(1,)](x, out, 100, BLOCK=128)
        np.testing.assert_array_equal(out, x * np.float32(2.0))
    assert not is_native(kernel)


def test_clearing_the_cache_drops_the_native_functions(path, inputs):
    kernel = kl.jit(affine.fn)
    run_affine(kernel, inputs, 640)
    run_affine(kernel, inputs, 640)
    kernel.cache.clear()
    assert not is_native(kernel)
    run_affine(kernel, inputs, 640)
    run_affine(kernel, inputs, 640)
    assert sum(kernel.stats.values()) == 2 and is_native(kernel) == (path == "native")


def test_small_grids_run_natively_larger_ones_through_python(path, inputs, monkeypatch):
    """The native function runs grids of up to ``inline_programs`` programs itself (and measures
    them, updating that cell); larger ones go to Python, whose schedule may use the pool."""
    from kernellab.backends.cpu import scheduling

    monkeypatch.setenv("KERNELLAB_NUM_THREADS", "3")
    kernel = kl.jit(affine.fn)
    compiled = run_affine(kernel, inputs, 128 * 5)
    run_affine(kernel, inputs, 128 * 5)
    scheduled = []
    run = scheduling.Schedule.run
    monkeypatch.setattr(scheduling.Schedule, "run", lambda self, *a: (scheduled.append(a[2]), run(self, *a)))
    compiled.launcher.inline_programs.value = 5
    run_affine(kernel, inputs, 128 * 5)  # 5 programs: natively, on the calling thread, measured again
    assert scheduled == ([] if path == "native" else [5])
    assert path == "python" or compiled.launcher.inline_programs.value != 5
    compiled.launcher.inline_programs.value = 5
    run_affine(kernel, inputs, 128 * 6)  # 6 programs: Python's schedule
    assert scheduled[-1] == 6


def test_torch_cpu_tensors(path, rng):
    torch = pytest.importorskip("torch")
    kernel = kl.jit(affine.fn)
    for dtype in (torch.float32, torch.float32, torch.float64, torch.float64, torch.float32):
        x = torch.from_numpy(rng.standard_normal(700)).to(dtype)
        out = torch.full((700,), float("nan"), dtype=dtype)
        kernel[(6,)](x, out, 700, 0.75, 4, True)
        torch.testing.assert_close(out, -(x * 0.75 + 4), rtol=1e-6, atol=1e-6)
    for _ in range(2):  # numpy arrays reach the same key: a function of their own
        x, out = rng.standard_normal(700).astype(np.float32), np.full(700, np.nan, np.float32)
        kernel[(6,)](x, out, 700, 0.75, 4, True)
        np.testing.assert_allclose(out, expected(x, 0.75, 4, True), rtol=1e-6)
    assert len(kernel.cache) == 2
    if path == "native":
        assert len(kernel._native.installed) == 3 and not kernel._native.refused


def test_unsupported_arguments_stay_in_python(path, inputs):
    kernel = kl.jit(affine.fn)
    for _ in range(2):
        x, out = inputs.normal(256), inputs.poisoned(256)
        kernel[(2,)](x, out, np.int32(256), 1.5, -3, False)  # a numpy scalar
        np.testing.assert_allclose(out, expected(x, 1.5, -3, False), rtol=1e-6)
    if path == "native":
        assert not is_native(kernel) and len(kernel._native.refused) == 1


# ---------------------------------------------------------------------------------------------
# The CUDA tail, without a GPU: a stand-in for cuLaunchKernel records what it is given
# ---------------------------------------------------------------------------------------------

FAKE_LAUNCH = """
@record = global [16 x i64] zeroinitializer
@result = global i32 0

define i32 @fake_launch(ptr %f, i32 %gx, i32 %gy, i32 %gz, i32 %bx, i32 %by, i32 %bz, i32 %shared, ptr %stream,
                        ptr %params, ptr %extra) {
  %f64 = ptrtoint ptr %f to i64
  store i64 %f64, ptr @record
  %r1 = getelementptr i64, ptr @record, i64 1
  %gx64 = zext i32 %gx to i64
  store i64 %gx64, ptr %r1
  %r2 = getelementptr i64, ptr @record, i64 2
  %gy64 = zext i32 %gy to i64
  store i64 %gy64, ptr %r2
  %r3 = getelementptr i64, ptr @record, i64 3
  %gz64 = zext i32 %gz to i64
  store i64 %gz64, ptr %r3
  %r4 = getelementptr i64, ptr @record, i64 4
  %bx64 = zext i32 %bx to i64
  store i64 %bx64, ptr %r4
  %r5 = getelementptr i64, ptr @record, i64 5
  %sh64 = zext i32 %shared to i64
  store i64 %sh64, ptr %r5
  %r6 = getelementptr i64, ptr @record, i64 6
  %s64 = ptrtoint ptr %stream to i64
  store i64 %s64, ptr %r6
  %r7 = getelementptr i64, ptr @record, i64 7
  %count = load i64, ptr %r7
  %count1 = add i64 %count, 1
  store i64 %count1, ptr %r7
  %p0 = load ptr, ptr %params
  %v0 = load i64, ptr %p0
  %r8 = getelementptr i64, ptr @record, i64 8
  store i64 %v0, ptr %r8
  %a1 = getelementptr ptr, ptr %params, i64 1
  %p1 = load ptr, ptr %a1
  %v1 = load i64, ptr %p1
  %r9 = getelementptr i64, ptr @record, i64 9
  store i64 %v1, ptr %r9
  %a2 = getelementptr ptr, ptr %params, i64 2
  %p2 = load ptr, ptr %a2
  %v2 = load i32, ptr %p2
  %v2x = zext i32 %v2 to i64
  %r10 = getelementptr i64, ptr @record, i64 10
  store i64 %v2x, ptr %r10
  %a3 = getelementptr ptr, ptr %params, i64 3
  %p3 = load ptr, ptr %a3
  %v3 = load i32, ptr %p3
  %v3x = zext i32 %v3 to i64
  %r11 = getelementptr i64, ptr @record, i64 11
  store i64 %v3x, ptr %r11
  %code = load i32, ptr @result
  ret i32 %code
}
"""

DEVICE_BASE = 0x7F00_0000_0000


def fake_launch_function():
    llvm = pytest.importorskip("llvmlite.binding")
    from kernellab.backends.cpu import objload

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(FAKE_LAUNCH)
    module.triple = llvm.get_process_triple()
    machine = llvm.Target.from_triple(llvm.get_process_triple()).create_target_machine(reloc="pic")
    loaded = objload.load_object(machine.emit_object(module))
    record = (ctypes.c_uint64 * 16).from_address(loaded.address("record"))
    result = ctypes.c_int32.from_address(loaded.address("result"))
    return loaded, record, result


def device_array(address: int, n: int):
    """A kernellab DeviceArray over a made-up device address (no driver involved)."""
    from kernellab.backends.cuda.device_array import DeviceArray
    from kernellab.ir import types as T
    from kernellab.runtime.interop import Buffer

    array = DeviceArray.__new__(DeviceArray)
    array.shape, array.dtype, array._allocation = (n,), np.dtype(np.float32), None
    array._buffer = Buffer(address, 4 * n, address, 4 * n, "cuda:0", T.f32, "", array)
    return array


@pytest.fixture
def fake_cuda(monkeypatch):
    """The driver calls of a CUDA launch, stood in for: the Python launcher's entry point and
    pointer checks, and cuLaunchKernel for the native path."""
    from kernellab.backends.cuda import driver

    loaded, record, result = fake_launch_function()
    python_launches = []
    monkeypatch.setattr(driver, "launch_entry", lambda: lambda config, function, params, extra:
                        python_launches.append(struct.unpack_from("@IIIIIII", ctypes.string_at(config, 28))) or 0)
    monkeypatch.setattr(driver, "pointer_info", lambda address: driver.PointerInfo(driver.MEMORYTYPE_DEVICE, 0,
                                                                                   DEVICE_BASE, 1 << 30))
    monkeypatch.setattr(driver, "activate", lambda ordinal=0: None)
    monkeypatch.setattr(driver, "reachability_check", lambda: lambda address: True)  # debug kernels' fast path
    monkeypatch.setattr(driver, "launch_kernel_address", lambda: loaded.address("fake_launch"))
    monkeypatch.setattr(driver, "current_stream_function", lambda: lambda ordinal: 0)
    monkeypatch.setattr(driver, "device_count", lambda: 1)
    return loaded, record, result, python_launches


AXPY_SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32"}


def cuda_kernel(monkeypatch, metadata_extra=None, fn=sk.axpy_kernel.fn, signature=None):
    """``axpy_kernel`` (or ``fn``, of that flat ``signature``) whose compiled kernel is made by
    hand (signature, a launcher on function 0xF00D of an H200 as the driver kit describes it):
    no compiler and no GPU needed."""
    from kernellab.backends.cuda import launcher
    from kernellab.runtime.compiled import CompiledKernel
    from tests.backends.cuda.driver_kit import H200

    kernel = kl.jit(fn)
    signature = signature or AXPY_SIGNATURE

    def miss(key, values, constants, *options):
        metadata = {"name": fn.__name__, "target": "cuda", "num_warps": 4, "signature": signature,
                    "arg_names": kernel.arg_names, **(metadata_extra or {})}
        params = launcher.params_of(list(signature.values()))
        compiled = CompiledKernel({}, metadata, launcher.build(None, 0xF00D, metadata, H200, params, 0))
        compiled.bind_values([p.name for p in kernel.params if not p.is_constexpr],
                             {name for name, spelling in signature.items() if spelling.startswith("*")})
        kernel.cache[key] = compiled
        return compiled

    monkeypatch.setattr(kernel, "_miss", miss)
    return kernel


def test_cuda_launches_call_cuLaunchKernel_with_packed_parameters(path, fake_cuda, monkeypatch):
    _, record, result, python_launches = fake_cuda
    kernel = cuda_kernel(monkeypatch)
    x, out = device_array(DEVICE_BASE, 1000), device_array(DEVICE_BASE + 4096, 1000)
    kernel[(8,)](x, out, 1000, 0.5, BLOCK=128)
    kernel[(8,)](x, out, 1000, 0.5, BLOCK=128)
    assert len(python_launches) == 2 and record[7] == 0  # the first launches: Python, pointers checked
    launches = [((8,), 1000, 0.5, 0), ((3, 2), 777, -2.25, 0), ((5, 1, 2), 1001, 3.0, 1234)]
    for grid, n, alpha, stream in launches:
        kernel[grid](x, out, n, alpha, BLOCK=128, **({"stream": stream} if stream else {}))
    native = len(launches) if path == "native" else 0
    assert record[7] == native and len(python_launches) == 2 + len(launches) - native
    if path == "native":
        grid, n, alpha, stream = launches[-1]
        assert list(record[0:7]) == [0xF00D, 5, 1, 2, 128, 0, stream]
        assert list(record[8:10]) == [DEVICE_BASE, DEVICE_BASE + 4096]
        assert record[10] == n and struct.unpack("<f", struct.pack("<I", record[11]))[0] == alpha
        result.value = 201  # the driver refuses (no context on this thread, say): Python launches
        kernel[(8,)](x, out, 1000, 0.5, BLOCK=128)
        assert record[7] == native + 1 and len(python_launches) == 3


@kl.jit
def pair_axpy(pair, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(pair[1] + offs, alpha * tl.load(pair[0] + offs, mask=offs < n), mask=offs < n)


def test_cuda_launches_of_tuple_arguments(path, fake_cuda, monkeypatch):
    """A tuple's elements are packed as parameters of their own, natively as by Python."""
    _, record, _, python_launches = fake_cuda
    kernel = cuda_kernel(monkeypatch, fn=pair_axpy.fn,
                         signature={"pair.0": "*fp32", "pair.1": "*fp32", "n": "i32", "alpha": "fp32"})
    x, out = device_array(DEVICE_BASE, 1000), device_array(DEVICE_BASE + 4096, 1000)
    for n in (1000, 1000, 999, 998):
        kernel[(8,)]((x, out), n, 0.5, BLOCK=128)
    native = 2 if path == "native" else 0
    assert record[7] == native and len(python_launches) == 4 - native
    if path == "native":
        assert list(record[8:11]) == [DEVICE_BASE, DEVICE_BASE + 4096, 998]
        kernel[(8,)]((x, out, x), 997, 0.5, BLOCK=128)  # another length: not this function's
        assert record[7] == native


def test_cuda_launches_of_torch_tensors(path, fake_cuda, monkeypatch):
    """torch tensors through the CUDA tail (host tensors standing in for device ones, the target
    forced): dtype, device and data_ptr read by the native function."""
    torch = pytest.importorskip("torch")
    _, record, _, python_launches = fake_cuda
    monkeypatch.setenv("KERNELLAB_TARGET", "cuda")
    kernel = cuda_kernel(monkeypatch)
    x, out = torch.zeros(1000), torch.zeros(1000)
    for n in (1000, 1000, 999, 998):
        kernel[(8,)](x, out, n, 0.5, BLOCK=128)
    native = 2 if path == "native" else 0
    assert record[7] == native and len(python_launches) == 4 - native
    if path == "native":
        assert list(record[8:11]) == [x.data_ptr(), out.data_ptr(), 998]
        kernel[(8,)](x, out.double(), 1000, 0.5, BLOCK=128)  # another dtype: Python
        assert record[7] == native


def test_cuda_grids_over_the_limits_get_pythons_errors(path, fake_cuda, monkeypatch):
    from kernellab.errors import LaunchError

    _, record, _, python_launches = fake_cuda
    kernel = cuda_kernel(monkeypatch)
    x, out = device_array(DEVICE_BASE, 1000), device_array(DEVICE_BASE + 4096, 1000)
    for _ in range(3):
        kernel[(8,)](x, out, 1000, 0.5, BLOCK=128)
    with pytest.raises(LaunchError, match="over the device's limit"):
        kernel[(1, 70000)](x, out, 1000, 0.5, BLOCK=128)
    assert record[7] == (1 if path == "native" else 0) and len(python_launches) == (2 if path == "native" else 3)


def test_cuda_debug_kernels_check_every_launch_in_python(path, fake_cuda, monkeypatch):
    _, record, _, python_launches = fake_cuda
    kernel = cuda_kernel(monkeypatch, {"debug": True})
    x, out = device_array(DEVICE_BASE, 1000), device_array(DEVICE_BASE + 4096, 1000)
    for _ in range(3):
        kernel[(8,)](x, out, 1000, 0.5, BLOCK=128)
    assert record[7] == 0 and len(python_launches) == 3 and not is_native(kernel)


# ---------------------------------------------------------------------------------------------
# The C functions behind attributes, found and called with the GIL held
# ---------------------------------------------------------------------------------------------

def test_getters_and_methods_found_and_called_with_the_gil():
    """Both C functions below need the thread state (they allocate through the interpreter's
    free lists): called without the GIL they crash, as torch's getters did on a GPU host."""
    import functools

    probe = functools.partial(print)
    found = capi.getter(functools.partial, "__dict__", probe)
    assert found is not None and found[0]
    assert capi.no_args_method(list, "copy", [3, 1, 2]) is not None
    assert capi.getter(list, "copy", []) is None  # a method is not a getter
    assert capi.no_args_method(list, "append", []) is None  # METH_O, not METH_NOARGS
    assert capi.getter(functools.partial, "no_such_attribute", probe) is None
