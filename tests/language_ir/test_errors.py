"""Misuse of builtins raises SemanticError with a message that says what is wrong (and what
is allowed)."""

from __future__ import annotations

import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

import kernellab.language as tl
from kernellab.ir import types as T
from kernellab.language.semantics import SemanticError

from .harness import kernel

ARG_TYPES = [T.pointer(T.f32), T.pointer(T.i8), T.pointer(T.f16), T.i32, T.pointer(T.i32)]


def values(args: list) -> SimpleNamespace:
    v = SimpleNamespace(pf32=args[0], pi8=args[1], pf16=args[2], n=args[3], pi32=args[4])
    v.offs = tl.arange(0, 16)
    v.f32 = tl.load(v.pf32 + v.offs)
    v.f16 = tl.load(v.pf16 + v.offs)
    v.i8 = tl.load(v.pi8 + v.offs)
    v.i32 = tl.load(v.pi32 + v.offs)
    v.m = tl.reshape(v.f32, 4, 4)
    v.block = tl.make_block_ptr(v.pf32, (v.n, 16), (16, 1), (0, 0), (4, 16), (1, 0))
    return v


ERRORS: list[tuple[str, Callable[[SimpleNamespace], Any], str]] = [
    # creation
    ("arange-runtime", lambda v: tl.arange(0, v.n), r"arange's bounds must be tl.constexpr \(compile-time\) values; "
                                                   r"got a runtime value.*`BLOCK: tl.constexpr`"),
    ("arange-not-pow2", lambda v: tl.arange(0, 12), r"arange's range must be a power of 2; end - start is 12"),
    ("arange-empty", lambda v: tl.arange(4, 4), r"arange needs end > start"),
    ("arange-int32", lambda v: tl.arange(0, 2**33), r"must fit in int32"),
    ("full-shape", lambda v: tl.full((3, 4), 0, tl.float32),
     r"Shape element 0 must be a power of 2; full's shape has 3 at dim 0"),
    ("full-runtime-shape", lambda v: tl.full((v.n,), 0, tl.float32), r"full's shape must be tl.constexpr"),
    ("full-dtype", lambda v: tl.full((4,), 0, "float32"), r"full's dtype must be a scalar dtype"),
    ("full-tile-value", lambda v: tl.full((4,), v.f32, tl.float32), r"full's value must be a scalar"),
    ("too-large", lambda v: tl.zeros((2048, 1024), tl.float32), r"a tile holds at most 1048576"),
    ("program_id-axis", lambda v: tl.program_id(3), r"program_id axis must be 0, 1, or 2 but got 3"),
    ("program_id-runtime", lambda v: tl.program_id(v.n), r"program_id's axis must be tl.constexpr"),
    # casts and operators
    ("bitcast-width", lambda v: v.f32.to(tl.int16, bitcast=True), r"cannot bitcast fp32 \(32 bits\) to int16"),
    ("rounding-upcast", lambda v: v.f16.to(tl.float32, fp_downcast_rounding="rtz"),
     r"fp_downcast_rounding applies only to casts to a narrower float type"),
    ("rounding-mode", lambda v: v.f32.to(tl.float16, fp_downcast_rounding="up"), r"must be 'rtne' or 'rtz'"),
    ("cast-target", lambda v: v.f32.to(3), r"cannot cast to 3: expected a dtype"),
    ("float-to-pointer", lambda v: v.f32.to(tl.pointer_type(tl.float32)), r"only integers convert to pointers"),
    ("floordiv-float", lambda v: v.f32 // 2, r"// needs integer operands, got fp32 and fp32"),
    ("mixed-signedness", lambda v: v.i8 // v.i8.to(tl.uint32), r"have different signedness"),
    ("unsigned-negative", lambda v: v.i8.to(tl.uint8) + -1, r"unsigned tensor \(uint8\) with the negative constant"),
    ("constant-range", lambda v: v.i8 + 300, r"constant 300 is out of range for int8"),
    ("pointer-plus-float", lambda v: v.pf32 + 1.5, r"cannot offset a pointer \(pointer<fp32>\) by a float"),
    ("pointer-plus-pointer", lambda v: v.pf32 + v.pf32, r"cannot add two pointers"),
    ("pointer-times", lambda v: v.pf32 * 2, r"this operation does not take pointers"),
    ("pointer-types", lambda v: (v.pf32 + v.offs) == (v.pf16 + v.offs), r"pointers of different types"),
    ("negate-pointer", lambda v: -v.pf32, r"cannot negate a pointer"),
    ("invert-float", lambda v: ~v.f32, r"~ needs an integer operand, got fp32"),
    ("power", lambda v: v.f32 ** 2, r"\*\* is not supported"),
    ("broadcast", lambda v: v.f32 + tl.arange(0, 8).to(tl.float32), r"cannot broadcast shapes \[16\] and \[8\]"),
    ("where-types", lambda v: tl.where(v.offs < 2, v.pf32, 1.0), r"cannot offset a pointer|different types"),
    ("tensor-truth", lambda v: bool(v.f32), r"no Python truth value"),
    ("tensor-iter", lambda v: list(v.f32), r"not iterable"),
    # math
    ("exp-f16", lambda v: tl.exp(v.f16), r"tl.exp expects fp32, fp64 tensors, got fp16 \(cast first"),
    ("sqrt_rn-f64", lambda v: tl.sqrt_rn(v.f32.to(tl.float64)), r"tl.sqrt_rn expects fp32 tensors, got fp64"),
    ("div_rn-f16", lambda v: tl.div_rn(v.f16, v.f16), r"tl.div_rn expects fp32"),
    ("umulhi-i8", lambda v: tl.umulhi(v.i8, v.i8), r"tl.umulhi expects int32, int64, uint32, uint64"),
    ("fdiv-int", lambda v: tl.fdiv(v.i8, v.i8), r"tl.fdiv needs floating-point operands"),
    ("fma-int", lambda v: tl.fma(v.i8, v.i8, v.i8), r"tl.fma needs floating-point operands"),
    ("clamp-int", lambda v: tl.clamp(v.i8, 0, 1), r"tl.clamp supports floating-point tensors only"),
    ("propagate_nan", lambda v: tl.maximum(v.f32, v.f32, propagate_nan="some"), r"propagate_nan must be"),
    # shapes
    ("reshape-numel", lambda v: tl.reshape(v.f32, 4, 8), r"reshape cannot change the number of elements"),
    ("reshape-pow2", lambda v: tl.reshape(v.f32, 16, 3), r"has 3 at dim 1"),
    ("item", lambda v: tl.item(v.f32), r"only a one-element tile converts to a scalar"),
    ("permute", lambda v: tl.permute(v.m, 0, 0), r"permute dims must be a permutation of 0..1"),
    ("permute-rank", lambda v: tl.permute(v.m, 0, 1, 2), r"permute needs one dim per axis"),
    ("expand_dims-axis", lambda v: tl.expand_dims(v.f32, 3),
     r"invalid axis 3. Expected -2 <= axis < 2 \(a tensor of rank 2\)"),
    ("expand_dims-duplicate", lambda v: tl.expand_dims(v.f32, (0, 0)), r"duplicate axes, normalized axes = \[0, 0\]"),
    ("subscript-int", lambda v: v.f32[0], r"unsupported tensor index 0: only None \(new axis\) and ':'"),
    ("subscript-slice", lambda v: v.f32[1:], r"unsupported tensor index"),
    ("split", lambda v: tl.split(v.m), r"split needs a last dim of size 2, got shape \[4, 4\]"),
    ("join-dtype", lambda v: tl.join(v.f32, v.f16), r"join needs tensors of one dtype"),
    ("cat-shape", lambda v: tl.cat(v.m, v.f32), r"agree on every dim but the first"),
    ("cat-length", lambda v: tl.cat(v.f32, tl.arange(0, 8).to(tl.float32)), r"has 24 at dim 0"),
    ("broadcast_to", lambda v: tl.broadcast_to(v.f32, 8), r"cannot broadcast shape \[16\] to \[8\]"),
    ("gather-rank", lambda v: tl.gather(v.m, v.offs, 0), r"gather's src and index must be tiles of one rank"),
    ("gather-index", lambda v: tl.gather(v.f32, v.f32, 0), r"gather's index must be an integer tensor"),
    # memory
    ("load-not-pointer", lambda v: tl.load(v.f32), r"tl.load needs a pointer \(or a tile of pointers\)"),
    ("load-other-no-mask", lambda v: tl.load(v.pf32 + v.offs, other=0.0), r"other needs a mask"),
    ("load-int-mask", lambda v: tl.load(v.pf32 + v.offs, mask=v.offs), r"mask must be boolean \(tl.int1\)"),
    ("load-cache", lambda v: tl.load(v.pf32, cache_modifier=".wb"),
     r"cache_modifier must be one of '', '.ca', '.cg', '.cv'; got '.wb'"),
    ("load-eviction", lambda v: tl.load(v.pf32, eviction_policy="evict_soon"),
     r"eviction_policy must be one of '', 'evict_first', 'evict_last'"),
    ("load-padding", lambda v: tl.load(v.block, padding_option="one"), r"padding_option must be one of"),
    ("load-boundary-pointer", lambda v: tl.load(v.pf32 + v.offs, boundary_check=(0,)),
     r"apply to block pointers only"),
    ("load-scalar-mask", lambda v: tl.load(v.pf32, mask=v.offs < 2), r"scalar pointer takes a scalar mask"),
    ("load-block-mask", lambda v: tl.load(v.block, mask=v.offs < 2), r"mask and other cannot be given"),
    ("load-block-check", lambda v: tl.load(v.block, boundary_check=(2,)),
     r"boundary_check dim 2 is out of range for a block of rank 2"),
    ("load-block-duplicate", lambda v: tl.load(v.block, boundary_check=(0, 0)), r"names a dim twice"),
    ("load-nan-int", lambda v: tl.load(tl.make_block_ptr(v.pi8, (16,), (1,), (0,), (16,), (0,)),
                                       padding_option="nan"), r"'nan' needs a floating-point block"),
    ("store-cache", lambda v: tl.store(v.pf32, 1.0, cache_modifier=".ca"),
     r"cache_modifier must be one of '', '.wb', '.cg', '.cs', '.wt'"),
    ("store-scalar-pointer", lambda v: tl.store(v.pf32, v.f32), r"scalar pointer takes a scalar value"),
    ("store-larger-value", lambda v: tl.store(v.pf32 + v.offs, v.m.reshape(1, 16).broadcast_to(2, 16)),
     r"larger shape \[2, 16\] than the pointers \[16\]"),
    ("store-block-shape", lambda v: tl.store(v.block, v.f32), r"differs from the block shape \[4, 16\]"),
    ("store-block-mask", lambda v: tl.store(v.block, 1.0, mask=v.n > 0), r"mask cannot be given"),
    ("block-base", lambda v: tl.make_block_ptr(v.pf32 + v.offs, (16,), (1,), (0,), (16,), (0,)),
     r"base must be a scalar pointer"),
    ("block-order", lambda v: tl.make_block_ptr(v.pf32, (16,), (1,), (0,), (16,), (1,)),
     r"order must be a permutation"),
    ("block-lengths", lambda v: tl.make_block_ptr(v.pf32, (16, 16), (1,), (0,), (16,), (0,)), r"must have one length"),
    ("block-shape", lambda v: tl.make_block_ptr(v.pf32, (16,), (1,), (0,), (12,), (0,)), r"has 12 at dim 0"),
    ("block-offsets-64", lambda v: tl.make_block_ptr(v.pf32, (16,), (1,), (v.n.to(tl.int64),), (16,), (0,)),
     r"must be 32-bit"),
    ("advance-pointer", lambda v: tl.advance(v.pf32, (1,)), r"tl.advance moves block pointers"),
    ("advance-count", lambda v: tl.advance(v.block, (1,)), r"needs 2 offsets"),
    ("descriptor-stride", lambda v: tl.make_tensor_descriptor(v.pf32, [16, 16], [1, 16], [16, 16]),
     r"last stride must be the compile-time constant 1"),
    ("descriptor-bytes", lambda v: tl.make_tensor_descriptor(v.pf32, [16, 16], [16, 1], [16, 2]),
     r"Descriptor block shape must have at least 16 bytes in the last dimension, but got 2 \* 4 = 8 bytes"),
    ("descriptor-ndim", lambda v: tl.make_tensor_descriptor(v.pf32, [2] * 6, [1] * 6, [4] * 6), r"1 to 5 dims"),
    ("descriptor-offsets", lambda v: tl.make_tensor_descriptor(v.pf32, [16, 16], [16, 1], [4, 4]).load([0]),
     r"needs 2 offsets"),
    ("descriptor-value", lambda v: tl.make_tensor_descriptor(v.pf32, [16, 16], [16, 1], [4, 4]).store([0, 0], v.f32),
     r"takes a value of the block shape \[4, 4\]"),
    # atomics
    ("atomic-i8", lambda v: tl.atomic_add(v.pi8, 1), r"atomic_add does not support int8"),
    ("atomic-f16-max", lambda v: tl.atomic_max(v.pf16, 1.0), r"atomic_max does not support fp16"),
    ("atomic-sem", lambda v: tl.atomic_add(v.pf32, 1.0, sem="sequential"), r"sem must be one of 'acquire'"),
    ("atomic-scope", lambda v: tl.atomic_add(v.pf32, 1.0, scope="world"), r"scope must be one of 'gpu'"),
    ("atomic-and-float", lambda v: tl.atomic_and(v.pf32, 1), r"atomic_and needs integer elements"),
    ("atomic-not-pointer", lambda v: tl.atomic_xchg(v.f32, 1), r"atomic_xchg needs a pointer"),
    ("atomic-scalar-value", lambda v: tl.atomic_add(v.pf32, v.f32), r"through a scalar pointer takes a scalar"),
    ("atomic_cas-width", lambda v: tl.atomic_cas(v.pi8, 0, 1), r"atomic_cas supports 16-, 32- and 64-bit"),
    # dot
    ("dot-dtypes", lambda v: tl.dot(v.m, v.m.to(tl.float16)), r"tl.dot's inputs must have one dtype"),
    ("dot-int32", lambda v: tl.dot(v.m.to(tl.int32), v.m.to(tl.int32)), r"first input has dtype int32"),
    ("dot-inner", lambda v: tl.dot(v.m, v.f32.reshape(8, 2)), r"inner dims differ: \[4, 4\] @ \[8, 2\]"),
    ("dot-rank", lambda v: tl.dot(v.f32, v.f32), r"two tiles of one rank, 2 or more"),
    ("dot-precision-twice", lambda v: tl.dot(v.m, v.m, input_precision="ieee", allow_tf32=True), r"not both"),
    ("dot-precision", lambda v: tl.dot(v.m, v.m, input_precision="fp64"), r"input_precision must be one of"),
    ("dot-bf16-out", lambda v: tl.dot(v.m.to(tl.float16), v.m.to(tl.float16), out_dtype=tl.bfloat16),
     r"out_dtype=tl.bfloat16 is not supported"),
    ("dot-acc", lambda v: tl.dot(v.m, v.m, acc=tl.zeros((4, 4), tl.float16)), r"acc must be a <\[4, 4\], fp32>"),
    ("dot-uint8", lambda v: tl.dot(v.m.to(tl.uint8), v.m.to(tl.uint8)), r"supports int8 only"),
    # reductions
    ("sum-axis", lambda v: tl.sum(v.m, 2), r"invalid axis 2. Expected -2 <= axis < 2"),
    ("sum-axis-type", lambda v: tl.sum(v.m, 1.0), r"axis must be an integer or None"),
    ("sum-axis-runtime", lambda v: tl.sum(v.m, v.n), r"tl.sum's axis must be tl.constexpr"),
    ("xor_sum-float", lambda v: tl.xor_sum(v.f32), r"xor_sum only supports integer tensors, got fp32"),
    ("reduce-no-frontend", lambda v: tl.reduce(v.f32, 0, lambda a, b: a + b), r"needs the frontend"),
    ("scan-no-axis", lambda v: tl.associative_scan(v.f32, None, lambda a, b: a + b), r"needs an axis"),
    ("cumsum-scalar", lambda v: tl.cumsum(v.n), r"tl.cumsum needs a tile"),
    ("sort-dim", lambda v: tl.sort(v.m, 0), r"sorts along the last dim only"),
    ("flip-dim", lambda v: tl.flip(v.m, 5), r"invalid dim 5. Expected -2 <= dim < 2"),
    ("histogram-float", lambda v: tl.histogram(v.f32, 4), r"takes a 1-D integer tile"),
    ("histogram-bins", lambda v: tl.histogram(v.offs, 6), r"has 6 at dim 0"),
    ("histogram-mask", lambda v: tl.histogram(v.offs, 4, mask=v.offs), r"mask must be boolean"),
    # debug, hints, inline asm, random
    ("static_assert", lambda v: tl.static_assert(tl.constexpr(4) > 8, "BLOCK too small"),
     r"static_assert failed: BLOCK too small"),
    ("static_assert-tensor", lambda v: tl.static_assert(v.n > 0), r"needs a compile-time condition"),
    ("device_print-prefix", lambda v: tl.device_print(v.n), r"prefix must be a string literal"),
    ("device_print-ascii", lambda v: tl.device_print("\u00e9", v.n), r"printable ASCII"),
    ("multiple_of-count", lambda v: tl.multiple_of(v.m, [16]), r"multiple_of needs 2 value\(s\)"),
    ("multiple_of-runtime", lambda v: tl.multiple_of(v.offs, v.n), r"multiple_of's values must be tl.constexpr"),
    ("assume-int", lambda v: tl.assume(v.n), r"tl.assume needs a boolean condition"),
    ("inline_asm-dtype", lambda v: tl.inline_asm_elementwise("", "=r", [v.i32], "int32", True, 1),
     r"dtype must be scalar dtypes"),
    ("inline_asm-args", lambda v: tl.inline_asm_elementwise("", "=r", v.i32, tl.int32, True, 1),
     r"args must be a list or tuple"),
    ("random-float", lambda v: tl.uint_to_uniform_float(v.f32), r"takes 32- or 64-bit integers, got fp32"),
    ("static_range", lambda v: tl.static_range(v.n), r"tl.static_range's end must be tl.constexpr"),
]


@pytest.mark.parametrize("name,build,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_misuse_raises_with_message(name: str, build: Callable, message: str) -> None:
    with kernel(*ARG_TYPES, debug=True) as k:
        v = values(k.args)
        with pytest.raises((SemanticError, TypeError)) as info:
            build(v)
    hint = getattr(info.value, "hint", None)  # kernellab's words after Triton's (the CompilationError shows both)
    text = f"{info.value}; {hint}" if hint else str(info.value)
    assert re.search(message, text), text


def test_errors_are_semantic_errors_not_crashes() -> None:
    """User mistakes are SemanticErrors (the frontend turns them into located CompilationErrors);
    only Python-protocol misuse (truth value, iteration) raises TypeError."""
    type_errors = {"tensor-truth", "tensor-iter"}
    for name, build, _ in ERRORS:
        with kernel(*ARG_TYPES, debug=True) as k:
            v = values(k.args)
            try:
                build(v)
            except SemanticError:
                assert name not in type_errors, name
            except TypeError:
                assert name in type_errors, name


def test_builtins_outside_a_kernel_explain_the_jit_decorator() -> None:
    with pytest.raises(RuntimeError, match="did you forget the @jit decorator"):
        tl.arange(0, 16)
