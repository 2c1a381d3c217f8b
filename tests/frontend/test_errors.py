# ruff: noqa: F841, F821, B007  (kernels here are wrong on purpose)
"""User errors: each raises a CompilationError that names the kernel's file and line (and the
column of the offending expression), shows the line, and says what is wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kernellab.language as tl
from kernellab.errors import CompilationError, CompileTimeAssertionFailure
from kernellab.frontend import lower
from kernellab.language.semantics import SemanticOptions
from tests.frontend.support import jit, line_of, lowering_error, module_of, run

TABLE = np.arange(4)


def plain_helper(x):
    return x + 1


def check(kernel, marker: str, *fragments: str, signature=None, **constexprs):
    """Lower ``kernel``: the error must point at the line containing ``marker`` in this file,
    name the function, and contain every fragment."""
    error = lowering_error(kernel, signature or {}, **constexprs)
    line = line_of(kernel, marker)
    text = str(error)
    assert error.loc.file == __file__ and error.loc.line == line, text
    assert f"{__file__}:{line}:" in text
    assert marker in text  # the offending source line is shown
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in:\n{text}"
    return error


# ---- names and values ----

@jit
def undefined_name_kernel(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offset, 1.0)


def test_undefined_name_lists_close_matches():
    error = check(undefined_name_kernel, "x_ptr + offset,", "name 'offset' is not defined", "`offsets`",
                  signature={"x_ptr": "*fp32"}, BLOCK=16)
    assert error.function == "undefined_name_kernel"


@jit
def array_global_kernel(x_ptr):
    tl.store(x_ptr, TABLE[0])


def test_reading_a_global_that_is_not_a_compile_time_value():
    check(array_global_kernel, "TABLE[0]", "`TABLE`", "ndarray", "Pass it as a kernel argument",
          signature={"x_ptr": "*i32"})


@jit
def one_branch_kernel(x_ptr):
    x = tl.load(x_ptr)
    if x > 0:
        y = x * 2
    tl.store(x_ptr, y)


def test_a_variable_assigned_in_only_one_branch_cannot_be_read_after():
    check(one_branch_kernel, "tl.store(x_ptr, y)", "`y` is assigned only in the `if` branch",
          signature={"x_ptr": "*i32"})


@jit
def branch_types_kernel(x_ptr):
    x = tl.load(x_ptr)
    if x > 0:
        y = x * 2
    else:
        y = x.to(tl.float32)
    tl.store(x_ptr, y)


def test_branches_must_agree_on_types():
    check(branch_types_kernel, "if x > 0:", "Mismatched type for y between then block (i32) and else block (f32)",
          signature={"x_ptr": "*i32"})


@jit
def first_assigned_in_loop_kernel(x_ptr, n):
    for i in range(n):
        last = i
    tl.store(x_ptr, last)


def test_a_variable_first_assigned_in_a_loop_cannot_be_read_after_it():
    check(first_assigned_in_loop_kernel, "tl.store(x_ptr, last)", "`last` is first assigned inside the loop",
          signature={"x_ptr": "*i32", "n": "i32"})


@jit
def loop_variable_after_loop_kernel(x_ptr, n):
    for i in range(n):
        pass
    tl.store(x_ptr, i)


def test_the_loop_variable_is_not_available_after_a_range_loop():
    check(loop_variable_after_loop_kernel, "tl.store(x_ptr, i)", "the loop variable `i`",
          signature={"x_ptr": "*i32", "n": "i32"})


# ---- language builtins ----

@jit
def runtime_arange_kernel(x_ptr, n):
    offsets = tl.arange(0, n)
    tl.store(x_ptr + offsets, 1.0)


def test_arange_bounds_must_be_constexpr():
    check(runtime_arange_kernel, "tl.arange(0, n)", "constexpr", signature={"x_ptr": "*fp32", "n": "i32"})


@jit
def odd_arange_kernel(x_ptr):
    offsets = tl.arange(0, 12)
    tl.store(x_ptr + offsets, 1.0)


def test_arange_length_must_be_a_power_of_two():
    """As Triton's: the language function's error is the cause, in Triton's words; kernellab's
    explanation follows them in the CompilationError's message."""
    error = check(odd_arange_kernel, "tl.arange(0, 12)", "arange's range must be a power of 2; end - start is 12",
                  signature={"x_ptr": "*fp32"})
    assert str(error.__cause__) == "arange's range must be a power of 2"


