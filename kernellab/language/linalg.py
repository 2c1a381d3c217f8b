"""Linear algebra: ``dot``."""

from __future__ import annotations

from typing import Any

from ..ir import types as _types
from .core import builtin, compile_time, semantic, tensor, unwrap


@builtin
def dot(input: Any, other: Any, acc: Any = None, input_precision: Any = None, allow_tf32: Any = None,
        max_num_imprecise_acc: Any = None, out_dtype: Any = _types.f32) -> tensor:
    """The matrix product of two 2-D tiles (or batched ones: rank 3 and more, over the leading
    dims), plus ``acc`` when given.

    ``input_precision`` ('tf32', 'tf32x3', 'ieee', 'bf16x3', 'bf16x6') says how fp32 inputs use
    tensor cores (tf32 by default on CUDA; the x3/x6 forms sum several tf32 or bf16 products for
    near-fp32 accuracy); ``allow_tf32`` is its deprecated boolean form. ``out_dtype`` (fp32 or
    fp16) is the result type for fp16 and fp8 inputs.
    """
    return semantic().dot(unwrap(input), unwrap(other), unwrap(acc), compile_time(input_precision, "input_precision"),
                          compile_time(allow_tf32, "allow_tf32"),
                          compile_time(max_num_imprecise_acc, "max_num_imprecise_acc"),
                          compile_time(out_dtype, "out_dtype"))


__all__ = ["dot"]
