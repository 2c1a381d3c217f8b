"""Atomic read-modify-write and compare-and-swap.  Each returns the values memory held before.

Types follow Triton: 16-bit floats only for ``atomic_add``; no 8- or 16-bit integers; float
``atomic_max``/``atomic_min`` on fp32 and fp64 only.  ``val`` and ``mask`` broadcast to the
pointer's shape and ``val`` is cast to the pointee type.
"""

from __future__ import annotations

from typing import Any

from ...ir import types as T
from ...ir.types import PointerType
from ..core import tensor
from .arith import ArithMixin
from .base import SemanticError, writable
from .memory import check_choice
from .typing import python_value

MEMORY_SEMANTICS = ("acquire", "release", "acq_rel", "relaxed")
MEMORY_SCOPES = ("gpu", "cta", "sys")
ATOMIC_RMW_KINDS = ("add", "max", "min", "and", "or", "xor", "xchg")


class AtomicMixin(ArithMixin):
    def _ordering(self, sem: Any, scope: Any) -> dict:
        sem = python_value(sem) or "acq_rel"
        scope = python_value(scope) or "gpu"
        return {"sem": check_choice(sem, MEMORY_SEMANTICS, "an atomic's sem"),
                "scope": check_choice(scope, MEMORY_SCOPES, "an atomic's scope")}

    def _atomic_pointer(self, ptr: Any, kind: str) -> tensor:
        ptr = python_value(ptr)
        if not isinstance(ptr, tensor) or not isinstance(ptr.dtype, PointerType) or ptr.dtype.is_block_ptr():
            shown = ptr.type if isinstance(ptr, tensor) else repr(ptr)
            raise SemanticError(f"atomic_{kind} needs a pointer or a tile of pointers, got {shown}")
        writable(ptr)
        element = ptr.dtype.element_ty
        if element in (T.f16, T.bf16) and kind != "add":
            raise SemanticError(f"atomic_{kind} does not support {element.name}; only atomic_add takes 16-bit floats")
        if (element.is_int() and element.primitive_bitwidth < 32) or element.primitive_bitwidth < 16:
            raise SemanticError(f"atomic_{kind} does not support {element.name}; use 32- or 64-bit elements")
        if kind in ("max", "min") and element.is_floating() and element not in (T.f32, T.f64):
            raise SemanticError(f"atomic_{kind} on floats supports fp32 and fp64, got {element.name}")
        if kind in ("and", "or", "xor") and not element.is_int():
            raise SemanticError(f"atomic_{kind} needs integer elements, got {element.name}")
        return ptr

    def _fit_to_pointer(self, ptr: tensor, value: Any, what: str) -> tensor:
        value = self.to_tensor(value)
        shape = T.shape_of(ptr.type)
        if not shape and T.shape_of(value.type):
            raise SemanticError(f"{what} through a scalar pointer takes a scalar, got a tile of shape "
                                f"{list(T.shape_of(value.type))}")
        return self.broadcast_to(value, shape) if shape else value

    def atomic_rmw(self, kind: str, ptr: Any, val: Any, mask: Any = None, sem: Any = None,
                   scope: Any = None) -> tensor:
        """``atomic_<kind>``: one of :data:`ATOMIC_RMW_KINDS`."""
        return self._atomic_rmw_op(kind, self._atomic_pointer(ptr, kind), val, mask, self._ordering(sem, scope))

    def _atomic_rmw_op(self, kind: str, ptr: tensor, val: Any, mask: Any, ordering: dict) -> tensor:
        """The ``atomic_rmw`` op through pointers whose element type the caller checked
        (``tl.atomic_<kind>``'s rules, or a descriptor reduction's: the target's)."""
        attrs = dict(ordering, kind=kind)
        element = ptr.dtype.element_ty
        val = self.cast(self._fit_to_pointer(ptr, val, f"atomic_{kind}"), element)
        if python_value(mask) is not None:
            mask = self._fit_to_pointer(ptr, mask, f"atomic_{kind}'s mask")
            if mask.dtype is not T.i1:
                raise SemanticError(f"atomic_{kind}'s mask must be boolean (tl.int1), got {mask.dtype.name}")
            mask_handle = mask.handle
        else:
            mask_handle = None
        op = self.builder.create("atomic_rmw", [ptr.handle, val.handle, mask_handle], [val.type], attrs,
                                 grouped=True)
        return tensor(op.result, val.type)

    def atomic_cas(self, ptr: Any, cmp: Any, val: Any, sem: Any = None, scope: Any = None) -> tensor:
        """Where ``*ptr == cmp`` store ``val``; returns the old values."""
        ptr = python_value(ptr)
        if not isinstance(ptr, tensor) or not isinstance(ptr.dtype, PointerType) or ptr.dtype.is_block_ptr():
            raise SemanticError(f"atomic_cas needs a pointer or a tile of pointers, got {ptr!r}")
        writable(ptr)
        element = ptr.dtype.element_ty
        if element.primitive_bitwidth not in (16, 32, 64):
            raise SemanticError(f"atomic_cas supports 16-, 32- and 64-bit elements, got {element.name}")
        attrs = self._ordering(sem, scope)
        cmp = self.cast(self._fit_to_pointer(ptr, cmp, "atomic_cas"), element)
        val = self.cast(self._fit_to_pointer(ptr, val, "atomic_cas"), element)
        op = self.builder.create("atomic_cas", [ptr.handle, cmp.handle, val.handle], [val.type], attrs)
        return tensor(op.result, val.type)
