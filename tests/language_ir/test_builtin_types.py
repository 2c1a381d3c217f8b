"""Result types (and the ops they build) of every builtin of the tl namespace."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

import kernellab.language as tl
from kernellab.ir import types as T

from .harness import kernel

ARG_TYPES = {
    "pf32": T.pointer(T.f32), "pf16": T.pointer(T.f16), "pbf16": T.pointer(T.bf16), "pi8": T.pointer(T.i8),
    "pi32": T.pointer(T.i32), "pu8": T.pointer(T.u8), "pu32": T.pointer(T.u32), "pbool": T.pointer(T.i1),
    "pf64": T.pointer(T.f64), "pi64": T.pointer(T.i64), "n": T.i32,
}


def values(args: list) -> SimpleNamespace:
    """Ready-made kernel values: 16-element tiles of several dtypes, a 4x8 fp32 tile, scalars."""
    v = SimpleNamespace(**dict(zip(ARG_TYPES, args)))
    v.offs = tl.arange(0, 16)
    for name in ("f32", "f16", "bf16", "i8", "i32", "u8", "u32", "bool", "f64", "i64"):
        setattr(v, name, tl.load(getattr(v, "p" + name) + v.offs))
    v.m = tl.reshape(v.f32, 4, 4)
    v.m48 = tl.load(v.pf32 + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    v.s = tl.load(v.pf32)
    return v


CASES: list[tuple[str, Callable[[SimpleNamespace], Any], str]] = [
    # programming model and creation
    ("program_id", lambda v: tl.program_id(1), "i32"),
    ("num_programs", lambda v: tl.num_programs(2), "i32"),
    ("arange", lambda v: tl.arange(4, 12), "tile<8xi32>"),
    ("full", lambda v: tl.full((2, 8), 3, tl.float16), "tile<2x8xf16>"),
    ("full-scalar-tensor", lambda v: tl.full([4], v.n, tl.int64), "tile<4xi64>"),
    ("full-shape-0", lambda v: tl.full((), 1.5, tl.float32), "f32"),
    ("zeros", lambda v: tl.zeros([8, 2], tl.int8), "tile<8x2xi8>"),
    ("zeros_like", lambda v: tl.zeros_like(v.m48), "tile<4x8xf32>"),
    ("cast", lambda v: tl.cast(v.f32, tl.float16), "tile<16xf16>"),
    ("cast-bitcast", lambda v: tl.cast(v.f32, tl.int32, bitcast=True), "tile<16xi32>"),
    ("to", lambda v: v.i8.to(tl.float64), "tile<16xf64>"),
    ("to-rtz", lambda v: v.f32.to(tl.bfloat16, fp_downcast_rounding="rtz"), "tile<16xbf16>"),
    ("to-pointer", lambda v: v.pf32.to(tl.pointer_type(tl.int8)), "ptr<i8>"),
    ("pointer-to-int", lambda v: v.pf32.to(tl.int64), "i64"),
    ("to_tensor", lambda v: tl.to_tensor(3), "i32"),
    ("add", lambda v: tl.add(v.i8, v.i32), "tile<16xi32>"),
    ("sub", lambda v: tl.sub(v.f16, 1), "tile<16xf16>"),
    ("mul", lambda v: tl.mul(v.u8, v.u8), "tile<16xu8>"),
    # operators
    ("ptr+int", lambda v: v.pf32 + v.offs, "tile<16xptr<f32>>"),
    ("ptr-int", lambda v: v.pf32 - 1, "ptr<f32>"),
    ("ptr+uint", lambda v: v.pf32 + v.u8, "tile<16xptr<f32>>"),
    ("neg", lambda v: -v.f16, "tile<16xf16>"),
    ("invert", lambda v: ~v.u8, "tile<16xu8>"),
    ("abs-op", lambda v: abs(v.i8), "tile<16xi8>"),
    ("truediv-int", lambda v: v.i32 / v.i32, "tile<16xf32>"),
    ("truediv-f64", lambda v: v.f64 / v.f32, "tile<16xf64>"),
    ("floordiv", lambda v: v.i8 // 2, "tile<16xi8>"),
    ("mod-float", lambda v: v.f32 % 2.0, "tile<16xf32>"),
    ("compare", lambda v: v.f16 >= v.f32, "tile<16xi1>"),
    ("compare-pointers", lambda v: (v.pf32 + v.offs) == (v.pf32 + 1), "tile<16xi1>"),
    ("subscript-col", lambda v: v.f32[:, None], "tile<16x1xf32>"),
    ("subscript-row", lambda v: v.f32[None, :], "tile<1x16xf32>"),
    ("subscript-all", lambda v: v.f32[:], "tile<16xf32>"),
    ("subscript-scalar", lambda v: v.s[None], "tile<1xf32>"),
    ("T", lambda v: v.m48.T, "tile<8x4xf32>"),
    # shape
    ("broadcast", lambda v: tl.broadcast(v.f32[:, None], v.f32[None, :])[0], "tile<16x16xf32>"),
    ("broadcast_to", lambda v: tl.broadcast_to(v.f32[None, :], 2, 16), "tile<2x16xf32>"),
    ("broadcast_to-method", lambda v: v.s.broadcast_to((4, 4)), "tile<4x4xf32>"),
    ("expand_dims", lambda v: tl.expand_dims(v.f32, 0), "tile<1x16xf32>"),
    ("expand_dims-many", lambda v: tl.expand_dims(v.f32, (0, -1)), "tile<1x16x1xf32>"),
    ("expand_dims-method", lambda v: v.f32.expand_dims(1), "tile<16x1xf32>"),
    ("reshape", lambda v: tl.reshape(v.f32, (2, 8)), "tile<2x8xf32>"),
    ("reshape-method", lambda v: v.f32.reshape(8, 2), "tile<8x2xf32>"),
    ("reshape-scalar", lambda v: tl.reshape(tl.sum(v.f32, keep_dims=True), ()), "f32"),
    ("permute", lambda v: tl.permute(tl.reshape(v.f32, 2, 4, 2), 2, 0, 1), "tile<2x2x4xf32>"),
    ("trans", lambda v: tl.trans(v.m48), "tile<8x4xf32>"),
    ("trans-method", lambda v: v.m48.trans(1, 0), "tile<8x4xf32>"),
    ("ravel", lambda v: tl.ravel(v.m48), "tile<32xf32>"),
    ("join", lambda v: tl.join(v.f32, v.f32), "tile<16x2xf32>"),
    ("join-scalars", lambda v: tl.join(v.s, v.s), "tile<2xf32>"),
    ("split", lambda v: tl.split(tl.reshape(v.f32, 8, 2))[1], "tile<8xf32>"),
    ("split-to-scalars", lambda v: tl.split(tl.arange(0, 2))[0], "i32"),
    ("interleave", lambda v: tl.interleave(v.f32, v.f32), "tile<32xf32>"),
    ("interleave-2d", lambda v: tl.interleave(v.m48, v.m48), "tile<4x16xf32>"),
    ("cat", lambda v: tl.cat(v.f32, v.f32, can_reorder=True), "tile<32xf32>"),
    ("item", lambda v: tl.reshape(tl.sum(v.f32, keep_dims=True), 1, 1).item(), "f32"),
    # memory
    ("load-scalar", lambda v: tl.load(v.pi32), "i32"),
    ("load-mask-other", lambda v: tl.load(v.pf16 + v.offs, mask=v.offs < v.n, other=0.0), "tile<16xf16>"),
    ("load-broadcast-mask", lambda v: tl.load(v.pf32 + v.offs[None, :], mask=v.offs[:, None] < 4),
     "tile<16x16xf32>"),
    ("load-bool", lambda v: tl.load(v.pbool + v.offs), "tile<16xi1>"),
    ("load-options", lambda v: tl.load(v.pf32 + v.offs, cache_modifier=".cg", eviction_policy="evict_last",
                                       volatile=True), "tile<16xf32>"),
    ("store", lambda v: tl.store(v.pf32 + v.offs, v.i8, mask=v.offs < 3), "None"),
    ("store-method", lambda v: (v.pf16 + v.offs).store(1.0), "None"),
    ("make_block_ptr", lambda v: tl.make_block_ptr(v.pf16, (v.n, 64), (64, 1), (0, 0), (16, 32), (1, 0)),
     "ptr<tile<16x32xf16>>"),
    ("load-block", lambda v: tl.load(tl.make_block_ptr(v.pf16, (v.n, 64), (64, 1), (0, 0), (16, 32), (1, 0)),
                                     boundary_check=(0, 1), padding_option="nan"), "tile<16x32xf16>"),
    ("store-block", lambda v: tl.store(tl.make_block_ptr(v.pf32, (16,), (1,), (0,), (16,), (0,)), v.i32,
                                       boundary_check=(0,)), "None"),
    ("advance", lambda v: tl.advance(tl.make_block_ptr(v.pf16, (v.n, 64), (64, 1), (0, 0), (16, 32), (1, 0)),
                                     (16, v.n)), "ptr<tile<16x32xf16>>"),
    ("make_tensor_descriptor", lambda v: tl.make_tensor_descriptor(v.pf32, [v.n, 64], [64, 1], [8, 16]),
     "desc<8x16xf32>"),
    ("descriptor.load", lambda v: tl.make_tensor_descriptor(v.pf32, [v.n, 64], [64, 1], [8, 16]).load([0, v.n]),
     "tile<8x16xf32>"),
    ("load_tensor_descriptor", lambda v: tl.load_tensor_descriptor(
        tl.make_tensor_descriptor(v.pf16, [v.n], [1], [32]), [v.n]), "tile<32xf16>"),
    ("store_tensor_descriptor", lambda v: tl.store_tensor_descriptor(
        tl.make_tensor_descriptor(v.pf16, [v.n], [1], [32]), [0], 2.0), "None"),
    ("atomic_add", lambda v: tl.atomic_add(v.pf32 + v.offs, 1), "tile<16xf32>"),
    ("atomic_add-f16", lambda v: tl.atomic_add(v.pf16 + v.offs, v.f32, mask=v.offs < 2), "tile<16xf16>"),
    ("atomic_max", lambda v: tl.atomic_max(v.pf32, 1.0, sem="relaxed", scope="cta"), "f32"),
    ("atomic_min", lambda v: tl.atomic_min(v.pi32 + v.offs, v.i8), "tile<16xi32>"),
    ("atomic_and", lambda v: tl.atomic_and(v.pu32 + v.offs, 3), "tile<16xu32>"),
    ("atomic_or", lambda v: (v.pi32 + v.offs).atomic_or(3), "tile<16xi32>"),
    ("atomic_xor", lambda v: tl.atomic_xor(v.pi64, 3), "i64"),
    ("atomic_xchg", lambda v: tl.atomic_xchg(v.pf64 + v.offs, 0.5), "tile<16xf64>"),
    ("atomic_cas", lambda v: tl.atomic_cas(v.pi32, 0, 1), "i32"),
    # indexing, linear algebra
    ("where", lambda v: tl.where(v.offs < 4, v.f16, 0), "tile<16xf16>"),
    ("where-broadcast", lambda v: tl.where(v.offs[:, None] < 4, v.f32[None, :], v.s), "tile<16x16xf32>"),
    ("where-pointers", lambda v: tl.where(v.offs < 4, v.pf32 + v.offs, v.pf32), "tile<16xptr<f32>>"),
    ("swizzle2d", lambda v: tl.swizzle2d(v.offs[:, None], v.offs[None, :], 16, 16, 4)[0], "tile<16x16xi32>"),
    ("dot-f32", lambda v: tl.dot(v.m48.T, v.m48), "tile<8x8xf32>"),
    ("dot-f16-out-f16", lambda v: tl.dot(v.m48.to(tl.float16), v.m48.T.to(tl.float16), out_dtype=tl.float16),
     "tile<4x4xf16>"),
    ("dot-bf16", lambda v: tl.dot(v.m48.to(tl.bfloat16), v.m48.T.to(tl.bfloat16)), "tile<4x4xf32>"),
    ("dot-i8", lambda v: tl.dot(v.m48.to(tl.int8), v.m48.T.to(tl.int8)), "tile<4x4xi32>"),
    ("dot-f64", lambda v: tl.dot(v.m48.to(tl.float64), v.m48.T.to(tl.float64)), "tile<4x4xf64>"),
    ("dot-acc", lambda v: tl.dot(v.m48, v.m48.T, acc=tl.zeros((4, 4), tl.float32)), "tile<4x4xf32>"),
    ("dot-3d", lambda v: tl.dot(tl.reshape(v.m48, 2, 2, 8), tl.reshape(v.m48, 2, 8, 2)), "tile<2x2x2xf32>"),
    ("dot-fp8-mixed", lambda v: tl.dot(v.m48.to(tl.float8e4nv), v.m48.T.to(tl.float8e5)), "tile<4x4xf32>"),
    ("matmul-operator", lambda v: v.m48 @ v.m48.T, "tile<4x4xf32>"),
    # math
    ("abs", lambda v: tl.abs(v.f16), "tile<16xf16>"),
    ("abs-unsigned", lambda v: tl.abs(v.u8), "tile<16xu8>"),
    ("ceil", lambda v: tl.ceil(v.f64), "tile<16xf64>"),
    ("floor", lambda v: tl.floor(v.f32), "tile<16xf32>"),
    ("clamp", lambda v: tl.clamp(v.f32, 0.0, 1.0), "tile<16xf32>"),
    ("clamp-bf16", lambda v: tl.clamp(v.bf16, -1.0, 1.0, propagate_nan=tl.PropagateNan.ALL), "tile<16xf32>"),
    ("cos", lambda v: tl.cos(v.f32), "tile<16xf32>"),
    ("sin", lambda v: v.f32.sin(), "tile<16xf32>"),
    ("div_rn", lambda v: tl.div_rn(v.f32, v.f32), "tile<16xf32>"),
    ("erf", lambda v: tl.erf(v.f64), "tile<16xf64>"),
    ("exp", lambda v: v.f32.exp(), "tile<16xf32>"),
    ("exp-constant", lambda v: tl.exp(1.0), "f32"),
    ("exp2", lambda v: tl.exp2(v.f32), "tile<16xf32>"),
    ("fdiv", lambda v: tl.fdiv(v.f32, v.f32, ieee_rounding=True), "tile<16xf32>"),
    ("fma", lambda v: tl.fma(v.f32, v.f16, 1.0), "tile<16xf32>"),
    ("log", lambda v: tl.log(v.f32), "tile<16xf32>"),
    ("log2", lambda v: tl.log2(v.f32), "tile<16xf32>"),
    ("maximum", lambda v: tl.maximum(v.i8, v.i32), "tile<16xi32>"),
    ("maximum-bf16", lambda v: tl.maximum(v.bf16, v.bf16), "tile<16xf32>"),
    # as in Triton, minimum/maximum make tensors of their constants first: fp16 with 0.5 is fp32
    ("minimum", lambda v: tl.minimum(v.f16, 0.5, propagate_nan=tl.PropagateNan.ALL), "tile<16xf32>"),
    ("rsqrt", lambda v: tl.rsqrt(v.f32), "tile<16xf32>"),
    ("sigmoid", lambda v: tl.sigmoid(v.f32), "tile<16xf32>"),
    ("softmax", lambda v: tl.softmax(v.m48), "tile<4x8xf32>"),
    ("softmax-f16", lambda v: tl.softmax(v.f16), "tile<16xf32>"),
    ("sqrt", lambda v: tl.sqrt(v.f64), "tile<16xf64>"),
    ("sqrt_rn", lambda v: tl.sqrt_rn(v.f32), "tile<16xf32>"),
    ("umulhi", lambda v: tl.umulhi(v.u32, v.u32), "tile<16xu32>"),
    ("cdiv", lambda v: tl.cdiv(v.i32, 4), "tile<16xi32>"),
    ("cdiv-constexpr", lambda v: tl.cdiv(tl.constexpr(10), 4), "constexpr:3"),
    ("math-namespace", lambda v: tl.math.exp2(v.f32), "tile<16xf32>"),
    ("libdevice", lambda v: tl.extra.libdevice.fabs(v.f32), "tile<16xf32>"),
    # reductions and scans
    ("sum", lambda v: tl.sum(v.m48, axis=1), "tile<4xf32>"),
    ("sum-all", lambda v: tl.sum(v.m48), "f32"),
    ("sum-keep_dims", lambda v: tl.sum(v.m48, 0, keep_dims=True), "tile<1x8xf32>"),
    ("sum-all-keep_dims", lambda v: tl.sum(v.m48, None, keep_dims=True), "tile<1x1xf32>"),
    ("sum-i8", lambda v: tl.sum(v.i8, 0), "i32"),
    ("sum-u8", lambda v: tl.sum(v.u8, 0), "u32"),
    ("sum-bool", lambda v: tl.sum(v.bool, 0), "u32"),
    ("sum-f16", lambda v: tl.sum(v.f16, 0), "f16"),
    ("sum-dtype", lambda v: tl.sum(v.f16, 0, dtype=tl.float32), "f32"),
    ("sum-method", lambda v: v.m48.sum(-1), "tile<4xf32>"),
    ("max", lambda v: tl.max(v.m48, 1), "tile<4xf32>"),
    ("max-f16", lambda v: tl.max(v.f16, 0), "f32"),
    ("max-bf16", lambda v: tl.max(v.bf16, 0), "f32"),
    ("max-u8", lambda v: tl.max(v.u8, 0), "i32"),
    ("max-u32", lambda v: tl.max(v.u32, 0), "u32"),
    ("max-indices", lambda v: tl.max(v.f16, 0, return_indices=True)[0], "f16"),
    ("max-indices-index", lambda v: tl.max(v.m48, 1, return_indices=True)[1], "tile<4xi32>"),
    ("min", lambda v: tl.min(v.i8, 0), "i32"),
    ("min-method", lambda v: v.m48.min(0, keep_dims=True), "tile<1x8xf32>"),
    ("argmax", lambda v: tl.argmax(v.m48, 0), "tile<8xi32>"),
    ("argmax-keep_dims", lambda v: tl.argmax(v.m48, 1, keep_dims=True), "tile<4x1xi32>"),
    ("argmin", lambda v: v.f32.argmin(0), "i32"),
    ("xor_sum", lambda v: tl.xor_sum(v.u8, 0), "u8"),
    ("reduce_or", lambda v: tl.reduce_or(v.i32, 0), "i32"),
    ("cumsum", lambda v: tl.cumsum(v.m48, 1), "tile<4x8xf32>"),
    ("cumsum-i8", lambda v: tl.cumsum(v.i8), "tile<16xi32>"),
    ("cumsum-bf16", lambda v: tl.cumsum(v.bf16, reverse=True), "tile<16xf32>"),
    ("cumprod", lambda v: tl.cumprod(v.i8, 0), "tile<16xi8>"),
    ("sort", lambda v: tl.sort(v.m48), "tile<4x8xf32>"),
    ("sort-descending", lambda v: v.f16.sort(descending=True), "tile<16xf16>"),
    ("flip", lambda v: tl.flip(v.m48), "tile<4x8xf32>"),
    ("flip-dim0", lambda v: tl.flip(v.m48, 0), "tile<4x8xf32>"),
    ("histogram", lambda v: tl.histogram(v.i32, 8), "tile<8xi32>"),
    ("histogram-mask", lambda v: tl.histogram(v.u8, 32, mask=v.offs < 3), "tile<32xi32>"),
    ("gather", lambda v: tl.gather(v.m48, tl.zeros((4, 2), tl.int32), 1), "tile<4x2xf32>"),
    # random
    ("randint", lambda v: tl.randint(v.n, v.offs), "tile<16xu32>"),
    ("randint4x", lambda v: tl.randint4x(7, v.offs)[3], "tile<16xu32>"),
    ("randint-64", lambda v: tl.randint(7, v.offs.to(tl.int64)), "tile<16xu32>"),
    ("rand", lambda v: tl.rand(7, v.offs), "tile<16xf32>"),
    ("rand-64", lambda v: tl.rand(7, v.offs.to(tl.uint64)), "tile<16xf32>"),
    ("randn", lambda v: tl.randn(7, v.offs), "tile<16xf32>"),
    ("rand4x", lambda v: tl.rand4x(7, v.offs)[2], "tile<16xf32>"),
    ("randn4x", lambda v: tl.randn4x(7, v.offs)[1], "tile<16xf32>"),
    # hints and debugging
    ("multiple_of", lambda v: tl.multiple_of(v.offs, 16), "tile<16xi32>"),
    ("multiple_of-scalar", lambda v: tl.multiple_of(v.n, [8]), "i32"),
    ("max_contiguous", lambda v: tl.max_contiguous(v.offs, [16]), "tile<16xi32>"),
    ("max_constancy", lambda v: tl.max_constancy(v.m48, (1, 8)), "tile<4x8xf32>"),
    ("assume", lambda v: tl.assume(v.n > 0), "None"),
    ("debug_barrier", lambda v: tl.debug_barrier(), "None"),
    ("device_print", lambda v: tl.device_print("x", v.f32, v.n, hex=True), "None"),
    ("device_assert", lambda v: tl.device_assert(v.n > 0, "n must be positive"), "None"),
    ("static_print", lambda v: tl.static_print("block", tl.constexpr(16), v.f32), "None"),
    ("static_assert", lambda v: tl.static_assert(tl.constexpr(16) > 8, "small"), "None"),
    ("inline_asm", lambda v: tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [v.i32, v.s], tl.int32, True, 1),
     "tile<16xi32>"),
    ("inline_asm-tuple", lambda v: tl.inline_asm_elementwise("", "=r,=r,r", [v.u8], (tl.int32, tl.float32), True,
                                                             4)[1], "tile<16xf32>"),
]


def describe(result: Any) -> str:
    if result is None:
        return "None"
    if isinstance(result, tl.constexpr):
        return f"constexpr:{result.value}"
    return result.type.ir


@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_builtin_result_type(name: str, build: Callable, want: str, capsys) -> None:
    with kernel(*ARG_TYPES.values(), debug=True) as k:
        v = values(k.args)
        result = build(v)
    assert describe(result) == want


def test_every_documented_builtin_exists_and_is_marked() -> None:
    documented = """program_id num_programs arange full zeros zeros_like cast reshape view trans permute expand_dims
        broadcast broadcast_to ravel join split interleave cat load store make_block_ptr advance
        make_tensor_descriptor load_tensor_descriptor store_tensor_descriptor where swizzle2d flip abs ceil clamp cos
        div_rn erf exp exp2 fdiv floor fma log log2 maximum minimum rsqrt sigmoid sin softmax sqrt sqrt_rn umulhi
        cdiv sum max min argmax argmin xor_sum reduce cumsum cumprod associative_scan sort histogram gather
        atomic_add atomic_and atomic_cas atomic_max atomic_min atomic_or atomic_xchg atomic_xor rand randn randint
        randint4x multiple_of max_contiguous max_constancy assume debug_barrier static_print static_assert
        device_print device_assert inline_asm_elementwise dot""".split()
    for name in documented:
        assert tl.core.is_builtin(getattr(tl, name)), name
    for name in ("range", "static_range", "constexpr", "tensor", "dtype", "pointer_type", "block_type",
                 "PropagateNan"):
        assert hasattr(tl, name), name
    for name in "exp exp2 log log2 cos sin sqrt sqrt_rn rsqrt abs floor ceil erf fdiv div_rn fma umulhi cdiv".split():
        assert getattr(tl.math, name) is getattr(tl, name)


def test_tensor_member_functions() -> None:
    members = """to reshape view trans permute broadcast_to expand_dims ravel split sum max min argmax argmin xor_sum
        reduce reduce_or cumsum cumprod associative_scan sort flip abs exp exp2 log log2 cos sin sqrt sqrt_rn rsqrt
        erf floor ceil cast store advance atomic_add atomic_cas atomic_xchg atomic_max atomic_min atomic_and
        atomic_or atomic_xor gather histogram cdiv sigmoid softmax item""".split()
    for name in members:
        assert callable(getattr(tl.tensor, name)), name


def test_dtype_objects() -> None:
    assert tl.float32 is T.f32 and tl.int1 is T.i1 and tl.float8e4nv is T.f8e4m3 and tl.float8e5 is T.f8e5m2
    assert tl.dtype("fp16") is tl.float16
    assert isinstance(tl.float32, tl.dtype) and not isinstance(tl.float32, tl.pointer_type)
    assert tl.pointer_type(tl.float16) is T.pointer(T.f16)
    assert isinstance(tl.pointer_type(tl.int8), tl.pointer_type)
    assert tl.block_type(tl.float32, [16, 8]) is T.tile(T.f32, (16, 8))
    assert isinstance(tl.block_type(tl.int8, [4]), tl.block_type)
    assert tl.pi32_t is T.pointer(T.i32)
    assert not tl.int1.is_int_signed() and tl.int1.is_int_unsigned()  # as in Triton
    assert tl.core.get_int_dtype(16, False) is tl.uint16 and tl.core.get_int_dtype(1, True) is tl.int1


def test_tensor_facts() -> None:
    with kernel(T.pointer(T.f16)) as k:
        x = tl.load(k.args[0] + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
        assert x.dtype is tl.float16
        assert [int(d) for d in x.shape] == [8, 4] and all(isinstance(d, tl.constexpr) for d in x.shape)
        assert x.numel == 32
        assert str(x) == "fp16[8, 4]"


def test_range_iterators_hold_their_arguments() -> None:
    loop = tl.range(tl.constexpr(2), 10, 2, num_stages=3, loop_unroll_factor=tl.constexpr(4), flatten=True)
    assert (loop.start, loop.end, loop.step) == (2, 10, 2)
    assert (loop.num_stages, loop.loop_unroll_factor, loop.flatten, loop.warp_specialize) == (3, 4, True, False)
    assert (tl.range(5).start, tl.range(5).end, tl.range(5).step) == (0, 5, 1)
    assert list(tl.static_range(tl.constexpr(3)).values()) == [0, 1, 2]
    assert list(tl.static_range(1, 7, 3).values()) == [1, 4]


def test_static_print_prints_at_compile_time(capsys) -> None:
    with kernel(T.pointer(T.f32)) as k:
        tl.static_print("BLOCK", tl.constexpr(128), tl.load(k.args[0] + tl.arange(0, 4)))
    assert capsys.readouterr().out == "BLOCK 128 fp32[constexpr[4]]\n"  # Triton's text for a tensor
    assert k.ops().count("print") == 0


def test_device_assert_is_emitted_only_in_debug_mode() -> None:
    for debug in (False, True):
        with kernel(T.i32, debug=debug) as k:
            tl.device_assert(k.args[0] > 0, "positive")
        assert k.ops().count("assert") == int(debug)


def test_device_print_prefix_follows_triton() -> None:
    with kernel(T.i32) as k:
        tl.device_print("pid", k.args[0])
        tl.device_print("value: ", k.args[0])
        tl.device_print("plain")
    prefixes = [op.attrs["prefix"] for op in k.function.walk() if op.name == "print"]
    assert prefixes == [" pid: ", " value: ", " plain"]  # a leading space with or without values, as Triton
