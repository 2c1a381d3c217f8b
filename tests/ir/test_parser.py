"""Parsing printed Tile IR: print -> parse -> print is the identity; errors say where and what."""

import math

import pytest

from kernellab.ir import UNKNOWN_LOC, Location, Module
from kernellab.ir import types as T
from kernellab.ir.ops.registry import kernel_ops
from kernellab.ir.parser import ParseError, parse_function, parse_module, tokenize
from kernellab.ir.printer import print_module, print_with_locations
from kernellab.ir.verifier import verify
from tests.ir.catalog import build_catalog
from tests.ir.random_ir import random_module


def _same_literal(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_literal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _same_attrs(a: dict, b: dict) -> bool:
    return list(a) == list(b) and all(_same_literal(a[k], b[k]) for k in a)


def assert_same_structure(original: Module, parsed: Module) -> None:
    """Op by op: names, attrs (kind-exact), types, locations, segments and the value graph."""
    assert _same_attrs(original.attrs, parsed.attrs)
    assert list(original.functions) == list(parsed.functions)
    mapping: dict[int, object] = {}
    for fa, fb in zip(original.functions.values(), parsed.functions.values()):
        assert fa.arg_types == fb.arg_types and fa.result_types == fb.result_types and fa.loc == fb.loc
        assert _same_attrs(fa.attrs, fb.attrs)
        assert all(_same_attrs(x, y) for x, y in zip(fa.arg_attrs, fb.arg_attrs))
        mapping.update({id(x): y for x, y in zip(fa.args, fb.args)})
        ops_a, ops_b = list(fa.walk()), list(fb.walk())
        assert [o.name for o in ops_a] == [o.name for o in ops_b]
        for oa, ob in zip(ops_a, ops_b):
            assert _same_attrs(oa.attrs, ob.attrs), (oa, oa.attrs, ob.attrs)
            assert oa.loc == ob.loc and oa.segments == ob.segments
            assert [r.type for r in oa.results] == [r.type for r in ob.results]
            for ra, rb in zip(oa.regions, ob.regions):
                assert [a.type for a in ra.args] == [a.type for a in rb.args]
                mapping.update({id(x): y for x, y in zip(ra.args, rb.args)})
            assert [mapping[id(v)] for v in oa.operands] == ob.operands
            mapping.update({id(x): y for x, y in zip(oa.results, ob.results)})


def roundtrip(module: Module) -> Module:
    text = print_module(module)
    parsed = parse_module(text)
    assert print_module(parsed) == text
    return parsed


def test_catalog_uses_every_registered_op():
    _, used = build_catalog()
    assert used == kernel_ops(), f"extend tests/ir/catalog.py for: {sorted(kernel_ops() - used)}"


def test_catalog_roundtrip_keeps_structure_and_verifies():
    module, _ = build_catalog()
    parsed = roundtrip(module)
    assert_same_structure(module, parsed)
    verify(parsed)


@pytest.mark.parametrize("seed", range(40))
def test_random_modules_roundtrip(seed):
    module = random_module(seed, functions=1 + seed % 3, steps=10 + seed % 25)
    parsed = roundtrip(module)
    assert_same_structure(module, parsed)
    verify(parsed)


def test_second_roundtrip_is_stable():
    module = random_module(7)
    once = parse_module(print_module(module))
    assert print_module(parse_module(print_module(once))) == print_module(module)


def test_function_roundtrip_and_line_map():
    module, _ = build_catalog()
    kernel = module.functions["catalog"]
    text, line_map = print_with_locations(kernel)
    parsed = parse_function(text)
    assert print_with_locations(parsed) == (text, line_map)


def test_name_hints_come_from_printed_names():
    fn = parse_function("func @k(%x: i32, %7: i32) {\n  %x.1 = add(%x, %7) : i32\n  %3 = mul(%x.1, %x.1) : i32\n"
                        "  return\n}\n")
    add, mul, _ = fn.body.ops
    assert [a.name_hint for a in fn.args] == ["x", None]
    assert add.result.name_hint == "x.1" and mul.result.name_hint is None
    assert mul.operands == [add.result, add.result]


def test_hand_written_text_with_comments_and_free_layout():
    text = """
    // a comment line
    #f0 = "/k.py"
    func @k(%p: ptr<f32>, %n: i32)   attributes {kernel = true} {   // header comment
      %0 = arange {end = 4, start = 0} : tile<4xi32> loc(#f0:2:0)
      %v = splat(%p) : tile<4xptr<f32>>
      %q = addptr(%v, %0) : tile<4xptr<f32>>
      %x = load(%q) {boundary_check = []} : tile<4xf32> loc(#f0:3:8)
      store(%q, %x) return
    }
    """
    fn = parse_module(text).kernel
    arange, _, _, load, store, ret = fn.body.ops
    assert arange.attrs == {"start": 0, "end": 4} and arange.loc == Location("/k.py", 2, 0)
    assert load.attrs["boundary_check"] == () and load.operand("mask") is None
    assert load.result.type is T.tile(T.f32, (4,)) and store.loc == UNKNOWN_LOC and ret.name == "return"
    verify(fn)


def test_attribute_literals_follow_declared_kinds():
    fn = parse_function("func @k() {\n  %a = constant {value = 2} : f32\n  %b = constant {value = 2.0} : f32\n"
                        "  %c = constant {value = true} : i1\n  %d = constant {value = -inf} : f64\n"
                        "  %e = trans(%f) {order = [1, 0]} : tile<2x2xf32>\n  return\n}\n"
                        .replace("%f)", "%g)").replace("  %e", "  %g = constant {value = 1.0} : tile<2x2xf32>\n  %e"))
    a, b, c, d, _, e, _ = fn.body.ops
    assert type(a.attrs["value"]) is int and type(b.attrs["value"]) is float
    assert c.attrs["value"] is True and d.attrs["value"] == -math.inf
    assert e.attrs["order"] == (1, 0)


def test_free_form_attributes():
    module = parse_module('module attributes {a = [1, [2.5, "s"], i32], b = nan, c = ptr<tile<2xf16>>}\n')
    attrs = module.attrs
    assert attrs["a"] == (1, (2.5, "s"), T.i32) and math.isnan(attrs["b"])
    assert attrs["c"] is T.pointer(T.tile(T.f16, (2,)))


def test_same_names_in_different_functions_and_sibling_regions():
    text = """func @a(%x: i32) {
  return
}
func @b(%x: i32) {
  %c = cmp(%x, %x) {predicate = "eq"} : i1
  %r = if(%c) : i32 {
    %t = add(%x, %x) : i32
    yield(%t)
  }, {
    %t = sub(%x, %x) : i32
    yield(%t)
  }
  return
}
"""
    module = parse_module(text)
    verify(module)
    then, other = module.functions["b"].body.ops[1].regions
    assert then.ops[0].result is not other.ops[0].result


def test_tokens_track_lines_and_columns():
    tokens = tokenize("func @k(%x: tile<2xptr<f32>>)\n  return")
    kinds = [(t.kind, t.text, t.line, t.col) for t in tokens]
    assert ("type", "tile<2xptr<f32>>", 1, 13) in kinds
    assert ("ident", "return", 2, 3) in kinds and kinds[-1][0] == "eof"


BAD = [
    ("func @k() {\n  %a = bogus : i32\n}\n", 2, 8, "unknown op 'bogus'"),
    ("func @k() {\n  return(%nope)\n}\n", 2, 10, "use of undefined value %nope"),
    ("func @k(%x: i32) {\n  %x = add(%x, %x) : i32\n}\n", 2, 3, "value %x is defined twice"),
    ("func @k(%x: i32, %x: i32) {\n}\n", 1, 18, "value %x is defined twice"),
    ("func @k(%x: i32 %y: i32) {\n}\n", 1, 17, "expected ',' or ')'"),
    ("func @k(%x: tile<0xf32>) {\n}\n", 1, 13, "bad type 'tile<0xf32>'"),
    ("func @k(%x: f31) {\n}\n", 1, 13, "unknown type 'f31'"),
    ("func @k() {\n  %a = program_id {axis = \"0\"} : i32\n}\n", 2, 27, "takes an int, got \"0\""),
    ("func @k() {\n  %a = program_id {dim = 0} : i32\n}\n", 2, 20, "has no attribute 'dim' (it has: axis)"),
    ("func @k() {\n  %a = program_id : i32\n}\n", 2, 8, "needs attribute(s) axis"),
    ("func @k(%x: i32) {\n  %a, %b = add(%x, %x) : i32\n}\n", 2, 12, "names 2 result(s) but gives 1"),
    ("func @k(%x: i32) {\n  %a = add(%x) : i32\n}\n", 2, 11, "takes 2 positional operand(s) (lhs, rhs), got 1"),
    ("func @k(%p: ptr<f32>) {\n  %a = load(%p, foo=%p) : f32\n}\n", 2, 17, "no optional or variadic operand 'foo'"),
    ("func @k(%p: ptr<f32>) {\n  %a = load(%p, mask=%p, mask=%p) : f32\n}\n", 2, 26, "operand mask is given twice"),
    ("func @k(%x: i32) {\n  %a = add : i32\n}\n", 2, 12, "needs operand(s) lhs, rhs"),
    ("#f0 = \"a.py\"\nfunc @k() {\n  return loc(#f3:1:0)\n}\n", 3, 14, "#f3 is not in the file table"),
    ("func @k() {\n  return(%<undefined>)\n}\n", 2, 10, "never defined"),
    ("func @k() {\n  return $\n}\n", 2, 10, "unexpected character '$'"),
    ("func @k() {\n  return\n", 3, 1, "expected '}' to close the block"),
    ("func @k() {\n}\nfunc @k() {\n}\n", 3, 1, "function @k is defined twice"),
    ("fun @k() {\n}\n", 1, 1, "expected 'func' or the end of the text"),
    ("func @k(%c: i1) {\n  if(%c) {\n    %t = neg(%c) : i1\n    yield\n  }, {\n    yield(%t)\n  }\n}\n", 6, 11,
     "use of undefined value %t"),
    ("func @k(%c: i1) {\n  if(%c) {\n    %t = neg(%c) : i1\n    yield\n  }, {\n    yield\n  }\n  return(%t)\n}\n",
     8, 10, "use of undefined value %t"),
    ("func @k(%x: i32) {\n  %a = add(%x, %x) {} : i32\n}\n", 2, 8, "names 1 result(s) but gives 0"),
    ("func @k(%x: tile<2xf32) {\n}\n", 1, 13, "unclosed '<'"),
    ("func @k() {\n  %a = constant {value = \"x\"} : i32\n}\n", 2, 26, "takes a number or true/false"),
]


@pytest.mark.parametrize("text,line,col,message", BAD, ids=[b[3][:30] for b in BAD])
def test_parse_errors_say_where_and_what(text, line, col, message):
    with pytest.raises(ParseError) as info:
        parse_module(text)
    error = info.value
    assert message in error.message
    assert (error.line, error.col) == (line, col), str(error)
    assert str(error).startswith(f"line {line}, column {col}: ")
    if text.split("\n")[line - 1]:
        assert text.split("\n")[line - 1] in str(error) and "^" in str(error)


def test_parse_function_needs_exactly_one_function():
    with pytest.raises(ParseError, match="exactly one function, got 2"):
        parse_function("func @a() {\n}\nfunc @b() {\n}\n")
