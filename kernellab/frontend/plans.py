"""Plans: how a kernel value travels through a region boundary as a list of IR values.

Values that cross a boundary — yielded by an ``if``, carried by a loop, passed to or returned
from a jit function — are flattened to Tile IR values and rebuilt on the other side.  A
:data:`Plan` describes the shape of that value: a ``Slot`` is one IR value of a type, a
``Fixed`` is a compile-time value that stays in Python, a ``Group`` is a tuple, a list or an
aggregate (``tl.core._aggregate``: its fields, a ``tl.constexpr`` field staying ``Fixed``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..ir.core import Value
from ..ir.types import Kind, ScalarType, TileType, Type, element_of, i32, i64, shape_of
from ..language.aggregate import field_names, field_values, from_fields, is_aggregate, is_aggregate_class
from ..language.core import DescriptorParts, tensor, tensor_descriptor
from ..language.semantics import Semantic, SemanticError, number_type, python_scalar_type
from .arguments import is_namedtuple_class
from .values import describe, holds_aggregate, holds_tensor, is_number, same_constant, unwrap


@dataclass(frozen=True)
class Slot:
    """One IR value of ``type``."""

    type: Type


@dataclass(frozen=True)
class Fixed:
    """A compile-time value that does not become IR."""

    value: Any


@dataclass(frozen=True)
class Group:
    """A tuple (or list) of values; ``cls`` is a NamedTuple's or an aggregate's class (rebuilt
    as it; an aggregate's items are its fields)."""

    items: tuple
    is_list: bool = False
    cls: type | None = None


@dataclass(frozen=True)
class Desc:
    """A tensor descriptor of ``type`` with what it was made of: ``2 + 2 * rank`` IR values (the
    descriptor, its base pointer, the int32 shape, the int64 strides), so that ``desc.shape``,
    ``desc.strides`` and ``desc.gather`` work on the other side, as Triton's descriptors carry
    their shape and strides."""

    type: Type
    base_type: Type

    @property
    def rank(self) -> int:
        return len(self.type.block_type.shape)


Plan = Slot | Fixed | Group | Desc

# (expected, got) -> the error message for a value that does not fit a plan.
Mismatch = Callable[[str, str], str]


# ---- building plans ----

def _named(value: Any) -> type | None:
    """The NamedTuple class of ``value``, if it is one."""
    return type(value) if type(value) is not tuple and is_namedtuple_class(type(value)) else None


def structure(value: Any) -> tuple[tuple, bool, type | None] | None:
    """``(items, is_list, cls)`` of a tuple, list or aggregate (a Group's parts); else None."""
    if is_aggregate(value):
        return field_values(value), False, type(value)
    if isinstance(value, (tuple, list)):
        return tuple(value), isinstance(value, list), _named(value)
    return None


def _assemble(plan: Group, items: list) -> Any:
    if is_aggregate_class(plan.cls):
        return from_fields(plan.cls, items)
    if plan.cls is not None:
        return plan.cls(*items)
    return items if plan.is_list else tuple(items)


def plan_of(value: Any, numbers_as_slots: bool) -> Plan:
    """The plan of ``value``; numbers become slots of their Python type if asked (loops
    carry numbers as scalars), otherwise they stay compile-time values (an aggregate's fields
    always: a number there is a ``tl.constexpr`` field)."""
    if isinstance(value, tensor_descriptor) and value.parts is not None:
        return Desc(value.type, value.parts.base.type)
    if isinstance(value, tensor):
        return Slot(value.type)
    parts = structure(value)
    if parts is not None:
        items, is_list, cls = parts
        numbers_as_slots = numbers_as_slots and not is_aggregate_class(cls)
        return Group(tuple(plan_of(v, numbers_as_slots) for v in items), is_list, cls)
    if numbers_as_slots and is_number(value):
        return Slot(number_type(value))
    return Fixed(value)


def unify(a: Any, b: Any, mismatch: Mismatch) -> Plan:
    """One plan for two values that meet after an ``if``: equal compile-time values stay
    compile-time, a Python number next to a tensor becomes a constant of the tensor's type,
    anything else must have the same type on both sides."""
    if isinstance(a, tensor) or isinstance(b, tensor):
        return _unify_runtime(a, b, mismatch)
    a_parts, b_parts = structure(a), structure(b)
    if a_parts is not None and b_parts is not None and len(a_parts[0]) == len(b_parts[0]) \
            and a_parts[1:] == b_parts[1:]:
        return Group(tuple(unify(x, y, mismatch) for x, y in zip(a_parts[0], b_parts[0])), *a_parts[1:])
    if not holds_tensor(a) and not holds_tensor(b) and same_constant(a, b):
        return Fixed(a)
    if is_number(a) and is_number(b):
        a_type, b_type = number_type(a), number_type(b)
        if a_type is b_type:
            return Slot(a_type)
    raise SemanticError(mismatch(describe(a), describe(b)))


def _unify_runtime(a: Any, b: Any, mismatch: Mismatch) -> Plan:
    runtime = a if isinstance(a, tensor) else b
    other = b if runtime is a else a
    if isinstance(other, tensor):
        if other.type is not runtime.type:
            raise SemanticError(mismatch(describe(a), describe(b)))
        if all(isinstance(v, tensor_descriptor) and v.parts is not None for v in (a, b)) and \
                a.parts.base.type is b.parts.base.type:
            return Desc(runtime.type, runtime.parts.base.type)
        return Slot(runtime.type)
    if is_number(other) and number_fits(unwrap(other), runtime.type):
        return Slot(runtime.type)
    raise SemanticError(mismatch(describe(a), describe(b)))


def number_fits(value: Any, ty: Type) -> bool:
    """Whether a Python number can become a constant of ``ty``'s element type without
    changing kind (a bool anywhere, an int into ints or floats, a float into floats)."""
    element = element_of(ty)
    if not isinstance(element, ScalarType):
        return False
    kind = python_scalar_type(value).kind()
    if kind is Kind.FLOAT:
        return element.is_floating()
    if kind is Kind.BOOL:
        return True
    if element.is_bool():
        return False
    if element.is_int():
        return element.get_int_min_value() <= value <= element.get_int_max_value()
    return element.is_floating()


# ---- using plans ----

def slot_types(plan: Plan) -> list[Type]:
    if isinstance(plan, Slot):
        return [plan.type]
    if isinstance(plan, Desc):
        return [plan.type, plan.base_type, *[i32] * plan.rank, *[i64] * plan.rank]
    if isinstance(plan, Group):
        return [t for item in plan.items for t in slot_types(item)]
    return []


def slot_names(plan: Plan, name: str) -> list[str]:
    """Name hints for a plan's slots: ``acc``, or ``acc.0``, ``acc.1`` for tuples."""
    if isinstance(plan, Slot):
        return [name]
    if isinstance(plan, Desc):
        return [name, f"{name}.base", *(f"{name}.{part}{i}" for part in ("shape", "stride") for i in range(plan.rank))]
    if isinstance(plan, Group):
        keys = field_names(plan.cls) if is_aggregate_class(plan.cls) else range(len(plan.items))
        return [n for key, item in zip(keys, plan.items) for n in slot_names(item, f"{name}.{key}")]
    return []


def rebuild(plan: Plan, handles: Iterator[Value]) -> Any:
    """The kernel value of ``plan`` whose slots take the next values of ``handles``."""
    if isinstance(plan, Slot):
        handle = next(handles)
        return tensor(handle, handle.type)
    if isinstance(plan, Desc):
        handle = next(handles)
        base, *rest = (tensor(v, v.type) for v in [next(handles) for _ in range(1 + 2 * plan.rank)])
        return tensor_descriptor(handle, handle.type, DescriptorParts(base, tuple(rest[:plan.rank]),
                                                                      tuple(rest[plan.rank:])))
    if isinstance(plan, Group):
        return _assemble(plan, [rebuild(item, handles) for item in plan.items])
    return plan.value


def materialize(sem: Semantic, plan: Plan, value: Any, mismatch: Mismatch) -> list[Value]:
    """The IR values that ``value`` puts into ``plan``'s slots (constants are built at the
    builder's insertion point); raises ``SemanticError(mismatch(...))`` if it does not fit."""
    if isinstance(plan, Slot):
        return [_slot_value(sem, plan.type, value, mismatch)]
    if isinstance(plan, Desc):
        if not isinstance(value, tensor_descriptor) or value.type is not plan.type:
            raise SemanticError(mismatch(plan.type.ir, describe(value)))
        base, shape, strides = sem.descriptor_parts(value)
        if base.type is not plan.base_type:
            raise SemanticError(mismatch(f"{plan.type.ir} over {plan.base_type.ir}", f"one over {base.type.ir}"))
        return [value.handle, base.handle, *(v.handle for v in (*shape, *strides))]
    if isinstance(plan, Group):
        parts = structure(value)
        if parts is None or len(parts[0]) != len(plan.items) or \
                is_aggregate_class(plan.cls) and parts[2] is not plan.cls:
            raise SemanticError(mismatch(_describe_plan(plan), describe(value)))
        return [h for item, v in zip(plan.items, parts[0]) for h in materialize(sem, item, v, mismatch)]
    if holds_tensor(value) or not same_constant(plan.value, value):
        raise SemanticError(mismatch(describe(plan.value), describe(value)))
    return []


def _slot_value(sem: Semantic, ty: Type, value: Any, mismatch: Mismatch) -> Value:
    if isinstance(value, tensor):
        if value.type is not ty:
            raise SemanticError(mismatch(ty.ir, value.type.ir))
        return value.handle
    if is_number(value) and number_fits(unwrap(value), ty):
        number = unwrap(value)
        if isinstance(ty, TileType):
            return sem.full_constant(shape_of(ty), number, ty.element_ty).handle
        return sem.scalar_constant(number, ty).handle
    raise SemanticError(mismatch(ty.ir, describe(value)))


def _describe_plan(plan: Plan) -> str:
    if isinstance(plan, (Slot, Desc)):
        return plan.type.ir
    if isinstance(plan, Fixed):
        return describe(plan.value)
    inner = ", ".join(_describe_plan(p) for p in plan.items)
    if is_aggregate_class(plan.cls):
        return f"{plan.cls.__name__}(" + ", ".join(f"{n}={_describe_plan(p)}" for n, p in
                                                   zip(field_names(plan.cls), plan.items)) + ")"
    return f"[{inner}]" if plan.is_list else f"({inner}{',' if len(plan.items) == 1 else ''})"


def plan_key(plan: Plan) -> Any:
    """A hashable key for a plan (specializations of jit callees are keyed by it)."""
    if isinstance(plan, Slot):
        return ("slot", plan.type)
    if isinstance(plan, Desc):
        return ("desc", plan.type, plan.base_type)
    if isinstance(plan, Group):
        return ("group", plan.is_list, plan.cls, tuple(plan_key(p) for p in plan.items))
    return ("fixed", constant_key(plan.value))


def constant_key(value: Any) -> Any:
    """A hashable identity for a compile-time value (type-qualified, so 1 and True differ)."""
    raw = unwrap(value)
    if isinstance(raw, (tuple, list)):
        return (type(raw).__name__, tuple(constant_key(v) for v in raw))
    try:
        hash(raw)
    except TypeError:
        return ("id", _Identity(raw))
    return (type(raw).__qualname__, raw)


class _Identity:
    """An unhashable compile-time value in a key: equal to that object only.  The key holds the
    object, so an object made after it was freed cannot take its ``id`` and be taken for it (a
    callee specialized for one value reused for another)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value


def handles_of(value: Any) -> list[Value]:
    """The IR values of the tensors in ``value``, in order (tuples flattened; a descriptor with
    its shape and strides, as :class:`Desc` plans it)."""
    if isinstance(value, tensor_descriptor) and value.parts is not None:
        base, shape, strides = value.parts
        return [value.handle, base.handle, *(v.handle for v in (*shape, *strides))]
    if isinstance(value, tensor):
        return [value.handle]
    parts = structure(value)
    if parts is not None:
        return [h for item in parts[0] for h in handles_of(item)]
    return []


def clone(value: Any) -> Any:
    """``value`` with every aggregate in it copied (the copies hold the same tensors), so that
    compile-time code changing an aggregate in one region leaves the value outside it as it is;
    anything else as it is."""
    if not holds_aggregate(value):
        return value
    return rebuild(plan_of(value, numbers_as_slots=False), iter(handles_of(value)))


def same_value(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same kernel value: the same object, or (for values holding
    aggregates, which regions copy) the same structure over the same IR values."""
    if a is b:
        return True
    if not (holds_aggregate(a) and holds_aggregate(b)):
        return False
    if plan_key(plan_of(a, numbers_as_slots=False)) != plan_key(plan_of(b, numbers_as_slots=False)):
        return False
    return all(x is y for x, y in zip(handles_of(a), handles_of(b), strict=True))


__all__ = ["Slot", "Fixed", "Group", "Desc", "Plan", "Mismatch", "plan_of", "unify", "slot_types", "slot_names",
           "rebuild", "materialize", "handles_of", "number_fits", "plan_key", "constant_key", "structure", "clone",
           "same_value"]
