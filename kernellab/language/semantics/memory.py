"""Loads, stores, block pointers and tensor descriptors.

* ``load``/``store`` through a pointer or a tile of pointers: ``mask`` and ``other`` broadcast
  to the pointer's shape, ``other`` and stored values are cast to the pointee type, pointers to
  ``int1`` are accessed as ``int8``.
* through a block pointer (``make_block_ptr``): no mask; ``boundary_check`` names the dims to
  check and ``padding_option`` ('zero' or 'nan') fills what lies outside.
* tensor descriptors (``make_tensor_descriptor``) read and write whole blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...ir import types as T
from ...ir.types import PointerType, ScalarType, TensorDescType, TileType
from ..core import DescriptorParts, compile_time_ints, tensor, tensor_descriptor
from .arith import ArithMixin
from .base import SemanticError, writable
from .typing import python_value, validate_shape

LOAD_CACHE_MODIFIERS = ("", ".ca", ".cg", ".cv")
STORE_CACHE_MODIFIERS = ("", ".wb", ".cg", ".cs", ".wt")
EVICTION_POLICIES = ("", "evict_first", "evict_last")
PADDING_OPTIONS = ("", "zero", "nan")


def check_choice(value: Any, allowed: tuple[str, ...], what: str) -> str:
    value = "" if value is None else python_value(value)
    if value not in allowed:
        listed = ", ".join(repr(a) for a in allowed)
        raise SemanticError(f"{what} must be one of {listed}; got {value!r}")
    return value


class MemoryMixin(ArithMixin):
    # ---- helpers ----
    def _pointer(self, ptr: Any, what: str) -> tensor:
        ptr = python_value(ptr)
        if not isinstance(ptr, tensor) or not isinstance(ptr.dtype, PointerType):
            shown = ptr.type if isinstance(ptr, tensor) else repr(ptr)
            raise SemanticError(f"{what} needs a pointer (or a tile of pointers) as its first argument, got {shown}")
        return ptr

    def _bool_mask(self, mask: tensor, what: str) -> tensor:
        if mask.dtype is not T.i1:
            raise SemanticError(f"{what}'s mask must be boolean (tl.int1), got {mask.dtype.name}; build it from a "
                                "comparison such as offsets < n")
        return mask

    def _int8_for_bool(self, ptr: tensor) -> tensor:
        """Pointers to int1 read and write int8 (a byte per bool)."""
        if ptr.dtype.element_ty is T.i1:
            return self.cast(ptr, T.pointer(T.i8, ptr.dtype.address_space))
        return ptr

    @staticmethod
    def _boundary_check(boundary_check: Any, rank: int) -> tuple[int, ...]:
        dims = compile_time_ints(boundary_check, "boundary_check") if python_value(boundary_check) not in (
            None, (), []) else ()
        for d in dims:
            if not 0 <= d < rank:
                raise SemanticError(f"boundary_check dim {d} is out of range for a block of rank {rank}")
        if len(set(dims)) != len(dims):
            raise SemanticError(f"boundary_check names a dim twice: {list(dims)}")
        return tuple(sorted(dims))

    def _index_values(self, values: Any, dtype: ScalarType, what: str) -> list[tensor]:
        """Scalars of ``dtype`` from ints and integer scalar tensors (shape/strides/offsets lists)."""
        values = python_value(values)
        items = list(values) if isinstance(values, (list, tuple)) else [values]
        out = []
        for item in items:
            item = python_value(item)
            if isinstance(item, tensor):
                if T.shape_of(item.type) or not isinstance(item.dtype, ScalarType) or not item.dtype.is_int():
                    raise SemanticError(f"{what} must be integer scalars, got {item.type}")
                if dtype is T.i32 and item.dtype.int_bitwidth == 64:
                    raise SemanticError(f"{what} must be 32-bit: got an int64 value; add .to(tl.int32), or use "
                                        "pointer arithmetic for 64-bit offsets")
                out.append(self.cast(item, dtype))
            elif isinstance(item, int) and not isinstance(item, bool):
                if not dtype.get_int_min_value() <= item <= dtype.get_int_max_value():
                    raise SemanticError(f"{what} value {item} does not fit {dtype.name}")
                out.append(self.scalar_constant(item, dtype))
            else:
                raise SemanticError(f"{what} must be integers or integer scalar tensors, got {item!r}")
        return out

    # ---- load ----
    def load(self, ptr: Any, mask: Any = None, other: Any = None, boundary_check: Any = (),
             padding_option: str = "", cache_modifier: str = "", eviction_policy: str = "",
             volatile: bool = False) -> tensor:
        ptr = self._pointer(ptr, "tl.load")
        attrs = {"cache": check_choice(cache_modifier, LOAD_CACHE_MODIFIERS, "tl.load's cache_modifier"),
                 "evict": check_choice(eviction_policy, EVICTION_POLICIES, "tl.load's eviction_policy"),
                 "volatile": bool(python_value(volatile))}
        padding = check_choice(padding_option, PADDING_OPTIONS, "tl.load's padding_option")
        if ptr.dtype.is_block_ptr():
            return self._load_block(ptr, mask, other, boundary_check, padding, attrs)
        if padding or python_value(boundary_check) not in (None, (), []):
            raise SemanticError("padding_option and boundary_check apply to block pointers only (tl.make_block_ptr); "
                                "mask the load instead")
        return self._load_pointers(ptr, mask, other, attrs)

    def _load_block(self, ptr: tensor, mask: Any, other: Any, boundary_check: Any, padding: str,
                    attrs: dict) -> tensor:
        if python_value(mask) is not None or python_value(other) is not None:
            raise SemanticError("mask and other cannot be given when loading through a block pointer; use "
                                "boundary_check and padding_option")
        block = ptr.dtype.element_ty
        if block.element_ty.is_int() and padding == "nan":
            raise SemanticError(f"padding_option='nan' needs a floating-point block, got {block.element_ty.name}")
        attrs = dict(attrs, boundary_check=self._boundary_check(boundary_check, len(block.shape)), padding=padding)
        op = self.builder.create("load", [ptr.handle, None, None], [block], attrs, grouped=True)
        return tensor(op.result, block)

    def _load_pointers(self, ptr: tensor, mask: Any, other: Any, attrs: dict) -> tensor:
        mask = None if python_value(mask) is None else self.to_tensor(mask)
        other = None if python_value(other) is None else self.to_tensor(other)
        if mask is None and other is not None:
            raise SemanticError("tl.load's other needs a mask: other fills the masked-out elements")
        if not T.shape_of(ptr.type):
            for name, value in (("mask", mask), ("other", other)):
                if value is not None and T.shape_of(value.type):
                    raise SemanticError(f"tl.load of a scalar pointer takes a scalar {name}, got a tile of shape "
                                        f"{list(T.shape_of(value.type))}")
        present = [v for v in (ptr, mask, other) if v is not None]
        ptr, *rest = self.broadcast_all(*present)
        mask = rest[0] if mask is not None else None
        other = rest[1] if other is not None else None
        if mask is not None:
            self._bool_mask(mask, "tl.load")
        is_bool = ptr.dtype.element_ty is T.i1
        ptr = self._int8_for_bool(ptr)
        element = ptr.dtype.element_ty
        if other is not None:
            other = self.cast(other, element)
        result = T.with_shape(element, T.shape_of(ptr.type))
        operands = [ptr.handle, mask.handle if mask is not None else None, other.handle if other is not None else None]
        loaded = tensor(self.builder.create("load", operands, [result], attrs, grouped=True).result, result)
        return self.cast(loaded, T.i1) if is_bool else loaded

    # ---- store ----
    def store(self, ptr: Any, value: Any, mask: Any = None, boundary_check: Any = (), cache_modifier: str = "",
              eviction_policy: str = "") -> None:
        ptr = writable(self._pointer(ptr, "tl.store"))
        value = self.to_tensor(value)
        attrs = {"cache": check_choice(cache_modifier, STORE_CACHE_MODIFIERS, "tl.store's cache_modifier"),
                 "evict": check_choice(eviction_policy, EVICTION_POLICIES, "tl.store's eviction_policy")}
        if ptr.dtype.is_block_ptr():
            self._store_block(ptr, value, mask, boundary_check, attrs)
            return
        if python_value(boundary_check) not in (None, (), []):
            raise SemanticError("boundary_check applies to block pointers only (tl.make_block_ptr); mask the store "
                                "instead")
        self._store_pointers(ptr, value, mask, attrs)

    def _store_block(self, ptr: tensor, value: tensor, mask: Any, boundary_check: Any, attrs: dict) -> None:
        if python_value(mask) is not None:
            raise SemanticError("mask cannot be given when storing through a block pointer; use boundary_check")
        block: TileType = ptr.dtype.element_ty
        if not T.shape_of(value.type):
            value = self.splat(value, block.shape)
        if T.shape_of(value.type) != block.shape:
            raise SemanticError(f"the stored value's shape {list(T.shape_of(value.type))} differs from the block "
                                f"shape {list(block.shape)}")
        value = self.cast(value, block.element_ty)
        attrs = dict(attrs, boundary_check=self._boundary_check(boundary_check, len(block.shape)))
        self.builder.create("store", [ptr.handle, value.handle, None], [], attrs, grouped=True)

    def _store_pointers(self, ptr: tensor, value: tensor, mask: Any, attrs: dict) -> None:
        mask = None if python_value(mask) is None else self.to_tensor(mask)
        ptr_shape = T.shape_of(ptr.type)
        if not ptr_shape:
            for name, v in (("value", value), ("mask", mask)):
                if v is not None and T.shape_of(v.type):
                    raise SemanticError(f"tl.store through a scalar pointer takes a scalar {name}, got a tile of "
                                        f"shape {list(T.shape_of(v.type))}")
        present = [v for v in (ptr, value, mask) if v is not None]
        ptr, value, *rest = self.broadcast_all(*present)
        mask = rest[0] if rest else None
        if T.shape_of(ptr.type) != ptr_shape:
            raise SemanticError(f"tl.store's value or mask has a larger shape {list(T.shape_of(ptr.type))} than "
                                f"the pointers {list(ptr_shape)}")
        if mask is not None:
            self._bool_mask(mask, "tl.store")
        ptr = self._int8_for_bool(ptr)
        value = self.cast(value, ptr.dtype.element_ty)
        self.builder.create("store", [ptr.handle, value.handle, mask.handle if mask is not None else None], [],
                            attrs, grouped=True)

    # ---- block pointers ----
    def make_block_ptr(self, base: Any, shape: Any, strides: Any, offsets: Any, block_shape: Any,
                       order: Any) -> tensor:
        """A pointer to the ``block_shape`` block at ``offsets`` of a tensor of ``shape`` and
        ``strides`` (elements) at ``base``; ``order`` lists the dims from fastest to slowest."""
        base = self._pointer(base, "tl.make_block_ptr")
        if T.shape_of(base.type) or base.dtype.is_block_ptr():
            raise SemanticError(f"tl.make_block_ptr's base must be a scalar pointer, got {base.type}")
        base = self._int8_for_bool(base)
        block = validate_shape(compile_time_ints(block_shape, "make_block_ptr's block_shape"),
                               "make_block_ptr's block_shape")
        order = compile_time_ints(order, "make_block_ptr's order")
        if sorted(order) != list(range(len(order))):
            raise SemanticError(f"make_block_ptr's order must be a permutation of 0..{len(order) - 1}, got "
                                f"{list(order)}")
        shape_v = self._index_values(shape, T.i64, "make_block_ptr's shape")
        strides_v = self._index_values(strides, T.i64, "make_block_ptr's strides")
        offsets_v = self._index_values(offsets, T.i32, "make_block_ptr's offsets")
        lengths = {len(block), len(order), len(shape_v), len(strides_v), len(offsets_v)}
        if len(lengths) != 1:
            raise SemanticError("make_block_ptr's shape, strides, offsets, block_shape and order must have one "
                                f"length, got {len(shape_v)}, {len(strides_v)}, {len(offsets_v)}, {len(block)}, "
                                f"{len(order)}")
        ty = T.pointer(T.tile(base.dtype.element_ty, block))
        operands = [base.handle, [v.handle for v in shape_v], [v.handle for v in strides_v],
                    [v.handle for v in offsets_v]]
        op = self.builder.create("make_block_ptr", operands, [ty], {"block_shape": block, "order": order},
                                 grouped=True)
        return tensor(op.result, ty)

    def advance(self, ptr: Any, offsets: Any) -> tensor:
        """The block pointer moved by ``offsets`` (elements, one per dim)."""
        ptr = self._pointer(ptr, "tl.advance")
        if not ptr.dtype.is_block_ptr():
            raise SemanticError(f"tl.advance moves block pointers (tl.make_block_ptr); got {ptr.type}. Add offsets "
                                "to ordinary pointers with +")
        rank = len(ptr.dtype.element_ty.shape)
        deltas = self._index_values(offsets, T.i32, "tl.advance's offsets")
        if len(deltas) != rank:
            raise SemanticError(f"tl.advance needs {rank} offsets (one per block dim), got {len(deltas)}")
        op = self.builder.create("advance", [ptr.handle, [d.handle for d in deltas]], [ptr.type], grouped=True)
        return tensor(op.result, ptr.type)

    # ---- tensor descriptors ----
    def make_tensor_descriptor(self, base: Any, shape: Sequence[Any], strides: Sequence[Any], block_shape: Any,
                               padding_option: str = "zero") -> tensor:
        base = self._pointer(base, "tl.make_tensor_descriptor")
        if T.shape_of(base.type) or base.dtype.is_block_ptr():
            raise SemanticError(f"tl.make_tensor_descriptor's base must be a scalar pointer, got {base.type}")
        shape = list(python_value(shape))
        strides = list(python_value(strides))
        ndim = len(shape)
        if not 1 <= ndim <= 5:
            raise SemanticError(f"a tensor descriptor has 1 to 5 dims, got {ndim}")
        block = validate_shape(compile_time_ints(block_shape, "make_tensor_descriptor's block_shape"),
                               "make_tensor_descriptor's block_shape")
        if len(strides) != ndim or len(block) != ndim:
            raise SemanticError(f"make_tensor_descriptor needs {ndim} strides and block dims, got {len(strides)} and "
                                f"{len(block)}")
        element = base.dtype.element_ty
        if block[-1] * element.itemsize < 16:
            raise SemanticError("Descriptor block shape must have at least 16 bytes in the last dimension, but got "
                                f"{block[-1]} * {element.itemsize} = {block[-1] * element.itemsize} bytes")
        if python_value(strides[-1]) != 1 or isinstance(python_value(strides[-1]), tensor):
            raise SemanticError("a tensor descriptor's last stride must be the compile-time constant 1 (the last "
                                "dim must be contiguous)")
        padding = check_choice(padding_option, ("zero", "nan"), "make_tensor_descriptor's padding_option")
        if element.is_int() and padding == "nan":
            raise SemanticError(f"padding_option='nan' needs a floating-point tensor, got {element.name}")
        shape_v = self._index_values(shape, T.i32, "make_tensor_descriptor's shape")
        strides_v = self._index_values(strides, T.i64, "make_tensor_descriptor's strides")
        ty = T.desc(T.tile(element, block))
        operands = [base.handle, [v.handle for v in shape_v], [v.handle for v in strides_v]]
        op = self.builder.create("make_tensor_descriptor", operands, [ty], {"padding": padding}, grouped=True)
        return tensor_descriptor(op.result, ty, DescriptorParts(base, tuple(shape_v), tuple(strides_v)))

    def _descriptor(self, desc: Any, what: str) -> tensor:
        desc = python_value(desc)
        if not isinstance(desc, tensor) or not isinstance(desc.type, TensorDescType):
            raise SemanticError(f"{what} needs a tensor descriptor (tl.make_tensor_descriptor), got {desc!r}")
        return desc

    def descriptor_load(self, desc: Any, offsets: Any) -> tensor:
        desc = self._descriptor(desc, "descriptor load")
        block = desc.type.block_type
        offsets = self._index_values(offsets, T.i32, "descriptor offsets")
        if len(offsets) != len(block.shape):
            raise SemanticError(f"a descriptor load needs {len(block.shape)} offsets, got {len(offsets)}")
        op = self.builder.create("descriptor_load", [desc.handle, [o.handle for o in offsets]], [block],
                                 grouped=True)
        return tensor(op.result, block)

    def descriptor_store(self, desc: Any, offsets: Any, value: Any) -> None:
        desc = self._descriptor(desc, "descriptor store")
        block = desc.type.block_type
        offsets = self._index_values(offsets, T.i32, "descriptor offsets")
        if len(offsets) != len(block.shape):
            raise SemanticError(f"a descriptor store needs {len(block.shape)} offsets, got {len(offsets)}")
        value = self.to_tensor(value)
        if T.shape_of(value.type) not in ((), block.shape):
            raise SemanticError(f"a descriptor store takes a value of the block shape {list(block.shape)}, got "
                                f"{list(T.shape_of(value.type))}")
        value = self.cast(self.broadcast_to(value, block.shape), block.element_ty)
        self.builder.create("descriptor_store", [desc.handle, value.handle, [o.handle for o in offsets]], [],
                            grouped=True)
