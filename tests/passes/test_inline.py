"""Inlining calls: bodies cloned with their own locations, noinline respected, dead callees dropped."""

import numpy as np
import pytest

from kernellab.ir.parser import parse_module
from kernellab.passes import inline
from tests.filecheck import filecheck
from tests.passes.evaluate import evaluate, same_values
from tests.passes.util import run_pass

TWO_CALLS = """#f0 = "/k.py"
#f1 = "/lib.py"
func @kernel(%x: f32, %y: f32) -> (f32) attributes {kernel = true} {
  %a = call(%x, %y) {callee = "axpy"} : f32 loc(#f0:5:8)
  %b = call(%a, %x) {callee = "axpy"} : f32 loc(#f0:6:8)
  return(%b) loc(#f0:7:4)
}
func @axpy(%u: f32, %v: f32) -> (f32) {
  %two = constant {value = 2.0} : f32 loc(#f1:2:8)
  %m = mul(%two, %u) : f32 loc(#f1:2:12)
  %s = add(%m, %v) : f32 loc(#f1:3:8)
  return(%s) loc(#f1:3:4)
} loc(#f1:1:0)
"""


def test_calls_are_replaced_by_the_callee_body_with_its_locations():
    out = run_pass(inline, TWO_CALLS)
    filecheck(out, """
        CHECK: #f0 = "/lib.py"
        CHECK: func @kernel(%x: f32, %y: f32)
        CHECK-NEXT: %two = constant {value = 2.0} : f32 loc(#f0:2:8)
        CHECK-NEXT: %m = mul(%two, %x) : f32 loc(#f0:2:12)
        CHECK-NEXT: [[S:%s]] = add(%m, %y) : f32 loc(#f0:3:8)
        CHECK-NEXT: %two.1 = constant
        CHECK-NEXT: %m.1 = mul(%two.1, [[S]])
        CHECK-NEXT: [[S2:%s.1]] = add(%m.1, %x)
        CHECK-NEXT: return([[S2]])
        CHECK-NOT: call
        CHECK-NOT: func @axpy
    """)


def test_inlining_keeps_the_computed_value():
    module = parse_module(TWO_CALLS)
    args = [np.float32(1.25), np.float32(-3.5)]
    before = evaluate(module, args)
    after = evaluate(inline(module), args)
    assert same_values(before, after) and float(after[0]) == 2 * (2 * 1.25 - 3.5) + 1.25


def test_noinline_callee_stays_and_its_own_callees_are_inlined():
    text = """func @kernel(%x: i32) -> (i32) attributes {kernel = true} {
  %r = call(%x) {callee = "slow"} : i32
  return(%r)
}
func @slow(%a: i32) -> (i32) attributes {noinline = true} {
  %b = call(%a) {callee = "twice"} : i32
  return(%b)
}
func @twice(%c: i32) -> (i32) {
  %d = add(%c, %c) : i32
  return(%d)
}
func @unused(%e: i32) -> (i32) {
  return(%e)
}
"""
    out = run_pass(inline, text)
    filecheck(out, """
        CHECK: func @kernel
        CHECK-NEXT: call(%x) {callee = "slow"}
        CHECK: func @slow(%a: i32) -> (i32) attributes {noinline = true}
        CHECK-NEXT: %d = add(%a, %a) : i32
        CHECK-NEXT: return(%d)
        CHECK-NOT: func @twice
        CHECK-NOT: func @unused
    """)


def test_chains_and_calls_in_regions_inline_completely():
    text = """func @outer(%a: f32) -> (f32) {
  %b = call(%a) {callee = "inner"} : f32
  %c = neg(%b) : f32
  return(%c)
}
func @inner(%d: f32) -> (f32) {
  %e = exp(%d) : f32
  return(%e)
}
func @kernel(%x: f32, %n: i32) -> (f32) attributes {kernel = true} {
  %zero = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %r = for(%zero, %n, %one, init=[%x]) : f32 {
    ^(%i: i32, %acc: f32):
    %next = call(%acc) {callee = "outer"} : f32
    yield(%next)
  }
  return(%r)
}
"""
    out = run_pass(inline, text)
    filecheck(out, """
        CHECK-NOT: func @outer
        CHECK: func @kernel
        CHECK: for(
        CHECK-NEXT: ^(%i: i32, %acc: f32):
        CHECK-NEXT: %e = exp(%acc) : f32
        CHECK-NEXT: %c = neg(%e) : f32
        CHECK-NEXT: yield(%c)
        CHECK-NOT: call
        CHECK-NOT: func
    """)
    args = [np.float32(0.5), np.int32(3)]
    assert same_values(evaluate(parse_module(text), args), evaluate(parse_module(out), args))


def test_callee_with_regions_and_several_results():
    text = """func @kernel(%c: i1, %x: i32) -> (i32, i32) attributes {kernel = true} {
  %p, %q = call(%c, %x) {callee = "pick"} : i32, i32
  return(%p, %q)
}
func @pick(%k: i1, %v: i32) -> (i32, i32) {
  %w = if(%k) : i32 {
    %n = neg(%v) : i32
    yield(%n)
  }, {
    yield(%v)
  }
  return(%w, %v)
}
"""
    out = run_pass(inline, text)
    filecheck(out, """
        CHECK: %w = if(%c) : i32 {
        CHECK-NEXT: %n = neg(%x)
        CHECK: return(%w, %x)
    """)
    for flag in (True, False):
        args = [np.bool_(flag), np.int32(7)]
        assert same_values(evaluate(parse_module(text), args), evaluate(parse_module(out), args))


def test_recursion_is_an_error_unless_noinline():
    text = """func @kernel(%x: i32) attributes {kernel = true} {
  call(%x) {callee = "f"}
  return
}
func @f(%a: i32) {
  call(%a) {callee = "g"}
  return
}
func @g(%b: i32) {
  call(%b) {callee = "f"}
  return
}
"""
    with pytest.raises(ValueError, match="recursive calls cannot be inlined: @f -> @g -> @f"):
        inline(parse_module(text))
    out = run_pass(inline, text.replace("func @g(%b: i32) {", "func @g(%b: i32) attributes {noinline = true} {"))
    filecheck(out, """
        CHECK: func @kernel
        CHECK-NEXT: call(%x) {callee = "g"}
        CHECK: func @g
        CHECK-NEXT: call(%b) {callee = "g"}
        CHECK-NOT: func @f
    """)


def test_kernel_need_not_be_first():
    text = """func @helper(%a: i32) -> (i32) {
  return(%a)
}
func @main(%x: i32) -> (i32) attributes {kernel = true} {
  %y = call(%x) {callee = "helper"} : i32
  return(%y)
}
"""
    out = run_pass(inline, text)
    filecheck(out, "CHECK-NOT: @helper\nCHECK: func @main(%x: i32) -> (i32)\nCHECK-NEXT: return(%x)")
