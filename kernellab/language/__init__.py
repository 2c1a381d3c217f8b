"""The kernel language: Triton's ``triton.language`` surface (``import kernellab.language as tl``).

Importing it loads the dtypes and the builtins (cheap: they build IR only when a kernel compiles);
the semantics that type and lower them load when a kernel is compiled.
"""

from ..ir.types import bf16 as bfloat16
from ..ir.types import f8e4b8 as float8e4b8
from ..ir.types import f8e4b15 as float8e4b15
from ..ir.types import f8e4m3 as float8e4nv
from ..ir.types import f8e5b16 as float8e5b16
from ..ir.types import f8e5m2 as float8e5
from ..ir.types import f16 as float16
from ..ir.types import f32 as float32
from ..ir.types import f64 as float64
from ..ir.types import i1 as int1
from ..ir.types import i8 as int8
from ..ir.types import i16 as int16
from ..ir.types import i32 as int32
from ..ir.types import i64 as int64
from ..ir.types import pointer as _pointer
from ..ir.types import u8 as uint8
from ..ir.types import u16 as uint16
from ..ir.types import u32 as uint32
from ..ir.types import u64 as uint64
from ..ir.types import void
from ..lazy import lazy_attributes
from . import math, random, standard, target_info
from .compat import condition, const, constexpr_type, slice, str_to_ty, tensor_descriptor_type, tuple, tuple_type
from .core import (
    PropagateNan,
    block_type,
    constexpr,
    constexpr_function,
    dtype,
    get_int_dtype,
    pointer_type,
    tensor,
    tensor_descriptor,
)
from .creation import add, arange, cast, full, mul, num_programs, program_id, sub, to_tensor, zeros, zeros_like
from .debug import (
    assume,
    debug_barrier,
    device_assert,
    device_print,
    inline_asm_elementwise,
    max_constancy,
    max_contiguous,
    multiple_of,
    static_assert,
    static_print,
)
from .indexing import swizzle2d, where
from .iterators import range, static_range
from .linalg import dot
from .math import *  # noqa: F403  (tl.<name> for every name of math.__all__: builtins and the math table's)
from .memory import (
    advance,
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_xchg,
    atomic_xor,
    load,
    load_tensor_descriptor,
    make_block_ptr,
    make_tensor_descriptor,
    store,
    store_tensor_descriptor,
)
from .random import (
    pair_uniform_to_normal,
    philox,
    philox_impl,
    rand,
    rand4x,
    randint,
    randint4x,
    randn,
    randn4x,
    uint_to_uniform_float,
)
from .reductions import (
    argmax,
    argmin,
    associative_scan,
    cumprod,
    cumsum,
    flip,
    gather,
    histogram,
    max,
    min,
    reduce,
    reduce_or,
    sort,
    sum,
    xor_sum,
)
from .shape import (
    broadcast,
    broadcast_to,
    cat,
    expand_dims,
    interleave,
    item,
    join,
    permute,
    ravel,
    reshape,
    split,
    trans,
    view,
)
from .standard import bitonic_merge, dot_scaled, map_elementwise, topk

pi32_t = _pointer(int32)

__getattr__, __dir__ = lazy_attributes(globals(), {
    "TRITON_MAX_TENSOR_NUMEL": (".semantics.typing", "MAX_TILE_NUMEL"),
    # libdevice's ~200 functions (ir.mathfns builds their declarations): ~15 ms of
    # `import kernellab.language`, loaded on the first `tl.extra` a kernel or a user reads (tl.math's
    # builtins are made from their names in math.TABLE, without the table)
    "extra": (".extra", None),
})

__all__ = [
    # dtypes
    "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float8e4nv", "float8e5",
    "float8e4b15", "float8e4b8", "float8e5b16",
    "float16", "bfloat16", "float32", "float64", "void", "pi32_t", "dtype", "pointer_type", "block_type",
    "get_int_dtype", "constexpr", "constexpr_function", "tensor", "tensor_descriptor", "PropagateNan",
    "TRITON_MAX_TENSOR_NUMEL",  # noqa: F405 (lazy, through __getattr__)
    "const", "constexpr_type", "tuple", "tuple_type", "slice", "tensor_descriptor_type",
    "str_to_ty", "condition",
    # programming model and creation
    "program_id", "num_programs", "arange", "full", "zeros", "zeros_like", "cast", "to_tensor", "add", "sub", "mul",
    # shape
    "broadcast", "broadcast_to", "expand_dims", "reshape", "view", "permute", "trans", "ravel", "join", "split",
    "interleave", "cat", "item",
    # memory
    "load", "store", "make_block_ptr", "advance", "make_tensor_descriptor", "load_tensor_descriptor",
    "store_tensor_descriptor", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or",
    "atomic_xchg", "atomic_xor",
    # indexing, linear algebra
    "where", "swizzle2d", "flip", "dot",
    # math: every name of math.__all__ (its builtins, and the functions of ir/mathfns in tl.math)
    *math.__all__, "math",
    # reductions, scans, sort
    "reduce", "sum", "max", "min", "argmax", "argmin", "xor_sum", "reduce_or", "associative_scan", "cumsum",
    "cumprod", "sort", "histogram", "gather", "topk", "bitonic_merge", "map_elementwise", "dot_scaled", "standard",
    "target_info",
    # random
    "rand", "randn", "randint", "randint4x", "rand4x", "randn4x", "philox", "philox_impl", "uint_to_uniform_float",
    "pair_uniform_to_normal", "random",
    # iterators
    "range", "static_range",
    # debug and hints
    "static_print", "static_assert", "device_print", "device_assert", "multiple_of", "max_contiguous",
    "max_constancy", "assume", "debug_barrier", "inline_asm_elementwise",
    "extra",  # noqa: F405 (lazy, through __getattr__)
]
