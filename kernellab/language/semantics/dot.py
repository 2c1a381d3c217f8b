"""``tl.dot``: the matrix product of two 2-D (or batched 3-D) tiles, added to an accumulator.

Tiles of rank 4 and more are dots of their last two dims, batched over the others (folded into
one batch dim, as Triton does).  Types follow Triton: both inputs share one dtype among int8,
uint8, fp16, bf16, fp32, fp64 (any pair of fp8 types also works, multiplied in fp16); int8 gives
int32; fp32 and bf16 give fp32; fp64 gives fp64; fp16 and fp8 give ``out_dtype`` (fp32 or fp16).
``input_precision`` (fp32 inputs): ``ieee``, ``tf32``, ``tf32x3``, ``bf16x3`` or ``bf16x6``;
targets without reduced-precision tensor cores compute all of them in fp32.  ``max_num_imprecise_acc``
(fp8 inputs, at most K): how many K elements Hopper's tensor cores sum, in their narrower fp8
accumulation, before each partial sum is added to the fp32 accumulator.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ...ir import types as T
from ..core import tensor
from .arith import ArithMixin
from .base import SemanticError
from .typing import python_value, tile_type

DOT_INPUT_TYPES = (T.i8, T.u8, T.f16, T.bf16, T.f32, T.f64)
# max_num_imprecise_acc of an fp8 dot that does not set it: more K elements than any tile has, so
# the tensor cores sum all of K before the accumulator sees it
UNPROMOTED = 2 ** 30


class DotMixin(ArithMixin):
    def dot(self, a: Any, b: Any, acc: Any = None, input_precision: Any = None, allow_tf32: Any = None,
            max_num_imprecise_acc: Any = None, out_dtype: Any = T.f32) -> tensor:
        a, b = self.to_tensor(a), self.to_tensor(b)
        rank = len(T.shape_of(a.type))
        if rank >= 4 and len(T.shape_of(b.type)) == rank:
            return self._folded_dot(a, b, python_value(acc), input_precision, allow_tf32, max_num_imprecise_acc,
                                    out_dtype)
        input_precision, allow_tf32 = python_value(input_precision), python_value(allow_tf32)
        out_dtype = python_value(out_dtype)
        precision = self._dot_precision(input_precision, allow_tf32)
        a, b = self._dot_inputs(a, b)
        m, n, k, batch = self._dot_shape(a, b)
        result_element = self._dot_result_type(a.dtype, out_dtype)
        result = tile_type(result_element, batch + (m, n))
        acc = python_value(acc)
        if acc is None:
            acc = self.full_constant(batch + (m, n), 0, result_element)
        else:
            acc = self.to_tensor(acc)
            if acc.type is not result:
                raise SemanticError(f"tl.dot's acc must be a {result} tile (the product's shape and dtype), got "
                                    f"{acc.type}")
        imprecise = python_value(max_num_imprecise_acc)
        if imprecise is None:  # fp8: never promoted (Triton's default on Hopper); ignored for other types
            imprecise = UNPROMOTED if a.dtype.is_fp8() else 0
        elif a.dtype.is_fp8() and imprecise > k:
            raise SemanticError(f"max_num_imprecise_acc ({imprecise}) must be <= K ({k})")
        attrs = {"input_precision": precision, "max_num_imprecise_acc": int(imprecise)}
        return self.make("dot", [a, b, acc], result, attrs)

    def _folded_dot(self, a: tensor, b: tensor, acc: Any, *options: Any) -> tensor:
        """A dot of 4-D or higher tiles, as Triton's: the batch dims folded into one (row-major),
        the 3-D dot, the result unfolded."""
        a_shape, b_shape = T.shape_of(a.type), T.shape_of(b.type)
        if a_shape[:-2] != b_shape[:-2]:
            raise SemanticError(f"tl.dot's batch dims differ: {list(a_shape)} @ {list(b_shape)} (all but the last two "
                                "dims must be equal)")
        batch = math.prod(a_shape[:-2])
        if acc is not None:
            acc = self.to_tensor(acc)
            expected = a_shape[:-1] + b_shape[-1:]
            if T.shape_of(acc.type) != expected:
                raise SemanticError(f"tl.dot's acc must have the product's shape {list(expected)}, got "
                                    f"{list(T.shape_of(acc.type))}")
            acc = self.reshape(acc, (batch,) + expected[-2:])
        folded = self.dot(self.reshape(a, (batch,) + a_shape[-2:]), self.reshape(b, (batch,) + b_shape[-2:]), acc,
                          *options)
        return self.reshape(folded, a_shape[:-1] + b_shape[-1:])

    def _dot_precision(self, input_precision: Any, allow_tf32: Any) -> str:
        if input_precision is not None and allow_tf32 is not None:
            raise SemanticError("give tl.dot either input_precision or allow_tf32 (deprecated), not both")
        if input_precision is None:
            if allow_tf32 is False:
                return "ieee"
            return self.options.default_dot_input_precision
        precision = str(input_precision).lower()
        allowed = self.options.dot_input_precisions  # the target's (all of DOT_INPUT_PRECISIONS here)
        if precision not in allowed:
            raise SemanticError(f"tl.dot's input_precision must be one of {', '.join(allowed)}; "
                                f"got {input_precision!r}")
        return precision

    def _dot_inputs(self, a: tensor, b: tensor) -> tuple[tensor, tensor]:
        if not (T.shape_of(a.type) and T.shape_of(b.type)):
            raise SemanticError("tl.dot multiplies tiles, not scalars")
        if T.f8e4b15 in (a.dtype, b.dtype):  # as Triton: multiplied in fp16 (deprecated on some targets)
            if "fp8e4b15" in self.options.deprecated_fp8_dot_types:
                warnings.warn("the use of fp8e4b15 is deprecated on Hopper and later architectures and can cause "
                              "significant slow down (it is multiplied in fp16); use fp8e4nv or fp16 operands",
                              UserWarning, stacklevel=2)
            return self.cast(a, T.f16), self.cast(b, T.f16)
        if a.dtype.is_fp8() and b.dtype.is_fp8():
            if a.dtype is not b.dtype:
                a, b = self.cast(a, T.f16), self.cast(b, T.f16)
            return a, b
        for side, value in (("first", a), ("second", b)):
            if value.dtype not in DOT_INPUT_TYPES:
                names = ", ".join(t.name for t in DOT_INPUT_TYPES)
                raise SemanticError(f"tl.dot's {side} input has dtype {value.dtype.name}; supported: {names} "
                                    "(or fp8)")
        if a.dtype is not b.dtype:
            raise SemanticError(f"tl.dot's inputs must have one dtype, got {a.dtype.name} and {b.dtype.name}; cast "
                                "one of them")
        if a.dtype is T.u8:
            raise SemanticError("tl.dot on integers supports int8 only, got uint8")
        return a, b

    def _dot_shape(self, a: tensor, b: tensor) -> tuple[int, int, int, tuple[int, ...]]:
        a_shape, b_shape = T.shape_of(a.type), T.shape_of(b.type)
        if not (len(a_shape) == len(b_shape) and len(a_shape) in (2, 3)):
            raise SemanticError(f"tl.dot takes two tiles of one rank, 2 or more, got shapes {list(a_shape)} and "
                                f"{list(b_shape)}")
        if a_shape[-1] != b_shape[-2]:
            raise SemanticError(f"tl.dot's inner dims differ: {list(a_shape)} @ {list(b_shape)} (the first's last dim "
                                "must equal the second's second-to-last)")
        if len(a_shape) == 3 and a_shape[0] != b_shape[0]:
            raise SemanticError(f"tl.dot's batch dims differ: {a_shape[0]} and {b_shape[0]}")
        m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]
        min_m, min_n, min_k = self.options.min_dot_size
        if a.dtype.primitive_bitwidth == 8 and self.options.min_dot_size_8bit is not None:
            min_m, min_n, min_k = self.options.min_dot_size_8bit
        if m < min_m or n < min_n or k < min_k:  # Triton's words
            raise SemanticError(f"Input shapes should have M >= {min_m}, N >= {min_n} and K >= {min_k}",
                                hint=f"got M={m}, N={n}, K={k} (tl.dot on {self.options.target})")
        return m, n, k, a_shape[:-2]

    @staticmethod
    def _dot_result_type(input_type, out_dtype) -> T.ScalarType:
        if input_type.is_int():
            return T.i32
        if out_dtype is T.bf16:
            raise SemanticError("out_dtype=tl.bfloat16 is not supported by tl.dot; use tl.float32 (or tl.float16) "
                                "and cast the result with .to(tl.bfloat16)")
        if input_type in (T.f32, T.bf16):
            return T.f32
        if input_type is T.f64:
            return T.f64
        if out_dtype not in (T.f16, T.f32):
            raise SemanticError(f"tl.dot's out_dtype must be tl.float32 or tl.float16, got {out_dtype!r}")
        return out_dtype
