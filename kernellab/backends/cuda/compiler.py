"""The CUDA code generator: Tile IR -> ``tile.gpu`` (layouts) -> NVPTX LLVM IR -> PTX.

f32 dots asked for ``tf32x3``/``bf16x3``/``bf16x6`` become several tensor-core dots first
(``dot_precision.py``).

``compile_to_ptx`` needs no GPU: PTX for any ``sm_XX`` is produced here, and the driver side
(``assemble.py``, ``backend.py``) assembles and loads it.

Contract with the driver: the returned dict has the stages ``tile.gpu``, ``llvm`` and ``ptx``;
``metadata`` gets

* ``name``: the kernel's PTX entry symbol;
* ``num_warps`` and ``threads_per_block`` (= 32 * num_warps): the CTA to launch;
* ``num_ctas``: CTAs per program; above 1 the kernel is compiled for clusters of that many CTAs
  (``.reqnctapercluster``) and the launch multiplies the grid's x by it (``lower/cluster.py``);
* ``shared``: bytes of *dynamic* shared memory the launch must pass (the kernel declares no
  static shared memory; above 48 KiB the launcher must raise the function's
  ``MAX_DYNAMIC_SHARED_SIZE_BYTES`` attribute, as for Triton kernels);
* ``arg_types``: the kernel's parameters in order, in Triton's signature spelling (``*fp32``,
  ``i32``, ``fp16``...): pointers are 64-bit, ``i1`` is passed as one byte, half types as 16 bits;
* ``arch`` and ``ptx_version``; ``libdevice``: whether libdevice is linked in;
  ``tensor_cores``: whether the kernel has a ``dot`` (the backend then tries a register cap at
  an occupancy cliff, ``occupancy.py``);
* ``tma`` (kernels whose rings the tensor memory accelerator fills): the hidden parameters after
  ``arg_types``, one 128-byte tensor map each, that the launch encodes from the parameters a
  :class:`~kernellab.backends.cuda.tma.TensorMapSpec` names;
* ``compile_seconds``: per stage;
* ``line_map``: ``{stage: [[stage line, source line], ...]}`` for ``tile.gpu``;
* ``pipelining`` (kernels whose loops feed ``dot`` from loads): how many loads a software-pipelined
  variant prefetches, the CTAs per SM (by registers, from ptxas) without and with it, and
  whether it is the variant returned (only when it keeps the occupancy).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ... import config
from ...ir.core import Module
from ...ir.parser import parse_module
from ...ir.printer import print_module
from ...ir.types import to_signature
from ...passes import record_pass
from . import ptxas
from .async_pipeline import NotPipelined, pipeline_async
from .dot_precision import decompose_precise_dots
from .layouts.assign import plan_module
from .layouts.printer import print_gpu
from .layouts.tensor_cores import arch_number
from .lower.module import ModuleLowering, register_limit
from .occupancy import ctas_by_registers
from .pipeline import pipeline_module
from .ptx import data_layout, emit_ptx, ptx_features

DEFAULT_NUM_WARPS = 4


@dataclass(frozen=True)
class Codegen:
    """What code generation needs beyond the module: the CTA's warps, the architecture, the
    register cap and whether float multiplies and adds may fuse into ``fma``
    (``enable_fp_fusion``, on by default as in Triton)."""

    num_warps: int
    arch: str
    maxnreg: int | None = None
    fp_fusion: bool = True
    tensor_cores: bool = False  # the module has a dot: PTX with cp.async goes through ptx.widen_offsets
    num_ctas: int = 1  # CTAs per program (a thread-block cluster, lower/cluster.py)
    line_info: bool = True  # .loc lines in the PTX (off: the line_info option, TRITON_DISABLE_LINE_INFO)


@dataclass
class _Generated:
    stages: dict
    shared: int
    name: str
    arg_types: list
    line_map: list
    seconds: dict
    tma: list  # metadata["tma"]: the hidden tensor-map parameters (tma.py)
    libdevice: bool  # whether libdevice is linked in (emit_ptx's use_libdevice)
    pipelined: tuple[str, str, float] | None = None  # (pass name, Tile IR after it, seconds)


def _generate(module: Module, codegen: Codegen) -> _Generated:
    """Layouts, LLVM IR and PTX of ``module``."""
    arch = codegen.arch
    start = time.perf_counter()
    plans = plan_module(module, codegen.num_warps, arch)
    planned = time.perf_counter()
    lowering = ModuleLowering(module, plans, codegen.num_warps, arch, fp_fusion=codegen.fp_fusion,
                              num_ctas=codegen.num_ctas, line_info=codegen.line_info)
    llmod = lowering.lower()
    llmod.data_layout = data_layout(arch)
    llvm_text = lowering.text(codegen.maxnreg)
    lowered = time.perf_counter()
    gpu_text, gpu_lines = print_gpu(module, plans)
    printed = time.perf_counter()
    kernel = module.kernel
    libdevice = bool(lowering.nvvm.libdevice_used)
    ptx = emit_ptx(llvm_text, arch, kernel.name, libdevice, codegen.tensor_cores)
    done = time.perf_counter()
    seconds = {"tile.gpu": (planned - start) + (printed - lowered), "llvm": lowered - planned, "ptx": done - printed}
    return _Generated({"tile.gpu": gpu_text, "llvm": llvm_text, "ptx": ptx}, lowering.shared_size, kernel.name,
                      [to_signature(t) for t in kernel.arg_types], [[line, loc.line] for line, loc in gpu_lines],
                      seconds, lowering.tensormap_specs(), libdevice)


def with_register_limit(llvm_text: str, metadata: dict, limit: int) -> tuple[str, str]:
    """The LLVM IR and PTX of a kernel compiled by :func:`compile_to_ptx` (its ``llvm`` stage and
    metadata), again with at most ``limit`` registers per thread (PTX ``.maxnreg``)."""
    threads = f'"nvvm.maxntid"="{metadata["threads_per_block"]}"'
    if threads not in llvm_text or '"nvvm.maxnreg"' in llvm_text:
        raise ValueError("not the LLVM IR of a kernellab CUDA kernel without a register limit")
    limited = llvm_text.replace(threads, threads + register_limit(limit), 1)
    return limited, emit_ptx(limited, metadata["arch"], metadata["name"], bool(metadata.get("libdevice")),
                             bool(metadata.get("tensor_cores")))


def _ctas_per_sm(ptx: str, arch: str, name: str, threads: int) -> int | None:
    """CTAs one SM can hold by registers, from ptxas's report (None without ptxas)."""
    path = ptxas.find_ptxas()
    if path is None:
        return None
    return ctas_by_registers(ptxas.assemble(ptx, arch, ptxas=path).kernel(name).registers, threads)


