"""What a cached CUDA kernel's first launch in a new process imports and builds: the backend's
import stays lean (no assembler, disassembler or code generator), and the read-only records
that replaced its dataclasses behave like them.  No GPU needed."""

from __future__ import annotations

import ctypes
import json
import re
import subprocess
import sys

import pytest

from kernellab.backends.cuda import driver
from kernellab.backends.cuda.backend import parse_arch
from kernellab.backends.cuda.driver import DeviceProperties, PointerInfo
from kernellab.backends.cuda.launcher import Param, param_of
from kernellab.ir import types as T

from .driver_kit import H200

# Modules for compiling, and for a failed device assert: a backend import leaves them out.
NOT_LAUNCHING = ["kernellab.backends.cuda.assemble", "kernellab.backends.cuda.ptxas", "kernellab.backends.cuda.sass",
                 "kernellab.backends.cuda.compiler", "kernellab.backends.cuda.ptx", "llvmlite.binding", "llvmlite.ir",
                 "kernellab.backends.cuda.device_assert"]


def test_importing_the_backend_leaves_compiling_and_device_assert_modules_out():
    code = ("import json, sys; import kernellab.backends.cuda; from kernellab.errors import KernelAssertionError; "
            f"print(json.dumps([m for m in {NOT_LAUNCHING!r} if m in sys.modules] + "
            "[c.__name__ for c in KernelAssertionError.__subclasses__() if 'cuda' in c.__module__]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_importing_the_backend_makes_no_ctypes_pointer_type():
    """The driver's prototypes become ctypes types when their entry point is first used (a
    pointer type costs ~0.03 ms to make; a cached launch calls few entry points)."""
    code = ("import ctypes, json, kernellab; made = set(ctypes._pointer_type_cache); import kernellab.backends.cuda; "
            "print(json.dumps(sorted(str(t) for t in set(ctypes._pointer_type_cache) - made)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_prototypes_are_cuda_h_spellings():
    for name, spellings in driver._PROTOTYPES.items():
        assert len(driver._argtypes(spellings)) == len(spellings), name
    assert driver._argtypes(driver._PROTOTYPES["cuDeviceGetAttribute"]) == (
        ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int)
    assert driver._argtypes(driver._PROTOTYPES["cuModuleGetFunction"]) == (
        ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p)
    assert driver._argtypes(("char**", "uint64*", "float*", "uchar")) == (
        ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_float),
        ctypes.c_ubyte)


def test_device_properties_by_keyword_with_defaults():
    assert H200.max_grid_dim == (2147483647, 65535, 65535) and H200.l2_cache_bytes == 0
    assert H200.arch == "sm_90a" and H200.compute_capability == (9, 0)
    again = DeviceProperties(*H200.field_values())
    assert again == H200 and hash(again) == hash(H200) and again is not H200
    other = DeviceProperties(**{**dict(zip(DeviceProperties.__slots__, H200.field_values())), "minor": 1})
    assert other != H200 and other.arch == "sm_91a"
    assert "max_shared_per_block_optin=232448" in repr(H200)


def test_records_are_read_only():
    info = PointerInfo(2, 0, 4096, 1 << 20)
    assert (info.memory_type, info.device, info.start, info.size) == (2, 0, 4096, 1 << 20)
    with pytest.raises(AttributeError, match="read-only"):
        info.size = 5
    with pytest.raises(AttributeError, match="read-only"):
        del info.device


@pytest.mark.parametrize("args, kwargs, message", [
    ((1, 2, 3, 4, 5), {}, "takes 4 fields"),
    ((1, 2, 3), {}, "missing field 'size'"),
    ((1, 2, 3), {"sizes": 4}, "unknown field 'sizes'"),
    ((1, 2, 3, 4), {"start": 4}, "repeated field 'start'"),
])
def test_record_construction_errors_name_the_field(args, kwargs, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        PointerInfo(*args, **kwargs)


def test_records_of_different_kinds_differ():
    assert param_of("*fp32") == Param(T.pointer(T.f32), "Q", "pointer")
    assert param_of("*fp32") != PointerInfo(1, 2, 3, 4)
    assert param_of("i32") != param_of("*fp32") and len({param_of("i32"), param_of("i32")}) == 1


def test_a_spelling_is_parsed_once_into_a_shared_parameter():
    assert param_of("*fp16") is param_of("*fp16") and param_of("bf16") is param_of("bf16")
    assert param_of(T.pointer(T.f16)) == param_of("*fp16") and param_of("ptr<f16>") == param_of("*fp16")


@pytest.mark.parametrize("leaf, shown", [("x_ptr", "x_ptr"), ("Ptrs.1.0", "Ptrs[1][0]"), ("P.0", "P[0]"),
                                         ("a.b", "a.b"), ("", "")])
def test_launch_messages_name_tuple_elements_by_index(leaf, shown):
    from kernellab.frontend.arguments import display_name

    assert display_name(leaf) == shown


_ARCH = re.compile(r"sm_(\d{2,3})([af]?)")


@pytest.mark.parametrize("text", ["sm_90a", "sm_90", "sm_80", "sm_100f", "sm_120a", "sm_9", "sm_1000", "sm_90af",
                                  "sm_90b", "sm_", "sm_aa", "xsm_90", "sm_90 ", "SM_90", "", "sm_9a"])
def test_parse_arch_matches_the_architecture_pattern(text):
    match = _ARCH.fullmatch(text)
    assert parse_arch(text) == ((int(match.group(1)), match.group(2)) if match else None)


class _RefusingDriver:
    """libcuda entry points, faked: ``cuModuleLoadDataEx`` refuses every image and writes a JIT
    log when given log buffers (the first attempt passes none)."""

    def __init__(self):
        self.loads: list[int] = []

    def __call__(self, name: str):
        return getattr(self, name)

    def cuModuleLoadDataEx(self, handle, data, count, options, values) -> int:
        self.loads.append(count)
        if count:
            log = b"ptxas fatal   : Unresolved extern function 'nowhere'"
            ctypes.memmove(values[0], log, len(log))
        return 218  # CUDA_ERROR_INVALID_PTX

    def cuGetErrorName(self, code, name) -> int:
        ctypes.cast(name, ctypes.POINTER(ctypes.c_char_p))[0] = b"CUDA_ERROR_INVALID_PTX"
        return 0

    def cuGetErrorString(self, code, text) -> int:
        ctypes.cast(text, ctypes.POINTER(ctypes.c_char_p))[0] = b"a PTX JIT compilation failed"
        return 0


def test_a_refused_module_is_reported_with_the_jit_log(monkeypatch):
    fake = _RefusingDriver()
    monkeypatch.setattr(driver, "entry_point", fake)
    monkeypatch.setattr(driver, "activate", lambda ordinal=0: None)
    with pytest.raises(driver.CudaError, match="(?s)CUDA_ERROR_INVALID_PTX.*loading a PTX.*Unresolved extern"):
        driver.load_module(".version 8.0\n.target sm_90a\n", 0)
    assert fake.loads == [0, 4]  # no log buffers on the first attempt


def test_a_cached_cuda_kernel_reads_its_cubin_first_and_the_other_stages_on_use(tmp_path, monkeypatch):
    import kernellab as kl
    from kernellab.runtime.cache import DiskCache
    from tests.runtime import sample_kernels as sk

    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    compiled = kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 64}, target="cuda:sm_90a")
    (tmp_path / compiled.hash / "llvm.txt").write_text("damaged")  # a stage launching does not read
    loaded = kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 64}, target="cuda:sm_90a")
    assert loaded.origin == "disk" and loaded.metadata == compiled.metadata
    assert f"stages {', '.join(compiled.asm)}" in repr(loaded)  # every stage named, one read
    with pytest.warns(RuntimeWarning, match="could not be read back"):
        assert loaded.asm == compiled.asm  # compiled again
    assert DiskCache(tmp_path).load(compiled.hash)[0] == compiled.asm  # and stored again


def test_the_launch_entry_point_keeps_the_gil_and_makes_no_ctypes_class(monkeypatch):
    """cuLaunchKernelEx is called through a function pointer of ctypes.pythonapi's own type (the
    GIL held, as a PyDLL calls): a PyDLL of libcuda made a class per process."""
    calls = []

    def launch(config, function, params, extra):
        calls.append((config, function, params, extra))
        return 7

    prototype = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    stand_in = prototype(launch)

    class Library:
        cuLaunchKernelEx = stand_in

    monkeypatch.setattr(driver, "library", lambda: Library)
    driver.launch_entry.cache_clear()
    try:
        entry = driver.launch_entry()
        assert type(entry) is ctypes.pythonapi._FuncPtr and entry._flags_ & ctypes._FUNCFLAG_PYTHONAPI
        assert entry(16, 32, 48, None) == 7
    finally:
        driver.launch_entry.cache_clear()
    assert calls == [(16, 32, 48, None)]
