"""The verifier: valid IR passes; each class of defect is caught with a message naming the
function, the op and its location."""

import numpy as np
import pytest

from kernellab.ir import Block, Location, Op, VerifyError
from kernellab.ir import types as T
from kernellab.ir.ops import AttrKind
from kernellab.ir.parser import parse_module
from kernellab.ir.verifier import attr_fits, verify
from tests.ir.catalog import build_catalog
from tests.ir.random_ir import random_module

VALID = """#f0 = "/k.py"
func @helper(%a: f32, %b: f32) -> (f32) attributes {noinline = true} {
  %s = add(%a, %b) : f32 loc(#f0:2:4)
  return(%s) loc(#f0:3:4)
}
func @kernel(%p: ptr<f32>, %n: i32) attributes {kernel = true} {
  %pid = program_id {axis = 0} : i32 loc(#f0:10:6)
  %zero = constant {value = 0} : i32 loc(#f0:11:6)
  %one = constant {value = 1} : i32 loc(#f0:11:9)
  %init = constant {value = 0.0} : f32 loc(#f0:12:6)
  %acc = for(%zero, %n, %one, init=[%init]) : f32 {
    ^(%i: i32, %x: f32):
    %c = cmp(%i, %pid) {predicate = "eq"} : i1 loc(#f0:14:8)
    %y = if(%c) : f32 {
      %t = call(%x, %x) {callee = "helper"} : f32 loc(#f0:15:12)
      yield(%t) loc(#f0:15:12)
    }, {
      %e = neg(%x) : f32 loc(#f0:16:12)
      yield(%e) loc(#f0:16:12)
    } loc(#f0:15:8)
    yield(%y) loc(#f0:17:8)
  } loc(#f0:13:4)
  %w = while(%n) : i32 {
    ^(%v: i32):
    %go = cmp(%v, %zero) {predicate = "gt"} : i1 loc(#f0:20:8)
    condition(%go, values=[%v]) loc(#f0:20:8)
  }, {
    ^(%u: i32):
    %u1 = sub(%u, %one) : i32 loc(#f0:21:8)
    yield(%u1) loc(#f0:21:8)
  } loc(#f0:19:4)
  %q = addptr(%p, %pid) : ptr<f32> loc(#f0:22:4)
  store(%q, %acc) loc(#f0:23:4)
  return loc(#f0:24:4)
}
"""


def valid():
    return parse_module(VALID)


def ops_of(module, name):
    return [op for op in module.walk() if op.name == name]


def test_valid_modules_verify():
    verify(valid())
    verify(build_catalog()[0])
    for seed in range(10):
        verify(random_module(seed))


def test_a_lone_function_verifies_without_call_checks():
    module = valid()
    verify(module.functions["kernel"])
    module.functions["kernel"].body.ops[4].regions[0].ops[1].regions[0].ops[0].attrs["callee"] = "nope"
    verify(module.functions["kernel"])
    with pytest.raises(VerifyError, match="undefined function @nope"):
        verify(module.functions["kernel"], module)


def _unknown_op(m):
    kernel = m.functions["kernel"]
    kernel.body.insert(0, Op("bogus", [], [], segments=()))


def _bad_segments(m):
    ops_of(m, "store")[0].segments = (1, 1)


def _segment_sum(m):
    ops_of(m, "for")[0].segments = (1, 1, 1, 2)


def _missing_attr(m):
    del ops_of(m, "program_id")[0].attrs["axis"]


def _wrong_attr_kind(m):
    ops_of(m, "program_id")[0].attrs["axis"] = "0"


def _unknown_attr(m):
    ops_of(m, "cmp")[0].attrs["fast"] = True


def _result_count(m):
    store = ops_of(m, "store")[0]
    store.results = [Op("constant", [], [T.i32], {"value": 1}).result]


def _region_count(m):
    ops_of(m, "if")[0].regions.append(Block())


def _missing_terminator(m):
    region = ops_of(m, "if")[0].regions[1]
    region.remove(region.ops[-1])


def _terminator_not_last(m):
    body = ops_of(m, "for")[0].regions[0]
    body.insert(0, Op("yield", [body.args[1]], []))
    body.ops[0].parent = body


def _wrong_terminator(m):
    body = ops_of(m, "for")[0].regions[0]
    body.ops[-1].name = "return"


def _use_before_def(m):
    kernel = m.functions["kernel"].body
    kernel.insert(4, kernel.ops.pop(0))


def _sibling_region(m):
    then, other = ops_of(m, "if")[0].regions
    other.ops[0].operands[0] = then.ops[0].result


def _region_value_after_region(m):
    loop = ops_of(m, "for")[0]
    ops_of(m, "store")[0].operands[1] = loop.regions[0].ops[1].result


def _other_function(m):
    ops_of(m, "store")[0].operands[1] = m.functions["helper"].args[0]


def _erased_value(m):
    ops_of(m, "store")[0].operands[1] = Op("constant", [], [T.f32], {"value": 1.0}).result


def _missing_callee(m):
    del m.functions["helper"]


def _call_arg_types(m):
    ops_of(m, "call")[0].operands[1] = ops_of(m, "for")[0].regions[0].args[0]