def _async_pipelined(module: Module, stages: int, codegen: Codegen, metadata: dict) -> _Generated | None:
    """The variant whose dot operands stream through shared-memory rings filled by ``cp.async``
    (``async_pipeline.py``; sm_80+), or ``None`` where no loop qualifies."""
    if arch_number(codegen.arch) < 80 or config.cuda_pipeline_mode() != "async":
        return None
    start = time.perf_counter()
    copy = parse_module(print_module(module))
    try:
        count = pipeline_async(copy, stages, codegen.num_warps, codegen.arch)
    except NotPipelined:
        return None
    if not count:
        return None
    spent = time.perf_counter() - start
    metadata["pipelining"] = {"kind": "async", "loads": count, "stages": stages, "used": True}
    generated = _generate(copy, codegen)
    generated.pipelined = ("async-pipeline", print_module(copy), spent)
    return generated


def _pipelined(module: Module, options: dict, codegen: Codegen, metadata: dict) -> _Generated:
    """The asynchronous pipeline where a loop qualifies; else the register-prefetch variant when
    it keeps as many CTAs per SM as ``plain`` (the prefetched tiles cost registers; fewer resident
    CTAs cost more than the prefetch gains)."""
    stages = int(options.get("num_stages") if options.get("num_stages") is not None else 3)
    if not config.cuda_pipelining() or stages < 2 or not codegen.tensor_cores:
        return _generate(module, codegen)
    asynchronous = _async_pipelined(module, stages, codegen, metadata)
    if asynchronous is not None:
        return asynchronous
    plain = _generate(module, codegen)
    copy = parse_module(print_module(module))
    count = pipeline_module(copy, stages, codegen.num_warps)
    if not count:
        return plain
    piped = _generate(copy, codegen)
    threads = 32 * codegen.num_warps
    with_prefetch = _ctas_per_sm(piped.stages["ptx"], codegen.arch, piped.name, threads)
    without = _ctas_per_sm(plain.stages["ptx"], codegen.arch, plain.name, threads)
    chosen = with_prefetch is not None and without is not None and with_prefetch >= without
    metadata["pipelining"] = {"loads": count, "ctas_per_sm": [without, with_prefetch], "used": chosen}
    if not chosen:
        return plain
    for stage, spent in piped.seconds.items():
        piped.seconds[stage] = spent + plain.seconds.get(stage, 0.0)
    return piped


def compile_to_ptx(module: Module, options: dict, metadata: dict, arch: str = "sm_90a") -> dict:
    """Compile ``module`` (its entry kernel and callees) to PTX for ``arch``."""
    num_warps = int(options.get("num_warps") or DEFAULT_NUM_WARPS)
    if num_warps < 1 or num_warps & (num_warps - 1) or num_warps > 32:
        raise ValueError(f"num_warps must be a power of two between 1 and 32, got {num_warps}")
    module = decompose_precise_dots(module)
    tensor_cores = any(op.name == "dot" for op in module.walk())
    codegen = Codegen(num_warps, arch, options.get("maxnreg"), bool(options.get("enable_fp_fusion", True)),
                      tensor_cores, int(options.get("num_ctas") or 1), bool(options.get("line_info", True)))
    generated = _pipelined(module, options, codegen, metadata)
    metadata.setdefault("compile_seconds", {}).update(generated.seconds)
    metadata.update({
        "name": generated.name,
        "num_warps": num_warps,
        "num_ctas": codegen.num_ctas,
        "threads_per_block": 32 * num_warps,
        "shared": generated.shared,
        "arg_types": generated.arg_types,
        "arch": arch,
        "ptx_version": ptx_features(arch).removeprefix("+ptx"),
        "libdevice": generated.libdevice,
        "tensor_cores": tensor_cores,
        # launch attributes the launcher passes to cuLaunchKernelEx (launcher.LaunchAttributes)
        "launch_cooperative_grid": bool(options.get("launch_cooperative_grid")),
        "launch_pdl": bool(options.get("launch_pdl")),
    })
    metadata.setdefault("line_map", {})["tile.gpu"] = generated.line_map
    if generated.tma:
        metadata["tma"] = generated.tma
    _record_steps(generated)
    return generated.stages


def _record_steps(generated: _Generated) -> None:
    """The backend's steps in the compilation's pass trail (``passes.record_pass``): the
    pipelining rewrite (Tile IR), the layouts (``tile.gpu``), LLVM IR and PTX."""
    if generated.pipelined is not None:
        name, text, seconds = generated.pipelined
        record_pass(name, text, dialect="tile", seconds=seconds)
    for step, dialect in (("layouts", "tile.gpu"), ("llvm", "llvm"), ("ptx", "ptx")):
        record_pass(step, generated.stages[dialect], dialect=dialect, seconds=generated.seconds.get(dialect, 0.0))
