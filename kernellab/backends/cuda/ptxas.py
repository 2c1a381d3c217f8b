"""ptxas: assembling PTX into a cubin, and reading its resource report.

Where ptxas is and which one it is (``find_ptxas``, ``identity``, ``version``) live in
``tools.py`` and are re-exported here; this module is imported only to compile.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import KernelLabError, OutOfResources
from .tools import find_ptxas, find_tool, identity, version, wheel_tool_dirs


class PtxasError(KernelLabError):
    """ptxas rejected a PTX; the message carries its log."""

    def __init__(self, message: str, log: str = ""):
        self.log = log
        super().__init__(message + (f"\nptxas said:\n{log.strip()}" if log.strip() else ""))


# ---------------------------------------------------------------------------------------------
# The resource report of ``ptxas -v``
# ---------------------------------------------------------------------------------------------

@dataclass
class FunctionResources:
    """What ``ptxas -v`` reports for one function."""

    registers: int = 0
    barriers: int = 0
    shared_static: int = 0        # bytes of statically declared shared memory
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    constant: int = 0             # bytes of the kernel's constant bank (cmem[0])
    entry: bool = False

    def as_metadata(self) -> dict[str, int]:
        return {"registers": self.registers, "spills": self.spill_stores, "spill_stores": self.spill_stores,
                "spill_loads": self.spill_loads, "stack_frame": self.stack_frame,
                "shared_static": self.shared_static, "barriers": self.barriers}


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[0\]")
_TOO_MUCH_SHARED = re.compile(r"uses too much shared data \((0x[0-9a-fA-F]+|\d+) bytes, (0x[0-9a-fA-F]+|\d+) max\)")


def parse_resources(log: str) -> dict[str, FunctionResources]:
    """Function name -> its resources, from the output of ``ptxas -v`` (entry kernels have
    ``entry=True``; device functions compiled separately appear with their frame only)."""
    functions: dict[str, FunctionResources] = {}
    current: FunctionResources | None = None
    for line in log.splitlines():
        if match := _ENTRY.search(line):
            current = functions.setdefault(match.group(1), FunctionResources())
            current.entry = True
        elif match := _PROPERTIES.search(line):
            current = functions.setdefault(match.group(1), FunctionResources())
        elif current is not None and (match := _FRAME.search(line)):
            current.stack_frame, current.spill_stores, current.spill_loads = map(int, match.groups())
        elif current is not None and (match := _USED.search(line)):
            current.registers = int(match.group(1))
            current.barriers = _int(_BARRIERS, line)
            current.shared_static = _int(_SMEM, line)
            current.constant = _int(_CMEM, line)
    return functions


def _int(pattern: re.Pattern, line: str) -> int:
    match = pattern.search(line)
    return int(match.group(1)) if match else 0


# ---------------------------------------------------------------------------------------------
# Assembling
# ---------------------------------------------------------------------------------------------

@dataclass
class PtxasResult:
    cubin: bytes
    log: str
    resources: dict[str, FunctionResources] = field(default_factory=dict)
    seconds: float = 0.0
    ptxas: str = ""

    def kernel(self, name: str | None = None) -> FunctionResources:
        """The resources of entry kernel ``name`` (the only entry when None)."""
        if name is not None and name in self.resources:
            return self.resources[name]
        entries = [r for r in self.resources.values() if r.entry]
        if name is None and len(entries) == 1:
            return entries[0]
        raise KeyError(f"ptxas reported no entry kernel named {name!r}; it reported {sorted(self.resources)}")


_ARCH = re.compile(r"sm_\d{2,3}[af]?")


VERSION_DIRECTIVE = re.compile(r"^\.version (\d+)\.(\d+)", re.MULTILINE)


def isa_of_release(release: str) -> int | None:
    """The newest PTX ISA version a CUDA release's ptxas assembles, as 87 for 8.7 (12.0-12.5 take
    8.0-8.5, 12.6 takes 8.5 and each later 12.x one more, 13.0 takes 9.0); None for a release
    string that is not ``major.minor[.patch]``."""
    match = re.match(r"(\d+)\.(\d+)", release)
    if match is None:
        return None
    major, minor = int(match.group(1)), int(match.group(2))
    if major >= 13:
        return 90 + 10 * (major - 13) + minor
    if major == 12:
        return 80 + minor - (minor >= 6)
    return 70 + minor if major == 11 else None


def with_isa_of(ptx: str, path: str) -> str:
    """``ptx`` whose ``.version`` is the newest the ptxas at ``path`` takes, when that is newer than
    the one written: LLVM writes the oldest the architecture needs, and a kernel's inline assembly
    may use newer instructions (Triton's PTX says its ptxas's version too)."""
    found = VERSION_DIRECTIVE.search(ptx)
    newest = isa_of_release(version(path))
    if found is None or newest is None or newest <= int(found.group(1)) * 10 + int(found.group(2)):
        return ptx
    return ptx[:found.start()] + f".version {newest // 10}.{newest % 10}" + ptx[found.end():]


def assemble(ptx: str, arch: str, *, maxnreg: int | None = None, opt_level: int = 3, line_info: bool = True,
             ptxas: str | None = None) -> PtxasResult:
    """Assemble ``ptx`` for ``arch`` (``sm_90a``) into a cubin with ``ptxas -v``.

    Raises :class:`PtxasError` with ptxas's log when it fails, :class:`OutOfResources` when the
    kernel declares more shared memory than ``arch`` allows, and FileNotFoundError without ptxas."""
    import subprocess  # lazily: the backend's import stays light
    import tempfile
    if not _ARCH.fullmatch(arch):
        raise ValueError(f"arch must look like 'sm_90a' or 'sm_80', got {arch!r}")
    path = ptxas or find_ptxas()
    if path is None:
        raise FileNotFoundError("no ptxas found: pip install nvidia-cuda-nvcc, put ptxas on PATH, or set "
                                "KERNELLAB_PTXAS")
    with tempfile.TemporaryDirectory(prefix="kernellab-ptxas-") as folder:
        source, target = Path(folder, "kernel.ptx"), Path(folder, "kernel.cubin")
        source.write_text(ptx)
        command = [path, f"-arch={arch}", "-v", f"--opt-level={opt_level}", str(source), "-o", str(target)]
        if line_info:
            command.insert(3, "-lineinfo")
        if maxnreg is not None:
            command.insert(3, f"--maxrregcount={int(maxnreg)}")
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        log = (done.stdout + done.stderr).replace(str(source), "kernel.ptx")
        if done.returncode != 0:
            _raise_for(log, arch)
        return PtxasResult(target.read_bytes(), log, parse_resources(log), seconds, path)


def performance_warnings(log: str) -> list[str]:
    """ptxas's "Potential Performance Loss" notes (``C7514``...: wgmma instructions serialized),
    one line each, without the file name."""
    return [line.split("info    : ", 1)[-1].strip() for line in log.splitlines()
            if "Potential Performance Loss" in line]


def _raise_for(log: str, arch: str) -> None:
    match = _TOO_MUCH_SHARED.search(log)
    if match:
        required, limit = (int(text, 0) for text in match.groups())
        raise OutOfResources(required, limit, "shared memory")
    raise PtxasError(f"ptxas could not assemble the kernel's PTX for {arch}", log)


__all__ = ["PtxasError", "PtxasResult", "FunctionResources", "find_ptxas", "find_tool", "wheel_tool_dirs",
           "isa_of_release", "with_isa_of", "VERSION_DIRECTIVE",
           "identity", "version", "parse_resources", "assemble"]
