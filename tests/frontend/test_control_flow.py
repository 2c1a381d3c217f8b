"""Structured control flow: ``if`` yields, loop-carried variables of ``for``/``while``,
``tl.range`` options, static unrolling, early returns; each checked on the IR and, where it
matters, by running the kernel in the interpreter."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab.language as tl
from kernellab.ir.printer import print_module
from tests.filecheck import filecheck
from tests.frontend.support import jit, line_of, module_of, run

I32_IO = {"x_ptr": "*i32", "out_ptr": "*i32"}


def run_scalar(kernel, x: int, signature=I32_IO, **constexprs) -> int:
    x_buf, out = np.array([x], np.int32), np.array([-7], np.int32)
    run(module_of(kernel, signature, **constexprs), (1,), x_buf, out)
    return int(out[0])


# ---- if ----

@jit
def if_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    a = x + 1
    unused = 0  # noqa: F841 - changed in a branch, never read: not yielded
    if x > 10:
        a = a * 2
        b = 100
        only_then = 5  # noqa: F841 - assigned in one branch, never read: not yielded
        unused = 1  # noqa: F841
    else:
        b = x
    tl.store(out_ptr, a + b)


def test_if_yields_the_variables_assigned_in_a_branch_and_read_after():
    text = print_module(module_of(if_kernel, I32_IO))
    filecheck(text, """
        CHECK: %a = add(%x, {{%\\w+}})
        CHECK: [[C:%\\w+]] = cmp(%x, {{%\\w+}}) {predicate = "gt"}
        CHECK: %a.{{\\d}}, %b = if([[C]]) : i32, i32 {
        CHECK: [[A2:%\\w+(\\.\\d)?]] = mul(%a, {{%\\w+}})
        CHECK: [[HUNDRED:%\\w+]] = constant {value = 100} : i32
        CHECK: yield([[A2]], [[HUNDRED]])
        CHECK: }, {
        CHECK-NEXT: yield(%a, %x)
        CHECK: add(%a.{{\\d}}, %b)
    """)
    assert "only_then" not in text and text.count("yield") == 2


def test_if_runs_both_ways():
    assert run_scalar(if_kernel, 20) == (21 * 2) + 100
    assert run_scalar(if_kernel, 3) == 4 + 3


@jit
def one_element_condition_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 1))  # a [1] tile
    y = -1
    if x > 10:  # Triton takes the tile's one element (with a warning)
        y = 1
    tl.store(out_ptr, y)


def test_an_if_on_a_one_element_tile_uses_its_element():
    with pytest.warns(UserWarning, match=r"one-element tile \(tile<1xi1>\).*\.item\(\)"):
        assert run_scalar(one_element_condition_kernel, 11) == 1
    with pytest.warns(UserWarning):
        assert run_scalar(one_element_condition_kernel, 10) == -1


@jit
def elif_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    if x < 0:
        y = -1
    elif x == 0:
        y = 0
    elif x < 10:
        y = x * 10
    else:
        y = 1000
    tl.store(out_ptr, y)


def test_elif_chains_nest_ifs():
    text = print_module(module_of(elif_kernel, I32_IO))
    assert text.count("if(") == 3
    assert [run_scalar(elif_kernel, v) for v in (-5, 0, 7, 50)] == [-1, 0, 70, 1000]


@jit
def ternary_kernel(x_ptr, out_ptr, SCALE: tl.constexpr):
    x = tl.load(x_ptr)
    y = x * SCALE if x > 0 else 0
    z = 1 if SCALE > 2 else 2
    tl.store(out_ptr, y + z)


def test_conditional_expression_with_a_scalar_tensor_condition():
    text = print_module(module_of(ternary_kernel, I32_IO, SCALE=3))
    filecheck(text, """
        CHECK: %y = if({{%\\w+}}) : i32 {
        CHECK: mul(%x
        CHECK: }, {
        CHECK-NEXT: constant {value = 0} : i32
    """)
    assert run_scalar(ternary_kernel, 4, SCALE=3) == 13
    assert run_scalar(ternary_kernel, -4, SCALE=3) == 1
    assert run_scalar(ternary_kernel, 4, SCALE=2) == 10


@jit
def number_meets_tensor_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    total = 0
    if x > 1:
        total = x * 1.5
    tl.store(out_ptr, total)


def test_a_python_number_takes_the_type_of_the_tensor_on_the_other_branch():
    text = print_module(module_of(number_meets_tensor_kernel, {"x_ptr": "*i32", "out_ptr": "*fp32"}))
    filecheck(text, """
        CHECK: %total = if
        CHECK: }, {
        CHECK-NEXT: [[Z:%\\w+]] = constant {value = 0.0} : f32
        CHECK-NEXT: yield([[Z]])
    """)


# ---- for ----

@jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    count = 0
    for start in range(0, n, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
        count += 1
    tl.store(out_ptr, tl.sum(acc, axis=0) + count)


SUM_SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


def test_for_carries_the_variables_assigned_in_its_body():
    module = module_of(sum_kernel, SUM_SIGNATURE, BLOCK=32)
    filecheck(print_module(module), """
        CHECK: %acc = constant {value = 0.0} : tile<32xf32>
        CHECK: [[ZERO:%\\w+]] = constant {value = 0} : i32
        CHECK: %acc.{{\\d}}, %count{{(\\.\\d)?}} = for({{%\\w+}}, %n, {{%\\w+}}, init=[%acc, {{%\\w+}}])
        CHECK-SAME: : tile<32xf32>, i32 {
        CHECK-NEXT: ^(%start: i32, [[ACC:%acc\\.\\d]]: tile<32xf32>, [[COUNT:%count\\.?\\d?]]: i32):
        CHECK: %offsets = add
        CHECK: yield(
        CHECK: reduce
    """)
    line = line_of(sum_kernel, "for start in range")
    (loop,) = [op for op in module.walk() if op.name == "for"]
    assert loop.loc.line == line


def test_for_loop_runs():
    rng = np.random.default_rng(2)
    n = 200
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(1, np.nan, np.float32)
    run(module_of(sum_kernel, SUM_SIGNATURE, BLOCK=32), (1,), x, out, n)
    np.testing.assert_allclose(out[0], x.sum() + 7, rtol=1e-5)


@jit
def countdown_kernel(out_ptr, START: tl.constexpr, STOP: tl.constexpr, STEP: tl.constexpr):
    total = 0
    steps = 0
    for i in range(START, STOP, STEP):  # noqa: B007
        total += i
        steps += 1
    tl.store(out_ptr, total * 1000 + steps)


def test_negative_constexpr_steps_run_like_python():
    for start, stop, step in ((10, 0, -3), (0, 10, 4), (5, 5, 1), (-2, -11, -2)):
        out = np.array([-7], np.int32)
        run(module_of(countdown_kernel, {"out_ptr": "*i32"}, START=start, STOP=stop, STEP=step), (1,), out)
        expected = range(start, stop, step)
        assert out[0] == sum(expected) * 1000 + len(expected), (start, stop, step)


@jit
def bounds_kernel(out_ptr, n, wide):
    total = 0
    for i in range(n, wide):  # noqa: B007
        total += 1
    tl.store(out_ptr, total)


def test_loop_bounds_promote_to_i64_when_any_is_64_bit():
    text = print_module(module_of(bounds_kernel, {"out_ptr": "*i32", "n": "i32", "wide": "i64"}))
    filecheck(text, """
        CHECK: [[LO:%\\w+]] = cast(%n) : i64
        CHECK: for([[LO]], %wide, {{%\\w+}}, init=
        CHECK-NEXT: ^(%i: i64
    """)
    text = print_module(module_of(bounds_kernel, {"out_ptr": "*i32", "n": "i32", "wide": "i32"}))
    assert "^(%i: i32" in text and "cast" not in text


@jit
def range_options_kernel(out_ptr, n):
    total = 0
    for i in tl.range(0, n, num_stages=3, loop_unroll_factor=2, flatten=True):
        total += i
    tl.store(out_ptr, total)


def test_tl_range_options_become_for_attributes():
    text = print_module(module_of(range_options_kernel, {"out_ptr": "*i32", "n": "i32"}))
    assert "{num_stages = 3, loop_unroll_factor = 2, flatten = true}" in text


@jit
def static_kernel(out_ptr, N: tl.constexpr):
    acc = 0
    for i in tl.static_range(N):
        if i % 2 == 0:
            acc += i * 10
    for j, value in enumerate((3, 4)):
        acc += value * (j + 1)
    tl.store(out_ptr, acc)


def test_static_range_unrolls_with_a_constexpr_induction_variable():
    text = print_module(module_of(static_kernel, {"out_ptr": "*i32"}, N=5))
    assert "for(" not in text and "if(" not in text
    # the whole loop folds: 0 + 20 + 40 + 3 + 8
    assert "constant {value = 71} : i32" in text


@jit
def static_tensor_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr)
    acc = x
    for i in tl.static_range(1, N):
        acc = acc * x + i
    tl.store(out_ptr, acc)


def test_static_range_over_tensors_repeats_the_body():
    module = module_of(static_tensor_kernel, I32_IO, N=4)
    names = [op.name for op in module.kernel.walk()]
    assert names.count("mul") == 3 and "for" not in names
    assert run_scalar(static_tensor_kernel, 2, N=4) == ((2 * 2 + 1) * 2 + 2) * 2 + 3


@jit
def tuple_carry_kernel(x_ptr, out_ptr, n):
    pair = (tl.load(x_ptr), 0)
    for i in range(n):
        pair = (pair[0] + i, pair[1] + 1)
    first, second = pair
    tl.store(out_ptr, first * 100 + second)


def test_tuples_are_carried_element_by_element():
    text = print_module(module_of(tuple_carry_kernel, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}))
    assert "^(%i: i32, %pair.0: i32, %pair.1: i32):" in text
    x, out = np.array([5], np.int32), np.array([-7], np.int32)
    run(module_of(tuple_carry_kernel, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}), (1,), x, out, 4)
    assert out[0] == (5 + 0 + 1 + 2 + 3) * 100 + 4


@jit
def nested_loops_kernel(out_ptr, n, m):
    total = 0
    for i in range(n):
        row = 0
        for j in range(m):
            row += i * j
        total += row
    tl.store(out_ptr, total)


def test_nested_loops_carry_through_both_levels():
    signature = {"out_ptr": "*i32", "n": "i32", "m": "i32"}
    text = print_module(module_of(nested_loops_kernel, signature))
    assert text.count("= for(") == 2
    out = np.array([-7], np.int32)
    run(module_of(nested_loops_kernel, signature), (1,), out, 4, 5)
    assert out[0] == sum(i * j for i in range(4) for j in range(5))


# ---- while ----

@jit
def collatz_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    tl.store(out_ptr, steps)


def test_while_builds_before_and_after_regions():
    text = print_module(module_of(collatz_kernel, I32_IO))
    filecheck(text, """
        CHECK: %x.{{\\d}}, %steps{{(\\.\\d)?}} = while(%x, {{%\\w+}}) : i32, i32 {
        CHECK-NEXT: ^([[X:%x\\.\\d]]: i32, {{%\\w+(\\.\\d)?}}: i32):
        CHECK-NEXT: [[ONE:%\\w+]] = constant {value = 1} : i32
        CHECK-NEXT: [[C:%\\w+]] = cmp([[X]], [[ONE]]) {predicate = "ne"}
        CHECK-NEXT: condition([[C]], values=[
        CHECK: }, {
        CHECK: if(
        CHECK: yield
    """)


def test_while_runs():
    def collatz(x):
        steps = 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            steps += 1
        return steps

    for value in (1, 6, 27):
        assert run_scalar(collatz_kernel, value) == collatz(value)


@jit
def false_while_kernel(out_ptr, N: tl.constexpr):
    total = 1
    while N > 100:
        total += 1
    tl.store(out_ptr, total)


def test_a_while_with_a_false_compile_time_condition_disappears():
    module = module_of(false_while_kernel, {"out_ptr": "*i32"}, N=3)
    assert [op.name for op in module.walk()] == ["constant", "store", "return"]


# ---- early returns ----

@jit
def early_return_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    if x < 0:
        tl.store(out_ptr, -1)
        return
    y = x * 2
    if y > 100:
        if x > 1000:
            tl.store(out_ptr, 1000)
            return
        y = 100
    tl.store(out_ptr, y)


def test_early_returns_move_the_rest_into_the_other_branch():
    module = module_of(early_return_kernel, I32_IO)
    names = [op.name for op in module.walk()]
    assert names.count("return") == 1 and module.kernel.body.ops[-1].name == "return"
    assert names.count("if") == 3
    assert [run_scalar(early_return_kernel, v) for v in (-3, 7, 70, 5000)] == [-1, 14, 100, 1000]


@jit
def pick(x, limit):
    if x > limit:
        return limit, 1
    if x < 0:
        return 0, 2
    return x, 3


@jit
def returning_callee_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    value, branch = pick(x, 50)
    tl.store(out_ptr, value * 10 + branch)


def test_a_callee_with_early_returns_yields_its_return_values():
    module = module_of(returning_callee_kernel, I32_IO)
    callee = next(f for name, f in module.functions.items() if name.startswith("pick"))
    assert [t.ir for t in callee.result_types] == ["i32", "i32"]
    assert [run_scalar(returning_callee_kernel, v) for v in (80, -4, 7)] == [501, 2, 73]


@jit
def constexpr_return(x, MODE: tl.constexpr):
    if MODE == 0:
        return x
    return x * 3


@jit
def constexpr_return_kernel(x_ptr, out_ptr, MODE: tl.constexpr):
    tl.store(out_ptr, constexpr_return(tl.load(x_ptr), MODE))


def test_a_return_under_a_constexpr_condition_needs_no_if_op():
    module = module_of(constexpr_return_kernel, I32_IO, MODE=1)
    assert all(op.name != "if" for op in module.walk())
    assert run_scalar(constexpr_return_kernel, 5, MODE=0) == 5
    assert run_scalar(constexpr_return_kernel, 5, MODE=1) == 15


@jit
def constexpr_in_bool_op_kernel(x_ptr, out_ptr, HAS_EXTRA: tl.constexpr, ALWAYS: tl.constexpr):
    x = tl.load(x_ptr)
    if HAS_EXTRA:
        extra_ptr = out_ptr + 1  # defined only when HAS_EXTRA (mamba3's final_k_state_ptr)
    tl.store(out_ptr, x)
    if x > 0 and HAS_EXTRA:  # HAS_EXTRA False: a static False, the body is not compiled
        tl.store(extra_ptr, x * 2)
    if x > 1000 or ALWAYS:  # ALWAYS True: a static True, whatever x is
        tl.store(out_ptr + 2, x + 1)


def test_a_deciding_constexpr_after_a_tensor_in_and_or_is_the_result():
    """Triton's visit_BoolOp: a falsy constexpr in `and` (truthy in `or`) is the value of the
    whole expression even after a tensor operand, so `if cond and FLAG:` is a static if."""
    signature = I32_IO
    module = module_of(constexpr_in_bool_op_kernel, signature, HAS_EXTRA=False, ALWAYS=True)
    assert all(op.name != "if" for op in module.walk())
    for x, extra, always in ((5, False, True), (5, True, True), (-5, True, False), (7, True, False)):
        x_buf, out = np.array([x], np.int32), np.full(3, -7, np.int32)
        run(module_of(constexpr_in_bool_op_kernel, signature, HAS_EXTRA=extra, ALWAYS=always), (1,), x_buf, out)
        expected = [x, 2 * x if extra and x > 0 else -7, x + 1 if always else -7]
        assert out.tolist() == expected, (x, extra, always, out.tolist())


@jit
def branch_in_loop_kernel(out_ptr, n):
    previous = 0
    total = 0
    for i in range(n):
        total += previous
        if i % 2 == 0:
            previous = i
        else:
            previous = -i
    tl.store(out_ptr, total)


def test_a_variable_changed_in_a_branch_and_read_in_the_next_iteration_is_yielded():
    module = module_of(branch_in_loop_kernel, {"out_ptr": "*i32", "n": "i32"})
    (branch,) = [op for op in module.walk() if op.name == "if"]
    assert len(branch.results) == 1
    out = np.array([-7], np.int32)
    run(module, (1,), out, 6)
    expected, previous = 0, 0
    for i in range(6):
        expected += previous
        previous = i if i % 2 == 0 else -i
    assert out[0] == expected


def test_the_lowered_ir_prints_and_parses_back_identically():
    from kernellab.ir.parser import parse_module

    cases = [(early_return_kernel, I32_IO, {}), (returning_callee_kernel, I32_IO, {}),
             (sum_kernel, SUM_SIGNATURE, {"BLOCK": 32}), (collatz_kernel, I32_IO, {}),
             (tuple_carry_kernel, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}, {})]
    for kernel, signature, constexprs in cases:
        text = print_module(module_of(kernel, signature, **constexprs))
        assert print_module(parse_module(text)) == text
