"""Lowering of straight-line kernels: the kernel function, arguments, operators, constexpr
folding, attributes, subscripts, locations and name hints."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab.language as tl
from kernellab.frontend import lower
from kernellab.ir import types as T
from kernellab.ir.printer import print_module
from tests.filecheck import filecheck
from tests.frontend.support import F32_PTR, jit, line_of, module_of, ops_at_line, poisoned, run

SCALE = 3
FACTOR = tl.constexpr(4)
NAMES = ("a", "b")


@jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


ADD_SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


def test_kernel_function_signature_attrs_and_names():
    module = module_of(add_kernel, ADD_SIGNATURE, arg_attrs={"x_ptr": {"divisibility": 16}}, BLOCK=128)
    text = print_module(module)
    filecheck(text, """
        CHECK: func @add_kernel(%x_ptr: ptr<f32> {divisibility = 16}, %y_ptr: ptr<f32>, %out_ptr: ptr<f32>, %n: i32)
        CHECK-SAME: attributes {kernel = true}
        CHECK: %pid = program_id {axis = 0} : i32
        CHECK: arange {start = 0, end = 128} : tile<128xi32>
        CHECK: %offsets = add
        CHECK: %mask = cmp(%offsets, {{%\\w+}}) {predicate = "lt"} : tile<128xi1>
        CHECK: %x = load({{%\\w+}}, mask=%mask) : tile<128xf32>
        CHECK: %y = load
        CHECK: [[SUM:%\\w+]] = add(%x, %y) : tile<128xf32>
        CHECK: store({{%\\w+}}, [[SUM]], mask=%mask)
        CHECK-NEXT: return
    """)
    assert list(module.functions) == ["add_kernel"]
    assert module.kernel.attrs == {"kernel": True}


def test_add_kernel_runs_in_the_interpreter():
    rng = np.random.default_rng(0)
    n = 300
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = poisoned(n)
    run(module_of(add_kernel, ADD_SIGNATURE, BLOCK=128), (3,), x, y, out, n)
    np.testing.assert_allclose(out, x + y, rtol=1e-6)


def test_signature_accepts_types_and_strings():
    text = print_module(module_of(add_kernel, {"x_ptr": F32_PTR, "y_ptr": "*fp32", "out_ptr": F32_PTR, "n": T.i32},
                                  BLOCK=16))
    assert "%x_ptr: ptr<f32>, %y_ptr: ptr<f32>" in text


def test_every_op_carries_the_line_it_came_from():
    module = module_of(add_kernel, ADD_SIGNATURE, BLOCK=64)
    assert ops_at_line(module, line_of(add_kernel, "pid = tl.program_id")) == ["program_id"]
    assert "arange" in ops_at_line(module, line_of(add_kernel, "offsets = "))
    assert ops_at_line(module, line_of(add_kernel, "x = tl.load")).count("load") == 1
    assert "store" in ops_at_line(module, line_of(add_kernel, "tl.store"))
    files = {op.loc.file for op in module.walk()}
    assert files == {__file__}
    assert all(op.loc.line > 0 for op in module.walk())


def test_columns_point_at_the_expression():
    module = module_of(add_kernel, ADD_SIGNATURE, BLOCK=64)
    line = line_of(add_kernel, "pid = tl.program_id")
    (op,) = [op for op in module.walk() if op.name == "program_id"]
    source = open(__file__).read().splitlines()[line - 1]
    assert source[op.loc.col:].startswith("tl.program_id(0)")


@jit
def folding_kernel(out_ptr, BLOCK: tl.constexpr, N: tl.constexpr):
    HALF = BLOCK // 2
    QUARTER: tl.constexpr = HALF // 2
    if HALF * 2 == BLOCK and QUARTER > 1 and not N < 0:
        value = HALF + QUARTER + SCALE * FACTOR - N % 3
    else:
        value = -1
    tl.store(out_ptr, value)


def test_constexpr_arithmetic_folds_in_python():
    text = print_module(module_of(folding_kernel, {"out_ptr": "*i32"}, BLOCK=64, N=7))
    # 32 + 16 + 3 * 4 - 7 % 3 = 59; no arithmetic op survives, only the constant
    filecheck(text, """
        CHECK: constant {value = 59} : i32
        CHECK-NOT: add
        CHECK: store
    """)
    assert "cmp" not in text and "if" not in text


def test_constexpr_if_lowers_only_the_branch_taken():
    text = print_module(module_of(folding_kernel, {"out_ptr": "*i32"}, BLOCK=6, N=7))
    assert "constant {value = -1} : i32" in text
    assert "value = 59" not in text  # the branch not taken (not the file path, which may hold "59")


@jit
def operators_kernel(a_ptr, b_ptr, out_ptr, K: tl.constexpr):
    a = tl.load(a_ptr)
    b = tl.load(b_ptr)
    r = (a + b) * (a - b) / 2.0
    i = K // 3 - K % 3 + (K << 1) - (K >> 1) + (K & 1) + (K | 2) + (K ^ 5)
    c = -r + i
    t = (a < b) & (b <= 2.0) | (a == b) ^ (a != b)
    u = (a > 0.0) and (b >= 1.0) or not (a < b)
    tl.store(out_ptr, tl.where(t | u, c, a))


def test_operators_on_tensors_and_constexprs():
    # `i`, a number bound to a name, is Triton's 0-d i32 tensor: cast to f32 where it meets `r`
    text = print_module(module_of(operators_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32"}, K=10))
    k = 10
    folded = k // 3 - k % 3 + (k << 1) - (k >> 1) + (k & 1) + (k | 2) + (k ^ 5)
    filecheck(text, f"""
        CHECK: [[S:%\\w+]] = add(%a, %b) : f32
        CHECK: [[D:%\\w+]] = sub(%a, %b) : f32
        CHECK: [[P:%\\w+]] = mul([[S]], [[D]]) : f32
        CHECK: %r = div([[P]], {{{{%\\w+}}}}) : f32
        CHECK: [[N:%\\w+]] = neg(%r) : f32
        CHECK-NEXT: [[I:%\\w+]] = constant {{value = {folded}}} : i32
        CHECK-NEXT: [[F:%\\w+]] = cast([[I]]) : f32
        CHECK-NEXT: %c = add([[N]], [[F]])
        CHECK: cmp(%a, %b) {{predicate = "lt"}}
        CHECK: cmp(%b, {{{{%\\w+}}}}) {{predicate = "le"}}
        CHECK: and
        CHECK: cmp(%a, %b) {{predicate = "eq"}}
        CHECK: cmp(%a, %b) {{predicate = "ne"}}
        CHECK: xor
        CHECK: %t = or
        CHECK: select
    """)


@jit
def chained_compare_kernel(x_ptr, out_ptr, LO: tl.constexpr, HI: tl.constexpr):
    x = tl.load(x_ptr)
    inside = LO < x < HI
    static = 0 < LO < HI < 100
    tl.store(out_ptr, tl.where(inside, 1, 0) + static)


def test_chained_comparisons():
    text = print_module(module_of(chained_compare_kernel, {"x_ptr": "*i32", "out_ptr": "*i32"}, LO=1, HI=9))
    filecheck(text, """
        CHECK: [[A:%\\w+]] = cmp({{%\\w+}}, %x) {predicate = "lt"}
        CHECK: [[B:%\\w+]] = cmp(%x, {{%\\w+}}) {predicate = "lt"}
        CHECK: %inside = and([[A]], [[B]])
    """)
    assert text.count("cmp(") == 2  # the compile-time chain folds away


def test_chained_comparison_runs():
    x_values = [0, 1, 5, 9, 12]
    results = []
    for value in x_values:
        x, out = np.array([value], np.int32), np.array([-7], np.int32)
        run(module_of(chained_compare_kernel, {"x_ptr": "*i32", "out_ptr": "*i32"}, LO=1, HI=9), (1,), x, out)
        results.append(int(out[0]))
    assert results == [1 + (1 < v < 9) for v in x_values]


@jit
def attributes_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, DTYPE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :])
    rows = x.shape[0]
    y = x.to(DTYPE)
    tl.static_assert(y.dtype == DTYPE and len(x.shape) == 2 and rows == BLOCK)
    tl.static_assert(DTYPE.primitive_bitwidth == 16, f"expected 16 bits, got {DTYPE.primitive_bitwidth}")
    z = y.T
    tl.store(out_ptr + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :], z)


def test_attributes_shapes_dtypes_subscripts():
    text = print_module(module_of(attributes_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp16"}, BLOCK=8,
                                  DTYPE=tl.float16))
    filecheck(text, """
        CHECK: %x = load({{%\\w+}}) : tile<8x8xf32>
        CHECK: %y = cast(%x) : tile<8x8xf16>
        CHECK: %z = trans(%y) {order = [1, 0]} : tile<8x8xf16>
        CHECK: store
    """)


@jit
def tuples_kernel(out_ptr, SHAPE: tl.constexpr):
    pair = (1, 2)
    first, second = pair
    a, (b, c) = 3, (4, 5)
    both = pair + (a,)
    total = first + second + a + b + c + both[2] + SHAPE[1] + len(both) + both[-1]
    tl.store(out_ptr, total)


def test_tuples_unpacking_indexing_and_len():
    text = print_module(module_of(tuples_kernel, {"out_ptr": "*i32"}, SHAPE=(7, 11)))
    assert f"constant {{value = {1 + 2 + 3 + 4 + 5 + 3 + 11 + 3 + 3}}} : i32" in text


@jit
def builtins_kernel(x_ptr, y_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr):
    x = tl.load(x_ptr)
    y = tl.load(y_ptr)
    small = min(A, B, 100)
    big = max(A, B)
    lo = min(x, y, 0.5)
    hi = max(x, y)
    n = int(2.9) + float(small) + bool(big) + abs(-3) + len((x, y))
    kinds = isinstance(x, tl.tensor) + isinstance(A, tl.constexpr) + isinstance(A, int) + hasattr(x, "dtype")
    width = x.dtype.primitive_bitwidth
    for i, (p, q) in enumerate(zip((1, 2), (10, 20))):
        n += i * (p + q)
    n += sum_pair(tuple((A, B)))
    tl.store(out_ptr, lo + hi + n + kinds + width + big + small)


@tl.constexpr_function
def sum_pair(pair):
    return pair[0] + pair[1]


def test_python_builtins_at_compile_time_and_on_tensors():
    module = module_of(builtins_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"}, A=3, B=9)
    text = print_module(module)
    # min/max of tensors fold pairwise into minimum/maximum ops
    filecheck(text, """
        CHECK: [[M:%\\w+]] = minimum(%x, %y)
        CHECK: %lo = minimum([[M]], {{%\\w+}})
        CHECK: %hi = maximum(%x, %y)
    """)
    rng = np.random.default_rng(1)
    x, y = rng.random(1).astype(np.float32), rng.random(1).astype(np.float32)
    out = poisoned(1)
    run(module, (1,), x, y, out)
    n = 2 + 3.0 + 1 + 3 + 2 + (0 * 11 + 1 * 22) + 12
    expected = min(x[0], y[0], 0.5) + max(x[0], y[0]) + n + 4 + 32 + 9 + 3
    np.testing.assert_allclose(out[0], expected, rtol=1e-6)


@jit
def globals_kernel(out_ptr):
    value = SCALE * FACTOR
    names = NAMES
    tl.store(out_ptr, value + len(names))


def test_globals_plain_numbers_constexprs_and_tuples_are_constants():
    text = print_module(module_of(globals_kernel, {"out_ptr": "*i32"}))
    assert "constant {value = 14} : i32" in text


def test_closure_variables_are_read():
    offset = 5

    @jit
    def closure_kernel(out_ptr):
        tl.store(out_ptr, offset + 1)

    assert "constant {value = 6} : i32" in print_module(module_of(closure_kernel, {"out_ptr": "*i32"}))


@jit
def specialized_kernel(x_ptr, stride, n):
    tl.store(x_ptr + stride, n)


def test_a_parameter_in_constexprs_without_annotation_is_a_constant():
    module = module_of(specialized_kernel, {"x_ptr": "*i32", "n": "i32"}, stride=1)
    text = print_module(module)
    assert "func @specialized_kernel(%x_ptr: ptr<i32>, %n: i32)" in text
    assert "constant {value = 1} : i32" in text


@jit
def fstring_kernel(out_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK > 0, f"BLOCK={BLOCK:04d} {BLOCK!r}")
    tl.store(out_ptr, BLOCK)


def test_fstrings_format_compile_time_values():
    assert "constant {value = 32}" in print_module(module_of(fstring_kernel, {"out_ptr": "*i32"}, BLOCK=32))


@jit
def docstring_kernel(out_ptr):
    """A docstring is not code."""
    "a stray string is not code either"
    pass
    tl.store(out_ptr, 1)


def test_docstrings_and_pass_produce_nothing():
    fn = module_of(docstring_kernel, {"out_ptr": "*i32"}).kernel
    assert [op.name for op in fn.walk()] == ["constant", "store", "return"]


@jit
def hints_kernel(x_ptr, n):
    value = tl.load(x_ptr)
    same = value
    doubled = same * 2
    tl.store(x_ptr, doubled + n)


def test_name_hints_come_from_the_first_variable():
    text = print_module(module_of(hints_kernel, {"x_ptr": "*i32", "n": "i32"}))
    assert "%value = load" in text
    assert "%doubled = mul(%value" in text
    assert "%same" not in text


def test_print_becomes_device_print():
    @jit
    def print_kernel(x_ptr):
        x = tl.load(x_ptr)
        print("x is", x)

    text = print_module(module_of(print_kernel, {"x_ptr": "*fp32"}))
    assert "print(%x)" in text and "x is" in text


def test_assert_becomes_device_assert_in_debug_mode():
    @jit
    def assert_kernel(x_ptr):
        x = tl.load(x_ptr)
        assert x > 0, "x must be positive"

    text = print_module(module_of(assert_kernel, {"x_ptr": "*i32"}, debug=True))
    filecheck(text, """
        CHECK: [[C:%\\w+]] = cmp(%x, {{%\\w+}}) {predicate = "gt"}
        CHECK: assert([[C]]) {message = "x must be positive"}
    """)


@pytest.mark.parametrize("annotation", ["tl.constexpr", "constexpr"])
def test_string_annotations_mark_constexpr_parameters(annotation):
    def kernel(out_ptr, BLOCK):
        tl.store(out_ptr, BLOCK)

    kernel.__annotations__["BLOCK"] = annotation
    with pytest.raises(TypeError, match="annotated tl.constexpr"):
        lower(jit(kernel), {"out_ptr": "*i32", "BLOCK": "i32"}, {}, {}, None)


@jit
def dtype_methods_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    if x.dtype.is_floating() and not tl.int32.is_floating():
        y = x * 2
    else:
        y = x
    tl.store(out_ptr, y)


def test_methods_of_dtypes_run_at_compile_time():
    floating = print_module(module_of(dtype_methods_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}))
    integer = print_module(module_of(dtype_methods_kernel, {"x_ptr": "*i32", "out_ptr": "*i32"}))
    assert "mul(%x" in floating and "mul" not in integer
    assert "if(" not in floating + integer
