"""Dead-code elimination: unused effect-free ops go, effects stay."""

from kernellab.passes import dce
from tests.filecheck import filecheck
from tests.passes.util import run_pass

HEADER = "func @k(%x: i32, %p: ptr<i32>, %n: i32) attributes {kernel = true} {\n"


def test_chains_of_dead_pure_ops_go_and_live_ones_stay():
    out = run_pass(dce, HEADER + """  %a = add(%x, %x) : i32
  %b = mul(%a, %a) : i32
  %c = neg(%b) : i32
  %live = sub(%x, %n) : i32
  store(%p, %live)
  return
}
""")
    filecheck(out, "CHECK-NOT: add\nCHECK-NOT: mul\nCHECK-NOT: neg\nCHECK: %live = sub\nCHECK-NEXT: store(%p, %live)")


def test_loads_go_unless_volatile_and_effects_stay():
    out = run_pass(dce, HEADER + """  %a = load(%p) : i32
  %b = load(%p) {volatile = true} : i32
  %old = atomic_rmw(%p, %x) {kind = "add"} : i32
  %c = cmp(%x, %n) {predicate = "lt"} : i1
  assert(%c) {message = "x < n"}
  print(%x) {prefix = "x"}
  %d = cmp(%n, %x) {predicate = "lt"} : i1
  assume(%d)
  barrier
  return
}
""")
    filecheck(out, """
        CHECK-NOT: %a = load
        CHECK: %b = load(%p) {volatile = true}
        CHECK-NEXT: %old = atomic_rmw
        CHECK-NEXT: %c = cmp
        CHECK-NEXT: assert(%c)
        CHECK-NEXT: print(%x)
        CHECK-NEXT: %d = cmp
        CHECK-NEXT: assume(%d)
        CHECK-NEXT: barrier
    """)


def test_dead_code_inside_regions_and_dead_structured_ops():
    out = run_pass(dce, HEADER + """  %zero = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %unused = for(%zero, %n, %one, init=[%x]) : i32 {
    ^(%i: i32, %acc: i32):
    %s = add(%acc, %i) : i32
    yield(%s)
  }
  %kept = for(%zero, %n, %one, init=[%x]) : i32 {
    ^(%j: i32, %acc2: i32):
    %dead = mul(%acc2, %acc2) : i32
    %q = addptr(%p, %j) : ptr<i32>
    store(%q, %acc2)
    yield(%acc2)
  }
  %c = cmp(%x, %n) {predicate = "lt"} : i1
  if(%c) {
    %e = neg(%x) : i32
    yield
  }, {
    yield
  }
  %w = while(%x) : i32 {
    ^(%v: i32):
    %go = cmp(%v, %zero) {predicate = "gt"} : i1
    condition(%go, values=[%v])
  }, {
    ^(%u: i32):
    %u1 = sub(%u, %one) : i32
    yield(%u1)
  }
  return
}
""")
    filecheck(out, """
        CHECK-NOT: %unused
        CHECK: %kept = for
        CHECK-NEXT: ^(%j: i32, %acc2: i32):
        CHECK-NEXT: %q = addptr(%p, %j)
        CHECK-NEXT: store(%q, %acc2)
        CHECK-NEXT: yield(%acc2)
        CHECK-NEXT: }
        CHECK-NEXT: %w = while(%x)
    """)
    assert "if(" not in out and "%dead" not in out and "cmp(%x, %n)" not in out


def test_inline_asm_goes_only_when_pure():
    out = run_pass(dce, HEADER + """  %a = inline_asm(%x) {asm = "mov.b32 $0, $1;", constraints = "=r,r"} : i32
  %b = inline_asm(%x) {asm = "st.global.b32 [$1], $1;", constraints = "=r,r", pure = false} : i32
  return
}
""")
    filecheck(out, "CHECK-NOT: mov.b32\nCHECK: %b = inline_asm(%x) {asm = \"st.global")
