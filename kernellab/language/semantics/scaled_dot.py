"""``tl.dot_scaled``: the matrix product of two blocks in OCP microscaling formats, as Triton
emulates it where the hardware has no such instruction (every kernellab target): each operand is
upcast to bf16 (fp16 when either is fp16), multiplied by its e8m0 scales, and the two go to an
ordinary ``tl.dot`` with an fp32 accumulator.

Formats: ``e2m1`` (fp4, two to a uint8, the first element in the low nibble, packed along K
unless ``k_pack`` is false), ``e4m3``/``e5m2`` (fp8 as uint8 or the fp8 dtype), ``bf16`` and
``fp16``.  A scale (uint8, ``2 ** (s - 127)``, 255 is NaN) covers 32 consecutive elements along
K: ``[M, K // 32]`` for the lhs and ``[N, K // 32]`` for the rhs (not transposed).
"""

from __future__ import annotations

from typing import Any

from ...ir import types as T
from ..core import tensor
from .base import SemanticError
from .dot import DotMixin
from .typing import python_value

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")
SCALE_GROUP = 32  # elements along K per e8m0 scale
_FP8 = {"e4m3": T.f8e4m3, "e5m2": T.f8e5m2}
_HALF = {"bf16": T.bf16, "fp16": T.f16}


class ScaledDotMixin(DotMixin):
    def dot_scaled(self, lhs: Any, lhs_scale: Any, lhs_format: Any, rhs: Any, rhs_scale: Any, rhs_format: Any,
                   acc: Any = None, fast_math: Any = False, lhs_k_pack: Any = True, rhs_k_pack: Any = True,
                   out_dtype: Any = T.f32) -> tensor:
        formats = [python_value(lhs_format), python_value(rhs_format)]
        for side, fmt in zip(("lhs", "rhs"), formats):
            if fmt not in FORMATS:
                raise SemanticError(f"tl.dot_scaled's {side}_format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        if python_value(out_dtype) not in (None, T.f32):
            raise SemanticError(f"tl.dot_scaled's out_dtype must be tl.float32, got {python_value(out_dtype)}")
        lhs, rhs = self.to_tensor(lhs), self.to_tensor(rhs)
        if len(T.shape_of(lhs.type)) != 2 or len(T.shape_of(rhs.type)) != 2:
            raise SemanticError(f"tl.dot_scaled multiplies 2-D blocks, got shapes {list(T.shape_of(lhs.type))} and "
                                f"{list(T.shape_of(rhs.type))}")
        computing = T.f16 if "fp16" in formats else T.bf16
        a = self._mx_upcast(lhs, lhs_scale, formats[0], computing, 1, bool(python_value(lhs_k_pack)), "lhs")
        b = self._mx_upcast(rhs, rhs_scale, formats[1], computing, 0, bool(python_value(rhs_k_pack)), "rhs")
        if T.shape_of(a.type)[1] != T.shape_of(b.type)[0]:
            raise SemanticError(f"tl.dot_scaled's operands hold {T.shape_of(a.type)[1]} and {T.shape_of(b.type)[0]} "
                                "elements along K; they must match")
        return self.dot(a, b, acc, out_dtype=T.f32)

    def _mx_upcast(self, x: tensor, scale: Any, fmt: str, computing: T.ScalarType, k_axis: int, k_pack: bool,
                   side: str) -> tensor:
        """The operand as ``computing`` values (K along ``k_axis``), scaled."""
        if fmt in _HALF:
            if x.dtype not in (_HALF[fmt], T.u16, T.i16):
                raise SemanticError(f"tl.dot_scaled's {side} is {fmt}, so it must be a {_HALF[fmt].name} tile, got "
                                    f"{x.dtype.name}")
            values = self.cast(self.bitcast(x, _HALF[fmt]), computing)
        else:
            if x.dtype not in (T.u8, T.i8) and not (fmt in _FP8 and x.dtype is _FP8[fmt]):
                raise SemanticError(f"tl.dot_scaled's {side} is {fmt}: a uint8 tile of its codes, got {x.dtype.name}")
            if fmt == "e2m1":
                values = self._unpack_fp4(self.bitcast(x, T.u8), computing, k_axis if k_pack else 1 - k_axis)
            else:
                values = self.cast(self.bitcast(x, _FP8[fmt]), computing)
        scale = python_value(scale)
        if scale is None:
            return values
        return self._apply_scale(values, self.to_tensor(scale), computing, k_axis, side)

    def _unpack_fp4(self, packed: tensor, computing: T.ScalarType, axis: int) -> tensor:
        """Two e2m1 codes per byte (the first in the low nibble) as values, the pair side by side
        along ``axis``: sign, two exponent bits (bias 1), one mantissa bit."""
        def value(code: tensor) -> tensor:
            exponent = self.and_(self.shr(code, 1), 3)
            mantissa = self.cast(self.and_(code, 1), T.f32)
            normal = self.mul(self.add(self.mul(mantissa, 0.5), 1.0),
                              self.where(self.equal(exponent, 1), 1.0, self.where(self.equal(exponent, 2), 2.0, 4.0)))
            magnitude = self.where(self.equal(exponent, 0), self.mul(mantissa, 0.5), normal)
            signed = self.where(self.not_equal(self.and_(code, 8), 0), self.minus(magnitude), magnitude)
            return self.cast(signed, computing)

        low, high = value(self.and_(packed, 15)), value(self.shr(packed, 4))
        rows, cols = T.shape_of(packed.type)
        pairs = self.join(low, high)  # [rows, cols, 2]
        if axis == 1:
            return self.reshape(pairs, (rows, 2 * cols))
        return self.reshape(self.permute(pairs, (0, 2, 1)), (2 * rows, cols))

    def _apply_scale(self, values: tensor, scale: tensor, computing: T.ScalarType, k_axis: int, side: str) -> tensor:
        """``values`` times ``2 ** (scale - 127)`` per group of 32 along K (NaN where the scale is
        255); ``scale`` is ``[M, K // 32]`` (lhs) or ``[N, K // 32]`` (rhs)."""
        shape = T.shape_of(values.type)
        k, other = shape[k_axis], shape[1 - k_axis]
        expected = f"[{other}, {k // SCALE_GROUP}]"
        if T.shape_of(scale.type) != (other, k // SCALE_GROUP):  # Triton's words (its shape entries as text)
            raise SemanticError(f"{side}_scale must be a tensor of shape {expected}. Got "
                                f"{[str(d) for d in T.shape_of(scale.type)]}",
                                hint=f"tl.dot_scaled takes one e8m0 scale per {SCALE_GROUP} elements along K")
        if scale.dtype not in (T.u8, T.i8):
            raise SemanticError(f"tl.dot_scaled's {side}_scale must be a uint8 tile of shape {expected} (one e8m0 "
                                f"scale per {SCALE_GROUP} elements along K), got {scale.type}")
        codes = self.bitcast(scale, T.u8)
        factor = self.bitcast(self.shl(self.cast(codes, T.u32), 23), T.f32)  # 2 ** (s - 127); 0 for s == 0
        factor = self.where(self.equal(codes, 255), float("nan"), factor)
        grouped = self.broadcast_to(self.expand_dims(factor, 2), (other, k // SCALE_GROUP, SCALE_GROUP))
        factor = self.reshape(grouped, (other, k))
        if k_axis == 0:
            factor = self.permute(factor, (1, 0))
        return self.cast(self.mul(self.cast(values, T.f32), factor), computing)
