"""Memory: ``load``, ``store``, block pointers (``make_block_ptr``, ``advance``), tensor
descriptors (``make_tensor_descriptor``, ``load_tensor_descriptor``,
``store_tensor_descriptor``) and atomics (``atomic_add``... each returns the old values)."""

from __future__ import annotations

from typing import Any

from .core import builtin, compile_time, member, semantic, tensor, unwrap


@builtin
def load(pointer: Any, mask: Any = None, other: Any = None, boundary_check: Any = (), padding_option: Any = "",
         cache_modifier: Any = "", eviction_policy: Any = "", volatile: Any = False) -> tensor:
    """Read memory at ``pointer`` (a pointer, a tile of pointers or a block pointer).

    With pointers, ``mask`` and ``other`` broadcast to the pointers' shape and masked-out
    elements read ``other`` (cast to the pointee type). With a block pointer,
    ``boundary_check`` names the dims to check and ``padding_option`` ('zero' or 'nan') fills
    what lies outside. ``cache_modifier``: '', '.ca', '.cg', '.cv'; ``eviction_policy``: '',
    'evict_first', 'evict_last'.
    """
    return semantic().load(
        unwrap(pointer), unwrap(mask), unwrap(other), compile_time(boundary_check, "boundary_check"),
        compile_time(padding_option, "padding_option"), compile_time(cache_modifier, "cache_modifier"),
        compile_time(eviction_policy, "eviction_policy"), compile_time(volatile, "volatile"))


@member
@builtin
def store(pointer: Any, value: Any, mask: Any = None, boundary_check: Any = (), cache_modifier: Any = "",
          eviction_policy: Any = "") -> None:
    """Write ``value`` (broadcast to the pointers' shape, cast to the pointee type) where
    ``mask`` is true. ``cache_modifier``: '', '.wb', '.cg', '.cs', '.wt'."""
    semantic().store(unwrap(pointer), unwrap(value), unwrap(mask), compile_time(boundary_check, "boundary_check"),
                     compile_time(cache_modifier, "cache_modifier"), compile_time(eviction_policy, "eviction_policy"))


@builtin
def make_block_ptr(base: Any, shape: Any, strides: Any, offsets: Any, block_shape: Any, order: Any) -> tensor:
    """A pointer to the ``block_shape`` block at ``offsets`` of the tensor at ``base`` with
    ``shape`` and ``strides`` (in elements); ``order`` lists the dims from fastest to slowest."""
    return semantic().make_block_ptr(unwrap(base), unwrap(shape), unwrap(strides), unwrap(offsets), block_shape,
                                     order)


@member
@builtin
def advance(base: Any, offsets: Any) -> tensor:
    """The block pointer ``base`` moved by ``offsets`` (it has no side effect: use the result)."""
    return semantic().advance(unwrap(base), unwrap(offsets))


@builtin
def make_tensor_descriptor(base: Any, shape: Any, strides: Any, block_shape: Any,
                           padding_option: Any = "zero") -> tensor:
    """A descriptor of the tensor at ``base`` with ``shape`` and ``strides`` (the last stride must
    be 1), read and written in blocks of ``block_shape``."""
    return semantic().make_tensor_descriptor(unwrap(base), unwrap(shape), unwrap(strides), block_shape,
                                             compile_time(padding_option, "padding_option"))


@builtin
def load_tensor_descriptor(desc: Any, offsets: Any) -> tensor:
    """``desc.load(offsets)``: the block at ``offsets``."""
    return semantic().descriptor_load(unwrap(desc), unwrap(offsets))


@builtin
def store_tensor_descriptor(desc: Any, offsets: Any, value: Any) -> None:
    """``desc.store(offsets, value)``: write a block at ``offsets``."""
    return semantic().descriptor_store(unwrap(desc), unwrap(offsets), unwrap(value))


# ---- atomics ----

def _atomic(kind: str):
    def atomic(pointer: Any, val: Any, mask: Any = None, sem: Any = None, scope: Any = None) -> tensor:
        return semantic().atomic_rmw(kind, unwrap(pointer), unwrap(val), unwrap(mask), compile_time(sem, "sem"),
                                     compile_time(scope, "scope"))

    atomic.__name__ = atomic.__qualname__ = f"atomic_{kind}"
    atomic.__doc__ = (f"Atomically apply {kind} at ``pointer`` with ``val`` where ``mask``; returns the old values. "
                      "``sem``: 'acquire', 'release', 'acq_rel' (default), 'relaxed'; ``scope``: 'gpu' (default), "
                      "'cta', 'sys'.")
    return member(builtin(atomic))


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


@member
@builtin
def atomic_cas(pointer: Any, cmp: Any, val: Any, sem: Any = None, scope: Any = None) -> tensor:
    """Atomically store ``val`` where memory equals ``cmp``; returns the old values."""
    return semantic().atomic_cas(unwrap(pointer), unwrap(cmp), unwrap(val), compile_time(sem, "sem"),
                                 compile_time(scope, "scope"))


__all__ = ["load", "store", "make_block_ptr", "advance", "make_tensor_descriptor", "load_tensor_descriptor",
           "store_tensor_descriptor", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
           "atomic_xchg", "atomic_cas"]
