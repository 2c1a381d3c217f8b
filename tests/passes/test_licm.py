"""Loop-invariant code motion: invariant pure ops leave loops, safely."""

import numpy as np

from kernellab.ir.parser import parse_module
from kernellab.passes import licm
from tests.filecheck import filecheck
from tests.passes.evaluate import Memory, evaluate, same_values
from tests.passes.util import run_pass

HEADER = "func @k(%x: i32, %y: i32, %p: ptr<i32>, %n: i32) attributes {kernel = true} {\n"
BOUNDS = """  %zero = constant {value = 0} : i32
  %one = constant {value = 1} : i32
"""

NESTED = '#f0 = "/k.py"\n' + HEADER + BOUNDS + """  for(%zero, %n, %one) {
    ^(%i: i32):
    %a = add(%x, %y) : i32 loc(#f0:5:8)
    %b = mul(%a, %a) : i32
    %iv = add(%i, %b) : i32
    %inner = for(%zero, %n, %one, init=[%iv]) : i32 {
      ^(%j: i32, %acc: i32):
      %c = sub(%b, %x) : i32
      %d = mul(%i, %y) : i32
      %e = add(%acc, %c) : i32
      %f = add(%e, %d) : i32
      %g = add(%f, %j) : i32
      yield(%g)
    }
    %q = addptr(%p, %i) : ptr<i32>
    store(%q, %inner)
    yield
  }
  return
}
"""


def test_invariant_ops_climb_out_of_nested_loops_in_order():
    out = run_pass(licm, NESTED)
    filecheck(out, """
        CHECK: %one = constant
        CHECK-NEXT: %a = add(%x, %y) : i32 loc(#f0:5:8)
        CHECK-NEXT: %b = mul(%a, %a)
        CHECK-NEXT: %c = sub(%b, %x)
        CHECK-NEXT: for(%zero, %n, %one) {
        CHECK-NEXT: ^(%i: i32):
        CHECK-NEXT: %iv = add(%i, %b)
        CHECK-NEXT: %d = mul(%i, %y)
        CHECK-NEXT: %inner = for
        CHECK-NEXT: ^(%j: i32, %acc: i32):
        CHECK-NEXT: %e = add(%acc, %c)
        CHECK-NEXT: %f = add(%e, %d)
        CHECK-NEXT: %g = add(%f, %j)
        CHECK: %q = addptr(%p, %i)
    """)


def test_hoisting_keeps_what_the_loop_computes():
    memory_out = []
    for source in (NESTED, run_pass(licm, NESTED)):
        memory = Memory()
        base = memory.allocate(np.full(8, -1, np.int32))
        evaluate(parse_module(source), [np.int32(3), np.int32(-2), base, np.int32(5)], memory=memory)
        memory_out.append(memory.snapshot())
    assert memory_out[0] == memory_out[1]
    assert np.frombuffer(memory_out[0][:20], np.int32).tolist() != [-1] * 5


def test_unsafe_or_effectful_ops_stay():
    out = run_pass(licm, HEADER + BOUNDS + """  %seven = constant {value = 7} : i32
  %zf = constant {value = 0.0} : f32
  %r = for(%zero, %n, %one, init=[%zf]) : f32 {
    ^(%i: i32, %acc: f32):
    %q1 = div(%x, %y) : i32
    %q2 = div(%x, %seven) : i32
    %r1 = rem(%x, %zero) : i32
    %pid = program_id {axis = 0} : i32
    %v = load(%p) : i32
    %c = cmp(%x, %y) {predicate = "lt"} : i1
    %w = if(%c) : i32 {
      %h = mul(%x, %x) : i32
      yield(%h)
    }, {
      yield(%x)
    }
    %fx = cast(%x) : f32
    %fd = div(%fx, %zf) : f32
    %s = add(%acc, %fd) : f32
    yield(%s)
  }
  return
}
""")
    filecheck(out, """
        CHECK: %q2 = div(%x, %seven)
        CHECK-NEXT: %c = cmp(%x, %y)
        CHECK-NEXT: %fx = cast(%x)
        CHECK-NEXT: %fd = div(%fx, %zf)
        CHECK-NEXT: %r = for
        CHECK-NEXT: ^(%i: i32, %acc: f32):
        CHECK-NEXT: %q1 = div(%x, %y)
        CHECK-NEXT: %r1 = rem(%x, %zero)
        CHECK-NEXT: %pid = program_id
        CHECK-NEXT: %v = load(%p)
        CHECK-NEXT: %w = if(%c)
        CHECK-NEXT: %h = mul(%x, %x)
    """)


def test_while_regions_and_ops_with_regions():
    text = """func @k(%x: i32, %t: tile<4xi32>) -> (i32, i32) attributes {kernel = true} {
  %zero = constant {value = 0} : i32
  %w, %s = while(%x, %zero) : i32, i32 {
    ^(%v: i32, %acc: i32):
    %lim = neg(%x) : i32
    %go = cmp(%v, %lim) {predicate = "gt"} : i1
    condition(%go, values=[%v, %acc])
  }, {
    ^(%u: i32, %a: i32):
    %sum = reduce(%t) {axis = 0} : i32 {
      ^(%l: i32, %r: i32):
      %lr = add(%l, %r) : i32
      yield(%lr)
    }
    %one = constant {value = 1} : i32
    %u1 = sub(%u, %one) : i32
    %a1 = add(%a, %sum) : i32
    yield(%u1, %a1)
  }
  return(%w, %s)
}
"""
    out = run_pass(licm, text)
    filecheck(out, """
        CHECK: %zero = constant
        CHECK-NEXT: %lim = neg(%x)
        CHECK-NEXT: %sum = reduce(%t)
        CHECK: %one = constant
        CHECK-NEXT: %w, %s = while
        CHECK-NEXT: ^(%v: i32, %acc: i32):
        CHECK-NEXT: %go = cmp(%v, %lim)
        CHECK: ^(%u: i32, %a: i32):
        CHECK-NEXT: %u1 = sub(%u, %one)
    """)
    args = [np.int32(3), np.arange(1, 5, dtype=np.int32)]
    assert same_values(evaluate(parse_module(text), args), evaluate(parse_module(out), args))


def test_a_loop_marked_disable_licm_keeps_its_code():
    """Nothing leaves a ``disable_licm`` loop, not even what its inner loop hoisted to it."""
    marked = NESTED.replace("  for(%zero, %n, %one) {", "  for(%zero, %n, %one) {disable_licm = true} {", 1)
    out = run_pass(licm, marked)
    filecheck(out, """
        CHECK: %one = constant
        CHECK-NEXT: for(%zero, %n, %one) {disable_licm = true} {
        CHECK-NEXT: ^(%i: i32):
        CHECK-NEXT: %a = add(%x, %y) : i32 loc(#f0:5:8)
        CHECK-NEXT: %b = mul(%a, %a)
        CHECK-NEXT: %iv = add(%i, %b)
        CHECK-NEXT: %c = sub(%b, %x)
        CHECK-NEXT: %d = mul(%i, %y)
        CHECK-NEXT: %inner = for
    """)
