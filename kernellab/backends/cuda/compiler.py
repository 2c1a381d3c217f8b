"""The CUDA code generator: Tile IR -> ``tile.gpu`` (layouts) -> NVPTX LLVM IR -> PTX.

``compile_to_ptx`` needs no GPU: PTX for any ``sm_XX`` is produced here, and the driver side
(``backend.py``) assembles and loads it.

Contract with the driver: the returned dict has the stages ``tile.gpu``, ``llvm`` and ``ptx``;
``metadata`` gets

* ``name``: the kernel's PTX entry symbol;
* ``num_warps`` and ``threads_per_block`` (= 32 * num_warps): the CTA to launch;
* ``shared``: bytes of *dynamic* shared memory the launch must pass (the kernel declares no
  static shared memory; above 48 KiB the launcher must raise the function's
  ``MAX_DYNAMIC_SHARED_SIZE_BYTES`` attribute, as for Triton kernels);
* ``arg_types``: the kernel's parameters in order, in Triton's signature spelling (``*fp32``,
  ``i32``, ``fp16``...): pointers are 64-bit, ``i1`` is passed as one byte, half types as 16 bits;
* ``arch`` and ``ptx_version``;
* ``compile_seconds``: per stage;
* ``line_map``: ``{stage: [[stage line, source line], ...]}`` for ``tile.gpu``.
"""

from __future__ import annotations

import time

from ... import config
from ...ir.core import Module
from ...ir.parser import parse_module
from ...ir.printer import print_module
from ...ir.types import to_signature
from .layouts.assign import plan_module
from .layouts.printer import print_gpu
from .lower.module import ModuleLowering
from .pipeline import pipeline_module
from .ptx import data_layout, emit_ptx, ptx_features

DEFAULT_NUM_WARPS = 4


def compile_to_ptx(module: Module, options: dict, metadata: dict, arch: str = "sm_90a") -> dict:
    """Compile ``module`` (its entry kernel and callees) to PTX for ``arch``."""
    num_warps = int(options.get("num_warps") or DEFAULT_NUM_WARPS)
    if num_warps < 1 or num_warps & (num_warps - 1) or num_warps > 32:
        raise ValueError(f"num_warps must be a power of two between 1 and 32, got {num_warps}")
    seconds = metadata.setdefault("compile_seconds", {})
    start = time.perf_counter()
    stages = int(options.get("num_stages", 3) if options.get("num_stages") is not None else 3)
    if config.cuda_pipelining() and stages >= 2 and any(op.name == "dot" for op in module.walk()):
        module = parse_module(print_module(module))  # the rewrite works on a copy
        metadata["pipelined_loads"] = pipeline_module(module, stages, num_warps)
    plans = plan_module(module, num_warps)
    planned = time.perf_counter()
    lowering = ModuleLowering(module, plans, num_warps)
    llmod = lowering.lower()
    llmod.data_layout = data_layout(arch)
    llvm_text = lowering.text()
    lowered = time.perf_counter()
    gpu_text, gpu_lines = print_gpu(module, plans)
    printed = time.perf_counter()
    kernel = module.kernel
    ptx = emit_ptx(llvm_text, arch, kernel.name, bool(lowering.nvvm.libdevice_used))
    done = time.perf_counter()
    seconds["tile.gpu"] = (planned - start) + (printed - lowered)
    seconds["llvm"] = lowered - planned
    seconds["ptx"] = done - printed
    metadata.update({
        "name": kernel.name,
        "num_warps": num_warps,
        "threads_per_block": 32 * num_warps,
        "shared": lowering.shared_size,
        "arg_types": [to_signature(t) for t in kernel.arg_types],
        "arch": arch,
        "ptx_version": ptx_features(arch).removeprefix("+ptx"),
    })
    metadata.setdefault("line_map", {})["tile.gpu"] = [[line, loc.line] for line, loc in gpu_lines]
    return {"tile.gpu": gpu_text, "llvm": llvm_text, "ptx": ptx}
