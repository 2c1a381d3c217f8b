"""Tile IR structure: values, operations, blocks, functions, modules, source locations.

The IR is SSA with structured control flow.  An :class:`Op` has a name (looked up in the op
registry, ``kernellab.ir.ops``), operands, results, attributes, regions and a source location.
A region is a :class:`Block`: block arguments plus a list of ops; structured ops (``for``,
``if``, ``while``, ``reduce``, ``scan``) own one or more blocks, each ending in a terminator
(``yield``, ``condition``, ``return``).

Values keep no use lists: IR sizes are small, and passes that need uses compute them with
:func:`uses_of` (a walk), which keeps every mutation a plain list edit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .types import Type

if TYPE_CHECKING:  # pragma: no cover
    from .ops.registry import OpDef


@dataclass(frozen=True)
class Location:
    """A source position: file, 1-based line, 0-based column (as Python's ``ast`` gives them)."""

    file: str
    line: int
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN_LOC = Location("<unknown>", 0, 0)


class Value:
    """An SSA value: an op result or a block argument."""

    __slots__ = ("type", "owner", "index", "name_hint")

    def __init__(self, type: Type, owner: Op | Block | None = None, index: int = 0, name_hint: str | None = None):
        self.type = type
        self.owner = owner
        self.index = index
        self.name_hint = name_hint

    @property
    def defining_op(self) -> Op | None:
        """The op producing this value; ``None`` for block arguments."""
        return self.owner if isinstance(self.owner, Op) else None

    def __repr__(self) -> str:
        hint = f" {self.name_hint}" if self.name_hint else ""
        return f"<Value{hint}: {self.type.ir}>"


class Op:
    """One operation.  ``attrs`` hold plain Python values (int, float, bool, str, Type, and
    tuples of those); their kinds are declared with the op in the registry."""

    __slots__ = ("name", "operands", "results", "attrs", "regions", "loc", "parent", "segments")

    def __init__(self, name: str, operands: list[Value], result_types: list[Type], attrs: dict[str, Any] | None = None,
                 regions: list[Block] | None = None, loc: Location = UNKNOWN_LOC,
                 segments: tuple[int, ...] | None = None):
        self.name = name
        self.operands = list(operands)
        self.results = [Value(t, self, i) for i, t in enumerate(result_types)]
        self.attrs = dict(attrs or {})
        self.regions = list(regions or [])
        for region in self.regions:
            region.parent = self
        self.loc = loc
        self.parent: Block | None = None
        # Number of values in each operand group, in the order the op declares its operands
        # (1 for a required operand, 0/1 for an optional one, n for a variadic one).
        self.segments = segments if segments is not None else _default_segments(name, len(self.operands))

    @property
    def opdef(self) -> OpDef:
        from .ops.registry import lookup

        return lookup(self.name)

    @property
    def result(self) -> Value:
        """The single result (errors if the op has another count)."""
        if len(self.results) != 1:
            raise ValueError(f"op {self.name} has {len(self.results)} results, not one")
        return self.results[0]

    def operand_group(self, name: str) -> list[Value]:
        """The operands of the declared operand group ``name`` (empty if an optional is absent)."""
        start = 0
        for spec, count in zip(self.opdef.operands, self.segments):
            if spec.name == name:
                return self.operands[start:start + count]
            start += count
        raise KeyError(f"op {self.name} declares no operand {name!r}")

    def operand(self, name: str) -> Value | None:
        """A single-valued operand group by name (``None`` when an optional one is absent)."""
        group = self.operand_group(name)
        return group[0] if group else None

    def walk(self) -> Iterator[Op]:
        """This op, then every op nested in its regions, in program order."""
        yield self
        for region in self.regions:
            yield from region.walk()

    def __repr__(self) -> str:
        return f"<Op {self.name} at {self.loc}>"


def _default_segments(name: str, count: int) -> tuple[int, ...]:
    """Segments for ops whose groups are all single operands, or one variadic group."""
    from .ops.registry import Arity, lookup

    specs = lookup(name).operands
    if all(spec.arity is Arity.ONE for spec in specs):
        return (1,) * count
    if len(specs) == 1:
        return (count,)
    raise ValueError(f"op {name} has several operand groups: give its segments")


class Block:
    """A region body: arguments and a list of ops, the last of which is a terminator."""

    __slots__ = ("args", "ops", "parent")

    def __init__(self, arg_types: list[Type] | None = None, arg_names: list[str | None] | None = None):
        names = arg_names or [None] * len(arg_types or [])
        self.args = [Value(t, self, i, n) for i, (t, n) in enumerate(zip(arg_types or [], names))]
        self.ops: list[Op] = []
        self.parent: Op | Function | None = None

    def append(self, op: Op) -> Op:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Op) -> Op:
        op.parent = self
        self.ops.insert(index, op)
        return op

    def remove(self, op: Op) -> None:
        self.ops.remove(op)
        op.parent = None

    @property
    def terminator(self) -> Op | None:
        return self.ops[-1] if self.ops else None

    def walk(self) -> Iterator[Op]:
        for op in list(self.ops):
            yield from op.walk()