@jit
def odd_full_kernel(x_ptr):
    tl.store(x_ptr + tl.arange(0, 32), tl.full((32, 33), 0, tl.int64).sum(1))


def test_a_shape_element_must_be_a_power_of_two():
    error = check(odd_full_kernel, "tl.full((32, 33)", "full's shape has 33 at dim 1", signature={"x_ptr": "*i64"})
    assert str(error.__cause__) == "Shape element 1 must be a power of 2"


@jit
def not_a_tuple_kernel(x_ptr):
    flag = not (0, 0)


def test_not_of_a_tuple_is_an_error():
    """Triton cannot take ``not`` of a tuple either; the error stands alone (no cause)."""
    error = check(not_a_tuple_kernel, "not (0, 0)", "`not` of a tuple is not supported", signature={"x_ptr": "*i32"})
    assert error.__cause__ is None and error.position == (2, 11)


@jit
def shape_mismatch_kernel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(x_ptr + a, a + b)


def test_binary_op_shape_mismatch():
    check(shape_mismatch_kernel, "a + b", "16", "32", signature={"x_ptr": "*i32"})


@jit
def store_non_pointer_kernel(x_ptr, n):
    tl.store(n, 1)


def test_store_through_a_non_pointer():
    check(store_non_pointer_kernel, "tl.store(n, 1)", "pointer", signature={"x_ptr": "*i32", "n": "i32"})


@jit
def static_assert_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")
    tl.store(x_ptr, BLOCK)


def test_static_assert_failure():
    error = check(static_assert_kernel, "tl.static_assert(", "BLOCK must be a multiple of 32",
                  signature={"x_ptr": "*i32"}, BLOCK=48)
    assert isinstance(error, CompileTimeAssertionFailure) and error.__cause__ is None  # as Triton's


# ---- calls ----

@jit
def plain_call_kernel(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, plain_helper(x))


def test_calling_a_plain_python_function():
    check(plain_call_kernel, "plain_helper(x)",
          "calling a plain Python function `plain_helper` inside a kernel is not allowed",
          "@kernellab.jit", "constexpr_function", signature={"x_ptr": "*i32"})


@jit
def numpy_exp_kernel(x_ptr):
    tl.store(x_ptr, np.exp(tl.load(x_ptr)))


@jit
def math_sqrt_kernel(x_ptr):
    tl.store(x_ptr, math.sqrt(tl.load(x_ptr)))


@jit
def numpy_cumsum_kernel(x_ptr):
    tl.store(x_ptr, np.cumsum(tl.load(x_ptr)))


@pytest.mark.parametrize("kernel, marker, name", [(numpy_exp_kernel, "np.exp(", "tl.exp"),
                                                  (math_sqrt_kernel, "math.sqrt(", "tl.sqrt"),
                                                  (numpy_cumsum_kernel, "np.cumsum(", "tl.cumsum")])
def test_calling_numpy_or_math_names_the_language_function(kernel, marker, name):
    """A numpy or math function in a kernel (a newcomer's first reflex) is named with the
    language's function of the same name, not told to be decorated with @jit."""
    error = check(kernel, marker, f"use `{name}`", signature={"x_ptr": "*fp32"})
    assert "@kernellab.jit" not in str(error)


@jit
def python_sum_kernel(x_ptr):
    tl.store(x_ptr, sum((1, 2)))


def test_calling_a_python_builtin_kernels_do_not_allow():
    check(python_sum_kernel, "sum((1, 2))", "Python's builtin `sum`", "min", signature={"x_ptr": "*i32"})


@jit
def two_args(a, b):
    return a + b


