"""Canonicalization: folding through the op references, exact identities, constant control flow."""

import numpy as np
import pytest

from kernellab.ir.parser import parse_module
from kernellab.passes import canonicalize
from tests.filecheck import filecheck
from tests.passes.evaluate import evaluate, same_values
from tests.passes.util import run_pass


def kernel(body: str, args: str = "%x: i32, %f: f32", results: str = "") -> str:
    header = f"func @k({args}){' -> (' + results + ')' if results else ''} attributes {{kernel = true}} {{\n"
    return "#f0 = \"/k.py\"\n" + header + body + "}\n"


def test_folds_scalar_arithmetic_to_a_constant_keeping_name_and_location():
    out = run_pass(canonicalize, kernel("""  %a = constant {value = 7} : i32
  %b = constant {value = -3} : i32
  %q = div(%a, %b) : i32 loc(#f0:4:8)
  %r = rem(%a, %b) : i32
  %s = mul(%q, %r) : i32
  return(%s)
""", results="i32"))
    filecheck(out, """
        CHECK: %q = constant {value = -2} : i32 loc(#f0:4:8)
        CHECK: %r = constant {value = 1} : i32
        CHECK-NEXT: return(%q)
        CHECK-NOT: div
        CHECK-NOT: mul
    """)


def test_integer_folding_wraps_like_the_reference():
    out = run_pass(canonicalize, kernel("""  %a = constant {value = 127} : i8
  %b = constant {value = 1} : i8
  %c = add(%a, %b) : i8
  %d = constant {value = 200} : u8
  %e = cast(%d) : i8
  return(%c, %e)
""", results="i8, i8"))
    filecheck(out, "CHECK: %c = constant {value = -128} : i8\nCHECK: %e = constant {value = -56} : i8")


def test_float_folding_comparisons_and_casts():
    out = run_pass(canonicalize, kernel("""  %a = constant {value = 1.5} : f32
  %n = constant {value = nan} : f32
  %lt = cmp(%a, %n) {predicate = "lt"} : i1
  %ne = cmp(%a, %n) {predicate = "ne"} : i1
  %t = cast(%a) : i32
  %h = cast(%a) : f16
  %e = exp(%a) : f32
  return(%lt, %ne, %t, %h, %e)
""", results="i1, i1, i32, f16, f32"))
    filecheck(out, """
        CHECK: %lt = constant {value = false} : i1
        CHECK: %ne = constant {value = true} : i1
        CHECK: %t = constant {value = 1} : i32
        CHECK: %h = constant {value = 1.5} : f16
        CHECK: %e = constant {value = {{4.48168[0-9]*}}} : f32
    """)


def test_division_by_zero_is_not_folded():
    out = run_pass(canonicalize, kernel("""  %a = constant {value = 7} : i32
  %z = constant {value = 0} : i32
  %q = div(%a, %z) : i32
  %one = constant {value = 1.0} : f32
  %zf = constant {value = 0.0} : f32
  %inf = div(%one, %zf) : f32
  return(%q, %inf)
""", results="i32, f32"))
    filecheck(out, "CHECK: %q = div(%a, %z)\nCHECK: %inf = div(%one, %zf)")


def test_uniform_tiles_fold_and_non_uniform_ones_do_not():
    out = run_pass(canonicalize, kernel("""  %c = constant {value = 2.5} : f32
  %s = splat(%c) : tile<4xf32>
  %e = expand_dims(%s) {axis = 0} : tile<1x4xf32>
  %b = broadcast(%e) : tile<8x4xf32>
  %r = reshape(%b) : tile<32xf32>
  %sq = mul(%r, %r) : tile<32xf32>
  %i = arange {start = 0, end = 4} : tile<4xi32>
  %one = constant {value = 1} : tile<4xi32>
  %j = add(%i, %one) : tile<4xi32>
  return(%sq, %j)
""", results="tile<32xf32>, tile<4xi32>"))
    filecheck(out, """
        CHECK: %sq = constant {value = 6.25} : tile<32xf32>
        CHECK: %i = arange
        CHECK: %j = add(%i, %one) : tile<4xi32>
        CHECK-NOT: splat
        CHECK-NOT: broadcast
    """)


