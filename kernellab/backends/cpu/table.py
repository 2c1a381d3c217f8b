"""The lowering table: Tile IR op name -> the function that lowers it for the host.

Every entry has one signature::

    lower(em: Emitter, op: Op, args: list) -> list     # the op's lowered results

``args`` are the lowered operands: LLVM values for scalars, :class:`~.tiles.Tile` objects for
tiles, :class:`~.lower_memory.BlockPtrValue` for block pointers and tensor descriptors.
Elementwise ops register a scalar function through :func:`elementwise`, which lifts it to
tiles (a lazy tile computing the op per element, fused into whichever loop consumes it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import llvmlite.ir as ll

from ...errors import CompilationError
from ...ir.core import Op
from ...ir.types import TileType, element_of
from .tiles import Lazy, Tile, combine_deps, reads_memory

if TYPE_CHECKING:  # pragma: no cover
    from .emitter import Emitter

Lowering = Callable[["Emitter", Op, list], list]
ScalarLowering = Callable[["Emitter", Op, list], ll.Value]

LOWERINGS: dict[str, Lowering] = {}

# Ops whose lazy tiles are cheap enough to recompute at every use (index arithmetic).
CHEAP_OPS = frozenset({
    "constant", "splat", "arange", "broadcast", "expand_dims", "reshape", "trans", "hint", "addptr", "add", "sub",
    "mul", "cmp", "and", "or", "xor", "not", "select", "shl", "shr", "minimum", "maximum", "cast",
    "neg", "join", "split",
})


def lowering(*names: str) -> Callable[[Lowering], Lowering]:
    """Register ``fn`` as the lowering of each op in ``names``."""
    def register(fn: Lowering) -> Lowering:
        for name in names:
            if name in LOWERINGS:
                raise ValueError(f"op {name} has two CPU lowerings")
            LOWERINGS[name] = fn
        return fn
    return register


def elementwise(*names: str) -> Callable[[ScalarLowering], ScalarLowering]:
    """Register a scalar function ``fn(em, op, values) -> value`` for elementwise ops; tiles get
    a lazy tile evaluating ``fn`` per element."""
    def register(fn: ScalarLowering) -> ScalarLowering:
        def lower(em: Emitter, op: Op, args: list) -> list:
            return [lift(em, op, args, fn)]
        lowering(*names)(lower)
        return fn
    return register


def lift(em: Emitter, op: Op, args: list, fn: ScalarLowering) -> Any:
    """``fn`` applied per element: a scalar for scalar results, else a lazy tile."""
    result_type = op.result.type
    if not isinstance(result_type, TileType):
        return fn(em, op, args)
    loc = em.loc_md

    def at(em2: Emitter, idx) -> ll.Value:
        values = [a.at(em2, idx) if isinstance(a, Tile) else a for a in args]
        with em2.at_loc(loc):
            return fn(em2, op, values)

    cheap = op.name in CHEAP_OPS and all(a.cheap for a in args if isinstance(a, Tile))
    tiles = [a for a in args if isinstance(a, Tile)]
    remaps = any(a.remaps for a in tiles)
    return Lazy(result_type.shape, element_of(result_type), at, combine_deps(args), remaps, cheap,
                reads_memory(tiles))


def lowering_for(op: Op) -> Lowering:
    """The lowering of ``op``; a clear error when the CPU target has none."""
    _load_all()
    found = LOWERINGS.get(op.name)
    if found is None:
        raise CompilationError(f"the CPU target cannot lower Tile IR op '{op.name}' (at {op.loc}); "
                               f"supported ops: {', '.join(sorted(LOWERINGS))}", op.loc)
    return found


_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    from . import (  # noqa: F401  (registration)
        lower_arith,
        lower_control,
        lower_debug,
        lower_dot,
        lower_memory,
        lower_reduce,
        lower_shape,
        lower_sort,
    )
    _loaded = True
