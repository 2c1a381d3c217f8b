"""Triton's runtime names in kernellab: reinterpret, MockTensor, source patching, cache_key,
device_caches, ASTSource, KernelInterface, set_allocator, AsyncCompileMode, knobs, and the
device helpers of ``triton.testing`` on a machine without a GPU."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import ml_dtypes
import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import knobs, testing
from kernellab.compiler import ASTSource


@kl.jit
def copy_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.float32))


def test_reinterpret_passes_bytes_as_fp8(inputs, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    values = inputs.normal(16).astype(ml_dtypes.float8_e5m2)
    raw = values.view(np.uint8).copy()
    out = inputs.poisoned(16)
    copy_kernel[(1,)](kl.reinterpret(raw, tl.float8e5), out, 16)
    np.testing.assert_array_equal(out, values.astype(np.float32))
    wrapped = kl.reinterpret(raw, tl.float8e5)
    assert kl.reinterpret(wrapped, tl.uint8) is raw and wrapped.element_size() == 1
    with pytest.raises(ValueError, match="keeps the element width"):
        kl.reinterpret(raw, tl.float32)
    with pytest.raises(TypeError, match="cannot reinterpret"):
        kl.reinterpret([1, 2], tl.int8)


def test_mock_tensor_warms_up(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    compiled = copy_kernel.warmup(kl.MockTensor(np.dtype(np.float16)), kl.MockTensor(tl.float32), 8, grid=(1,))
    assert compiled.metadata.signature == {"x_ptr": "*fp16", "out_ptr": "*fp32"}
    assert kl.MockTensor.wrap_dtype(3) == 3 and kl.MockTensor(tl.float32, [4, 8]).stride() == (8, 1)


def _fresh_kernel():
    @kl.jit
    def patched(x_ptr, out_ptr):
        offs = tl.arange(0, 8)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1)

    return patched


def test_source_patching_recompiles(host_target, inputs):
    kernel = _fresh_kernel()
    x, out = inputs.normal(8), inputs.poisoned(8)
    kernel[(1,)](x, out)
    np.testing.assert_allclose(out, x + 1)
    key = kernel.cache_key
    assert len(kernel.device_caches[0][0]) == 1
    kernel._unsafe_update_src(kernel.src.replace("+ 1", "* 3"))
    assert kernel.cache_key != key and len(kernel.device_caches[0][0]) == 0
    kernel[(1,)](x, out)
    np.testing.assert_allclose(out, x * 3, rtol=1e-6)
    kernel.src = kernel.src.replace("* 3", "- 2")
    kernel[(1,)](x, out)
    np.testing.assert_allclose(out, x - 2, rtol=1e-6)


def _closure_kernel(scale, block):
    @kl.jit
    def scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK) % block
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * scale)

    return scaled


def test_a_patched_closure_kernel_keeps_its_closure_variables(host_target, inputs):
    # Triton reads a patched kernel's free names from the original function's closure
    kernel = _closure_kernel(3.0, 8)
    kernel._unsafe_update_src(kernel.src.replace("* scale", "* scale + 1"))
    x, out = inputs.normal(8), inputs.poisoned(8)
    kernel[(1,)](x, out, BLOCK=8)  # BLOCK stays a constexpr (tl.arange needs one)
    np.testing.assert_allclose(out, x * 3 + 1, rtol=1e-6)
    kernel.src = kernel.src.replace("* scale + 1", "- 2")  # `scale` no longer read
    kernel[(1,)](x, out, BLOCK=8)
    np.testing.assert_allclose(out, x - 2, rtol=1e-6)


def test_a_patched_kernel_reports_errors_on_the_patched_line(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    kernel = _fresh_kernel()
    kernel._unsafe_update_src(kernel.src.replace("+ 1", "+ undefined_name"))
    with pytest.raises(kl.CompilationError, match=r"(?s)<kernellab-patched patched \w+>:3:.*undefined_name") as error:
        kernel[(1,)](np.ones(8, np.float32), np.zeros(8, np.float32))
    assert "tl.load(x_ptr + offs) + undefined_name" in str(error.value)
    with pytest.raises(kl.CompilationError, match="not valid Python"):
        kernel._unsafe_update_src("def patched(x_ptr, out_ptr):\n    tl.store(\n")


def test_compile_takes_an_ast_source(monkeypatch):
    source = ASTSource(copy_kernel, signature={"x_ptr": "*fp16", "out_ptr": "*fp32", "N": "constexpr"},
                       constexprs={"N": 8}, attrs={(0,): [["tt.divisibility", 16]]})
    compiled = kl.compile(source, target="interpret", options={"num_warps": 2})
    assert compiled.metadata.num_warps == 2 and compiled.metadata.constexprs == {"N": 8}
    assert compiled.metadata.specialization == {"x_ptr": {"divisibility": 16}}


def test_kernel_interface_and_allocator():
    assert isinstance(copy_kernel, kl.KernelInterface)
    assert not isinstance(object(), kl.KernelInterface)

    class Doubling(kl.KernelInterface):
        def run(self, *args, grid, warmup, **kwargs):
            return [2 * a for a in args], grid

    assert Doubling()[(4,)](1, 2) == ([2, 4], (4,))
    kl.set_allocator(lambda size, alignment, stream: np.empty(size, np.uint8))
    with pytest.raises(TypeError, match="takes a function"):
        kl.set_allocator(3)


def test_set_allocator_none_takes_the_allocator_away():
    """torchao's NVFP4 quantization sets an allocator for its launch and resets it with
    triton.set_allocator(None) in a finally (Triton accepts None)."""
    from kernellab.runtime.interface import get_allocator

    def allocate(size, alignment, stream):
        return np.empty(size, np.uint8)

    kl.set_allocator(allocate)
    assert get_allocator() is allocate
    kl.set_allocator(None)
    with pytest.raises(RuntimeError, match="no allocator is set"):
        get_allocator()(64, 16, None)


def test_async_compile_mode_compiles_warmups_on_the_executor(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    with ThreadPoolExecutor(2) as pool, kl.AsyncCompileMode(pool):
        futures = [copy_kernel.warmup(tl.float32, tl.float32, n, grid=(1,)) for n in (2, 4)]
        assert all(isinstance(f, kl.FutureKernel) for f in futures)
    assert [f.result().metadata.constexprs["N"] for f in futures] == [2, 4]


def test_knobs_are_kernellabs_settings(monkeypatch):
    from kernellab import config

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.delenv("KERNELLAB_INTERPRET", raising=False)
    assert knobs.runtime.interpret is False
    with knobs.runtime.scope():
        knobs.runtime.interpret = True
        assert config.forced_target() == "interpret"
    assert config.forced_target() != "interpret" and knobs.runtime.interpret is False
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    monkeypatch.delenv("KERNELLAB_PRINT_AUTOTUNING", raising=False)
    with knobs.autotuning.scope():
        knobs.autotuning.print = True
        assert config.print_autotuning()
    assert not config.print_autotuning()
    with pytest.raises(AttributeError, match="has no knob 'nope'"):
        knobs.cache.nope = 1
    with pytest.warns(UserWarning, match="does not act on it"):
        knobs.compilation.override = True
    knobs.compilation.reset()


def test_device_helpers_without_a_gpu():
    from kernellab.runtime.driver import active

    if active.is_cuda():
        assert testing.get_dram_gbps() > 0
        return
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        testing.get_dram_gbps()
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        testing.get_max_tensorcore_tflops(tl.float16, 1_800_000)

    calls = []

    @testing.cuda_memcheck(x=1)
    def case(x, request=None):
        calls.append(x)

    case(x=1)
    assert calls == [1]


def test_tritons_stage_names_read_kernellabs_stages():
    compiled = kl.compile(copy_kernel, signature={"x_ptr": "*fp16", "out_ptr": "*fp32"}, constexprs={"N": 8},
                          target="cpu")
    assert compiled.asm["ttir"] is compiled.asm["tile"] and "load" in compiled.asm["ttir"]
    assert compiled.asm["ttgir"] is compiled.asm["tile"]  # no GPU form on the CPU target
    assert compiled.asm["llir"] is compiled.asm["llvm"]
    assert "ttir" not in compiled.asm.keys()
    with pytest.raises(KeyError):
        compiled.asm["ptx"]
    gpu = kl.compile(copy_kernel, signature={"x_ptr": "*fp16", "out_ptr": "*fp32"}, constexprs={"N": 8},
                     target="cuda:sm_90a")
    assert gpu.asm["ttgir"] is gpu.asm["tile.gpu"]


@kl.jit
def narrow_descriptor_kernel(ptr):
    desc = tl.make_tensor_descriptor(ptr, [16, 16], [16, 1], [1, 2])  # 8 bytes: below the 16 a block needs
    desc.load([0, 0])


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_a_compile_error_on_the_interpreter_is_an_interpreter_error_too(monkeypatch, target):
    # Triton's interpreter reports a kernel's errors as InterpreterError, compiled Triton as
    # CompilationError: tests written for both (pytest.raises(errc)) catch kernellab's on either
    monkeypatch.setenv("KERNELLAB_TARGET", target)
    with pytest.raises(kl.CompilationError, match="at least 16 bytes in the last dimension") as error:
        narrow_descriptor_kernel[(1,)](np.zeros((16, 16), np.int32))
    assert isinstance(error.value, kl.InterpreterError) == (target == "interpret")
    assert type(error.value).__name__ == "CompilationError"


def test_launch_attribute_options_are_taken_on_every_target(host_target, inputs):
    # Triton's launch_cooperative_grid / launch_pdl: cuLaunchKernelEx attributes on the GPU
    # (tests/backends/cuda/test_launch_checks.py); the host targets run every program anyway
    x, out = inputs.normal(8), inputs.poisoned(8)
    for flags in ({"launch_cooperative_grid": True}, {"launch_pdl": True}, {"launch_cooperative_grid": False}):
        out[:] = np.nan
        copy_kernel[(1,)](x, out, 8, **flags)
        np.testing.assert_array_equal(out, x)
    with pytest.raises(ValueError, match="launch_pdl must be True or False"):
        copy_kernel[(1,)](x, out, 8, launch_pdl="yes")


def test_amd_tuning_options_are_ignored_on_the_host_and_refused_on_cuda(host_target, inputs):
    """Triton code that autotunes over `cuda_configs if is_cuda() else hip_configs` (tutorial 03)
    gives the host targets AMD's options; they mean nothing there.  Triton's CUDA backend refuses
    them, and so does the CUDA target."""
    x, out = inputs.normal(8), inputs.poisoned(8)
    copy_kernel[(1,)](x, out, 8, waves_per_eu=2, matrix_instr_nonkdim=16, kpack=2)
    np.testing.assert_array_equal(out, x)
    tuned = kl.autotune([kl.Config({"waves_per_eu": 3, "matrix_instr_nonkdim": 16}, num_warps=4, num_stages=2)],
                        key=[])(kl.jit(copy_kernel.fn))
    out[:] = np.nan
    tuned[(1,)](x, out, 8)
    np.testing.assert_array_equal(out, x)
    with pytest.raises(ValueError, match="unknown CUDA compile option.*waves_per_eu"):
        kl.compile(copy_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"}, constexprs={"N": 8},
                   target="cuda:sm_90a", options={"waves_per_eu": 2})


def _named(specialization) -> str:
    ty = specialization.signature["n"]
    ones = "_".join(k for k, v in specialization.constants.items() if v == 1)
    return f"scale_{ty}_{ones}"


@kl.jit(repr=_named)
def scale_kernel(x_ptr, out_ptr, n, one, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * (one + 1), mask=mask)


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_repr_names_the_compiled_kernel(monkeypatch, inputs, target):
    # Triton's @jit(repr=...): the kernel is named after its specialization (profilers show it)
    monkeypatch.setenv("KERNELLAB_TARGET", target)
    x, out = inputs.normal(8), inputs.poisoned(8)
    compiled = scale_kernel[(1,)](x, out, 8, 1, BLOCK=8)
    np.testing.assert_array_equal(out, x * 2)
    assert compiled.name == "scale_i32_one"
    big = scale_kernel.warmup(x, out, 2**40, 1, BLOCK=8, grid=(1,))
    assert big.name == "scale_i64_one"


def test_repr_names_the_ptx_entry():
    compiled = kl.compile(scale_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "one": "i32"},
                          constexprs={"BLOCK": 8}, target="cuda:sm_90a")
    assert compiled.name == "scale_i32_" and ".entry scale_i32_(" in compiled.asm["ptx"]


def test_constexpr_functions_are_instances_of_tritons_class():
    from kernellab.runtime.jit import ConstexprFunction

    @kl.constexpr_function
    def doubled(n):
        return n * 2

    assert isinstance(doubled, ConstexprFunction) and not isinstance(len, ConstexprFunction)
    assert doubled.fn is doubled and doubled.src == "def doubled(n):\n    return n * 2\n"  # as Triton's src
    assert doubled(4) == 8
