"""The default pipeline, the pass table, and differential checks of every pass on random IR."""

import numpy as np
import pytest

from kernellab.ir.parser import parse_module
from kernellab.ir.printer import print_module
from kernellab.ir.verifier import verify
from kernellab.passes import DEFAULT_PIPELINE, PASSES, default_pipeline, run_passes
from tests.filecheck import filecheck
from tests.ir.catalog import build_catalog
from tests.ir.random_ir import random_module
from tests.passes.evaluate import Memory, evaluate, same_values
from tests.passes.util import run_pass

VECTOR_ADD = """#f0 = "/tutorial.py"
func @add_kernel(%x_ptr: ptr<f32> {divisibility = 16}, %y_ptr: ptr<f32>, %out_ptr: ptr<f32>, %n: i32) \
attributes {kernel = true} {
  %pid = program_id {axis = 0} : i32 loc(#f0:3:10)
  %block = constant {value = 4} : i32 loc(#f0:4:18)
  %start = mul(%pid, %block) : i32 loc(#f0:4:12)
  %range = arange {start = 0, end = 4} : tile<4xi32> loc(#f0:5:20)
  %starts = splat(%start) : tile<4xi32> loc(#f0:5:12)
  %offs = add(%starts, %range) : tile<4xi32> loc(#f0:5:12)
  %ns = splat(%n) : tile<4xi32> loc(#f0:6:11)
  %mask = cmp(%offs, %ns) {predicate = "lt"} : tile<4xi1> loc(#f0:6:11)
  %xs = splat(%x_ptr) : tile<4xptr<f32>> loc(#f0:7:8)
  %xp = addptr(%xs, %offs) : tile<4xptr<f32>> loc(#f0:7:8)
  %x = load(%xp, mask=%mask) : tile<4xf32> loc(#f0:7:8)
  %ys = splat(%y_ptr) : tile<4xptr<f32>> loc(#f0:8:8)
  %yp = addptr(%ys, %offs) : tile<4xptr<f32>> loc(#f0:8:8)
  %y = load(%yp, mask=%mask) : tile<4xf32> loc(#f0:8:8)
  %z = call(%x, %y) {callee = "combine"} : tile<4xf32> loc(#f0:9:8)
  %os = splat(%out_ptr) : tile<4xptr<f32>> loc(#f0:10:4)
  %op = addptr(%os, %offs) : tile<4xptr<f32>> loc(#f0:10:4)
  store(%op, %z, mask=%mask) loc(#f0:10:4)
  return loc(#f0:11:4)
}
func @combine(%a: tile<4xf32>, %b: tile<4xf32>) -> (tile<4xf32>) {
  %one = constant {value = 1.0} : tile<4xf32> loc(#f0:14:15)
  %a1 = mul(%a, %one) : tile<4xf32> loc(#f0:14:11)
  %zero = constant {value = 0} : i32 loc(#f0:15:19)
  %step = constant {value = 1} : i32 loc(#f0:15:19)
  %two = constant {value = 2} : i32 loc(#f0:15:19)
  %r = for(%zero, %two, %step, init=[%a1]) : tile<4xf32> {
    ^(%i: i32, %acc: tile<4xf32>):
    %half = constant {value = 0.5} : tile<4xf32> loc(#f0:16:21)
    %hb = mul(%b, %half) : tile<4xf32> loc(#f0:16:17)
    %next = add(%acc, %hb) : tile<4xf32> loc(#f0:16:8)
    yield(%next) loc(#f0:16:8)
  } loc(#f0:15:4)
  return(%r) loc(#f0:17:4)
}
"""


def test_pass_table_and_default_order():
    assert set(PASSES) == {"inline", "canonicalize", "cse", "dce", "combine", "licm"}
    assert DEFAULT_PIPELINE == ("inline", "canonicalize", "cse", "dce", "combine", "licm", "canonicalize", "dce")
    with pytest.raises(ValueError, match="unknown pass"):
        run_passes(parse_module(VECTOR_ADD), ["inline", "vectorize"])


