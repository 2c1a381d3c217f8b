"""The CUDA backend: options, the toolchain's identity, PTX -> cubin, and loading.

``compile`` runs the code generator (``compiler.compile_to_ptx``: ``tile.gpu``, ``llvm``,
``ptx``) and then ptxas (``cubin``, with registers, spills and shared memory in the metadata:
``assemble.py``, imported only to compile); without ptxas the PTX is kept and the driver
compiles it at load.  ``sass`` is not compiled: it is a *lazy stage* (``lazy_stages``),
disassembled from the cubin the first time someone reads it.  ``load`` puts the code on the
current device and returns a :class:`CudaLauncher`.  Nothing here needs a device except
``load`` (and the default ``arch``, read from the device when there is one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import _VERSION
from ...errors import LaunchError
from ...ir import types as T
from .. import toolchain
from ..capabilities import DOT_INPUT_PRECISIONS, Capabilities
from ..options import SHARED_DEFAULTS, TRITON_OPTIONS, shared_options, triton_options
from . import driver, launcher

DEFAULT_ARCH = "sm_90a"

_DEFAULTS: dict[str, Any] = {**SHARED_DEFAULTS, "arch": None, **TRITON_OPTIONS}


def parse_arch(text: Any) -> tuple[int, str] | None:
    """``(version, suffix)`` of an architecture (``sm_90a`` -> ``(90, "a")``), or None when
    ``text`` is not one (``sm_`` with 2 or 3 digits, then ``a``, ``f`` or nothing)."""
    if not isinstance(text, str) or not text.startswith("sm_"):
        return None
    body = text[3:]
    suffix = body[-1:] if body[-1:] in ("a", "f") else ""
    digits = body[:len(body) - len(suffix)]
    if not (2 <= len(digits) <= 3 and digits.isascii() and digits.isdigit()):
        return None
    return int(digits), suffix


def sass_stage(asm: dict) -> str:
    """The ``sass`` stage of a compiled kernel, from its cubin."""
    if "cubin" not in asm:
        raise LaunchError("this kernel has no cubin, which SASS is disassembled from: no ptxas was found when it "
                          "was compiled (its PTX is kept, for the driver to compile at load); pip install "
                          "nvidia-cuda-nvcc (or put ptxas on PATH) and recompile")
    from .sass import sass  # only when someone reads the stage

    return sass(asm["cubin"])


class CudaBackend:
    """Tile IR -> PTX -> cubin for NVIDIA GPUs, launched through the CUDA driver."""

    name = "cuda"
    capabilities = Capabilities(
        # Triton's NVIDIA rules: K >= 16 (32 on 8-bit operands), any M and N (kernellab: FMA below
        # the tensor cores' tile); fp8e4b15 and fp8e5 everywhere, fp8e4nv from sm_89, fp8e4b15's
        # tl.dot deprecated from sm_90
        name="cuda", gpu=True, launches_host_arrays=False, array_location="cuda", min_dot_size=(1, 1, 16),
        min_dot_size_8bit=(1, 1, 32), fp8_types=("fp8e4b15", "fp8e5"), more_fp8_types=((89, "fp8e4nv"),),
        deprecated_fp8_dot_operands=((90, "fp8e4b15"),),
        dot_input_precisions=DOT_INPUT_PRECISIONS, default_dot_input_precision="tf32", debug_by_default=False,
        parallel_compile="threads", timer="cuda_events", native_launch="cuda_driver",
        reported_metadata=("arch", "registers", "spills", "shared", "threads_per_block", "cubin_from"),
        triton_backend="cuda", triton_package="nvidia", warp_size=32, arch_prefix="sm_", specific_arch_from=90,
        # Triton's set with the tensor memory accelerator (sm_90+); kernellab computes fp16/bf16 min
        # and max by compare-and-swap loops (PTX has no such atom): lower/memory.py
        more_descriptor_reductions=tuple((90, kind, (T.f16, T.bf16)) for kind in ("min", "max")))
    wants_buffers = False  # pointer arguments arrive as int device addresses
    load_stages = ("cubin", "ptx")  # what load() reads: the first the kernel has (a cache hit reads no other)
    lazy_stages: dict[str, Callable[[dict], str | bytes]] = {"sass": sass_stage}

    def __init__(self, target: str = "cuda"):
        name, _, arch = target.partition(":")
        if name != "cuda" or (arch and parse_arch(arch) is None):
            raise ValueError(f"a CUDA target is 'cuda' or 'cuda:sm_XX' (e.g. 'cuda:sm_90a'), got {target!r}")
        self.target = target
        self.arch = arch or None

    def __repr__(self) -> str:
        return f"CudaBackend({self.target!r})"

    # -- options ------------------------------------------------------------------------------

    def options(self, **user: Any) -> dict:
        """Validated options with defaults: ``num_warps`` (a power of two, 1..32), ``num_stages``,
        ``num_ctas`` (1; 2, 4 or 8 on sm_90+: a cluster per program, ``lower/cluster.py``), ``maxnreg``
        (None or 1..255), ``debug``, ``enable_fp_fusion`` and ``arch`` (the target's, else the current
        device's, else ``sm_90a``; Triton's ``sm90a`` spelling too)."""
        unknown = sorted(set(user) - set(_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown CUDA compile option(s) {', '.join(unknown)}; the options are "
                             f"{', '.join(_DEFAULTS)}")
        options = {**shared_options(user), "arch": user.get("arch"), **triton_options(user)}
        options["arch"] = _arch(options["arch"] or self.arch or default_arch())
        _check_cluster(options["num_ctas"], options["arch"])
        return options

    def version_key(self) -> str:
        """kernellab's, llvmlite's and ptxas's identities (ptxas by path, size and time, so
        that no subprocess runs to compute a cache key), whether the code generator pipelines
        dot operand loads (``KERNELLAB_CUDA_PIPELINE``) and caps a tensor-core kernel's registers
        at an occupancy cliff (``KERNELLAB_CUDA_REGISTER_CAP``)."""
        from ... import config

        found = toolchain.remembered("cuda", ("KERNELLAB_PTXAS",), _find_toolchain)
        return (f"kernellab-{_VERSION};llvmlite-{found['llvmlite']};{found['ptxas']};"
                f"pipeline={config.cuda_pipeline_mode()};regcap={int(config.cuda_register_cap())}")

    # -- compile ------------------------------------------------------------------------------

    def compile(self, module: Any, options: dict, metadata: dict) -> dict[str, str | bytes]:
        """``tile.gpu``, ``llvm``, ``ptx`` and (with ptxas) ``cubin``; fills the metadata."""
        from .assemble import compile_kernel  # compiling only: a cache hit imports no code generator

        return compile_kernel(module, options, metadata)

    override_stages = ("ptx",)

    def compile_from(self, stage: str, text: str, module: Any, options: dict, metadata: dict
                     ) -> dict[str, str | bytes]:
        """The stages with an edited ``ptx`` (``ir_override``): the code generator still runs
        for the launch metadata (shared memory, argument types), its PTX is replaced."""
        if stage not in self.override_stages:
            raise ValueError(f"the cuda target can start from the ptx stage only, not {stage!r}")
        from .assemble import compile_from_ptx

        return compile_from_ptx(text, module, options, metadata)

    # -- load ---------------------------------------------------------------------------------

    def device_identity(self) -> str:
        """The GPU timings are measured on (``"NVIDIA H200 sm_90"``): part of an autotuning
        result's key; the target string when no device answers."""
        try:
            ordinal = driver.current_device() or 0
            properties = driver.properties(ordinal)
            return f"{properties.name} {properties.arch}"
        except Exception:  # no device (or no driver): the target string is all there is
            return self.target

    def to_device(self, array: Any) -> Any:
        """A device copy of host ``array`` (numpy), readable back with ``.numpy()``: how the
        notebook layer places host arrays for a target that does not launch host memory."""
        from .device_array import to_device

        return to_device(array)

    def load(self, asm: dict, metadata: dict) -> launcher.CudaLauncher:
        """Load the kernel on the current device (device 0 when no context is current)."""
        driver.init()
        ordinal = driver.current_device()
        properties = driver.properties(0 if ordinal is None else ordinal)
        _check_arch(metadata, properties, "cubin" in asm)
        launcher.check_resources(metadata, properties)
        image = asm["cubin"] if "cubin" in asm else asm["ptx"]
        module = driver.load_module(image, properties.ordinal)
        return launcher.load(module, _launch_metadata(metadata), properties)


