"""Calls: jit callees specialized per argument types and compile-time values, their returns,
``noinline``, callees called by builtins (``tl.reduce``), keyword and default arguments."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kernellab.language as tl
from kernellab.ir.printer import print_module
from tests.filecheck import filecheck
from tests.frontend.support import jit, line_of, module_of, run


@jit
def scale(x, factor):
    return x * factor


@jit
def specialization_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offsets)
    b = tl.load(b_ptr + offsets)
    s = tl.load(a_ptr)
    r1 = scale(a, 2)
    r2 = scale(b, 2)      # same types and constant: reuses r1's function
    r3 = scale(a, 3)      # another constant: another function
    r4 = scale(s, 2)      # a scalar: another function
    r5 = scale(x=a, factor=2)
    tl.store(out_ptr + offsets, r1 + r2 + r3 + r4 + r5)


def test_callees_are_specialized_on_types_and_constexpr_values():
    module = module_of(specialization_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32"}, BLOCK=16)
    assert list(module.functions) == ["specialization_kernel", "scale__16xf32_c2", "scale__16xf32_c3",
                                      "scale__f32_c2"]
    calls = [op.attrs["callee"] for op in module.walk() if op.name == "call"]
    assert calls == ["scale__16xf32_c2", "scale__16xf32_c2", "scale__16xf32_c3", "scale__f32_c2",
                     "scale__16xf32_c2"]
    text = print_module(module)
    filecheck(text, """
        CHECK: %r1 = call(%a) {callee = "scale__16xf32_c2"} : tile<16xf32>
        CHECK-LABEL: func @scale__16xf32_c2(%x: tile<16xf32>) -> (tile<16xf32>) {
        CHECK: [[TWO:%\\w+]] = constant {value = 2.0} : f32
        CHECK: mul(%x, {{%\\w+}}) : tile<16xf32>
        CHECK-NEXT: return(
    """)


def test_callee_ops_carry_the_callees_lines():
    module = module_of(specialization_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32"}, BLOCK=16)
    body_line = line_of(scale, "return x * factor")
    callee = module.functions["scale__16xf32_c2"]
    assert {op.loc.line for op in callee.walk() if op.name == "mul"} == {body_line}
    call_lines = [op.loc.line for op in module.kernel.walk() if op.name == "call"]
    assert call_lines[0] == line_of(specialization_kernel, "r1 = scale")


@jit(noinline=True)
def kept_out_of_line(x):
    return x + 1


@jit
def noinline_kernel(x_ptr):
    tl.store(x_ptr, kept_out_of_line(tl.load(x_ptr)))


def test_noinline_callees_are_marked():
    module = module_of(noinline_kernel, {"x_ptr": "*i32"})
    assert module.functions["kept_out_of_line__i32"].attrs == {"noinline": True}


@jit
def swap(a, b):
    return b, a


@jit
def nothing(x_ptr):
    tl.store(x_ptr, 0)


@jit
def with_defaults(x, offset=10, times: tl.constexpr = 2):
    return (x + offset) * times


@jit
def returns_kernel(x_ptr, y_ptr):
    x = tl.load(x_ptr)
    y = tl.load(y_ptr)
    p, q = swap(x, y)
    result = nothing(y_ptr)
    tl.static_assert(result is None)
    tl.store(x_ptr, p * 100 + q + with_defaults(x) + with_defaults(x, times=3))


def test_tuple_none_and_default_arguments():
    module = module_of(returns_kernel, {"x_ptr": "*i32", "y_ptr": "*i32"})
    assert [t.ir for t in module.functions["swap__i32_i32"].result_types] == ["i32", "i32"]
    assert module.functions["nothing__pi32"].result_types == []
    assert "with_defaults__i32_c10_c2" in module.functions and "with_defaults__i32_c10_c3" in module.functions
    x, y = np.array([3], np.int32), np.array([4], np.int32)
    run(module, (1,), x, y)
    assert (x[0], y[0]) == (4 * 100 + 3 + (3 + 10) * 2 + (3 + 10) * 3, 0)


@jit
def maximum_combine(a, b):
    return tl.maximum(a, b)


@jit
def argmax_combine(value_a, index_a, value_b, index_b):
    take_a = value_a >= value_b
    return tl.where(take_a, value_a, value_b), tl.where(take_a, index_a, index_b)


@jit
def reduce_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    biggest = tl.reduce(x, 0, maximum_combine)
    value, index = tl.reduce((x, offsets), 0, argmax_combine)
    tl.store(out_ptr, biggest + value + index.to(tl.float32))


def test_builtins_call_jit_combine_functions():
    module = module_of(reduce_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, BLOCK=32)
    text = print_module(module)
    filecheck(text, """
        CHECK: %biggest = reduce(%x) {axis = 0} : f32 {
        CHECK: call({{%\\w+}}, {{%\\w+}}) {callee = "maximum_combine__f32_f32"} : f32
        CHECK: reduce(%x, %offsets) {axis = 0} : f32, i32 {
        CHECK: call({{.*}}) {callee = "argmax_combine__f32_i32_f32_i32"} : f32, i32
    """)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(32).astype(np.float32)
    out = np.full(1, np.nan, np.float32)
    run(module, (1,), x, out)
    np.testing.assert_allclose(out[0], 2 * x.max() + x.argmax(), rtol=1e-6)


@jit
def helper_level2(x):
    return x + 1


@jit
def helper_level1(x):
    return helper_level2(x) * 2


@jit
def nested_calls_kernel(x_ptr):
    tl.store(x_ptr, helper_level1(tl.load(x_ptr)))


def test_callees_call_callees():
    module = module_of(nested_calls_kernel, {"x_ptr": "*i32"})
    assert list(module.functions) == ["nested_calls_kernel", "helper_level1__i32", "helper_level2__i32"]
    x = np.array([5], np.int32)
    run(module, (1,), x)
    assert x[0] == 12


@jit
def apply(fn, x):
    return fn(x)


@jit
def functions_as_values_kernel(x_ptr):
    tl.store(x_ptr, apply(helper_level2, tl.load(x_ptr)))


def test_jit_functions_passed_as_arguments_are_compile_time_values():
    module = module_of(functions_as_values_kernel, {"x_ptr": "*i32"})
    assert "apply__chelperlevel2_i32" in module.functions
    assert "helper_level2__i32" in module.functions


@jit
def annotated_callee(x, OFFSETS: tl.constexpr, N: tl.constexpr):
    return x + OFFSETS * N


@jit
def tensor_for_annotated_parameter_kernel(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, annotated_callee(tl.load(x_ptr + offsets), offsets, 3))


def test_a_tensor_may_be_passed_to_a_constexpr_annotated_callee_parameter():
    """As in Triton (its fused-attention tutorial passes ``offs_m`` this way): the tensor
    becomes a runtime argument, compile-time values specialize the callee."""
    module = module_of(tensor_for_annotated_parameter_kernel, {"x_ptr": "*i32"}, BLOCK=8)
    callee = module.functions["annotated_callee__8xi32_8xi32_c3"]
    assert [t.ir for t in callee.arg_types] == ["tile<8xi32>", "tile<8xi32>"]
    x = np.arange(8, dtype=np.int32) + 5
    expected = x + np.arange(8) * 3
    run(module, (1,), x)
    np.testing.assert_array_equal(x, expected)


@jit
def dot_pair(pair, weights):
    a, b = pair
    return a * weights[0] + b * weights[1]


@jit
def tuple_arguments_kernel(x_ptr, y_ptr, out_ptr):
    x = tl.load(x_ptr)
    y = tl.load(y_ptr)
    tl.store(out_ptr, dot_pair((x, y), (2, 3)))


def test_tuples_of_tensors_and_constants_are_flattened_into_arguments():
    module = module_of(tuple_arguments_kernel, {"x_ptr": "*i32", "y_ptr": "*i32", "out_ptr": "*i32"})
    callee = module.functions["dot_pair__Ti32_i32E_Tc2_c3E"]
    assert [a.name_hint for a in callee.args] == ["pair.0", "pair.1"]
    x, y, out = np.array([5], np.int32), np.array([7], np.int32), np.array([-7], np.int32)
    run(module, (1,), x, y, out)
    assert out[0] == 5 * 2 + 7 * 3


@jit
def reduce_with_builtin_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.reduce(x, 0, tl.minimum))


def test_builtins_passed_as_combine_functions_are_called_directly():
    module = module_of(reduce_with_builtin_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, BLOCK=16)
    assert list(module.functions) == ["reduce_with_builtin_kernel"]
    (reduce,) = [op for op in module.walk() if op.name == "reduce"]
    assert [op.name for op in reduce.regions[0].ops] == ["minimum", "yield"]


def test_the_runtime_jit_object_is_accepted():
    kl = pytest.importorskip("kernellab")
    if not hasattr(kl, "jit"):
        pytest.skip("kernellab.jit is not available")
    real = kl.jit(scale.fn)

    @kl.jit
    def real_kernel(x_ptr):
        tl.store(x_ptr, real(tl.load(x_ptr), 4))

    module = module_of(real_kernel, {"x_ptr": "*i32"})
    assert "scale__i32_c4" in module.functions


@jit
def lowest_of(dtype):
    dtype_ = dtype.value  # as in Triton, a compile-time argument is a tl.constexpr in the callee
    if dtype_.is_floating():
        value: tl.constexpr = float("-inf")
        return value
    width: tl.constexpr = dtype_.int_bitwidth
    value: tl.constexpr = -(2 ** (width - 1))
    return value


@jit
def masked_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK.value)
    x = tl.load(x_ptr + offs, mask=offs < n, other=lowest_of(x_ptr.type.element_ty))
    tl.store(out_ptr, tl.max(x, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_compile_time_arguments_are_constexprs_in_the_callee(dtype, rng):
    # FlagGems' limits helpers (get_dtype_min(dtype) reading dtype.value)
    signature = "*fp32" if dtype == np.float32 else "*i32"
    module = module_of(masked_max_kernel, {"x_ptr": signature, "out_ptr": signature, "n": "i32"}, BLOCK=16)
    x = (-rng.uniform(1, 1000, 16)).astype(dtype)
    out = np.zeros(1, dtype)
    run(module, (1,), x, out, 11)
    assert out[0] == x[:11].max()


@tl.constexpr
def accumulator_type(dtype):
    if dtype.is_fp16() or dtype.is_bf16():
        return tl.float32
    return dtype


@jit
def held_function_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    acc: tl.constexpr = accumulator_type(x_ptr.type.element_ty)
    x = tl.load(x_ptr + tl.arange(0, BLOCK)).to(acc)
    tl.store(out_ptr, tl.sum(x, 0))


def test_a_function_a_global_constexpr_holds_runs_at_compile_time(rng):
    # FlagGems decorates such helpers with @tl.constexpr (Triton calls them at compile time)
    module = module_of(held_function_kernel, {"x_ptr": "*fp16", "out_ptr": "*fp32"}, BLOCK=32)
    (reduce,) = [op for op in module.walk() if op.name == "reduce"]
    assert reduce.results[0].type.ir == "f32"
    x = rng.uniform(-4, 4, 32).astype(np.float16)
    out = np.full(1, np.nan, np.float32)
    run(module, (1,), x, out)
    np.testing.assert_allclose(out[0], x.astype(np.float32).sum(), rtol=1e-5)


def halve(n):
    return n // 2


@jit
def host_call_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # torchao's NVFP4 kernels: FP32_MAX: tl.constexpr = torch.finfo(torch.float32).max (Triton calls
    # plain Python callables at compile time when their arguments are compile-time values)
    big: tl.constexpr = np.finfo(np.float32).max
    shift: tl.constexpr = int(math.log2(BLOCK))
    half: tl.constexpr = halve(BLOCK)
    offs = tl.arange(0, half)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.minimum(x, big) / (1 << shift))


def test_a_plain_python_callable_with_compile_time_arguments_runs_at_compile_time(rng):
    x = rng.uniform(-4, 4, 16).astype(np.float32)
    x[3] = np.inf
    out = np.full(16, np.nan, np.float32)
    run(module_of(host_call_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, BLOCK=32), (1,), x, out)
    np.testing.assert_array_equal(out, np.minimum(x, np.finfo(np.float32).max) / np.float32(32))