@dataclass
class Function:
    """A function: the kernel or a (non-inlined) callee.

    ``attrs`` may hold ``kernel`` (True for the launched entry), ``noinline`` and anything a
    pass wants to record.  ``arg_attrs`` holds per-argument facts (``divisibility``, the
    specialization, ``name``...).
    """

    name: str
    arg_types: list[Type]
    result_types: list[Type]
    body: Block
    attrs: dict[str, Any] = field(default_factory=dict)
    arg_attrs: list[dict[str, Any]] = field(default_factory=list)
    loc: Location = UNKNOWN_LOC

    def __post_init__(self) -> None:
        self.body.parent = self
        if not self.arg_attrs:
            self.arg_attrs = [{} for _ in self.arg_types]

    @property
    def args(self) -> list[Value]:
        return self.body.args

    def walk(self) -> Iterator[Op]:
        return self.body.walk()


@dataclass
class Module:
    """A compilation unit: functions by name, the entry kernel first."""

    functions: dict[str, Function] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)

    def add(self, function: Function) -> Function:
        if function.name in self.functions:
            raise ValueError(f"function @{function.name} is defined twice")
        self.functions[function.name] = function
        return function

    @property
    def kernel(self) -> Function:
        """The launched function (``attrs['kernel']``), else the first one."""
        for function in self.functions.values():
            if function.attrs.get("kernel"):
                return function
        return next(iter(self.functions.values()))

    def walk(self) -> Iterator[Op]:
        for function in self.functions.values():
            yield from function.walk()


def uses_of(scope: Block | Function | Module) -> dict[int, list[tuple[Op, int]]]:
    """Map ``id(value)`` -> [(user op, operand index)] over every op in ``scope``."""
    uses: dict[int, list[tuple[Op, int]]] = {}
    for op in scope.walk():
        for i, operand in enumerate(op.operands):
            uses.setdefault(id(operand), []).append((op, i))
    return uses


def replace_all_uses(scope: Block | Function | Module, old: Value, new: Value) -> int:
    """Replace every use of ``old`` by ``new`` inside ``scope``; returns how many were replaced."""
    count = 0
    for op in scope.walk():
        for i, operand in enumerate(op.operands):
            if operand is old:
                op.operands[i] = new
                count += 1
    return count


def defined_values(scope: Block | Op) -> Iterator[Value]:
    """Every value defined inside ``scope``: for a block its arguments, the results of its ops
    and everything defined in their regions; for an op everything defined in its regions (not
    its own results)."""
    for block in scope.regions if isinstance(scope, Op) else [scope]:
        yield from block.args
        for op in block.ops:
            yield from op.results
            yield from defined_values(op)
