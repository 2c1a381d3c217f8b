"""What a target can do, as facts its backend provides: :class:`Capabilities`.

The language, the runtime and the notebook ask these instead of comparing target names, so a
new backend (AMDGPU, another host ISA) says what it is in its own folder.  Each backend
package registers its object with its factory (``register(name, factory, capabilities)``);
:func:`kernellab.backends.capabilities` returns it for a target string without making the
backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..ir.types import Type
from ..language.core import DESCRIPTOR_REDUCE_TYPES, DOT_INPUT_PRECISIONS

# Triton's fp8 dtypes (its names): the interpreter and the CPU target take every one
FP8_NAMES = ("fp8e4b15", "fp8e4b8", "fp8e4nv", "fp8e5", "fp8e5b16")


@dataclass(frozen=True)
class Capabilities:
    name: str
    # Memory and devices
    gpu: bool  # launches on an accelerator (its arrays live in device memory)
    launches_host_arrays: bool  # pointer arguments are host memory (numpy arrays...)
    array_location: str  # interop's location prefix of the arrays it launches ("cpu", "cuda")
    # The language's rules
    min_dot_size: tuple[int, int, int]  # the smallest (M, N, K) tl.dot accepts
    dot_input_precisions: tuple[str, ...]  # what tl.dot's input_precision may be
    default_dot_input_precision: str  # tl.dot on fp32 without input_precision
    # Compiling and timing
    debug_by_default: bool  # compile with debug=True unless told otherwise
    parallel_compile: str  # how an autotune sweep compiles configs: "processes", "threads", "sequential"
    timer: str  # how do_bench times its launches: "host" (a monotonic clock) or "cuda_events"
    native_launch: str | None  # the native launch path's ABI for it (runtime/native), None: none
    # What CompiledKernel.metadata reports beyond the common keys
    reported_metadata: tuple[str, ...] = ()
    # How Triton's code names it (GPUTarget, tl.target_info, driver.active.get_current_target())
    triton_backend: str = "cpu"  # GPUTarget.backend: "cuda"; every host target says "cpu"
    triton_package: str = "cpu"  # its key in Triton's triton.backends.backends: "nvidia"; the host's "cpu"
    warp_size: int = 1  # threads that run in lockstep (GPUTarget.warp_size)
    arch_prefix: str | None = None  # GPUTarget(backend, arch: int) -> target "name:<prefix><arch>" ("sm_")
    # from this arch number on, GPUTarget's arch names the architecture-specific variant ("<arch>a"):
    # Triton compiles capability 90 for sm_90a (wgmma, TMA); None: never
    specific_arch_from: int | None = None
    # desc.atomic_<kind>'s element types beyond every target's (DESCRIPTOR_REDUCE_TYPES), from an
    # architecture on: (first arch number, kind, element types)
    more_descriptor_reductions: tuple[tuple[int, str, tuple[Type, ...]], ...] = ()
    # Triton's fp8 dtypes (by name) the target takes, and those it takes from an architecture on
    # ((first arch number, name)); a kernel using another is refused (Triton's message)
    fp8_types: tuple[str, ...] = FP8_NAMES
    more_fp8_types: tuple[tuple[int, str], ...] = ()
    # fp8 dtypes tl.dot takes but warns about from an architecture on (Triton's
    # deprecated_fp8_dot_operand_dtypes): (first arch number, name)
    deprecated_fp8_dot_operands: tuple[tuple[int, str], ...] = ()
    # the smallest (M, N, K) tl.dot accepts on 8-bit operands; None: min_dot_size
    min_dot_size_8bit: tuple[int, int, int] | None = None
    # a kernel's compile errors are InterpreterErrors too (errors.interpreted), as Triton's
    # interpreter reports every error of a kernel
    interpreter_errors: bool = False

    def target_for_arch(self, arch: object) -> str:
        """The target string for Triton's ``GPUTarget(backend, arch)`` on this backend, as Triton
        reads it: CUDA's ``80`` -> ``cuda:sm_80``, ``90`` -> ``cuda:sm_90a``; the plain name where
        the backend has no architectures."""
        if self.arch_prefix is None or not isinstance(arch, int):
            return self.name
        specific = self.specific_arch_from is not None and arch >= self.specific_arch_from
        return f"{self.name}:{self.arch_prefix}{arch}{'a' if specific else ''}"

    def arch_number(self, arch: object) -> int | None:
        """The number of an architecture of this backend (``"sm_90a"`` -> ``90``); None for
        anything else (a backend without architectures, no architecture given)."""
        if self.arch_prefix is None or not isinstance(arch, str) or not arch.startswith(self.arch_prefix):
            return None
        digits = re.match(r"\d+", arch[len(self.arch_prefix):])
        return int(digits.group()) if digits else None

    def supported_fp8_types(self, arch: object = None) -> tuple[str, ...]:
        """Triton's names of the fp8 dtypes a kernel compiled for ``arch`` may use, sorted."""
        number = self.arch_number(arch)
        more = [name for first, name in self.more_fp8_types if number is not None and number >= first]
        return tuple(sorted({*self.fp8_types, *more}))

    def deprecated_fp8_dot_types(self, arch: object = None) -> frozenset[str]:
        """The fp8 dtypes tl.dot warns about compiling for ``arch``."""
        number = self.arch_number(arch)
        return frozenset(name for first, name in self.deprecated_fp8_dot_operands
                         if number is not None and number >= first)

    def descriptor_reduce_types(self, arch: object = None) -> dict[str, frozenset[Type]]:
        """The element types ``desc.atomic_<kind>`` takes, per kind, compiling for ``arch`` (the
        ``arch`` option, ``"sm_90a"``; None where the backend has none)."""
        number = self.arch_number(arch)
        table = dict(DESCRIPTOR_REDUCE_TYPES)
        for first, kind, types in self.more_descriptor_reductions:
            if number is not None and number >= first:
                table[kind] = table[kind] | frozenset(types)
        return table


__all__ = ["Capabilities", "DOT_INPUT_PRECISIONS", "FP8_NAMES"]
