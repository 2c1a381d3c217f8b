"""The op registry: every Tile IR op is declared once, here and in its concept module.

An :class:`OpDef` says what an op is: its operand groups, result count, attributes (with kinds
and defaults), regions, traits, an optional verifier and its **numpy reference semantics**.
The interpreter, constant folding and the differential tests all call that one reference.

Reference calling convention (the same for every op)::

    reference(*groups, **attrs, [result_types=...], [ctx=...], [regions=...]) -> value | tuple

* ``groups``: one positional argument per declared operand group, in declaration order; a
  ``ONE`` group passes its value, an ``OPTIONAL`` one its value or ``None``, a ``VARIADIC`` one a
  list of values.
* ``attrs``: every declared attribute by name (defaults filled in).
* ``result_types``: the op's result types, passed when the op declares ``wants_types``.
* ``ctx`` and ``op``: the execution context (memory, program ids, printing; see
  :class:`ExecContext`) and the op itself (for error messages), passed for ``needs_ctx`` ops;
  constant folding never evaluates those.
* ``regions``: for ops with regions that compute (``reduce``, ``scan``), one Python callable
  per region, taking and returning numpy values.

Values are numpy scalars or arrays of the type's numpy dtype (:func:`numpy_dtype`); pointers
are ``int64`` byte addresses.  Structural control-flow ops (``for``, ``if``, ``while``,
``call``, terminators) have no reference: each backend implements them structurally.
"""

from __future__ import annotations

import enum
import functools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..core import Op
from ..types import SCALAR_TYPES, TileType, Type, numpy_dtype


class Arity(enum.Enum):
    ONE = "one"
    OPTIONAL = "optional"
    VARIADIC = "variadic"


@dataclass(frozen=True)
class OperandSpec:
    name: str
    arity: Arity = Arity.ONE


class AttrKind(enum.Enum):
    INT = "int"
    FLOAT = "float"
    NUMBER = "number"  # int, float or bool (a constant's value)
    BOOL = "bool"
    STR = "str"
    TYPE = "type"
    INTS = "ints"  # tuple of ints
    STRS = "strs"  # tuple of strings


REQUIRED = object()


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: AttrKind
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


# Traits ---------------------------------------------------------------------------------------
PURE = "pure"  # no side effects: CSE, DCE and hoisting may move or drop it
ELEMENTWISE = "elementwise"  # applies per element; operands and result share a shape
COMMUTATIVE = "commutative"
TERMINATOR = "terminator"  # ends a block
CONTROL = "control"  # structural control flow; no reference
READS_MEMORY = "reads_memory"
WRITES_MEMORY = "writes_memory"
NEEDS_CTX = "needs_ctx"  # the reference needs the execution context (never folded)
SAME_TYPE = "same_type"  # every operand and the result have one type
TARGET_SPECIFIC = "target_specific"  # made by one backend's own passes (``gpu.*``), never by a kernel


class VerifyError(Exception):
    """The IR breaks an op's contract.  Raised by :mod:`kernellab.ir.verifier`."""

    def __init__(self, message: str, op: Op | None = None):
        where = f" ({op.name} at {op.loc})" if op is not None else ""
        super().__init__(message + where)
        self.op = op


@dataclass(frozen=True)
class OpDef:
    name: str
    operands: tuple[OperandSpec, ...] = ()
    results: int = 1  # -1: variadic
    attrs: tuple[AttrSpec, ...] = ()
    regions: int = 0
    traits: frozenset[str] = field(default_factory=frozenset)
    verify: Callable[[Op], None] | None = None
    reference: Callable[..., Any] | None = None
    wants_types: bool = False
    doc: str = ""

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def attr_spec(self, name: str) -> AttrSpec | None:
        for spec in self.attrs:
            if spec.name == name:
                return spec
        return None

    def filled_attrs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """``attrs`` with defaults filled in for every declared attribute not given."""
        full = {}
        for spec in self.attrs:
            if spec.name in attrs:
                full[spec.name] = attrs[spec.name]
            elif not spec.required:
                full[spec.name] = spec.default
        return full

    def group(self, op: Op, values: list) -> list:
        """Split a flat list of operand values into the declared groups (reference order)."""
        groups = []
        start = 0
        for spec, count in zip(self.operands, op.segments):
            chunk = values[start:start + count]
            start += count
            if spec.arity is Arity.ONE:
                groups.append(chunk[0])
            elif spec.arity is Arity.OPTIONAL:
                groups.append(chunk[0] if chunk else None)
            else:
                groups.append(list(chunk))
        return groups

    def bind(self, op: Op, ctx: Any = None, regions: list[Callable] | None = None) -> Callable[..., tuple]:
        """A function of the flat operand values that evaluates ``op`` through the reference and
        always returns a tuple of results."""
        value = self.bind_value(op, ctx, regions)
        if self.results == 1:
            return lambda *values: (value(*values),)
        return lambda *values: _as_results(value(*values))

    def bind_value(self, op: Op, ctx: Any = None, regions: list[Callable] | None = None) -> Callable[..., Any]:
        """Like :meth:`bind`, but the function returns what the reference returns (for a
        one-result op, the result itself): one Python call less per evaluation, which the
        interpreter's per-op cost is made of."""
        if self.reference is None:
            raise NotImplementedError(f"op {self.name} has no reference semantics (it is structural)")
        kwargs = self.filled_attrs(op.attrs)
        if self.wants_types:
            kwargs["result_types"] = [r.type for r in op.results]
        if self.has(NEEDS_CTX):
            kwargs["ctx"] = ctx
            kwargs["op"] = op
        if self.regions and not self.has(CONTROL):
            kwargs["regions"] = regions
        reference = self.reference
        if all(spec.arity is Arity.ONE for spec in self.operands):
            return functools.partial(reference, **kwargs)
        grouped = self.grouper(op)
        return lambda *values: reference(*grouped(values), **kwargs)

    def grouper(self, op: Op) -> Callable[[tuple], Sequence]:
        """:meth:`group` specialised to ``op``'s segments (fast when no group is variadic)."""
        if any(spec.arity is Arity.VARIADIC for spec in self.operands):
            return lambda values: self.group(op, list(values))
        positions, start = [], 0
        for count in op.segments:
            positions.append(start if count else -1)  # -1: the None appended below
            start += count
        pick = operator.itemgetter(*positions)
        if len(positions) == 1:
            return lambda values: (pick(values + (None,)),)
        return lambda values: pick(values + (None,))


