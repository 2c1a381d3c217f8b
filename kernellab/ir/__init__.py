"""Tile IR: types, values and ops (declared once, with numpy reference semantics), the builder,
printer, parser and verifier."""

from . import ops, types
from .builder import Builder
from .core import UNKNOWN_LOC, Block, Function, Location, Module, Op, Value, replace_all_uses, uses_of
from .ops import OPS, OpDef, VerifyError, lookup

__all__ = [
    "types", "ops", "Builder", "Block", "Function", "Location", "Module", "Op", "Value", "UNKNOWN_LOC",
    "replace_all_uses", "uses_of", "OPS", "OpDef", "VerifyError", "lookup",
]