@jit
def wrong_arity_kernel(x_ptr):
    tl.store(x_ptr, two_args(1))


def test_wrong_number_of_arguments_to_a_jit_callee():
    check(wrong_arity_kernel, "two_args(1)", "wrong arguments in the call to `two_args`", "missing",
          "takes (a, b)", signature={"x_ptr": "*i32"})


@jit
def bad_keyword_kernel(x_ptr):
    tl.store(x_ptr, two_args(1, 2, c=3))


def test_unknown_keyword_to_a_jit_callee():
    check(bad_keyword_kernel, "two_args(1, 2, c=3)", "unexpected keyword argument 'c'", signature={"x_ptr": "*i32"})


@jit
def failing_callee(x):
    y = x + undefined_thing
    return y


@jit
def calls_failing_kernel(x_ptr):
    tl.store(x_ptr, failing_callee(tl.load(x_ptr)))


def callee_error(kernel, call: str, callee, marker: str, *fragments: str, signature=None):
    """As Triton reports an error inside a jit callee: at the call (repeating the message), with
    the callee's error, at its line, as ``__cause__``."""
    error = check(kernel, call, f"in the call to `{callee.fn.__name__}`: ", *fragments, signature=signature)
    inner = error.__cause__
    assert isinstance(inner, CompilationError) and inner.function == callee.fn.__name__
    assert inner.loc.line == line_of(callee, marker) and marker in str(inner)
    for fragment in fragments:
        assert fragment in inner.message
    return error


def test_an_error_inside_a_callee_is_reported_at_the_call_caused_by_the_callee_error():
    error = callee_error(calls_failing_kernel, "failing_callee(tl.load", failing_callee, "x + undefined_thing",
                         "name 'undefined_thing' is not defined", signature={"x_ptr": "*i32"})
    assert error.function == "calls_failing_kernel" and error.position == (2, 20)


@jit
def recursive(x):
    return recursive(x)


@jit
def recursion_kernel(x_ptr):
    tl.store(x_ptr, recursive(tl.load(x_ptr)))


def test_recursion_is_reported():
    callee_error(recursion_kernel, "recursive(tl.load", recursive, "return recursive(x)", "calls itself",
                 signature={"x_ptr": "*i32"})


@jit
def mixed_returns(x):
    if x > 0:
        return x
    return x.to(tl.float32)


@jit
def mixed_returns_kernel(x_ptr):
    tl.store(x_ptr, mixed_returns(tl.load(x_ptr)))


def test_a_callee_returning_different_types():
    """At the return that disagrees with the first one (Triton's message says where: at 4:4 of
    the function counted from its def)."""
    error = callee_error(mixed_returns_kernel, "mixed_returns(tl.load", mixed_returns, "return x.to(tl.float32)",
                         "Inconsistent return types: i32 and f32", signature={"x_ptr": "*i32"})
    assert error.position == (2, 20) and error.__cause__.position == (4, 4)
    assert "in mixed_returns at 4:4:" in str(error.__cause__)


@jit
def returns_value_kernel(x_ptr):
    return tl.load(x_ptr)


def test_a_kernel_cannot_return_a_value():
    check(returns_value_kernel, "return tl.load(x_ptr)", "a kernel cannot return a value", signature={"x_ptr": "*i32"})


# ---- control flow ----

@jit
def tile_condition_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    if x > 0:
        x = x + 1
    tl.store(x_ptr + tl.arange(0, BLOCK), x)


def test_a_tile_condition_in_if_suggests_where():
    check(tile_condition_kernel, "if x > 0:", "must be a scalar", "tile<16xi1>", "tl.where",
          signature={"x_ptr": "*i32"}, BLOCK=16)


@jit
def tile_ternary_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), x if x > 0 else 0)


def test_a_tile_condition_in_a_conditional_expression():
    check(tile_ternary_kernel, "x if x > 0 else 0", "conditional expression", "tl.where",
          signature={"x_ptr": "*i32"}, BLOCK=16)


