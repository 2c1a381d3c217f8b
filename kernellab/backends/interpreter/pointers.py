"""Static facts about the pointers of memory ops, which the memory model uses at run time.

* **Provenance**: the function argument a pointer derives from, traced back through
  ``addptr``, ``splat``, ``broadcast``, shape ops, ``select``, block pointers, tensor
  descriptors and loop-carried values.  The memory model checks an access against that
  argument's allocation (and names it in errors); where the trace is ambiguous it searches all
  allocations.
* **Contiguity**: whether a tile of addresses, flattened, is a run of consecutive elements
  (``splat(ptr) + (uniform + arange)``, advanced in loops by uniform steps).  Such loads and
  stores become slices.  The claim holds unless integer offsets wrapped inside the tile, which
  the memory model rules out at run time by checking the run's two ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir.core import Module, Op, Value
from ...ir.ops import ELEMENTWISE
from ...ir.types import ScalarType, TileType, element_of
from .dataflow import Analysis, solve

MEMORY_OPS = ("load", "store", "atomic_rmw", "atomic_cas", "descriptor_load", "descriptor_store")


@dataclass(frozen=True)
class AccessSite:
    """What is known statically about one memory op's pointer."""

    argument: int | None  # index of the kernel argument it derives from; None: unknown or several
    contiguous: bool  # its addresses, flattened, are consecutive elements


def access_sites(module: Module) -> dict[Op, AccessSite]:
    """An :class:`AccessSite` for every memory op of the module.  Provenance is traced to the
    kernel's arguments; accesses inside other functions get ``argument=None``."""
    sites: dict[Op, AccessSite] = {}
    kernel = module.kernel
    for function in module.functions.values():
        origins = solve(function, _PROVENANCE)
        kinds = solve(function, _CONTIGUITY)
        for op in function.walk():
            if op.name not in MEMORY_OPS:
                continue
            pointer = op.operands[0]
            origin = origins.get(id(pointer), frozenset())
            argument = next(iter(origin)) if function is kernel and len(origin) == 1 else None
            contiguous = isinstance(pointer.type, TileType) and kinds.get(id(pointer)) == RAMP
            sites[op] = AccessSite(None if argument == UNKNOWN_ARG else argument, contiguous)
    return sites


# ---- provenance: sets of argument indices ------------------------------------------------------

UNKNOWN_ARG = -1
_PASS_THROUGH = {"addptr", "splat", "broadcast", "reshape", "expand_dims", "trans", "flip", "hint", "advance",
                 "make_block_ptr", "make_tensor_descriptor", "gather", "split"}
_UNION = {"select": (1, 2), "join": (0, 1), "cat": (0, 1)}
_TOP_ORIGIN = frozenset({UNKNOWN_ARG})


def _origin_transfer(op: Op, fact_of) -> list:
    if op.name in _PASS_THROUGH:
        return [fact_of(op.operands[0])] * len(op.results)
    if op.name in _UNION:
        a, b = _UNION[op.name]
        return [fact_of(op.operands[a]) | fact_of(op.operands[b])] * len(op.results)
    return [_TOP_ORIGIN] * len(op.results)


_PROVENANCE = Analysis(bottom=frozenset(), top=_TOP_ORIGIN, join=lambda a, b: a | b,
                       argument=lambda i, value: frozenset({i}), transfer=_origin_transfer)


# ---- contiguity: uniform tiles, ramps (consecutive elements), others ----------------------------

BOTTOM, UNIFORM, RAMP, OTHER = "bottom", "uniform", "ramp", "other"


def _join_kind(a: str, b: str) -> str:
    if a == BOTTOM:
        return b
    if b == BOTTOM or a == b:
        return a
    return OTHER


def _kind_transfer(op: Op, fact_of) -> list:
    def kind(value: Value) -> str:
        return UNIFORM if not isinstance(value.type, TileType) else fact_of(value)

    kinds = [kind(v) for v in op.operands]
    if BOTTOM in kinds:
        return [BOTTOM] * len(op.results)
    result = _result_kind(op, kinds)
    return [UNIFORM if not isinstance(r.type, TileType) else result for r in op.results]


def _result_kind(op: Op, kinds: list[str]) -> str:
    name = op.name
    if name in ("constant", "splat"):
        return UNIFORM
    if name == "arange":
        return RAMP
    if name in ("reshape", "expand_dims", "hint"):
        return kinds[0]
    if name == "broadcast":
        same_shape = op.operands[0].type is op.result.type
        return kinds[0] if same_shape or kinds[0] == UNIFORM else OTHER
    if name in ("add", "addptr"):
        return _sum_kind(kinds[0], kinds[1])
    if name == "sub":
        return _sum_kind(kinds[0], kinds[1]) if kinds[1] == UNIFORM else OTHER
    if name == "cast" and kinds[0] == RAMP:
        return RAMP if _keeps_ramp(op.operands[0].type, op.result.type) else OTHER
    if op.opdef.has(ELEMENTWISE) and all(k == UNIFORM for k in kinds):
        return UNIFORM
    return OTHER


def _sum_kind(a: str, b: str) -> str:
    if a == b == UNIFORM:
        return UNIFORM
    if {a, b} == {UNIFORM, RAMP}:
        return RAMP
    return OTHER


def _keeps_ramp(source, target) -> bool:
    """Integer casts that cannot wrap inside a run: widening (or equal-width) ones."""
    s, t = element_of(source), element_of(target)
    return (isinstance(s, ScalarType) and isinstance(t, ScalarType) and s.is_int() and t.is_int()
            and not s.is_bool() and not t.is_bool() and t.primitive_bitwidth >= s.primitive_bitwidth)


_CONTIGUITY = Analysis(bottom=BOTTOM, top=OTHER, join=_join_kind,
                       argument=lambda i, value: OTHER if isinstance(value.type, TileType) else UNIFORM,
                       transfer=_kind_transfer)
