"""Triton's device helpers in ``triton.testing``: peak figures of a GPU (``get_dram_gbps``,
``get_max_tensorcore_tflops``, ``get_max_simd_tflops``), ``nvidia-smi`` queries and clock locks
(``nvsmi``, ``set_gpu_clock``) and ``cuda_memcheck``.

Without a CUDA GPU the peak figures and ``nvidia-smi`` helpers raise a ``RuntimeError`` saying
so (there is no figure to give); ``cuda_memcheck`` then runs the test as it is.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .. import config

# Dense multiply-adds per clock per SM sub-core (4 per SM), by element type name, from
# compute capability 8.0 on (Ampere, Hopper); tensor cores, then the SIMD units.
_TENSOR_CORE_OPS = {"fp32": 256, "int32": 256, "fp16": 512, "bf16": 512, "int16": 512,
                    "int8": 1024, "fp8e4nv": 1024, "fp8e4b15": 1024, "fp8e5": 1024}
_SIMD_OPS = {"fp32": 32, "fp16": 64, "bf16": 64}


def _gpu_properties(device: Any, what: str) -> dict[str, Any]:
    from ..runtime.driver import active

    if not active.is_cuda():
        raise RuntimeError(f"{what} needs a CUDA GPU; none is visible on this machine")
    return active.utils.get_device_properties(active.get_current_device() if device is None else device)


def _type_name(dtype: Any) -> str:
    """A kernellab type, a torch dtype or a numpy dtype as kernellab's name (``fp16``)."""
    from ..ir import types as T
    from ..runtime import interop

    if isinstance(dtype, T.ScalarType):
        return dtype.name
    if type(dtype).__module__ == "torch":
        return interop.dtype_of_torch(dtype).name
    return T.from_numpy(dtype).name


def get_dram_gbps(device: Any = None) -> float:
    """The GPU memory's peak bandwidth in GB/s (double data rate over the bus width)."""
    props = _gpu_properties(device, "get_dram_gbps")
    return props["mem_clock_rate"] * props["mem_bus_width"] * 2 / 1e6 / 8


def _peak_tflops(table: dict[str, int], dtype: Any, clock_rate: float, device: Any, what: str) -> float:
    props = _gpu_properties(device, what)
    name = _type_name(dtype)
    if name not in table:
        raise RuntimeError(f"{what}: no figure for {name}; known: {', '.join(table)}")
    sub_cores = props["multiprocessor_count"] * 4
    return sub_cores * clock_rate * table[name] * 1e-9


def get_max_tensorcore_tflops(dtype: Any, clock_rate: float, device: Any = None) -> float:
    """Peak tensor-core TFLOP/s for ``dtype`` at ``clock_rate`` (kHz)."""
    return _peak_tflops(_TENSOR_CORE_OPS, dtype, clock_rate, device, "get_max_tensorcore_tflops")


def get_max_simd_tflops(dtype: Any, clock_rate: float, device: Any = None) -> float:
    """Peak TFLOP/s of the SIMD (non tensor-core) units for ``dtype`` at ``clock_rate`` (kHz)."""
    return _peak_tflops(_SIMD_OPS, dtype, clock_rate, device, "get_max_simd_tflops")


def _nvidia_smi(*arguments: str) -> str:
    program = shutil.which("nvidia-smi")
    if program is None:
        raise RuntimeError("nvidia-smi is not installed here (no NVIDIA driver on this machine)")
    return subprocess.check_output([program, "-i", "0", *arguments]).decode(sys.stdout.encoding or "utf-8")


def nvsmi(attrs: list[str]) -> list[int]:
    """``nvidia-smi --query-gpu=`` of GPU 0 for each attribute (e.g. ``clocks.current.sm``)."""
    out = _nvidia_smi("--query-gpu=" + ",".join(attrs), "--format=csv,noheader,nounits")
    return [int(x) for x in out.split(",")]


@contextmanager
def set_gpu_clock(ref_sm_clock: int = 1350, ref_mem_clock: int = 1215) -> Iterator[tuple[float, float]]:
    """Lock GPU 0's SM and memory clocks (MHz) for the block (needs administrator rights);
    yields the A100-based reference (TFLOP/s, GB/s) at those clocks, as Triton does."""
    try:
        _nvidia_smi("-pm", "1")
        _nvidia_smi(f"--lock-gpu-clocks={ref_sm_clock},{ref_sm_clock}")
        _nvidia_smi(f"--lock-memory-clocks={ref_mem_clock},{ref_mem_clock}")
        sm_clock, mem_clock = nvsmi(["clocks.current.sm"])[0], nvsmi(["clocks.current.memory"])[0]
        if abs(sm_clock - ref_sm_clock) >= 10 or abs(mem_clock - ref_mem_clock) >= 10:
            raise RuntimeError(f"the GPU runs at {sm_clock}/{mem_clock} MHz, not the locked "
                               f"{ref_sm_clock}/{ref_mem_clock} MHz")
        yield 1e-6 * 2 * 108 * 4 * 256 * ref_sm_clock, 640 * 2 * ref_mem_clock * 1e-3
    finally:
        if shutil.which("nvidia-smi"):
            for arguments in (("-pm", "0"), ("-rgc",), ("-rmc",)):
                _nvidia_smi(*arguments)


def cuda_memcheck(**target_kwargs: Any) -> Callable[[Callable], Callable]:
    """Decorate a pytest test: the cases whose arguments include ``target_kwargs`` run again in
    a child pytest under NVIDIA's ``compute-sanitizer`` (which must report no error).  Without a
    GPU or the sanitizer, and inside that child, the test runs as it is.  Such a test takes
    pytest's ``request`` fixture."""

    def decorator(test_fn: Callable) -> Callable:
        @functools.wraps(test_fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            sanitizer = shutil.which("compute-sanitizer")
            wanted = target_kwargs.items() <= kwargs.items()
            if not wanted or sanitizer is None or config.flag("KERNELLAB_MEMCHECK_CHILD") or not _has_gpu():
                return test_fn(*args, **kwargs)
            if "request" not in kwargs:
                raise TypeError(f"{test_fn.__name__} uses cuda_memcheck, so it must take pytest's `request` fixture")
            path = os.path.realpath(test_fn.__globals__["__file__"])
            case = f"{path}::{test_fn.__name__}[{kwargs['request'].node.callspec.id}]"
            env = {**os.environ, "KERNELLAB_MEMCHECK_CHILD": "1", "PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
            out = subprocess.run([sanitizer, sys.executable, "-m", "pytest", "-q", case], capture_output=True,
                                 text=True, env=env, check=False)
            if out.returncode != 0 or "ERROR SUMMARY: 0 errors" not in out.stdout:
                raise AssertionError(f"compute-sanitizer found errors in {case}:\n{out.stdout[-4000:]}")
            return None

        return wrapper

    return decorator


def _has_gpu() -> bool:
    from ..runtime.driver import active

    return active.is_cuda()


__all__ = ["get_dram_gbps", "get_max_tensorcore_tflops", "get_max_simd_tflops", "nvsmi", "set_gpu_clock",
           "cuda_memcheck"]