@jit
def loop_type_change_kernel(x_ptr, n):
    acc = tl.zeros([16], dtype=tl.int32)
    for i in range(n):
        acc += tl.load(x_ptr + tl.arange(0, 16)).to(tl.float32)
    tl.store(x_ptr + tl.arange(0, 16), acc)


def test_a_loop_carried_variable_must_keep_its_type():
    check(loop_type_change_kernel, "for i in range(n):",
          "loop-carried variable `acc` changes type from tile<16xi32> to tile<16xf32> inside the loop",
          signature={"x_ptr": "*i32", "n": "i32"})


@jit
def while_type_change_kernel(x_ptr):
    value = tl.load(x_ptr)
    while value < 10:
        value = value * 1.5
    tl.store(x_ptr, value)


def test_a_while_carried_variable_must_keep_its_type():
    check(while_type_change_kernel, "while value < 10:", "`value` changes type from i32 to f32",
          signature={"x_ptr": "*i32"})


@jit
def return_in_loop_kernel(x_ptr, n):
    for i in range(n):
        if i > 3:
            return  # from the loop
    tl.store(x_ptr, 1)


def test_return_inside_a_loop():
    check(return_in_loop_kernel, "return  # from the loop",
          "Cannot have `return` statements inside `while` or `for` statements",
          signature={"x_ptr": "*i32", "n": "i32"})


@jit
def return_in_while_kernel(x_ptr, n):
    i = 0
    while i < n:
        if i == 5:
            return  # from the while
        i += 1
    tl.store(x_ptr, i)


def test_return_inside_a_while_loop_says_tritons_words():
    check(return_in_while_kernel, "return  # from the while",
          "Cannot have `return` statements inside `while` or `for` statements in triton",
          signature={"x_ptr": "*i32", "n": "i32"})


@jit
def extremum_of_constants(x_ptr, A: tl.constexpr, B: tl.constexpr):
    tl.store(x_ptr, min(A, B) + max(A, B))  # extremum of constants


@pytest.mark.parametrize("a, b", [(1.0, float("nan")), (float("nan"), 1.0), (1.0, -0.0), (-0.0, 2)])
def test_min_max_of_constants_refuse_nan_and_negative_zero(a, b):
    """As Triton: Python's min/max would give an answer that depends on the order."""
    check(extremum_of_constants, "# extremum of constants", "min() of compile-time values cannot take",
          signature={"x_ptr": "*fp32"}, A=a, B=b)


def test_min_max_of_ordinary_constants_fold():
    module = module_of(extremum_of_constants, {"x_ptr": "*fp32"}, A=1.5, B=0.0)
    assert [op.attrs["value"] for op in module.walk() if op.name == "constant"] == [1.5]


@jit
def break_kernel(x_ptr, n):
    for i in range(n):
        break


def test_break():
    check(break_kernel, "break", "`break` is not supported", signature={"x_ptr": "*i32", "n": "i32"})


@jit
def continue_kernel(x_ptr, n):
    for i in range(n):
        continue


def test_continue():
    check(continue_kernel, "continue", "`continue` is not supported", signature={"x_ptr": "*i32", "n": "i32"})


@jit
def infinite_while_kernel(x_ptr):
    while True:
        tl.store(x_ptr, 1)


def test_a_while_that_cannot_end():
    check(infinite_while_kernel, "while True:", "always true", signature={"x_ptr": "*i32"})


@jit
def zero_step_kernel(x_ptr, n):
    for i in range(0, n, 0):
        tl.store(x_ptr, i)


def test_a_zero_range_step():
    check(zero_step_kernel, "for i in range(0, n, 0):", "step must not be zero",
          signature={"x_ptr": "*i32", "n": "i32"})


@jit
def float_bound_kernel(x_ptr, x):
    for i in range(x):
        tl.store(x_ptr, i)


def test_a_float_range_bound():
    check(float_bound_kernel, "for i in range(x):", "range bounds must be integer scalars, got f32",
          signature={"x_ptr": "*i32", "x": "fp32"})


