"""What a tensor descriptor does beyond whole-block loads and stores, built from what it was made
of (its base, shape and strides: ``desc.shape``, ``desc.strides``): row gathers and scatters
(``desc.gather``, ``desc.scatter``) and atomic reductions of a block into memory
(``desc.atomic_add`` ... ``desc.atomic_xor``), as masked loads, stores and atomics of the
block's elements, so every target has them.

The reductions take the element types the target declares (``SemanticOptions.
descriptor_reduce_types``, from its backend's capabilities): on every target Triton's set where
it has no tensor-memory-accelerator reduction (add on 32-bit ints, uint64, fp32, fp16 and bf16;
min and max on 32- and 64-bit ints; and, or, xor on 32- and 64-bit ints); CUDA from sm_90 on
also fp16 and bf16 min and max, as Triton's tensor-memory-accelerator reductions.
"""

from __future__ import annotations

from typing import Any

from ...ir import types as T
from ..core import DescriptorParts, tensor
from .atomics import AtomicMixin
from .base import SemanticError
from .memory import MemoryMixin
from .typing import python_value


class DescriptorMixin(MemoryMixin, AtomicMixin):
    def descriptor_parts(self, desc: Any) -> DescriptorParts:
        """The base, int32 shape and int64 strides the descriptor was made with (a descriptor
        carries them through loops, branches and calls)."""
        desc = self._descriptor(desc, "desc.shape, desc.strides, desc.gather, desc.scatter and desc.atomic_*")
        if getattr(desc, "parts", None) is not None:
            return desc.parts
        op = desc.handle.defining_op
        if op is not None and op.name == "make_tensor_descriptor":
            base, shape, strides = ([tensor(v, v.type) for v in op.operand_group(group)]
                                    for group in ("base", "shape", "strides"))
            return DescriptorParts(base[0], tuple(shape), tuple(strides))
        raise SemanticError("the base, shape and strides of this tensor descriptor are not known here (it was not "
                            "made by tl.make_tensor_descriptor nor passed as a host TensorDescriptor); pass them "
                            "alongside it")

    def _element_pointers(self, parts: DescriptorParts, indices: list[tensor]) -> tuple[tensor, tensor]:
        """The pointers to the elements at ``indices`` (one int32 tile per dim, broadcastable to
        one another) and whether each lies inside the tensor."""
        inside = offset = None
        for index, size, stride in zip(indices, parts.shape, parts.strides):
            within = self.logical_and(self.greater_equal(index, 0), self.less_than(index, size))
            term = self.mul(self.cast(index, T.i64), stride)
            inside = within if inside is None else self.logical_and(inside, within)
            offset = term if offset is None else self.add(offset, term)
        return self.add(parts.base, offset), inside

    def _block_indices(self, block_shape: tuple, offsets: list[tensor]) -> list[tensor]:
        """Per dim, ``offset + arange(size)`` shaped to broadcast along that dim of the block."""
        rank = len(block_shape)
        indices = []
        for dim, (size, start) in enumerate(zip(block_shape, offsets)):
            index = self.add(self.arange(0, size), start)
            indices.append(self.reshape(index, tuple(size if d == dim else 1 for d in range(rank))))
        return indices

    def _gather_block(self, desc: Any, x_offsets: Any, y_offset: Any, what: str) -> tuple[tensor, tensor, Any]:
        """The pointers and in-bounds mask of ``desc.gather(x_offsets, y_offset)``'s block: rows
        ``x_offsets``, columns ``y_offset + arange(block_shape[1])``."""
        desc = self._descriptor(desc, what)
        block = desc.type.block_type
        if len(block.shape) != 2 or block.shape[0] != 1:
            raise SemanticError(f"{what} needs a 2-D descriptor whose block has one row, got a block of shape "
                                f"{list(block.shape)}")
        rows = python_value(x_offsets)
        if not isinstance(rows, tensor) or len(T.shape_of(rows.type)) != 1 or not rows.dtype.is_int():
            raise SemanticError(f"{what}'s x_offsets must be a 1-D tile of integer row indices, got {rows!r}")
        count = T.shape_of(rows.type)[0]
        if count < 8:
            raise SemanticError(f"{what} needs at least 8 rows (x_offsets), got {count}")
        min_cols = 32 // block.element_ty.primitive_bitwidth * 8
        if block.shape[1] < min_cols:
            raise SemanticError(f"{what} of {block.element_ty.name} needs a block of at least {min_cols} columns, got "
                                f"{block.shape[1]}")
        (column,) = self._index_values([y_offset], T.i32, f"{what}'s y_offset")
        rows = self.expand_dims(self.cast(rows, T.i32), 1)
        cols = self.expand_dims(self.add(self.arange(0, block.shape[1]), column), 0)
        pointers, inside = self._element_pointers(self.descriptor_parts(desc), [rows, cols])
        return pointers, inside, block

    def descriptor_gather(self, desc: Any, x_offsets: Any, y_offset: Any) -> tensor:
        """``desc.gather(x_offsets, y_offset)``: rows ``x_offsets`` of the block-wide column range
        at ``y_offset``; elements outside the tensor read as zero."""
        pointers, inside, block = self._gather_block(desc, x_offsets, y_offset, "desc.gather")
        return self.load(pointers, inside, self.scalar_constant(0, block.element_ty))

    def descriptor_scatter(self, desc: Any, value: Any, x_offsets: Any, y_offset: Any) -> None:
        """``desc.scatter(value, x_offsets, y_offset)``: write ``value``'s rows to rows
        ``x_offsets`` at columns from ``y_offset``; elements outside the tensor are dropped."""
        pointers, inside, block = self._gather_block(desc, x_offsets, y_offset, "desc.scatter")
        value = self.to_tensor(value)
        if T.shape_of(value.type) != T.shape_of(pointers.type):
            raise SemanticError(f"desc.scatter takes a value of shape {list(T.shape_of(pointers.type))} (one row per "
                                f"x offset), got {list(T.shape_of(value.type))}")
        self.store(pointers, self.cast(value, block.element_ty), inside)

    def descriptor_reduce(self, kind: str, desc: Any, offsets: Any, value: Any) -> None:
        """``desc.atomic_<kind>(offsets, value)``: combine ``value`` (the block's shape) into the
        block at ``offsets`` element by element, atomically; elements outside the tensor are
        dropped."""
        what = f"desc.atomic_{kind}"
        desc = self._descriptor(desc, what)
        block = desc.type.block_type
        element = block.element_ty
        allowed = self.options.descriptor_reduce_types[kind]
        if element not in allowed:
            names = ", ".join(sorted(t.name for t in allowed))
            raise SemanticError(f"{what} does not support {element.name} elements on {self.options.target}; it "
                                f"takes {names}")
        starts = self._index_values(offsets, T.i32, f"{what}'s offsets")
        if len(starts) != len(block.shape):
            raise SemanticError(f"{what} needs {len(block.shape)} offsets, got {len(starts)}")
        value = self.to_tensor(value)
        if T.shape_of(value.type) != tuple(block.shape):
            raise SemanticError(f"{what} takes a value of the block shape {list(block.shape)}, got "
                                f"{list(T.shape_of(value.type))}")
        pointers, inside = self._element_pointers(self.descriptor_parts(desc), self._block_indices(block.shape,
                                                                                                   starts))
        self._atomic_rmw_op(kind, pointers, value, inside, self._ordering("relaxed", "gpu"))
