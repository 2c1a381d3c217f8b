# ruff: noqa: F821, F841  (kernels here are wrong on purpose)
"""Tuples in the frontend: a tuple parameter's nested signature entry becomes one IR argument
per runtime element (``P.0``, ``P.1.0``) and a Python tuple of kernel values (a NamedTuple
keeps its class), NamedTuples built in kernels and carried through calls, list comprehensions
unrolled at compile time, ``.type`` of tuples and constexprs, and the errors of their misuse."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import kernellab.language as tl
from kernellab.ir import types as T
from kernellab.language.core import constexpr
from tests.filecheck import filecheck
from tests.frontend.support import F32_PTR, I32_PTR, ir, jit, line_of, lowering_error, module_of, poisoned, run


class Slice(NamedTuple):
    ptr: object
    start: object
    length: object = 4


@jit
def tuple_params(Ptrs, vals, view):
    offs = tl.arange(0, 4)
    tl.store(Ptrs[1] + offs, tl.load(Ptrs[0] + offs) * vals[0] + vals[1][0])
    tl.store(view.ptr + view.start + offs, tl.load(view.ptr + offs), mask=offs < view.length)


def test_a_tuple_parameter_is_one_argument_per_runtime_element():
    signature = {"Ptrs": (F32_PTR, F32_PTR), "vals": (T.f32, (constexpr(1),)),
                 "view": Slice(F32_PTR, T.i32, constexpr(2))}
    module = module_of(tuple_params, signature, arg_attrs={"Ptrs.1": {"divisibility": 16}})
    kernel = module.kernel
    assert [a.name_hint for a in kernel.args] == ["Ptrs.0", "Ptrs.1", "vals.0", "view.0", "view.1"]
    assert kernel.arg_types == [F32_PTR, F32_PTR, T.f32, F32_PTR, T.i32]
    assert kernel.arg_attrs[1] == {"divisibility": 16}
    filecheck(ir(tuple_params, signature), """
        CHECK: func @tuple_params(%Ptrs.0: ptr<f32>, %Ptrs.1: ptr<f32>, %vals.0: f32, %view.0: ptr<f32>, %view.1: i32)
        CHECK: mul(
        CHECK: add(
    """)
    x, y, z = np.arange(4, dtype=np.float32) + 1, poisoned(4), np.arange(12, dtype=np.float32)
    run(module, (1,), x, y, np.float32(3), z, 6)
    np.testing.assert_array_equal(y, x * 3 + 1)
    np.testing.assert_array_equal(z[6:8], [0, 1])  # view.length == 2 masks the rest
    np.testing.assert_array_equal(z[8:], [8, 9, 10, 11])


def test_element_facts_name_runtime_elements():
    with pytest.raises(TypeError, match=r"arg_attrs names \['vals.1'\].*name.0"):
        module_of(tuple_params, {"Ptrs": (F32_PTR, F32_PTR), "vals": (T.f32, (constexpr(1),)),
                                 "view": Slice(F32_PTR, T.i32, constexpr(2))}, arg_attrs={"vals.1": {}})


# ---- NamedTuples in kernels ----

class Point(NamedTuple):
    x: object
    y: object
    scale: object = 2


@jit
def make_point(x, y):
    return Point(y=y, x=x)


@jit
def norm1(p):
    return (p.x + p.y) * p.scale


@jit(noinline=True)
def swap(p):
    return Point(p.y, p.x, p.scale)


@jit
def namedtuple_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 8)
    p = make_point(tl.load(x_ptr + offs), tl.load(x_ptr + 8 + offs))
    q = swap(p)
    tl.static_assert(isinstance(q, Point) and q.scale == 2)
    tl.store(out_ptr + offs, norm1(q) + q.x)


def test_namedtuples_are_built_and_kept_through_calls():
    module = module_of(namedtuple_kernel, {"x_ptr": F32_PTR, "out_ptr": F32_PTR})
    x, out = np.arange(16, dtype=np.float32), poisoned(8)
    run(module, (1,), x, out)
    np.testing.assert_array_equal(out, (x[:8] + x[8:]) * 2 + x[8:])


@jit
def bad_point_kernel(x_ptr):
    p = Point(1, 2, 3, 4)


def test_wrong_namedtuple_arguments():
    error = lowering_error(bad_point_kernel, {"x_ptr": F32_PTR})
    assert "wrong arguments to the NamedTuple `Point` (fields x, y, scale)" in str(error)
    assert error.loc.line == line_of(bad_point_kernel, "Point(1, 2, 3, 4)")


# ---- comprehensions ----

@jit
def comprehension_kernel(Ptrs, out_ptr):
    offs = tl.arange(0, 4)
    loaded = [tl.load(p + offs) for p in Ptrs]
    doubled = [v * 2 for v in loaded if True]
    pairs = [i * 10 + j for i in tl.static_range(3) for j in range(2) if i != j]
    tl.static_assert(pairs == (1, 10, 20, 21))
    tl.static_assert(isinstance(doubled, tuple) and len(doubled) == len(Ptrs))
    total = doubled[0]
    for v in doubled[1:]:
        total += v
    tl.store(out_ptr + offs, total + sum_of(pairs))


@jit
def sum_of(values):
    return values[0] + values[1] + values[2] + values[3]


def test_list_comprehensions_unroll_at_compile_time():
    module = module_of(comprehension_kernel, {"Ptrs": (F32_PTR, F32_PTR, F32_PTR), "out_ptr": F32_PTR})
    arrays = [np.arange(4, dtype=np.float32) * (k + 1) for k in range(3)]
    out = poisoned(4)
    run(module, (1,), *arrays, out)
    np.testing.assert_array_equal(out, sum(arrays) * 2 + 52)


@jit
def leaking_kernel(x_ptr):
    values = [i for i in tl.static_range(2)]
    tl.store(x_ptr, i)


@jit
def runtime_condition_kernel(x_ptr):
    values = [i for i in tl.static_range(2) if tl.load(x_ptr) > i]


@jit
def runtime_range_kernel(x_ptr, n):
    values = [i for i in range(n)]


@pytest.mark.parametrize("kernel, marker, fragment", [
    (leaking_kernel, "tl.store(x_ptr, i)", "name 'i' is not defined"),
    (runtime_condition_kernel, "tl.load(x_ptr) > i", "a comprehension's `if` must be a compile-time condition"),
    (runtime_range_kernel, "range(n)", "tl.static_range bounds must be compile-time integers"),
])
def test_comprehension_mistakes(kernel, marker, fragment):
    signature = {"x_ptr": I32_PTR, **({"n": T.i32} if kernel is runtime_range_kernel else {})}
    error = lowering_error(kernel, signature)
    assert fragment in str(error), str(error)
    assert error.loc.line == line_of(kernel, marker)


# ---- x.type ----

@jit
def type_kernel(T_, x_ptr):
    tl.static_assert(isinstance(T_.type, tl.tuple_type) and len(T_.type) == 2)
    tl.static_assert(isinstance(T_[1].type, tl.constexpr_type) and T_[1].type == tl.constexpr_type(1))
    tl.static_assert(T_[0].type == tl.float32)
    tl.store(x_ptr, T_[0] + T_[1])


def test_type_of_tuples_and_constexprs():
    module = module_of(type_kernel, {"T_": (T.f32, constexpr(1)), "x_ptr": F32_PTR})
    out = poisoned(1)
    run(module, (1,), np.float32(2.5), out)
    assert out[0] == 3.5


# ---- misuse ----

@jit
def item_assignment(x_ptr):
    t = (1, 2)
    t[0] = 3


@jit
def non_integer_index(x_ptr):
    t = (1, 2)
    tl.store(x_ptr, t[1.5])


@pytest.mark.parametrize("kernel, marker, fragment", [
    (item_assignment, "t[0] = 3", "assigning to an element"),
    (non_integer_index, "t[1.5]", "`t` is a tuple: its index must be a compile-time integer or slice"),
])
def test_tuple_misuse(kernel, marker, fragment):
    error = lowering_error(kernel, {"x_ptr": I32_PTR})
    assert fragment in str(error), str(error)
    assert error.loc.line == line_of(kernel, marker)
