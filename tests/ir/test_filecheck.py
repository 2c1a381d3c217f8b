"""The FileCheck helper used by the IR and pass tests."""

import pytest

from kernellab.testing.filecheck import FileCheckError, compile_pattern, filecheck, parse_directives

TEXT = """\
func @k(%x: i32) {
  %a = add(%x, %x) : i32
  %b = mul(%a, %x) : i32
  store(%p, %b)

  return
}
"""


def test_plain_check_in_order():
    filecheck(TEXT, "CHECK: func @k\nCHECK: mul\nCHECK: return")


def test_plain_check_out_of_order_fails():
    with pytest.raises(FileCheckError, match=r"CHECK: add .*check line 2.*no match"):
        filecheck(TEXT, "CHECK: mul\nCHECK: add")


def test_directives_after_comment_markers_and_other_prefixes_ignored():
    directives = parse_directives("# CHECK: a\n// CHECK-NEXT: b\nMYCHECK: c\nCHECKS: d\n  CHECK-DAG:  e  ")
    assert [(d.kind, d.pattern) for d in directives] == [("CHECK", "a"), ("NEXT", "b"), ("DAG", "e")]


def test_no_directives_is_an_error():
    with pytest.raises(ValueError, match="no CHECK: directives"):
        filecheck(TEXT, "nothing here")


def test_next_on_following_line():
    filecheck(TEXT, "CHECK: add\nCHECK-NEXT: mul\nCHECK-NEXT: store")


def test_next_fails_when_a_line_is_skipped():
    with pytest.raises(FileCheckError, match="not on the next line; the first match is on line 4"):
        filecheck(TEXT, "CHECK: add\nCHECK-NEXT: store")


def test_next_does_not_match_on_same_line():
    with pytest.raises(FileCheckError, match="CHECK-NEXT"):
        filecheck("a b\nc\n", "CHECK: a\nCHECK-NEXT: b")


def test_same_line():
    filecheck(TEXT, "CHECK: %b = mul\nCHECK-SAME: : i32")
    with pytest.raises(FileCheckError, match="not on the same line"):
        filecheck(TEXT, "CHECK: %b = mul\nCHECK-SAME: store")


def test_same_must_be_after_previous_match():
    with pytest.raises(FileCheckError):
        filecheck("x = add y\n", "CHECK: add\nCHECK-SAME: x")


def test_not_between_matches():
    filecheck(TEXT, "CHECK: add\nCHECK-NOT: sub\nCHECK: return")
    with pytest.raises(FileCheckError, match=r"found 'mul', which must not occur"):
        filecheck(TEXT, "CHECK: add\nCHECK-NOT: mul\nCHECK: return")


def test_not_at_start_and_end():
    filecheck(TEXT, "CHECK-NOT: load\nCHECK: store\nCHECK-NOT: add")
    with pytest.raises(FileCheckError):
        filecheck(TEXT, "CHECK: store\nCHECK-NOT: return")
    with pytest.raises(FileCheckError):
        filecheck(TEXT, "CHECK-NOT: add\nCHECK: store")


def test_dag_any_order():
    filecheck(TEXT, "CHECK: func\nCHECK-DAG: mul\nCHECK-DAG: add\nCHECK: store")


def test_dag_matches_do_not_overlap():
    filecheck("add\nadd\n", "CHECK-DAG: add\nCHECK-DAG: add")
    with pytest.raises(FileCheckError, match="overlap"):
        filecheck("add\nmul\n", "CHECK-DAG: add\nCHECK-DAG: add")


def test_dag_then_check_continues_after_furthest():
    with pytest.raises(FileCheckError):
        filecheck(TEXT, "CHECK-DAG: store\nCHECK-DAG: add\nCHECK: mul")


def test_not_before_dag_group_checks_up_to_first_dag_match():
    with pytest.raises(FileCheckError, match="must not occur"):
        filecheck(TEXT, "CHECK: func\nCHECK-NOT: add\nCHECK-DAG: store\nCHECK-DAG: mul")


def test_empty_line():
    filecheck(TEXT, "CHECK: store\nCHECK-EMPTY:\nCHECK-NEXT: return")
    with pytest.raises(FileCheckError, match="not empty"):
        filecheck(TEXT, "CHECK: add\nCHECK-EMPTY:")


def test_regex_blocks():
    filecheck(TEXT, "CHECK: %{{[a-z]+}} = mul({{%\\w+}}, %x)")
    with pytest.raises(FileCheckError):
        filecheck(TEXT, "CHECK: %{{[0-9]+}} = mul")


def test_variables_capture_and_reuse():
    filecheck(TEXT, "CHECK: [[A:%\\w+]] = add\nCHECK: mul([[A]], %x)")
    with pytest.raises(FileCheckError, match="variables: {'A': '%x'}"):
        filecheck(TEXT, "CHECK: add([[A:%\\w+]]\nCHECK: store([[A]]")


def test_variable_defined_and_used_in_one_pattern():
    filecheck(TEXT, "CHECK: add([[V:%\\w+]], [[V]])")
    with pytest.raises(FileCheckError):
        filecheck(TEXT, "CHECK: mul([[V:%\\w+]], [[V]])")


def test_variable_redefinition_takes_latest():
    filecheck(TEXT, "CHECK: [[R:%\\w+]] = add\nCHECK: [[R:%\\w+]] = mul\nCHECK: store(%p, [[R]])")


def test_undefined_variable():
    with pytest.raises(FileCheckError, match="used before it is captured"):
        filecheck(TEXT, "CHECK: [[NOPE]]")


def test_whitespace_runs_are_flexible_but_required():
    filecheck("a   =\tb\n", "CHECK: a = b")
    with pytest.raises(FileCheckError):
        filecheck("a=b\n", "CHECK: a = b")


def test_literal_regex_characters_are_escaped():
    filecheck("x = f(a.b)*[1]\n", "CHECK: f(a.b)*[1]")
    with pytest.raises(FileCheckError):
        filecheck("x = f(aXb)\n", "CHECK: f(a.b)")


def test_compile_pattern_reports_bad_input():
    with pytest.raises(ValueError, match="unclosed"):
        compile_pattern("a {{b", {})
    with pytest.raises(ValueError, match="bad regex"):
        compile_pattern("{{(}}", {})
    regex, defined = compile_pattern("[[X:\\d+]] [[X]]", {})
    assert defined == ["X"] and regex.fullmatch("12 12") and not regex.fullmatch("12 13")


def test_next_as_first_directive_is_rejected():
    with pytest.raises(ValueError, match="previous CHECK"):
        filecheck(TEXT, "CHECK-NEXT: func")


def test_custom_prefix():
    filecheck(TEXT, "OPT: mul\nCHECK: nonsense-not-checked", prefix="OPT")


def test_count_matches_that_many_times_in_order():
    filecheck(TEXT, "CHECK: func\nCHECK-COUNT-2: %x\nCHECK: mul")
    with pytest.raises(FileCheckError, match=r"CHECK: %a .*check line 1.*no match"):
        filecheck(TEXT, "CHECK-COUNT-3: %a")


def test_count_of_zero_is_rejected():
    with pytest.raises(ValueError, match="at least 1"):
        parse_directives("CHECK-COUNT-0: x")
