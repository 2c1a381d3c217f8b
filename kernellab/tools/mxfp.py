"""Triton's ``triton.tools.mxfp``: host-side (torch) helpers for the OCP microscaling formats.

``MXFP4Tensor`` holds FP4 E2M1 values as one 4-bit code per uint8 (bit 3 the sign, then two
exponent bits and one mantissa bit: magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6); floats are rounded
to the nearest code, ties to the even code, and saturate at +-6 (infinities too; NaN, which
E2M1 cannot hold, becomes 0).  ``to_packed_tensor(dim)`` puts two codes in a byte along ``dim``
(the first in the low nibble; an odd length is padded with a zero code).

``MXScaleTensor`` holds E8M0 scales, one uint8 each: the value is ``2 ** (code - 127)``, code
255 is NaN; a float becomes the code of the power of two at or below it (``floor(log2)``, as
Triton's), and zero, negatives, infinities and NaN become 255; ``random(low, high)`` draws codes
between those of the values ``low`` and ``high``.  Both are host tools; in a kernel,
``tl.dot_scaled`` multiplies blocks in these formats.
"""

from __future__ import annotations

import math
from typing import Any

import torch

_FP4_MAGNITUDES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
_FP4_SIGN = 0b1000
_E8M0_BIAS = 127
_E8M0_NAN = 255


def _fp4_magnitudes(device: Any) -> torch.Tensor:
    return torch.tensor(_FP4_MAGNITUDES, dtype=torch.float32, device=device)


class MXFP4Tensor:
    """FP4 (E2M1) values as codes: ``MXFP4Tensor(floats)`` or ``MXFP4Tensor(size=..., device=...)``
    (zeros; ``.random()`` fills every code)."""

    def __init__(self, data: torch.Tensor | None = None, size: Any = None, device: Any = None):
        if data is not None:
            self.device = data.device
            self.data = self._from_float(data.to(torch.float32))
        elif size is not None:
            self.device = device
            self.data = torch.zeros(size, dtype=torch.uint8, device=device)
        else:
            raise ValueError("MXFP4Tensor takes data (a tensor of floats) or a size")

    def random(self) -> MXFP4Tensor:
        self.data = torch.randint(0, 16, self.data.shape, dtype=torch.uint8, device=self.device)
        return self

    def to(self, dtype: torch.dtype) -> torch.Tensor:
        codes = self.data.to(torch.int64)
        magnitude = _fp4_magnitudes(self.data.device)[codes & 0b111]
        values = torch.where((codes & _FP4_SIGN) != 0, -magnitude, magnitude)
        return values.to(dtype)

    @staticmethod
    def _from_float(values: torch.Tensor) -> torch.Tensor:
        table = _fp4_magnitudes(values.device)
        magnitude = torch.nan_to_num(values.abs(), nan=0.0).clamp(max=_FP4_MAGNITUDES[-1])
        distance = (magnitude.unsqueeze(-1) - table).abs()
        nearest = distance.min(dim=-1, keepdim=True).values
        # every code at the nearest distance; of two (a tie), the even one
        tied = distance == nearest
        even = tied & (torch.arange(len(_FP4_MAGNITUDES), device=values.device) % 2 == 0)
        codes = torch.where(even.any(dim=-1), even.to(torch.int8).argmax(dim=-1), tied.to(torch.int8).argmax(dim=-1))
        negative = torch.signbit(values) & ~torch.isnan(values)
        return (codes + torch.where(negative, _FP4_SIGN, 0)).to(torch.uint8)

    def to_packed_tensor(self, dim: int) -> torch.Tensor:
        """Two codes a byte along ``dim`` (the first in the low nibble)."""
        assert -self.data.dim() <= dim < self.data.dim(), f"dim {dim} is not a dimension of {tuple(self.data.shape)}"
        dim %= self.data.dim()
        codes = self.data
        if codes.shape[dim] % 2:
            pad_shape = list(codes.shape)
            pad_shape[dim] = 1
            codes = torch.cat([codes, torch.zeros(pad_shape, dtype=codes.dtype, device=codes.device)], dim=dim)
        first, second = codes.unflatten(dim, (codes.shape[dim] // 2, 2)).unbind(dim=dim + 1)
        return first | (second << 4)

    def unpack_packed_tensor(self, packed_tensor: torch.Tensor, dim: int, original_shape: Any) -> torch.Tensor:
        """The codes of ``packed_tensor`` (from :meth:`to_packed_tensor`), cut to ``original_shape``."""
        dim %= packed_tensor.dim()
        codes = torch.stack([packed_tensor & 0x0F, packed_tensor >> 4], dim=dim + 1).flatten(dim, dim + 1)
        return codes.narrow(dim, 0, tuple(original_shape)[dim])


class MXScaleTensor:
    """E8M0 scales as codes: ``MXScaleTensor(floats)`` or ``MXScaleTensor(size=..., device=...)``."""

    def __init__(self, data: torch.Tensor | None = None, size: Any = None, device: Any = None):
        if data is not None:
            self.device = data.device
            self.data = self._from_float(data.to(torch.float32))
        elif size is not None:
            self.device = device
            self.data = torch.zeros(size, dtype=torch.uint8, device=device)
        else:
            raise ValueError("MXScaleTensor takes data (a tensor of floats) or a size")

    def random(self, low: float | None = None, high: float | None = None) -> MXScaleTensor:
        """Random finite scales between the values ``low`` and ``high`` (Triton's: the codes of
        their powers of two, ``int(log2(value))``, clamped to 0..254; every finite code without
        them)."""
        first = 0 if low is None else _scale_code(low)
        last = _E8M0_NAN - 1 if high is None else _scale_code(high)
        assert first <= last, f"low ({low}) must not be above high ({high})"
        self.data = torch.randint(first, last + 1, self.data.shape, dtype=torch.uint8, device=self.device)
        return self

    def to(self, dtype: torch.dtype) -> torch.Tensor:
        codes = self.data.to(torch.float32)
        values = torch.exp2(codes - _E8M0_BIAS)
        return torch.where(self.data == _E8M0_NAN, torch.nan, values).to(dtype)

    @staticmethod
    def _from_float(values: torch.Tensor) -> torch.Tensor:
        valid = torch.isfinite(values) & (values > 0)
        exponent = torch.floor(torch.log2(torch.where(valid, values, 1.0))) + _E8M0_BIAS
        codes = exponent.clamp(0, _E8M0_NAN - 1)
        return torch.where(valid, codes, float(_E8M0_NAN)).to(torch.uint8)


def _scale_code(value: float) -> int:
    """The code of ``value``'s power of two as Triton's ``random`` bounds take it: ``log2``
    truncated toward zero, clamped to the finite codes."""
    return min(_E8M0_NAN - 1, max(0, int(math.log2(value)) + _E8M0_BIAS))


__all__ = ["MXFP4Tensor", "MXScaleTensor"]