def _call_result_types(m):
    ops_of(m, "call")[0].results[0].type = T.i32


def _return_types(m):
    m.functions["helper"].result_types = [T.f64]


def _return_in_kernel_with_values(m):
    ops_of(m, "return")[1].operands.append(m.functions["kernel"].args[1])
    ops_of(m, "return")[1].segments = (1,)


def _op_hook(m):
    ops_of(m, "sub")[0].operands[1] = ops_of(m, "program_id")[0].result.owner.results[0]
    ops_of(m, "sub")[0].results[0].type = T.f32


def _parent_link(m):
    ops_of(m, "neg")[0].parent = None


def _numpy_attr(m):
    ops_of(m, "constant")[0].attrs["value"] = np.int32(0)


def _unprintable_function_attr(m):
    m.functions["kernel"].attrs["options"] = {"num_warps": 4}


def _arg_types(m):
    m.functions["kernel"].arg_types = [T.i32, T.i32]


DEFECTS = [
    (_unknown_op, "unknown op 'bogus'", None),
    (_bad_segments, "store declares operand groups ['ptr', 'value', 'mask']", "store"),
    (_segment_sum, "add up to 5, but it has 4 operand(s)", "for"),
    (_missing_attr, "program_id needs the attribute axis (int)", "program_id"),
    (_wrong_attr_kind, "attribute axis of program_id must be int, got '0'", "program_id"),
    (_unknown_attr, "cmp has no attribute 'fast' (it has: predicate)", "cmp"),
    (_result_count, "store has 0 result(s), got 1", "store"),
    (_region_count, "if has 2 region(s), got 3", "if"),
    (_missing_terminator, "region 1 of if must end in yield, but ends in neg", "neg"),
    (_terminator_not_last, "terminator yield must be the last op of its block, but 3 op(s) follow it", "yield"),
    (_wrong_terminator, "region 0 of for must end in yield, but ends in return", "return"),
    (_use_before_def, "operand 1 (pid: i32) of cmp is used before it is defined", "cmp"),
    (_sibling_region, "operand 0 (t: f32) of neg is defined in a region that does not enclose this use", "neg"),
    (_region_value_after_region, "operand 1 (y: f32) of store is defined in a region that does not enclose",
     "store"),
    (_other_function, "operand 1 (a: f32) of store is not defined in this function", "store"),
    (_erased_value, "operand 1 (unnamed: f32) of store is not defined in this function", "store"),
    (_missing_callee, "call to undefined function @helper (the module has: @kernel)", "call"),
    (_call_arg_types, "call to @helper passes (f32, i32), but it takes (f32, f32)", "call"),
    (_call_result_types, "call to @helper expects results (i32), but it returns (f32)", "call"),
    (_return_types, "return gives (f32), but the function returns (f64)", "return"),
    (_return_in_kernel_with_values, "return gives (i32), but the function returns ()", "return"),
    (_op_hook, "operands and result must have one type", "sub"),
    (_parent_link, "parent link does not point at the block holding it", "neg"),
    (_numpy_attr, "attribute value of constant must be number, got np.int32(0)", "constant"),
    (_unprintable_function_attr, "attribute of @kernel options = {'num_warps': 4} cannot be printed", None),
    (_arg_types, "arguments (ptr<f32>, i32) differ from the declared (i32, i32)", None),
]


@pytest.mark.parametrize("defect,message,op_name", DEFECTS, ids=[d[0].__name__[1:] for d in DEFECTS])
def test_defects_are_caught_with_useful_messages(defect, message, op_name):
    module = valid()
    defect(module)
    with pytest.raises(VerifyError) as info:
        verify(module)
    text = str(info.value)
    assert text.startswith("in @") or "@kernel" in text, text
    assert message in text, text
    if op_name is not None:
        assert info.value.op is not None and info.value.op.name == op_name
        if info.value.op.loc.line:
            assert f"({op_name} at /k.py:{info.value.op.loc.line}:" in text


def test_hook_crash_on_malformed_ir_is_a_verify_error():
    module = valid()
    kernel = module.functions["kernel"]
    kernel.body.insert(0, Op("reshape", [kernel.args[1]], [T.tile(T.i32, (1,))], {"can_reorder": False}))
    with pytest.raises(VerifyError, match=r"reshape is malformed \(AttributeError: .*numel"):
        verify(module)


def test_errors_name_the_location_of_the_op():
    module = valid()
    op = ops_of(module, "neg")[0]
    op.results[0].type = T.f64
    with pytest.raises(VerifyError, match=r"in @kernel: .*\(neg at /k.py:16:12\)"):
        verify(module)
    assert op.loc == Location("/k.py", 16, 12)


@pytest.mark.parametrize("kind,good,bad", [
    (AttrKind.INT, 3, True), (AttrKind.FLOAT, 1.0, 1), (AttrKind.NUMBER, True, "1"), (AttrKind.BOOL, False, 0),
    (AttrKind.STR, "", None), (AttrKind.TYPE, T.f32, "f32"), (AttrKind.INTS, [1, 2], (1, 2.0)),
    (AttrKind.STRS, ("a",), "a"),
])
def test_attribute_kinds(kind, good, bad):
    assert attr_fits(kind, good) and not attr_fits(kind, bad)
