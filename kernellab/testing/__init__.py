"""``kernellab.testing``: Triton's ``triton.testing`` — timing (``do_bench``,
``do_bench_cudagraph``), plotted benchmark sweeps (``Benchmark``, ``perf_report``) and
``assert_close``; the device helpers (``get_dram_gbps``, ``nvsmi``... : ``devices.py``).

The timers live in the runtime (``runtime.autotuning.timing``: the autotuner uses them and the
runtime sits below this module); they are public here.
"""

from __future__ import annotations

from ..runtime.autotuning.timing import do_bench, do_bench_cudagraph
from .compare import assert_close
from .devices import cuda_memcheck, get_dram_gbps, get_max_simd_tflops, get_max_tensorcore_tflops, nvsmi, set_gpu_clock
from .report import Benchmark, Mark, perf_report

__all__ = ["do_bench", "do_bench_cudagraph", "assert_close", "Benchmark", "Mark", "perf_report", "cuda_memcheck",
           "get_dram_gbps", "get_max_simd_tflops", "get_max_tensorcore_tflops", "nvsmi", "set_gpu_clock"]
