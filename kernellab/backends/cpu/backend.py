"""The CPU backend: Tile IR compiled to host machine code through LLVM (llvmlite)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ...ir.core import Module
from .compiler import compile_module, host_cpu
from .launcher import CPULauncher, load

# Options the runtime may pass for any target; the CPU target accepts and ignores the GPU ones.
_GPU_OPTIONS = {"num_warps": 4, "num_ctas": 1, "num_stages": 3, "maxnreg": None, "enable_fp_fusion": True,
                "launch_cooperative_grid": False, "launch_pdl": False, "extern_libs": None,
                "supported_fp8_dtypes": None, "instrumentation_mode": "", "arch": None}
_CPU_OPTIONS = {"debug": False, "opt_level": 3, "vector_bits": None, "sanitize_overflow": False}


class CPUBackend:
    name = "cpu"
    wants_buffers = False  # pointer arguments arrive as raw host addresses

    def options(self, **user: Any) -> dict:
        known = {**_GPU_OPTIONS, **_CPU_OPTIONS}
        unknown = sorted(set(user) - set(known))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} for the cpu target; allowed: {', '.join(sorted(known))}")
        options = {**known, **user}
        if options["opt_level"] not in (0, 1, 2, 3):
            raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {options['opt_level']!r}")
        if options["vector_bits"] not in (None, 128, 256, 512):
            raise ValueError(f"vector_bits must be None, 128, 256 or 512, got {options['vector_bits']!r}")
        return options

    def version_key(self) -> str:
        return _version_key()

    def compile(self, module: Module, options: dict, metadata: dict) -> dict[str, str | bytes]:
        metadata.setdefault("target", "cpu")
        return compile_module(module, options, metadata)

    override_stages = ("llvm",)

    def compile_from(self, stage: str, text: str, module: Module, options: dict, metadata: dict
                     ) -> dict[str, str | bytes]:
        """The stages after an edited ``llvm`` stage (``ir_override``)."""
        if stage not in self.override_stages:
            raise ValueError(f"the cpu target can start from the llvm stage only, not {stage!r}")
        metadata.setdefault("target", "cpu")
        return compile_module(module, options, metadata, llvm_text=text)

    def load(self, asm: dict, metadata: dict) -> CPULauncher:
        return load(asm, metadata)


_KEY: str | None = None


def _version_key() -> str:
    """The toolchain's identity: LLVM, the host CPU and the backend's own source."""
    global _KEY
    if _KEY is None:
        import llvmlite

        digest = hashlib.sha256()
        for path in sorted(Path(__file__).parent.glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        cpu, features = host_cpu()
        digest.update(features.encode())
        _KEY = f"cpu-llvmlite{llvmlite.__version__}-{cpu}-{digest.hexdigest()[:16]}"
    return _KEY
