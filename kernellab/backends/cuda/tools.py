"""NVIDIA's command-line tools (ptxas, nvdisasm, cuobjdump): where they are and which ones they are.

ptxas is looked for in this order: ``KERNELLAB_PTXAS`` or ``TRITON_PTXAS_PATH`` (``config.ptxas_path()``), the
``nvidia-cuda-nvcc`` pip wheel (``site-packages/nvidia/cu13/bin/ptxas``), then ``PATH``.  With
none, the backend keeps the PTX and the driver compiles it when the module is loaded.

Kept apart from ``ptxas.py`` (assembling and its resource report) because a cache hit needs
ptxas's identity for the cache key but nothing of assembling: this module costs nothing to
import in a new process's first launch.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

from ... import config

# Where NVIDIA's pip wheels put their programs, relative to a site-packages folder: the CUDA 13
# wheels share nvidia/cu13/bin, the CUDA 12 ones have a folder per tool.
_WHEEL_BIN_DIRS = ("nvidia/cu13/bin", "nvidia/cuda_nvcc/bin", "nvidia/cuda_nvdisasm/bin",
                   "nvidia/cuda_cuobjdump/bin")


def wheel_tool_dirs() -> list[Path]:
    """The folders where NVIDIA's pip wheels put their programs, for every entry of sys.path."""
    return [Path(folder) for folder in _wheel_tool_dirs(tuple(sys.path))]


def _wheel_tool_dirs(entries: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for entry in entries:  # os.path, not pathlib: this runs in every new process's first launch
        if not entry or not os.path.isdir(entry):
            continue
        for relative in _WHEEL_BIN_DIRS:
            folder = os.path.join(entry, relative)
            if folder not in found and os.path.isdir(folder):
                found.append(folder)
    return found


def find_tool(name: str) -> str | None:
    """An NVIDIA program (``ptxas``, ``nvdisasm``, ``cuobjdump``): the one the user named
    (``config.nvidia_tool_path``: ``TRITON_NVDISASM_PATH``...) when it is executable, else
    :func:`bundled_tool`."""
    chosen = config.nvidia_tool_path(name)
    if chosen and os.path.isfile(chosen) and os.access(chosen, os.X_OK):
        return chosen
    return bundled_tool(name)


def bundled_tool(name: str) -> str | None:
    """An NVIDIA program from the pip wheels, else PATH."""
    import shutil  # lazily: the backend's import stays light
    for folder in _wheel_tool_dirs(tuple(sys.path)):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)


def find_ptxas() -> str | None:
    """The ptxas to use, or None when there is none (the driver's JIT then compiles the PTX)."""
    chosen = config.ptxas_path()
    if chosen:
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            raise FileNotFoundError(f"ptxas {chosen!r} (KERNELLAB_PTXAS or TRITON_PTXAS_PATH) is not an executable "
                                    "file; unset it to use the nvidia-cuda-nvcc wheel's ptxas or the one on PATH")
        return chosen
    return bundled_tool("ptxas")


@functools.cache
def identity(path: str | None) -> str:
    """A cheap identity of a ptxas binary for cache keys: its path, size and modification time
    (no subprocess, so that computing a cache key in a new process stays in microseconds)."""
    if path is None:
        return "ptxas:none"
    stat = os.stat(path)
    return f"ptxas:{path}:{stat.st_size}:{stat.st_mtime_ns}"


@functools.cache
def version(path: str) -> str:
    """ptxas's release, e.g. ``13.5.37`` (runs ``ptxas --version`` once per path)."""
    import subprocess  # lazily: the backend's import stays light
    output = subprocess.run([path, "--version"], capture_output=True, text=True, check=False).stdout
    match = re.search(r"\bV(\d+\.\d+\.\d+)", output)
    return match.group(1) if match else output.strip().splitlines()[-1] if output.strip() else "unknown"


__all__ = ["find_ptxas", "find_tool", "bundled_tool", "wheel_tool_dirs", "identity", "version"]
