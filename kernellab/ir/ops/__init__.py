"""Every Tile IR op, declared once.  Importing this package registers them all."""

from . import arith, control, debug, math, memory, reduce, shape  # noqa: F401  (registration)
from .memory import BlockPtr, TensorDesc
from .registry import (
    COMMUTATIVE,
    CONTROL,
    ELEMENTWISE,
    NEEDS_CTX,
    OPS,
    PURE,
    READS_MEMORY,
    SAME_TYPE,
    TERMINATOR,
    WRITES_MEMORY,
    Arity,
    AttrKind,
    AttrSpec,
    ExecContext,
    OpDef,
    OperandSpec,
    VerifyError,
    declare,
    lookup,
    make_value,
    numpy_dtype,
)

__all__ = [
    "OPS", "OpDef", "OperandSpec", "AttrSpec", "AttrKind", "Arity", "VerifyError", "ExecContext", "declare",
    "lookup", "numpy_dtype", "make_value", "BlockPtr", "TensorDesc", "PURE", "ELEMENTWISE", "COMMUTATIVE",
    "TERMINATOR", "CONTROL", "READS_MEMORY", "WRITES_MEMORY", "NEEDS_CTX", "SAME_TYPE",
]
