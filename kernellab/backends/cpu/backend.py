"""The CPU backend: Tile IR compiled to host machine code through LLVM (llvmlite)."""

from __future__ import annotations

import hashlib
import platform
from typing import Any

from ...ir.core import Module
from .. import toolchain
from ..options import AMD_TUNING_OPTIONS, SHARED_DEFAULTS, TRITON_OPTIONS, shared_options, triton_options
from . import CAPABILITIES
from .launcher import CPULauncher, load

# The CPU target's own options; it also takes every target's (SHARED_DEFAULTS, TRITON_OPTIONS),
# AMD's tuning hints and a GPU ``arch``, recorded without effect.
_CPU_OPTIONS = {"opt_level": 3, "vector_bits": None, "arch": None}


class CPUBackend:
    name = "cpu"
    capabilities = CAPABILITIES
    wants_buffers = False  # pointer arguments arrive as raw host addresses
    load_stages = ("obj",)  # what load() reads (a cache hit reads no other stage)

    def options(self, **user: Any) -> dict:
        known = {**SHARED_DEFAULTS, **TRITON_OPTIONS, **AMD_TUNING_OPTIONS, **_CPU_OPTIONS}
        unknown = sorted(set(user) - set(known))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} for the cpu target; allowed: {', '.join(sorted(known))}")
        options = {**known, **user, **shared_options(user), **triton_options(user)}
        if options["opt_level"] not in (0, 1, 2, 3):
            raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {options['opt_level']!r}")
        if options["vector_bits"] not in (None, 128, 256, 512):
            raise ValueError(f"vector_bits must be None, 128, 256 or 512, got {options['vector_bits']!r}")
        return options

    def version_key(self) -> str:
        return _version_key()

    def compile(self, module: Module, options: dict, metadata: dict) -> dict[str, str | bytes]:
        from .compiler import compile_module  # LLVM: imported by compiling, never by loading

        metadata.setdefault("target", "cpu")
        return compile_module(module, options, metadata)

    override_stages = ("llvm",)

    def compile_from(self, stage: str, text: str, module: Module, options: dict, metadata: dict
                     ) -> dict[str, str | bytes]:
        """The stages after an edited ``llvm`` stage (``ir_override``)."""
        from .compiler import compile_module

        if stage not in self.override_stages:
            raise ValueError(f"the cpu target can start from the llvm stage only, not {stage!r}")
        metadata.setdefault("target", "cpu")
        return compile_module(module, options, metadata, llvm_text=text)

    def load(self, asm: dict, metadata: dict) -> CPULauncher:
        return load(asm, metadata)


_KEY: str | None = None

# The lines of /proc/cpuinfo that identify a processor and what it can run (x86 and Arm names).
_CPUINFO_FIELDS = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags", "CPU implementer",
                   "CPU architecture", "CPU variant", "CPU part", "Features", "isa")


def _version_key() -> str:
    """The toolchain's identity: llvmlite's version and the host processor.  (The backend's own
    source is in the compiler fingerprint, part of every key.)"""
    global _KEY
    if _KEY is None:
        llvmlite = toolchain.llvmlite_version()["llvmlite"]
        _KEY = f"cpu-llvmlite{llvmlite}-{platform.machine()}-{host_identity()}"
    return _KEY


def host_identity() -> str:
    """A hash naming the host processor's model and features: from /proc/cpuinfo where there is
    one (the same facts LLVM reads from the processor, without importing LLVM), else from
    LLVM's own host detection."""
    try:
        first = _first_processor("/proc/cpuinfo")
        lines = [line for line in first.splitlines() if line.split(":", 1)[0].strip() in _CPUINFO_FIELDS]
    except OSError:
        lines = []
    if not lines:
        from .compiler import host_cpu

        lines = list(host_cpu())
    return "cpuinfo-" + hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _first_processor(path: str) -> str:
    """The first record (up to its blank line) of a file like /proc/cpuinfo, read 4 KiB at a
    time: the kernel formats a record per processor that a read asks for, and reading 32 KiB at
    once had it format ~20 on a 16-core host."""
    with open(path, "rb") as file:
        text = b""
        while b"\n\n" not in text and len(text) < 1 << 16:
            chunk = file.read(4096)
            if not chunk:
                break
            text += chunk
    return text.decode("utf-8", errors="replace").split("\n\n", 1)[0]
