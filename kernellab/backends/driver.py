"""Triton's ``triton.backends.driver``: ``DriverBase``, what a backend's driver answers (whether
it can run here, the current target and torch device, the benchmarker).  kernellab has one
driver, ``runtime.driver.ActiveDriver``, which stands for the target kernellab launches on by
default; this module gives Triton code the base class to check it against."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol

# Triton's C spellings of signature types, as its launcher generators use them
_C_TYPES = {"i1": "int8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
            "u1": "uint8_t", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
            "fp16": "double", "bf16": "double", "fp32": "double", "f32": "double", "fp64": "double"}


class Benchmarker(Protocol):
    def __call__(self, kernel_call: Callable, *, quantiles: list[float], **kwargs: Any) -> Sequence[float]: ...


class DriverBase(metaclass=ABCMeta):
    """A backend's driver."""

    @abstractmethod
    def is_active(self) -> bool:
        """Whether this driver's target can launch here."""

    @abstractmethod
    def get_current_target(self) -> Any:
        """The target launches go to (``GPUTarget(backend, arch, warp_size)``)."""

    @abstractmethod
    def get_active_torch_device(self) -> Any:
        """The torch device tensors for this target live on."""

    def get_benchmarker(self) -> Benchmarker:
        """The timing function this target uses by default (kernellab's ``do_bench``)."""
        from ..runtime.autotuning.timing import do_bench

        return do_bench

    def map_python_to_cpp_type(self, ty: str) -> str:
        """The C type a launcher passes a parameter of signature type ``ty`` as (pointers as a
        device pointer)."""
        if ty.startswith("*"):
            return "CUdeviceptr"
        if ty not in _C_TYPES:
            raise ValueError(f"no C type for the signature type {ty!r}")
        return _C_TYPES[ty]


__all__ = ["DriverBase", "Benchmarker"]
