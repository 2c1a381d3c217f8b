"""The programming model and tile creation: ``program_id``, ``num_programs``, ``arange``,
``full``, ``zeros``, ``zeros_like``, ``cast``, and Triton's functional ``add``/``sub``/``mul``."""

from __future__ import annotations

from typing import Any

from .core import builtin, compile_time, member, semantic, tensor, unwrap


@builtin
def program_id(axis: Any) -> tensor:
    """This program's index along ``axis`` (0, 1 or 2) of the launch grid (int32)."""
    return semantic().program_id(compile_time(axis, "program_id's axis"))


@builtin
def num_programs(axis: Any) -> tensor:
    """The number of programs launched along ``axis`` (0, 1 or 2) (int32)."""
    return semantic().num_programs(compile_time(axis, "num_programs' axis"))


@builtin
def arange(start: Any, end: Any) -> tensor:
    """The int32 values ``start, start + 1, ..., end - 1``; ``end - start`` must be a power of 2."""
    return semantic().arange(unwrap(start), unwrap(end))


@builtin
def full(shape: Any, value: Any, dtype: Any) -> tensor:
    """A tile of ``shape`` (compile-time, powers of 2) filled with ``value`` as ``dtype``."""
    shape = compile_time(shape, "full's shape")
    dtype = compile_time(dtype, "full's dtype")
    return semantic().full(tuple(shape) if isinstance(shape, (list, tuple)) else (shape,), unwrap(value), dtype)


@builtin
def zeros(shape: Any, dtype: Any) -> tensor:
    """A tile of ``shape`` filled with 0 as ``dtype``."""
    return full(shape, 0, dtype)


@builtin
def zeros_like(input: Any) -> tensor:
    """Zeros with the shape and dtype of ``input``."""
    input = semantic().to_tensor(input)
    return full(tuple(int(d) for d in input.shape), 0, input.dtype)


@member
@builtin
def cast(input: Any, dtype: Any, fp_downcast_rounding: Any = None, bitcast: Any = False) -> tensor:
    """``input`` converted to ``dtype``: by value, or reinterpreting the bits with ``bitcast=True``.
    ``fp_downcast_rounding`` ('rtne' or 'rtz') rounds casts to a narrower float."""
    sem = semantic()
    dtype = compile_time(dtype, "cast's dtype")
    if compile_time(bitcast, "cast's bitcast"):
        return sem.bitcast(input, dtype)
    return sem.cast(input, dtype, compile_time(fp_downcast_rounding, "fp_downcast_rounding"))


@builtin
def to_tensor(x: Any) -> tensor:
    """``x`` (a number or constexpr) as a kernel tensor."""
    return semantic().to_tensor(x)


@builtin
def add(x: Any, y: Any, sanitize_overflow: Any = True) -> tensor:
    """``x + y`` (``sanitize_overflow``: checked for signed overflow with debug on, as ``+``)."""
    return semantic().add(unwrap(x), unwrap(y), sanitize=bool(unwrap(sanitize_overflow)))


@builtin
def sub(x: Any, y: Any, sanitize_overflow: Any = True) -> tensor:
    """``x - y`` (``sanitize_overflow``: checked for signed overflow with debug on, as ``-``)."""
    return semantic().sub(unwrap(x), unwrap(y), sanitize=bool(unwrap(sanitize_overflow)))


@builtin
def mul(x: Any, y: Any, sanitize_overflow: Any = True) -> tensor:
    """``x * y`` (``sanitize_overflow``: checked for signed overflow with debug on, as ``*``)."""
    return semantic().mul(unwrap(x), unwrap(y), sanitize=bool(unwrap(sanitize_overflow)))


__all__ = ["program_id", "num_programs", "arange", "full", "zeros", "zeros_like", "cast", "to_tensor", "add", "sub",
           "mul"]
