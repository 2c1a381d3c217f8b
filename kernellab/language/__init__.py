"""The kernel language: Triton's ``triton.language`` surface (``import kernellab.language as tl``)."""

from ..ir.types import (  # noqa: F401
    bf16 as bfloat16,
    f8e4m3 as float8e4nv,
    f8e5m2 as float8e5,
    f16 as float16,
    f32 as float32,
    f64 as float64,
    i1 as int1,
    i8 as int8,
    i16 as int16,
    i32 as int32,
    i64 as int64,
    u8 as uint8,
    u16 as uint16,
    u32 as uint32,
    u64 as uint64,
)
from .core import constexpr, tensor  # noqa: F401