@jit
def runtime_static_range_kernel(x_ptr, n):
    for i in tl.static_range(n):
        tl.store(x_ptr, i)


def test_static_range_needs_constexpr_bounds():
    check(runtime_static_range_kernel, "tl.static_range(n)", "compile-time", signature={"x_ptr": "*i32", "n": "i32"})


@jit
def iterate_tensor_kernel(x_ptr):
    for value in tl.load(x_ptr + tl.arange(0, 4)):
        tl.store(x_ptr, value)


def test_iterating_over_a_tensor():
    check(iterate_tensor_kernel, "for value in tl.load", "must iterate over range(...)", signature={"x_ptr": "*i32"})


@jit
def range_outside_for_kernel(x_ptr):
    r = range(4)
    tl.store(x_ptr, 0)


def test_range_outside_a_for_loop():
    check(range_outside_for_kernel, "range(4)", "only be used as the iterable of a `for` loop",
          signature={"x_ptr": "*i32"})


# ---- unsupported syntax ----

@jit
def with_kernel(x_ptr):
    with open("f") as f:
        pass


@jit
def try_kernel(x_ptr):
    try:
        tl.store(x_ptr, 1)
    except ValueError:
        pass


@jit
def lambda_kernel(x_ptr):
    f = lambda v: v + 1  # noqa: E731
    tl.store(x_ptr, 1)


@jit
def nested_def_kernel(x_ptr):
    def inner(v):
        return v
    tl.store(x_ptr, 1)


@jit
def comprehension_kernel(x_ptr):
    values = {i for i in range(3)}
    tl.store(x_ptr, 1)


@jit
def del_kernel(x_ptr):
    y = 1
    del y


@jit
def global_kernel(x_ptr):
    global TABLE
    tl.store(x_ptr, 1)


@pytest.mark.parametrize("kernel, marker, what", [
    (with_kernel, "with open", "`with` is not supported"),
    (try_kernel, "try:", "`try` is not supported"),
    (lambda_kernel, "lambda v", "`lambda` is not supported"),
    (nested_def_kernel, "def inner", "a nested `def` is not supported"),
    (comprehension_kernel, "{i for i", "a set comprehension is not supported"),
    (del_kernel, "del y", "`del` is not supported"),
    (global_kernel, "global TABLE", "`global` is not supported"),
])
def test_unsupported_syntax_is_named(kernel, marker, what):
    check(kernel, marker, what, signature={"x_ptr": "*i32"})


@jit
def item_assignment_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    x[0] = 1


def test_assigning_to_an_element():
    check(item_assignment_kernel, "x[0] = 1", "assigning to an element", "tl.where", signature={"x_ptr": "*i32"})


@jit
def unpack_kernel(x_ptr):
    a, b = (1, 2, 3)


def test_unpacking_the_wrong_number_of_values():
    check(unpack_kernel, "a, b = (1, 2, 3)", "cannot unpack 3 values into 2 names", signature={"x_ptr": "*i32"})


@jit
def fstring_tensor_kernel(x_ptr):
    x = tl.load(x_ptr)
    tl.static_print(f"x = {x}")


def test_formatting_a_tensor_in_an_fstring():
    check(fstring_tensor_kernel, 'f"x = {x}"', "f-strings in kernels can only format compile-time values",
          signature={"x_ptr": "*i32"})


@jit
def constexpr_annotation_kernel(x_ptr, n):
    x = tl.load(x_ptr)
    y: tl.constexpr = x * n  # as in Triton, a tensor under the annotation stays the tensor
    tl.store(x_ptr, y + 1)


def test_a_constexpr_annotated_variable_may_hold_a_tensor(rng):
    module = module_of(constexpr_annotation_kernel, {"x_ptr": "*i32", "n": "i32"})
    x = rng.integers(-100, 100, 1).astype(np.int32)
    expected = x * 7 + 1
    run(module, (1,), x, 7)
    np.testing.assert_array_equal(x, expected)


# ---- the error object ----