def test_mixed_sign_zero_tiles_are_not_uniform():
    out = run_pass(canonicalize, kernel("""  %a = constant {value = 0.0} : f32
  %b = constant {value = -0.0} : f32
  %j = join(%a, %b) : tile<2xf32>
  return(%j)
""".replace("%j = join(%a, %b) : tile<2xf32>", "%sa = splat(%a) : tile<2xf32>\n  %sb = splat(%b) : tile<2xf32>\n"
            "  %j = cat(%sa, %sb) : tile<4xf32>").replace("return(%j)", "return(%j)"), results="tile<4xf32>"))
    filecheck(out, "CHECK: %j = cat(%sa, %sb)")


IDENTITIES = [
    ("%r = add(%x, %zi) : i32", "i32", "return(%x)"),
    ("%r = add(%zi, %x) : i32", "i32", "return(%x)"),
    ("%r = sub(%x, %zi) : i32", "i32", "return(%x)"),
    ("%r = mul(%oi, %x) : i32", "i32", "return(%x)"),
    ("%r = mul(%x, %zi) : i32", "i32", "return(%zi)"),
    ("%r = div(%x, %oi) : i32", "i32", "return(%x)"),
    ("%r = or(%zi, %x) : i32", "i32", "return(%x)"),
    ("%r = xor(%x, %zi) : i32", "i32", "return(%x)"),
    ("%r = shl(%x, %zi) : i32", "i32", "return(%x)"),
    ("%r = add(%f, %nz) : f32", "f32", "return(%f)"),
    ("%r = add(%f, %zf) : f32", "f32", "add(%f, %zf)"),
    ("%r = sub(%f, %zf) : f32", "f32", "return(%f)"),
    ("%r = sub(%f, %nz) : f32", "f32", "sub(%f, %nz)"),
    ("%r = mul(%f, %of) : f32", "f32", "return(%f)"),
    ("%r = mul(%f, %zf) : f32", "f32", "mul(%f, %zf)"),
    ("%r = div(%f, %of) : f32", "f32", "return(%f)"),
    ("%r = select(%t, %x, %zi) : i32", "i32", "return(%x)"),
    ("%r = select(%ff, %x, %zi) : i32", "i32", "return(%zi)"),
    ("%r = select(%c, %x, %x) : i32", "i32", "return(%x)"),
    ("%r = select(%c, %x, %zi) : i32", "i32", "select(%c, %x, %zi)"),
    ("%r = cast(%x) : i32", "i32", "return(%x)"),
    ("%r = bitcast(%f) : f32", "f32", "return(%f)"),
    ("%r = addptr(%p, %zi) : ptr<f32>", "ptr<f32>", "return(%p)"),
    ("%r = trans(%tile) {order = [0, 1]} : tile<2x2xf32>", "tile<2x2xf32>", "return(%tile)"),
]


@pytest.mark.parametrize("line,ty,expected", IDENTITIES, ids=[i[0].split("= ")[1] for i in IDENTITIES])
def test_algebraic_identities(line, ty, expected):
    body = """  %zi = constant {value = 0} : i32
  %oi = constant {value = 1} : i32
  %zf = constant {value = 0.0} : f32
  %nz = constant {value = -0.0} : f32
  %of = constant {value = 1.0} : f32
  %t = constant {value = true} : i1
  %ff = constant {value = false} : i1
  %c = cmp(%x, %oi) {predicate = "lt"} : i1
""" + f"  {line}\n  return(%r)\n"
    out = run_pass(canonicalize, kernel(body, "%x: i32, %f: f32, %p: ptr<f32>, %tile: tile<2x2xf32>", ty))
    filecheck(out, f"CHECK: {expected}")
    module = parse_module(kernel(body, "%x: i32, %f: f32, %p: ptr<f32>, %tile: tile<2x2xf32>", ty))
    for f in (-0.0, 0.0, 2.5, np.nan):
        args = [np.int32(9), np.float32(f), np.int64(4096), np.full((2, 2), 1.5, np.float32)]
        assert same_values(evaluate(module, args), evaluate(parse_module(out), args))


