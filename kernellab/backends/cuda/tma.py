"""What the tensor memory accelerator (TMA, sm_90) can copy, and the tensor maps that tell it how.

A TMA copy moves a whole block of a tensor into shared memory, issued by one thread and
completing on an mbarrier, in the same swizzled layout wgmma reads (``lower/smem.py``).  It
needs a *tensor map*: 128 bytes describing the tensor (base, dims, strides, element type) and
the box copied (block dims, swizzle, out-of-bounds fill), which the driver encodes
(``cuTensorMapEncodeTiled``) and the kernel takes as a ``__grid_constant__`` parameter.

kernellab encodes it at launch for every tensor descriptor whose parts the launch knows: a
``tl.make_tensor_descriptor`` whose base, shape and strides are kernel parameters or constants
(:func:`hoisted`).  The kernel gets one hidden parameter per such descriptor after its own;
``metadata["tma"]`` lists them (:class:`TensorMapSpec`: which parameters make the descriptor),
and the launcher encodes them from each launch's values (``launcher.py``).  A descriptor made
from values the launch does not know (a pointer computed in the kernel) keeps ``cp.async``.

TMA's rules (CUDA driver API, ``cuTensorMapEncodeTiled``): the base 16-byte aligned, every
stride but the innermost a multiple of 16 bytes (the innermost is 1 element), box dims at most
256 elements, the box's inner extent a multiple of 16 bytes and, swizzled, at most the swizzle
width.  What is known at compile time (:func:`eligible`: the specialization's 16-byte facts for the
base and the strides) decides; the driver checks the rest when the launch encodes the map (a
:class:`~kernellab.backends.cuda.driver.CudaError` naming ``cuTensorMapEncodeTiled`` and the
tensor's parts).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from ...ir.types import element_of

if TYPE_CHECKING:  # the launcher imports this module for TensorMapSpec alone
    from ...analysis.axis import AxisAnalysis
    from ...ir.core import Function, Op, Value

MAX_BOX = 256
DATA_TYPES = {"f16": 6, "bf16": 9, "f32": 7, "f64": 8, "i8": 0, "u8": 0, "f8e4m3": 0, "f8e5m2": 0, "i16": 1,
              "u16": 1, "i32": 3, "u32": 2, "i64": 5, "u64": 4}  # CUtensorMapDataType
SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}  # CUtensorMapSwizzle


@dataclass(frozen=True)
class TensorMapSpec:
    """One hidden tensor-map parameter: ``base`` is the index of the pointer parameter; each of
    ``dims`` and ``strides`` (outermost first, strides in elements) is ``["arg", index]`` or
    ``["const", value]``; ``box`` is the copied block (outermost first, the inner dim one swizzle
    panel wide); ``data_type``/``swizzle`` are the driver's enum values, ``element_bytes`` the
    element size and ``nan`` the out-of-bounds fill."""

    base: int
    dims: tuple
    strides: tuple
    box: tuple[int, ...]
    data_type: int
    swizzle: int
    element_bytes: int
    nan: bool

    def to_json(self) -> dict:
        return asdict(self)

    def encoded(self, index: int, values: list, cache: dict) -> bytes:
        """The tensor map of hidden parameter ``index`` for a launch's ``values`` (its kernel's
        parameters), encoded once per distinct base, dims and strides (kept in the launcher's
        ``cache``)."""
        def part(item: tuple) -> int:
            return int(values[item[1]]) if item[0] == "arg" else int(item[1])

        dims = [part(d) for d in reversed(self.dims)]
        strides = [part(s) * self.element_bytes for s in reversed(self.strides[:-1])]
        key = (index, int(values[self.base]), tuple(dims), tuple(strides))
        found = cache.get(key)
        if found is None:
            from .driver import encode_tensor_map  # launching only (this module is the compiler's too)

            if len(cache) > 256:
                cache.clear()
            found = cache[key] = encode_tensor_map(self.data_type, key[1], dims, strides, list(reversed(self.box)),
                                                   self.swizzle, self.nan)
        return found

    @staticmethod
    def from_json(data: dict) -> TensorMapSpec:
        return TensorMapSpec(int(data["base"]), tuple(tuple(d) for d in data["dims"]),
                             tuple(tuple(s) for s in data["strides"]), tuple(int(b) for b in data["box"]),
                             int(data["data_type"]), int(data["swizzle"]), int(data["element_bytes"]),
                             bool(data["nan"]))


def hoisted(desc: Value, function: Function) -> Op | None:
    """The ``make_tensor_descriptor`` that made ``desc`` when its base is a pointer parameter of
    the kernel ``function`` and its shape and strides are parameters or constants (the launch
    can encode it), else None."""
    op = desc.defining_op
    if op is None or op.name != "make_tensor_descriptor":
        return None
    params = {id(a) for a in function.args}
    if id(op.operand("base")) not in params:
        return None
    for value in [*op.operand_group("shape"), *op.operand_group("strides")]:
        if id(_param(value)) not in params and _constant(value) is None:
            return None
    return op


def eligible(load: Op, function: Function, axis: AxisAnalysis, swizzle: int) -> bool:
    """Whether TMA can fill a ring slot (swizzled ``swizzle`` bytes wide) with this
    ``descriptor_load``'s block: a 2-D block of a hoisted descriptor whose alignment facts meet
    TMA's rules."""
    return fits(load.operand("desc"), load.result.type, function, axis.info, swizzle)