def test_the_error_shows_the_line_with_a_caret_under_the_expression():
    error = lowering_error(runtime_arange_kernel, {"x_ptr": "*fp32", "n": "i32"})
    lines = str(error).splitlines()
    assert lines[1].strip() == "offsets = tl.arange(0, n)"
    assert lines[2].index("^") == lines[1].index("tl.arange")
    assert isinstance(error, CompilationError) and error.function == "runtime_arange_kernel"


# ---- lower()'s own arguments ----

@jit
def params_kernel(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr, n + BLOCK)


@pytest.mark.parametrize("signature, constexprs, arg_attrs, fragment", [
    ({"x_ptr": "*i32"}, {"BLOCK": 4}, {}, "['n'] have no type in signature and no value in constexprs"),
    ({"x_ptr": "*i32", "n": "i32", "m": "i32"}, {"BLOCK": 4}, {}, "has no parameter(s) ['m']"),
    ({"x_ptr": "*i32", "n": "i32", "BLOCK": "i32"}, {}, {}, "`BLOCK` is annotated tl.constexpr"),
    ({"x_ptr": "*i32", "n": "i32"}, {"n": 3, "BLOCK": 4}, {}, "both a type in signature and a value"),
    ({"x_ptr": "*i32", "n": "i32"}, {"BLOCK": 4}, {"BLOCK": {"divisibility": 16}}, "not runtime parameters"),
    ({"x_ptr": "*i33", "n": "i32"}, {"BLOCK": 4}, {}, "unknown signature type"),
])
def test_inconsistent_arguments_to_lower_are_type_errors(signature, constexprs, arg_attrs, fragment):
    with pytest.raises((TypeError, ValueError)) as info:
        lower(params_kernel, signature, constexprs, arg_attrs, None)
    assert fragment in str(info.value)


def test_lower_needs_a_jit_object():
    with pytest.raises(TypeError, match="needs a jit function"):
        lower(plain_helper, {}, {}, {}, None)


@jit
def augmented_subscript_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    x[0] += 1


def test_augmented_assignment_to_an_element():
    check(augmented_subscript_kernel, "x[0] += 1", "augmented assignment to `x[0]`", signature={"x_ptr": "*i32"})


def test_columns_account_for_the_indentation_of_nested_kernels():
    @jit
    def nested_kernel(x_ptr, n):
        offsets = tl.arange(0, n)
        tl.store(x_ptr + offsets, 1)

    error = lowering_error(nested_kernel, {"x_ptr": "*i32", "n": "i32"})
    source_line = open(__file__).read().splitlines()[error.loc.line - 1]
    assert source_line[error.loc.col:].startswith("tl.arange(0, n)")
    lines = str(error).splitlines()
    assert lines[2].index("^") == lines[1].index("tl.arange")


@jit
def shifted_float_kernel(x_ptr):
    value = tl.load(x_ptr)
    tl.store(x_ptr, value + (1.0 << 1))


def test_the_message_has_tritons_position_and_comes_last():
    """The header names the file line and, as Triton's messages do, the line and column counted
    from the ``def`` (``at 3:29``); the source line and caret follow, the message is last."""
    error = check(shifted_float_kernel, "(1.0 << 1)", "unsupported operand type(s) for <<",
                  signature={"x_ptr": "*fp32"})
    header, source, caret, message = str(error).splitlines()
    assert header.endswith(": in shifted_float_kernel at 3:29:") and error.position == (3, 29)
    assert source.strip() == "tl.store(x_ptr, value + (1.0 << 1))" and caret.strip() == "^"
    assert source.index("1.0") == caret.index("^") and message.startswith("unsupported operand")


@jit
def int_condition_kernel(x_ptr):
    flags = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(x_ptr + tl.arange(0, 4), tl.where(flags, 1, 2))


def test_a_non_boolean_where_condition_warns_as_triton_does():
    with pytest.warns(UserWarning, match="tl.where with a non-boolean condition is deprecated.*int32"):
        lower(int_condition_kernel, {"x_ptr": "*i32"}, {}, {}, SemanticOptions())