def test_default_pipeline_on_a_tutorial_kernel():
    out = run_pass(default_pipeline, VECTOR_ADD)
    filecheck(out, """
        CHECK-NOT: func @combine
        CHECK: %y = load(%yp, mask=%mask)
        CHECK-NEXT: %zero = constant {value = 0} : i32 loc(#f0:15:19)
        CHECK-NEXT: %step = constant {value = 1}
        CHECK-NEXT: %two = constant {value = 2}
        CHECK-NEXT: %half = constant {value = 0.5} : tile<4xf32> loc(#f0:16:21)
        CHECK-NEXT: %hb = mul(%y, %half) : tile<4xf32> loc(#f0:16:17)
        CHECK-NEXT: %r = for(%zero, %two, %step, init=[%x])
        CHECK-NEXT: ^(%i: i32, %acc: tile<4xf32>):
        CHECK-NEXT: %next = add(%acc, %hb)
        CHECK-NEXT: yield(%next)
        CHECK: store(%op, %r, mask=%mask) loc(#f0:10:4)
        CHECK-NOT: call
    """)


def test_default_pipeline_keeps_what_the_kernel_writes():
    rng = np.random.default_rng(11)
    n = 10
    snapshots = []
    x = (rng.random(12) + 0.5).astype(np.float32)
    y = (rng.random(12) + 0.5).astype(np.float32)
    for source in (VECTOR_ADD, run_pass(default_pipeline, VECTOR_ADD)):
        memory = Memory()
        out = np.full(12, np.nan, np.float32)
        pointers = [memory.allocate(a) for a in (x, y, out)]
        for pid in range(3):
            memory.program_ids = (pid, 0, 0)
            evaluate(parse_module(source), [*pointers, np.int32(n)], memory=memory)
        snapshots.append(memory.snapshot())
        written = np.frombuffer(memory.snapshot(), np.float32, count=12, offset=2 * (48 + 64))
        np.testing.assert_array_equal(written[:n], x[:n] + np.float32(0.5) * y[:n] + np.float32(0.5) * y[:n])
        assert np.isnan(written[n:]).all()
    assert snapshots[0] == snapshots[1]


def _random_args(rng):
    return [np.int32(rng.integers(1, 100)), np.float32(rng.normal() + 3), rng.integers(1, 100, 4).astype(np.int32),
            (rng.normal(size=4) + 3).astype(np.float32)]


@pytest.mark.parametrize("seed", range(30))
def test_every_pass_keeps_results_on_random_code(seed):
    text = print_module(random_module(seed, functions=1, steps=20 + seed % 15))
    rng = np.random.default_rng(seed)
    args = _random_args(rng)
    expected = evaluate(parse_module(text), args)
    for name in [*PASSES, "pipeline"]:
        module = parse_module(text)
        module = default_pipeline(module) if name == "pipeline" else PASSES[name](module)
        verify(module)
        assert same_values(expected, evaluate(module, args)), f"{name} changed the result (seed {seed})"


def test_pipeline_shrinks_random_code():
    before = after = 0
    for seed in range(10):
        module = random_module(seed, functions=1)
        before += sum(1 for _ in module.walk())
        after += sum(1 for _ in default_pipeline(module).walk())
    assert after < before / 2


def test_pipeline_handles_every_op():
    module, _ = build_catalog()
    default_pipeline(module)
    verify(module)
    printed = print_module(module)
    assert print_module(parse_module(printed)) == printed
    filecheck(printed, """
        CHECK: func @scale
        CHECK: func @catalog
        CHECK-DAG: store(%block
        CHECK-DAG: descriptor_store
        CHECK-DAG: atomic_rmw
        CHECK-DAG: atomic_cas
        CHECK-DAG: call(
        CHECK-DAG: inline_asm
        CHECK-DAG: print(
        CHECK-DAG: assert(
        CHECK-DAG: barrier
        CHECK-DAG: while(
    """)
