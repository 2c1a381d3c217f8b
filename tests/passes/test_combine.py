"""The combine pass: ``add(dot(a, b, 0), d)`` becomes ``dot(a, b, d)`` at the dot's location
(Triton's combine), only for a single-use dot with a zero accumulator in the add's block; the
kernels compute the same on the host targets and the dot's line is the one the PTX names."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.passes import combine
from tests.filecheck import filecheck
from tests.passes.util import run_pass

HEADER = '#f0 = "/k.py"\nfunc @k(%a: tile<16x16xi8>, %b: tile<16x16xi8>, %d: tile<16x16xi32>) -> (tile<16x16xi32>) ' \
         'attributes {kernel = true} {\n'


def _module(body: str) -> str:
    return HEADER + body + "}\n"


def test_the_add_goes_into_the_dot_at_the_dots_line():
    out = run_pass(combine, _module("""  %z = constant {value = 0} : tile<16x16xi32>
  %p = dot(%a, %b, %z) : tile<16x16xi32> loc(#f0:3:8)
  %s = add(%d, %p) : tile<16x16xi32> loc(#f0:4:8)
  return(%s)
"""))
    filecheck(out, """
        CHECK: %p = dot(%a, %b, %d) {{.*}}: tile<16x16xi32> loc(#f0:3:8)
        CHECK-NOT: add
        CHECK: return(%p)
    """)


@pytest.mark.parametrize("body", [
    # the dot's result is used twice
    """  %z = constant {value = 0} : tile<16x16xi32>
  %p = dot(%a, %b, %z) : tile<16x16xi32>
  %s = add(%p, %d) : tile<16x16xi32>
  %t = add(%s, %p) : tile<16x16xi32>
  return(%t)
""",
    # the accumulator is not zero
    """  %o = constant {value = 1} : tile<16x16xi32>
  %p = dot(%a, %b, %o) : tile<16x16xi32>
  %s = add(%p, %d) : tile<16x16xi32>
  return(%s)
""",
])
def test_nothing_is_combined_where_it_could_change_a_value(body):
    assert "add(" in run_pass(combine, _module(body))


@kl.jit
def dot_plus(a_ptr, b_ptr, d_ptr, out_ptr, N: tl.constexpr):
    rows, cols = tl.arange(0, N)[:, None], tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + rows * N + cols)
    b = tl.load(b_ptr + rows * N + cols)
    d = tl.load(d_ptr + rows * N + cols)
    product = tl.dot(a, b)
    total = d + product
    tl.store(out_ptr + rows * N + cols, total)


@pytest.mark.parametrize("dtype, acc", [(np.int8, np.int32), (np.float16, np.float32)])
def test_combined_kernels_compute_the_same(host_target, inputs, dtype, acc):
    n = 16
    if dtype == np.int8:
        a, b = (inputs.integers((n, n), -100, 100, np.int8) for _ in range(2))
        d = inputs.integers((n, n), -1000, 1000, np.int32)
    else:
        a, b = (inputs.normal((n, n)).astype(dtype) for _ in range(2))
        d = inputs.normal((n, n)).astype(acc)
    out = np.full((n, n), -1, acc)
    compiled = dot_plus[(1,)](a, b, d, out, n)
    assert not re.search(r"= add\(", compiled.asm["tile"])
    expected = a.astype(np.float64) @ b.astype(np.float64) + d
    np.testing.assert_allclose(out, expected.astype(acc), rtol=1e-5, atol=1e-3)


def test_the_ptx_names_the_dots_line_not_the_adds():
    kernel = kl.compile(dot_plus, signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "d_ptr": "*fp32", "out_ptr": "*fp32"},
                        constexprs={"N": 16}, target="cuda:sm_90a")  # (8-bit operands need K >= 32 on CUDA)
    source = open(dot_plus.fn.__code__.co_filename).read().splitlines()
    dot_line = next(i + 1 for i, text in enumerate(source) if "product = tl.dot(a, b)" in text)
    lines = {int(m) for m in re.findall(r"\.loc\s+\d+\s+(\d+)", kernel.asm["ptx"])}
    assert "d + product" in source[dot_line]  # the line after the dot's: the add's
    assert dot_line in lines and dot_line + 1 not in lines
