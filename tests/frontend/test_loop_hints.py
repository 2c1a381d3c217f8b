"""Loop hints from the kernel to the machine code: ``tl.range(..., disable_licm=True)`` and
``while tl.condition(c, disable_licm=True)`` keep loop-invariant code in the loop (kernellab's
LICM on Tile IR, ``!llvm.loop`` with ``llvm.licm.disable`` in the LLVM IR of the CPU and CUDA
targets), ``tl.range(..., loop_unroll_factor=N)`` unrolls the loop N times
(``llvm.loop.unroll.count``), and the loops still compute what they did."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas

TARGETS = ["cpu", "cuda:sm_90a"]


@kl.jit
def scaled_copy(x_ptr, y_ptr, n, s, NO_LICM: tl.constexpr):
    for i in tl.range(0, n, disable_licm=NO_LICM):
        t = s * 3.0 + 1.0
        tl.store(y_ptr + i, tl.load(x_ptr + i) * t)


@kl.jit
def counted_while(y_ptr, n, s, NO_LICM: tl.constexpr):
    i = 0
    while tl.condition(i < n, disable_licm=NO_LICM):
        tl.store(y_ptr + i, s * 2.0 + i)
        i += 1


@kl.jit
def unrolled_sum(x_ptr, y_ptr, n, FACTOR: tl.constexpr):
    acc = 0.0
    for i in tl.range(0, n, loop_unroll_factor=FACTOR):
        acc += tl.load(x_ptr + i)
    tl.store(y_ptr, acc)


def _compile(fn, target: str, **constexprs):
    signature = {name: kind for name, kind in (("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("n", "i32"), ("s", "fp32"))
                 if name in fn.arg_names}
    return kl.compile(fn, signature=signature, constexprs=constexprs, target=target)


def _loop_ids(llvm: str) -> list[str]:
    """The properties of every ``!llvm.loop`` id of a module, as text."""
    ids = set(re.findall(r"!llvm\.loop (!\d+)", llvm))
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", llvm, re.MULTILINE))
    out = []
    for node in sorted(ids):
        refs = re.findall(r"!\d+", nodes[node])[1:]
        out.append(" ".join(nodes[r] for r in refs))
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", [scaled_copy, counted_while], ids=["tl.range", "tl.condition"])
def test_disable_licm_reaches_the_llvm_loop(fn, target):
    marked, plain = _compile(fn, target, NO_LICM=True), _compile(fn, target, NO_LICM=False)
    assert _loop_ids(marked.asm["llvm"]) == ['!{ !"llvm.licm.disable" }']
    assert "llvm.licm.disable" not in plain.asm["llvm"]
    if target.startswith("cuda") and ptxas.find_ptxas() is not None:
        ptxas.assemble(marked.asm["ptx"], "sm_90a")


def test_disable_licm_keeps_invariant_code_in_the_loop():
    def before_loop(kernel) -> str:
        tile = kernel.asm["tile"]
        return tile[:tile.index("for(")]

    assert " mul(" in before_loop(_compile(scaled_copy, "cpu", NO_LICM=False))
    assert " mul(" not in before_loop(_compile(scaled_copy, "cpu", NO_LICM=True))


@pytest.mark.parametrize("factor", [2, 4, 5])
def test_loop_unroll_factor_unrolls_the_loop(factor):
    kernel = _compile(unrolled_sum, "cuda:sm_90a", FACTOR=factor)
    assert _loop_ids(kernel.asm["llvm"]) == [f'!{{ !"llvm.loop.unroll.count", i32 {factor} }}']
    # the unrolled body's loads, and one in the loop for the remaining iterations
    assert kernel.asm["ptx"].count("ld.global") == factor + 1


def test_loop_unroll_factor_below_two_asks_nothing():
    assert _loop_ids(_compile(unrolled_sum, "cuda:sm_90a", FACTOR=1).asm["llvm"]) == []


@pytest.mark.parametrize("no_licm", [False, True])
def test_hinted_loops_compute_the_same(host_target, rng, no_licm):
    n, s = 37, float(rng.uniform(0.5, 2.0))
    x = rng.standard_normal(n).astype(np.float32)
    y, w = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    scaled_copy[(1,)](x, y, n, s, NO_LICM=no_licm)
    counted_while[(1,)](w, n, s, NO_LICM=no_licm)
    total = np.full(1, np.nan, np.float32)
    unrolled_sum[(1,)](x, total, n, FACTOR=4 if no_licm else 3)
    np.testing.assert_allclose(y, x * np.float32(s * 3.0 + 1.0), rtol=1e-6)
    np.testing.assert_allclose(w, np.float32(s * 2.0) + np.arange(n, dtype=np.float32), rtol=1e-6)
    np.testing.assert_allclose(total, x.sum(dtype=np.float64), rtol=1e-5)


def test_tl_condition_outside_a_while_is_a_compile_error(host_target):
    @kl.jit
    def kernel(y_ptr, n):
        if tl.condition(n > 0):
            tl.store(y_ptr, 1.0)

    with pytest.raises(kl.CompilationError, match="condition of a while loop"):
        kernel[(1,)](np.zeros(1, np.float32), 3)
