"""The CUDA backend's options, registration, toolchain identity and architecture rules (no GPU)."""

from __future__ import annotations

import sys
import types

import pytest

from kernellab import backends
from kernellab.backends.cuda import driver
from kernellab.backends.cuda.backend import CudaBackend, runs_on
from kernellab.backends.cuda.driver import arch_of
from kernellab.errors import LaunchError


@pytest.fixture
def no_device(monkeypatch):
    monkeypatch.setattr(driver, "available", lambda: False)


def test_registered_for_cuda_and_cuda_with_an_arch():
    plain, sm80 = backends.get("cuda"), backends.get("cuda:sm_80")
    assert isinstance(plain, CudaBackend) and isinstance(sm80, CudaBackend)
    assert plain.name == "cuda" and sm80.arch == "sm_80" and plain.arch is None
    assert plain.wants_buffers is False
    with pytest.raises(ValueError, match="cuda:sm_XX"):
        CudaBackend("cuda:hopper")


def test_defaults_without_a_device(no_device):
    options = CudaBackend().options()
    assert options == {"num_warps": 4, "num_stages": 3, "num_ctas": 1, "maxnreg": None, "debug": False,
                       "enable_fp_fusion": True, "line_info": True, "launch_cooperative_grid": False,
                       "launch_pdl": False, "arch": "sm_90a", "sanitize_overflow": True,
                       "enable_reflect_ftz": True, "extern_libs": None, "supported_fp8_dtypes": None,
                       "instrumentation_mode": ""}


