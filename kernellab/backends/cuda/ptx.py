"""PTX from NVPTX LLVM IR through llvmlite's target machine (no GPU needed).

``emit_ptx`` parses the LLVM IR, links (a copy of, parsed once per process) libdevice when
the module calls ``__nv_*`` functions
(only the functions used survive: everything but the kernel is internalized before the O3
pipeline), optimizes and prints PTX for ``sm_XX``.
"""

from __future__ import annotations

import glob
import os
import re
import sys
import threading
from functools import lru_cache
from pathlib import Path

import llvmlite.binding as llvm

TRIPLE = "nvptx64-nvidia-cuda"


@lru_cache(maxsize=1)
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def arch_number(arch: str) -> int:
    """``sm_90a`` -> 90."""
    digits = "".join(c for c in arch.removeprefix("sm_") if c.isdigit())
    if not arch.startswith("sm_") or not digits:
        raise ValueError(f"unknown CUDA architecture {arch!r}; use sm_XX (for example sm_90a on Hopper)")
    return int(digits)


def ptx_features(arch: str) -> str:
    """The PTX ISA version the architecture needs (8.0 up to Hopper, 8.6 for Blackwell)."""
    return "+ptx86" if arch_number(arch) >= 100 else "+ptx80"


@lru_cache(maxsize=8)
def target_machine(arch: str) -> llvm.TargetMachine:
    _initialize()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=ptx_features(arch), opt=3)


def data_layout(arch: str) -> str:
    return str(target_machine(arch).target_data)


@lru_cache(maxsize=1)
def libdevice_path() -> Path:
    """libdevice.10.bc from the nvidia-cuda-nvcc wheel, else a CUDA toolkit."""
    candidates = []
    for root in sys.path:
        candidates += glob.glob(os.path.join(root, "nvidia", "cu*", "nvvm", "libdevice", "libdevice.10.bc"))
        candidates += glob.glob(os.path.join(root, "nvidia", "cuda_nvcc", "nvvm", "libdevice", "libdevice.10.bc"))
    candidates += sorted(glob.glob("/usr/local/cuda*/nvvm/libdevice/libdevice.10.bc"))
    for path in candidates:
        if os.path.exists(path):
            return Path(path)
    raise FileNotFoundError("libdevice.10.bc not found: install the nvidia-cuda-nvcc wheel (pip install "
                            "nvidia-cuda-nvcc) or a CUDA toolkit; it is needed for math functions such as sin and erf")


_LIBDEVICE_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _libdevice_module() -> llvm.ModuleRef:
    """libdevice parsed once per process; kernels link copies of it."""
    return llvm.parse_bitcode(libdevice_path().read_bytes())


_MUL_WIDE = re.compile(r"mul\.wide\.s32 \t(%rd\d+), (%r\d+), (\d+);")


def widen_offsets(ptx: str) -> str:
    """``mul.wide.s32 d, x, 2**k`` (LLVM's spelling of a sign-extended i32 offset in bytes) as
    ``cvt.s64.s32`` + ``shl.b64``: the same value, but ptxas then keeps the 64-bit offsets of a
    loop's copies in registers (an ``IADD3`` pair per address, as in Triton's loops) instead of
    an ``IMAD.WIDE`` per copy, whose dispatch stalls held the cp.async matmul at 0.90x Triton
    (bench/NOTES.md, "Tensor-core loops, fourth pass")."""
    def rewrite(match: re.Match) -> str:
        target, source, factor = match.group(1), match.group(2), int(match.group(3))
        if factor < 2 or factor & (factor - 1):
            return match.group(0)
        return (f"cvt.s64.s32 \t{target}, {source};\n\tshl.b64 \t{target}, {target}, "
                f"{factor.bit_length() - 1};")
    return _MUL_WIDE.sub(rewrite, ptx)


def emit_ptx(llvm_ir: str, arch: str, kernel: str, use_libdevice: bool, wide_offsets: bool = False) -> str:
    """Optimize ``llvm_ir`` (O3) and return its PTX for ``arch`` (with ``wide_offsets``, through
    :func:`widen_offsets` where it copies with ``cp.async``: the code generator asks it for kernels
    with tensor-core dots; TMA kernels measured 2-4% slower with it, so they keep LLVM's spelling)."""
    tm = target_machine(arch)
    module = llvm.parse_assembly(llvm_ir)
    module.verify()  # the kernel's own code (libdevice needs no checking)
    if use_libdevice:
        with _LIBDEVICE_LOCK:  # the autotuner compiles on several threads
            module.link_in(_libdevice_module(), preserve=True)
    for fn in module.functions:
        if not fn.is_declaration and fn.name != kernel:
            fn.linkage = "internal"
    options = llvm.create_pipeline_tuning_options(speed_level=3)
    builder = llvm.create_pass_builder(tm, options)
    builder.getModulePassManager().run(module, builder)
    ptx = tm.emit_assembly(module)
    return widen_offsets(ptx) if wide_offsets and "cp.async.cg.shared.global" in ptx else ptx