def _as_results(out) -> tuple:
    """A reference's return value as a tuple of results (None: none; a bare value: one)."""
    if out is None:
        return ()
    return out if isinstance(out, tuple) else (out,)


class ExecContext(Protocol):
    """What ``needs_ctx`` references call.  The interpreter implements it; so can a test."""

    def program_id(self, axis: int) -> int: ...

    def num_programs(self, axis: int) -> int: ...

    def load(self, addresses: np.ndarray, mask: np.ndarray | None, other: Any, dtype: np.dtype, op: Op) -> Any:
        """Read ``dtype`` values at byte ``addresses`` where ``mask`` (None: everywhere);
        ``other`` (or zero) elsewhere."""

    def store(self, addresses: np.ndarray, value: Any, mask: np.ndarray | None, op: Op) -> None: ...

    def atomic_rmw(self, kind: str, addresses: np.ndarray, value: Any, mask: np.ndarray | None, op: Op) -> Any:
        """Apply ``kind`` element by element in index order; return the old values."""

    def atomic_cas(self, addresses: np.ndarray, compare: Any, value: Any, op: Op) -> Any: ...

    def print(self, prefix: str, values: list, hex: bool, op: Op) -> None: ...

    def check(self, condition: Any, message: str, op: Op) -> None:
        """device_assert: fail with ``message`` where ``condition`` is false."""


OPS: dict[str, OpDef] = {}


def declare(name: str, operands=(), results: int = 1, attrs=(), regions: int = 0, traits=(),
            verify: Callable[[Op], None] | None = None, reference: Callable | None = None,
            wants_types: bool = False, doc: str = "") -> OpDef:
    """Declare an op.  ``operands`` items are names (``"x"``), ``"mask?"`` for an optional one
    and ``"offsets*"`` for a variadic group; ``attrs`` items are :class:`AttrSpec` or
    ``(name, kind[, default])`` tuples."""
    if name in OPS:
        raise ValueError(f"op {name} is declared twice")
    specs = []
    for operand in operands:
        if operand.endswith("?"):
            specs.append(OperandSpec(operand[:-1], Arity.OPTIONAL))
        elif operand.endswith("*"):
            specs.append(OperandSpec(operand[:-1], Arity.VARIADIC))
        else:
            specs.append(OperandSpec(operand))
    attr_specs = tuple(a if isinstance(a, AttrSpec) else AttrSpec(a[0], AttrKind(a[1]), *a[2:]) for a in attrs)
    opdef = OpDef(name, tuple(specs), results, attr_specs, regions, frozenset(traits), verify, reference,
                  wants_types, doc)
    OPS[name] = opdef
    return opdef


def kernel_ops() -> set[str]:
    """The ops a kernel's Tile IR can hold (every declared op but the target-specific ones)."""
    return {name for name, opdef in OPS.items() if not opdef.has(TARGET_SPECIFIC)}


def lookup(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown Tile IR op {name!r}") from None


# ---------------------------------------------------------------------------------------------
# Numpy views of types, shared by the references, the interpreter and the folder
# (numpy_dtype itself is a type's view: kernellab.ir.types)
# ---------------------------------------------------------------------------------------------

@functools.cache
def _extended_floats() -> frozenset:
    """bfloat16 and the fp8 types as numpy dtypes (loads ml_dtypes, ~0.6 s on a small machine:
    only when a 'V'-kind dtype is asked about, never for the standard types)."""
    return frozenset(t.np_dtype for t in SCALAR_TYPES if t.is_floating() and t.np_dtype is not None)


def is_float_dtype(dtype) -> bool:
    """Whether a numpy dtype holds floats, bfloat16 and fp8 included (ml_dtypes reports those
    with kind 'V', so ``dtype.kind == 'f'`` misses them)."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or (dtype.kind == "V" and dtype in _extended_floats())


def make_value(ty: Type, value) -> Any:
    """``value`` (a Python number or array) as a numpy value of type ``ty`` (scalar or tile)."""
    dtype = numpy_dtype(ty)
    if isinstance(ty, TileType):
        return np.full(ty.shape, value, dtype=dtype) if np.ndim(value) == 0 else np.asarray(value, dtype=dtype)
    return dtype.type(value)