def test_tritons_options_that_torch_inductor_passes_are_taken(no_device):
    """Inductor compiles every CUDA kernel with sanitize_overflow=False (and enable_reflect_ftz=False
    where flushing is off); the integer-overflow checks of debug mode follow sanitize_overflow."""
    import kernellab as kl
    import kernellab.language as tl

    @kl.jit
    def scale(x, o, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(o + offs, tl.load(x + offs) * n)

    def asserts(**options):
        compiled = kl.compile(scale, signature={"x": "*i32", "o": "*i32", "n": "i32"}, constexprs={"BLOCK": 128},
                              target="cuda:sm_90a", options={"debug": True, **options})
        return "__assertfail" in compiled.asm["ptx"]

    assert asserts(sanitize_overflow=True) and not asserts(sanitize_overflow=False, enable_reflect_ftz=False)
    with pytest.raises(ValueError, match="unknown CUDA compile option"):
        CudaBackend().options(waves_per_eu=2)


def test_arch_comes_from_the_option_then_the_target(no_device):
    assert CudaBackend("cuda:sm_80").options()["arch"] == "sm_80"
    assert CudaBackend("cuda:sm_80").options(arch="sm_120a")["arch"] == "sm_120a"


def test_arch_defaults_to_the_current_device(monkeypatch):
    from .driver_kit import H200

    monkeypatch.setattr(driver, "available", lambda: True)
    monkeypatch.setattr(driver, "current_device", lambda: None)
    monkeypatch.setattr(driver, "properties", lambda ordinal=0: H200)
    assert CudaBackend().options()["arch"] == "sm_90a"


def test_given_options_are_kept(no_device):
    options = CudaBackend().options(num_warps=8, num_stages=5, maxnreg=128, debug=True, enable_fp_fusion=False)
    assert (options["num_warps"], options["num_stages"], options["maxnreg"]) == (8, 5, 128)
    assert options["debug"] is True and options["enable_fp_fusion"] is False
    assert CudaBackend().options(num_warps=None)["num_warps"] == 4


@pytest.mark.parametrize("bad, message", [
    ({"num_warps": 3}, "power of two"),
    ({"num_warps": 0}, "num_warps must be an int >= 1"),
    ({"num_warps": 4.0}, "num_warps must be an int"),
    ({"num_ctas": 3}, "num_ctas must be 1, 2, 4 or 8"),
    ({"num_stages": -1}, "num_stages must be an int >= 0"),
    ({"maxnreg": 300}, "at most 255"),
    ({"maxnreg": 0}, "maxnreg must be an int >= 1"),
    ({"debug": "yes"}, "debug must be True or False"),
    ({"arch": "hopper"}, "sm_90a"),
    ({"num_warp": 4}, "unknown CUDA compile option"),
])
def test_bad_options_say_what_is_allowed(no_device, bad, message):
    with pytest.raises(ValueError, match=message):
        CudaBackend().options(**bad)


def test_version_key_names_the_toolchain(monkeypatch):
    import llvmlite

    import kernellab

    monkeypatch.setenv("KERNELLAB_PTXAS", "")
    key = CudaBackend().version_key()
    assert f"kernellab-{kernellab.__version__}" in key and f"llvmlite-{llvmlite.__version__}" in key
    assert "ptxas:" in key


@pytest.mark.parametrize("arch, device, binary, expected", [
    ("sm_90a", "sm_90a", True, True),
    ("sm_90a", "sm_100a", False, False),   # arch-specific code runs on its own architecture only
    ("sm_80", "sm_86", True, True),        # a cubin runs on newer minors of its major
    ("sm_80", "sm_90a", True, False),      # ... but not on another major
    ("sm_80", "sm_90a", False, True),      # PTX is compiled forward by the driver
    ("sm_90", "sm_80", False, False),
])
def test_runs_on(arch, device, binary, expected):
    assert runs_on(arch, device, binary) is expected


def test_arch_of_compute_capabilities():
    assert arch_of(9, 0) == "sm_90a" and arch_of(8, 6) == "sm_86" and arch_of(10, 0) == "sm_100a"


def test_sass_is_a_lazy_stage_that_needs_a_cubin():
    assert set(CudaBackend.lazy_stages) == {"sass"}
    with pytest.raises(LaunchError, match="no cubin") as caught:
        CudaBackend.lazy_stages["sass"]({"ptx": "..."})
    # where to get ptxas, and no claim that a driver compiled anything (a laptop has none)
    assert "nvidia-cuda-nvcc" in str(caught.value) and "driver compiled" not in str(caught.value)


def test_compile_adds_a_cubin_and_resources_to_the_generators_stages(monkeypatch, no_device):
    """compile() runs ptxas on the code generator's PTX (the generator is replaced here by the
    hand-written kernel) and records the resources in the metadata."""
    from kernellab.backends.cuda import ptxas

    from .driver_kit import ADD_PTX

    if ptxas.find_ptxas() is None:
        pytest.skip("no ptxas installed")

    def fake_compile_to_ptx(module, options, metadata, arch):
        metadata.update(name="add_kernel", num_warps=options["num_warps"], compile_seconds={"ptx": 0.0})
        return {"tile.gpu": "...", "llvm": "...", "ptx": ADD_PTX}

    fake = types.ModuleType("kernellab.backends.cuda.compiler")
    fake.compile_to_ptx = fake_compile_to_ptx
    monkeypatch.setitem(sys.modules, "kernellab.backends.cuda.compiler", fake)
    metadata: dict = {}
    backend = CudaBackend()
    stages = backend.compile(None, backend.options(), metadata)
    # the PTX stage is what ptxas assembled: the generator's, at the PTX ISA version of that ptxas
    assert stages["cubin"].startswith(b"\x7fELF") and stages["ptx"] == ptxas.with_isa_of(ADD_PTX, ptxas.find_ptxas())
    assert metadata["registers"] > 0 and metadata["spills"] == 0 and metadata["arch"] == "sm_90a"
    assert metadata["compile_seconds"]["cubin"] > 0 and metadata["cubin_from"] == "ptxas"


def test_compiled_kernels_disassemble_sass_on_first_access():
    """A kernel compiled for CUDA (no GPU needed) has no ``sass`` until it is read."""
    from kernellab.backends.cuda import ptxas, sass
    from kernellab.runtime.compiled import CompiledKernel

    from .driver_kit import ADD_PTX

    if ptxas.find_ptxas() is None or not sass.available():
        pytest.skip("needs ptxas and nvdisasm or cuobjdump")
    cubin = ptxas.assemble(ADD_PTX, "sm_90a").cubin
    kernel = CompiledKernel({"ptx": ADD_PTX, "cubin": cubin}, {"name": "add_kernel", "target": "cuda:sm_90a"})
    assert "sass" not in kernel.asm
    text = kernel.asm["sass"]
    assert "add_kernel" in text and "FADD" in text and kernel.asm["sass"] is text and "sass" in kernel.asm
    with pytest.raises(KeyError):
        kernel.asm["nothing"]


def test_the_current_device_is_asked_after_the_driver_is_initialised(monkeypatch):
    """Triton's test helpers ask ``driver.active.get_current_target()`` at import, before any
    launch: cuCtxGetCurrent before cuInit fails with CUDA_ERROR_NOT_INITIALIZED."""
    calls = []
    monkeypatch.setattr(driver, "init", lambda: calls.append("cuInit"))
    monkeypatch.setattr(driver, "call", lambda entry, *args, **kwargs: calls.append(entry))
    assert driver.current_device() is None  # no context made current
    assert calls == ["cuInit", "cuCtxGetCurrent"]


def test_without_a_driver_the_error_says_what_runs_here(monkeypatch):
    """A laptop without an NVIDIA driver: kl.to_device or a CUDA launch says that kernels run on
    the CPU target here and that compiling for CUDA needs no driver; not the loader's errors for
    another system's library names (nvcuda.dll on Linux)."""
    import ctypes

    from kernellab.backends.cuda import driver

    def no_library(name, *args, **kwargs):
        raise OSError(f"{name}: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    driver.library.cache_clear()
    try:
        with pytest.raises(driver.NoDevice) as caught:
            driver.library()
    finally:
        driver.library.cache_clear()
    message = str(caught.value)
    assert "CPU target" in message and "target=\"cuda:sm_90a\"" in message
    other_systems = "libcuda.so" if sys.platform == "win32" else "nvcuda.dll"
    assert other_systems not in message
