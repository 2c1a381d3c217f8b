"""Elementwise ops on the host: the shared scalar lowering (``backends/llvm``) lifted to tiles.

Every op of ``SCALAR_OPS`` becomes a lazy tile computing it per element (:func:`.table.elementwise`),
on the host's :class:`~.scalars.HostScalars`; only constants are lowered here (a tile of one
value, cheap to recompute anywhere).
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import TileType, Type, element_of
from ..llvm import SCALAR_OPS, ScalarLowering
from ..llvm import convert as shared_convert
from .emitter import Emitter
from .llvm_types import constant
from .table import elementwise, lowering
from .tiles import Lazy


@lowering("constant")
def lower_constant(em: Emitter, op: Op, args: list) -> list:
    ty = element_of(op.result.type)
    value = constant(ty, op.attrs["value"])
    if isinstance(op.result.type, TileType):
        return [Lazy(op.result.type.shape, ty, lambda em2, idx: value, cheap=True)]
    return [value]


def _on_host(fn: ScalarLowering):
    def lower(em: Emitter, op: Op, values: list) -> ll.Value:
        return fn(em.scalars, op, values)
    return lower


for _name, _fn in SCALAR_OPS.items():
    elementwise(_name)(_on_host(_fn))


def convert(em: Emitter, x: ll.Value, src: Type, dst: Type, rounding: str = "rtne") -> ll.Value:
    """Value conversion from Tile IR scalar type ``src`` to ``dst`` (the cast op's semantics)."""
    return shared_convert.convert(em.scalars, x, src, dst, rounding)