def _find_toolchain() -> tuple[dict[str, Any], list[str]]:
    """llvmlite's version and ptxas's identity, and the file that identity names (for
    ``toolchain.remembered``, which a new process asks instead of searching)."""
    import llvmlite  # the package's version only: llvmlite.binding is not imported

    from . import tools  # a new process asks toolchain.remembered, which calls this only on a change

    path = tools.find_ptxas()
    return {"llvmlite": llvmlite.__version__, "ptxas": tools.identity(path)}, [path] if path else []


def default_arch() -> str:
    """The current device's architecture (``sm_90a`` on an H200), or ``sm_90a`` without one."""
    if not driver.available():
        return DEFAULT_ARCH
    ordinal = driver.current_device()
    return driver.properties(0 if ordinal is None else ordinal).arch


def _launch_metadata(metadata: dict) -> dict:
    """The metadata the launcher reads: the parameter types come from the code generator
    (``arg_types``) or else from the runtime's signature."""
    if "arg_types" not in metadata and "signature" in metadata:
        metadata["arg_types"] = list(metadata["signature"].values())
    return metadata


def runs_on(arch: str, device_arch: str, binary: bool) -> bool:
    """Whether code compiled for ``arch`` runs on a device of ``device_arch``: a cubin needs the
    same major version and a minor one no newer than the device's; PTX needs an architecture
    no newer than the device's; ``sm_XXa`` code runs on ``sm_XX`` alone."""
    if arch == device_arch:
        return True
    compiled, device = parse_arch(arch), parse_arch(device_arch)
    if compiled is None or device is None or compiled[1]:
        return False
    version, device_version = compiled[0], device[0]
    if binary:
        return version // 10 == device_version // 10 and version <= device_version
    return version <= device_version


