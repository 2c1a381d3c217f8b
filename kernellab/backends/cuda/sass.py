"""SASS, the GPU's own instructions, disassembled from a cubin by nvdisasm or cuobjdump.

Found in NVIDIA's pip wheels (``nvidia-cuda-nvdisasm``, ``nvidia-cuda-cuobjdump``), on PATH, or
inside an installed Triton (which bundles them); nothing is imported to look.  ``sass(cubin)``
is what ``CompiledKernel.asm["sass"]`` computes on first access.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from pathlib import Path

from ...errors import KernelLabError
from .tools import find_tool


class SassUnavailable(KernelLabError):
    """No disassembler is installed, or it failed on the cubin."""


_TOOLS = ("nvdisasm", "cuobjdump")


@functools.cache
def find_disassembler() -> tuple[str, str] | None:
    """(tool name, path) of nvdisasm (preferred: it prints line information) or cuobjdump."""
    for name in _TOOLS:
        path = find_tool(name) or _in_triton(name)
        if path:
            return name, path
    return None


def _in_triton(name: str) -> str | None:
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        candidate = Path(root, "backends", "nvidia", "bin", name)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def available() -> bool:
    return find_disassembler() is not None


def sass(cubin: bytes) -> str:
    """The SASS of ``cubin`` as text, with ``//## File ..., line N`` annotations where the
    cubin carries line information (ptxas ``-lineinfo``, which the backend always passes)."""
    import subprocess  # lazily: the backend's import stays light
    import tempfile  # lazily: the backend's import stays light
    if not isinstance(cubin, bytes | bytearray) or not cubin.startswith(b"\x7fELF"):
        raise TypeError("sass() needs a cubin (ELF bytes from ptxas); this kernel has none, e.g. because no "
                        "ptxas was found when it was compiled (its PTX is kept, for the driver to compile at load)")
    found = find_disassembler()
    if found is None:
        raise SassUnavailable("no disassembler found for SASS: pip install nvidia-cuda-nvdisasm "
                              "(or put nvdisasm or cuobjdump on PATH)")
    name, path = found
    with tempfile.TemporaryDirectory(prefix="kernellab-sass-") as folder:
        image = Path(folder, "kernel.cubin")
        image.write_bytes(bytes(cubin))
        command = [path, "-c", "-g", str(image)] if name == "nvdisasm" else [path, "-sass", str(image)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SassUnavailable(f"{name} failed on the cubin (exit {done.returncode}): {done.stderr.strip()}")
    return done.stdout


_INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+\S")
_LABEL = re.compile(r"\s*(\.L_x_\d+):")
_BRANCH = re.compile(r"BRA\s+`\((\.L_x_\d+)\)")


def loops(text: str) -> list[list[str]]:
    """The instructions of every loop in SASS ``text`` (from a label to the branch back to it)."""
    lines = text.splitlines()
    labels = {m.group(1): i for i, line in enumerate(lines) if (m := _LABEL.match(line))}
    found = []
    for i, line in enumerate(lines):
        m = _BRANCH.search(line)
        if m and labels.get(m.group(1), i) < i:
            found.append([x.strip() for x in lines[labels[m.group(1)]:i + 1] if _INSTRUCTION.search(x)])
    return found


def hot_loop(text: str, opcode: str = "HGMMA") -> list[str]:
    """The innermost (shortest) loop holding an ``opcode`` instruction: a tensor-core kernel's
    main loop, whose issue slots the tensor cores wait on (empty if there is none)."""
    holding = [body for body in loops(text) if any(opcode in x for x in body)]
    return min(holding, key=len) if holding else []


__all__ = ["SassUnavailable", "find_disassembler", "available", "sass", "loops", "hot_loop"]
