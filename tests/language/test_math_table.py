"""``tl.math``'s functions of the math table are made from their names in
``language/math.py``'s ``TABLE`` (so that ``import kernellab.language`` does not import
``ir/mathfns``): the names, arities and descriptions there are the table's."""

from __future__ import annotations

import numpy as np

import kernellab as kl
import kernellab.language as tl
from kernellab.ir.mathfns import in_module
from kernellab.language import math as tl_math


def test_the_names_and_descriptions_are_the_tables() -> None:
    declared = in_module("math")
    assert list(tl_math.TABLE) == [fn.name for fn in declared]
    for fn in declared:
        assert fn.arity == 1 and tl_math.TABLE[fn.name] == fn.doc, fn.name
        made = getattr(tl, fn.name)
        assert made.__doc__ == tl_math.math_builtin(fn).__doc__ and made.__name__ == fn.name
        assert getattr(tl.tensor, fn.name) is made  # x.exp() too


@kl.jit
def _table_functions(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.exp(x) + x.sqrt() + tl.math.floor(x) + tl.sigmoid(x))


def test_they_compute_as_declared(monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x = np.random.default_rng(3).uniform(0.5, 3.0, 64).astype(np.float32)
    out = np.full(64, np.nan, np.float32)
    _table_functions[(1,)](x, out, BLOCK=64)
    expected = np.exp(x) + np.sqrt(x) + np.floor(x) + 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(out, expected, rtol=1e-5)
