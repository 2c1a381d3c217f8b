"""Common-subexpression elimination: equal pure ops merge, respecting scopes, attributes and effects."""

import numpy as np

from kernellab.ir.parser import parse_module
from kernellab.passes import cse
from tests.filecheck import filecheck
from tests.passes.evaluate import Memory, evaluate, same_values
from tests.passes.util import run_pass


def kernel(body: str, results: str = "") -> str:
    arrow = f" -> ({results})" if results else ""
    args = "%x: i32, %y: i32, %p: ptr<f32>, %t: tile<4xf32>"
    return f"func @k({args}){arrow} attributes {{kernel = true}} {{\n{body}}}\n"


def test_duplicates_in_a_block_merge_and_uses_follow():
    out = run_pass(cse, kernel("""  %a = add(%x, %y) : i32
  %b = add(%x, %y) : i32
  %c = mul(%a, %b) : i32
  %d = mul(%b, %a) : i32
  %e = sub(%c, %d) : i32
  return(%e)
""", "i32"))
    filecheck(out, """
        CHECK: %a = add(%x, %y)
        CHECK-NEXT: %c = mul(%a, %a)
        CHECK-NEXT: %e = sub(%c, %c)
        CHECK-NEXT: return(%e)
    """)


def test_commutative_operands_in_any_order_but_not_for_sub():
    out = run_pass(cse, kernel("""  %a = add(%x, %y) : i32
  %b = add(%y, %x) : i32
  %c = sub(%x, %y) : i32
  %d = sub(%y, %x) : i32
  return(%a, %b, %c, %d)
""", "i32, i32, i32, i32"))
    filecheck(out, "CHECK: %a = add\nCHECK-NOT: add\nCHECK: %c = sub(%x, %y)\nCHECK: %d = sub(%y, %x)\n"
                   "CHECK: return(%a, %a, %c, %d)")


def test_attributes_and_types_must_match_exactly():
    out = run_pass(cse, kernel("""  %z = constant {value = 0.0} : f32
  %nz = constant {value = -0.0} : f32
  %z2 = constant {value = 0.0} : f32
  %one = constant {value = 1} : i32
  %one64 = constant {value = 1} : i64
  %lt = cmp(%x, %y) {predicate = "lt"} : i1
  %gt = cmp(%x, %y) {predicate = "gt"} : i1
  %lt2 = cmp(%x, %y) {predicate = "lt"} : i1
  return(%z, %nz, %z2, %one, %one64, %lt, %gt, %lt2)
""", "f32, f32, f32, i32, i64, i1, i1, i1"))
    filecheck(out, "CHECK: return(%z, %nz, %z, %one, %one64, %lt, %gt, %lt)")


def test_outer_values_replace_inner_duplicates_but_not_the_reverse():
    out = run_pass(cse, kernel("""  %a = add(%x, %y) : i32
  %zero = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %r = for(%zero, %x, %one, init=[%a]) : i32 {
    ^(%i: i32, %acc: i32):
    %b = add(%x, %y) : i32
    %m = mul(%x, %x) : i32
    %s = add(%acc, %b) : i32
    %s2 = add(%s, %m) : i32
    yield(%s2)
  }
  %m2 = mul(%x, %x) : i32
  %c = cmp(%x, %y) {predicate = "lt"} : i1
  %w = if(%c) : i32 {
    %n = neg(%x) : i32
    yield(%n)
  }, {
    %n2 = neg(%x) : i32
    yield(%n2)
  }
  %v = add(%r, %m2) : i32
  %v2 = add(%v, %w) : i32
  return(%v2)
""", "i32"))
    filecheck(out, """
        CHECK: for(
        CHECK-NEXT: ^(%i: i32, %acc: i32):
        CHECK-NEXT: %m = mul(%x, %x)
        CHECK-NEXT: %s = add(%acc, %a)
        CHECK: %m2 = mul(%x, %x)
        CHECK: %n = neg(%x)
        CHECK: %n2 = neg(%x)
        CHECK: %v = add(%r, %m2)
    """)


def test_ops_with_effects_stay_and_pure_context_reads_merge():
    out = run_pass(cse, kernel("""  %pid = program_id {axis = 0} : i32
  %pid2 = program_id {axis = 0} : i32
  %pid1 = program_id {axis = 1} : i32
  %q = addptr(%p, %pid) : ptr<f32>
  %q2 = addptr(%p, %pid2) : ptr<f32>
  %l = load(%q) : f32
  %l2 = load(%q2) : f32
  store(%q, %l)
  store(%q2, %l2)
  %s = add(%pid, %pid1) : i32
  return(%s, %l, %l2)
""", "i32, f32, f32"))
    filecheck(out, """
        CHECK: %pid = program_id {axis = 0}
        CHECK-NEXT: %pid1 = program_id {axis = 1}
        CHECK-NEXT: %q = addptr(%p, %pid)
        CHECK-NEXT: %l = load(%q)
        CHECK-NEXT: %l2 = load(%q)
        CHECK-NEXT: store(%q, %l)
        CHECK-NEXT: store(%q, %l2)
    """)


def test_ops_with_identical_regions_merge():
    out = run_pass(cse, kernel("""  %s1 = reduce(%t) {axis = 0} : f32 {
    ^(%a: f32, %b: f32):
    %c = add(%a, %b) : f32
    yield(%c)
  }
  %s2 = reduce(%t) {axis = 0} : f32 {
    ^(%d: f32, %e: f32):
    %f = add(%d, %e) : f32
    yield(%f)
  }
  %s3 = reduce(%t) {axis = 0} : f32 {
    ^(%g: f32, %h: f32):
    %i = maximum(%g, %h) : f32
    yield(%i)
  }
  %s4 = reduce(%t) {axis = 0} : f32 {
    ^(%j: f32, %k: f32):
    %l = sub(%j, %k) : f32
    yield(%l)
  }
  %s5 = reduce(%t) {axis = 0} : f32 {
    ^(%m: f32, %n: f32):
    %o = sub(%n, %m) : f32
    yield(%o)
  }
  return(%s1, %s2, %s3, %s4, %s5)
""", "f32, f32, f32, f32, f32"))
    filecheck(out, "CHECK: return(%s1, %s1, %s3, %s4, %s5)")


def test_cse_keeps_results_and_memory():
    text = kernel("""  %a = add(%x, %y) : i32
  %b = add(%y, %x) : i32
  %c = mul(%a, %b) : i32
  %d = mul(%a, %b) : i32
  %q = addptr(%p, %x) : ptr<f32>
  %v = load(%q) : f32
  %w = cast(%d) : f32
  %u = add(%v, %w) : f32
  store(%q, %u)
  return(%c, %d)
""", "i32, i32")
    results = []
    for source in (text, run_pass(cse, text)):
        memory = Memory()
        data = np.arange(1, 9, dtype=np.float32)
        base = memory.allocate(data)
        out = evaluate(parse_module(source), [np.int32(3), np.int32(-5), base, np.ones(4, np.float32)], memory=memory)
        results.append((out, memory.snapshot()))
    assert same_values(results[0][0], results[1][0]) and results[0][1] == results[1][1]
