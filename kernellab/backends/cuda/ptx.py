"""PTX from NVPTX LLVM IR through llvmlite's target machine (no GPU needed).

``emit_ptx`` parses the LLVM IR, links (a copy of, parsed once per process) libdevice when
the module calls ``__nv_*`` functions
(only the functions used survive: everything but the kernel is internalized before the O3
pipeline), optimizes and prints PTX for ``sm_XX``.
"""

from __future__ import annotations

import glob
import os
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


def emit_ptx(llvm_ir: str, arch: str, kernel: str, use_libdevice: bool) -> str:
    """Optimize ``llvm_ir`` (O3) and return its PTX for ``arch``."""
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
    return tm.emit_assembly(module)