def test_if_with_constant_condition_inlines_the_taken_region():
    out = run_pass(canonicalize, kernel("""  %one = constant {value = 1} : i32
  %two = constant {value = 2} : i32
  %c = cmp(%one, %two) {predicate = "gt"} : i1
  %r = if(%c) : i32 {
    %a = add(%x, %x) : i32
    yield(%a)
  }, {
    %b = mul(%x, %x) : i32 loc(#f0:9:2)
    %b2 = sub(%b, %one) : i32
    yield(%b2)
  }
  return(%r)
""", results="i32"))
    filecheck(out, """
        CHECK-NOT: if
        CHECK: %b = mul(%x, %x) : i32 loc(#f0:9:2)
        CHECK-NEXT: %b2 = sub(%b, %one) : i32
        CHECK-NEXT: return(%b2)
        CHECK-NOT: add
    """)


def test_for_with_zero_trips_becomes_its_initial_values():
    text = kernel("""  %lo = constant {value = 5} : i32
  %hi = constant {value = 5} : i32
  %st = constant {value = 1} : i32
  %r, %s = for(%lo, %hi, %st, init=[%x, %f]) : i32, f32 {
    ^(%i: i32, %a: i32, %b: f32):
    %a2 = add(%a, %i) : i32
    yield(%a2, %b)
  }
  return(%r, %s)
""", results="i32, f32")
    filecheck(run_pass(canonicalize, text), "CHECK-NOT: for\nCHECK: return(%x, %f)")
    for lo, hi, st in ((5, 5, 1), (0, 4, -1), (3, 9, 2)):
        variant = text.replace("value = 5} : i32\n  %hi = constant {value = 5}", f"value = {lo}}} : i32\n  %hi = "
                               f"constant {{value = {hi}}}").replace("%st = constant {value = 1}",
                                                                      f"%st = constant {{value = {st}}}")
        out = run_pass(canonicalize, variant)
        assert ("for(" in out) == (len(range(lo, hi, st)) > 0)
        args = [np.int32(4), np.float32(1.5)]
        assert same_values(evaluate(parse_module(variant), args), evaluate(parse_module(out), args))


def test_iterates_to_a_fixed_point_through_regions():
    out = run_pass(canonicalize, kernel("""  %zero = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %three = constant {value = 3} : i32
  %n = for(%zero, %three, %one, init=[%x]) : i32 {
    ^(%i: i32, %acc: i32):
    %k = mul(%three, %one) : i32
    %c = cmp(%k, %three) {predicate = "eq"} : i1
    %v = if(%c) : i32 {
      %w = add(%acc, %zero) : i32
      %w2 = add(%w, %i) : i32
      yield(%w2)
    }, {
      yield(%zero)
    }
    yield(%v)
  }
  return(%n)
""", results="i32"))
    filecheck(out, """
        CHECK: for(
        CHECK-NEXT: ^(%i: i32, %acc: i32):
        CHECK-NEXT: %c = constant {value = true}
        CHECK-NEXT: %w2 = add(%acc, %i) : i32
        CHECK-NEXT: yield(%w2)
        CHECK-NOT: if(
    """)


def test_ops_with_effects_or_context_are_not_folded():
    out = run_pass(canonicalize, kernel("""  %pid = program_id {axis = 0} : i32
  %p = constant {value = 0} : i32
  %s = add(%pid, %p) : i32
  %m = maximum(%s, %s) : i32
  return(%m)
""", results="i32"))
    filecheck(out, "CHECK: %pid = program_id\nCHECK-NEXT: constant\nCHECK-NEXT: %m = maximum(%pid, %pid)")


def test_a_reference_that_cannot_evaluate_is_left_to_run_time():
    out = run_pass(canonicalize, kernel("""  %src = constant {value = 1.5} : tile<4xf32>
  %index = constant {value = 9} : tile<4xi32>
  %g = gather(%src, %index) {axis = 0} : tile<4xf32>
  return(%g)
""", results="tile<4xf32>"))
    filecheck(out, "CHECK: %g = gather(%src, %index)")