def _check_arch(metadata: dict, properties: driver.DeviceProperties, binary: bool) -> None:
    arch = metadata.get("arch")
    if arch is not None and not runs_on(arch, properties.arch, binary):
        raise LaunchError(f"{metadata.get('name', 'the kernel')} was compiled for {arch} but cuda:{properties.ordinal} "
                          f"({properties.name}) is {properties.arch}; compile for target 'cuda:{properties.arch}'")


def _arch(value: Any) -> str:
    """The architecture option; Triton's spelling (``sm90a``, ``sm80``) is taken as ``sm_90a``."""
    if isinstance(value, str) and value.startswith("sm") and not value.startswith("sm_"):
        value = "sm_" + value[2:]
    if parse_arch(value) is None:
        raise ValueError(f"arch must look like 'sm_90a' or 'sm_80', got {value!r}")
    return value


MAX_CLUSTER = 8  # CTAs per cluster that every sm_90+ GPU can launch (a portable cluster size)


def _check_cluster(num_ctas: int, arch: str) -> None:
    """``num_ctas`` is 1, or a power of two up to 8 on sm_90+ (a thread-block cluster)."""
    if num_ctas == 1:
        return
    if parse_arch(arch)[0] < 90:
        raise ValueError(f"num_ctas > 1 requires NVIDIA SM90+ (Hopper): num_ctas={num_ctas} makes a program a "
                         f"cluster of {num_ctas} CTAs, and {arch} has no thread-block clusters")
    if num_ctas & (num_ctas - 1) or num_ctas > MAX_CLUSTER:
        raise ValueError(f"num_ctas must be 1, 2, 4 or 8 (CTAs per cluster), got {num_ctas}")


__all__ = ["CudaBackend", "DEFAULT_ARCH", "default_arch", "sass_stage", "runs_on"]