def fits(desc: Value, block, function: Function, info, swizzle: int) -> bool:
    """Whether TMA can copy ``block`` (a 2-D tile type) of descriptor ``desc`` between global
    memory and a shared layout swizzled ``swizzle`` bytes wide; ``info`` gives a value's axis
    facts (``AxisAnalysis.info`` or a layout plan's)."""
    made = hoisted(desc, function)
    if made is None or len(block.shape) != 2 or not swizzle:
        return False
    size = max(1, element_of(block).primitive_bitwidth // 8)
    if element_of(block).ir not in DATA_TYPES or any(d > MAX_BOX for d in block.shape):
        return False
    if block.shape[1] * size % swizzle:  # whole panels (the slot's layout has them: choose_swizzle)
        return False
    facts = info(desc).block
    if facts is None or facts.base_divisibility < 16 or facts.stride_constants[-1] != 1:
        return False
    return all(d * size % 16 == 0 for d in facts.stride_divisibility[:-1])


def spec_of(made: Op, block: tuple[int, ...], element, swizzle: int, function: Function) -> TensorMapSpec:
    """The tensor map of descriptor ``made`` copied in boxes of ``block`` rows, one swizzle panel
    wide."""
    index = {id(a): i for i, a in enumerate(function.args)}

    def part(value: Value) -> tuple:
        param = _param(value)
        return ("arg", index[id(param)]) if id(param) in index else ("const", int(_constant(value)))

    size = max(1, element.primitive_bitwidth // 8)
    inner = min(block[1], swizzle // size)
    return TensorMapSpec(index[id(made.operand("base"))], tuple(part(v) for v in made.operand_group("shape")),
                         tuple(part(v) for v in made.operand_group("strides")), (block[0], inner),
                         DATA_TYPES[element.ir], SWIZZLES[swizzle], size, made.attrs.get("padding") == "nan")


def _param(value: Value) -> Value:
    """``value`` through integer casts (the semantics widen i32 shapes and strides to i64)."""
    op = value.defining_op
    while op is not None and op.name == "cast" and op.operands[0].type.is_int() and op.result.type.is_int():
        value = op.operands[0]
        op = value.defining_op
    return value


def _constant(value: Value) -> int | None:
    op = value.defining_op
    if op is not None and op.name == "constant" and isinstance(op.attrs.get("value"), int):
        return op.attrs["value"]
    return None


__all__ = ["TensorMapSpec", "hoisted", "eligible", "fits", "spec_of", "DATA_TYPES", "SWIZZLES", "MAX_BOX"]
