"""A jit callee is specialized per compile-time value; an unhashable one (no ``__hash__``) is told
apart by identity.  One made while lowering (a ``constexpr_function``'s result) is freed after
its call, and the next one may get its address: the specialization key must still tell them
apart (it named the value by ``id`` alone, so every call after the first reused the first
call's callee)."""

from __future__ import annotations

import numpy as np

import kernellab.language as tl
from tests.frontend.support import jit, module_of, run


class Factor:
    """Unhashable; its many slots put it in a size class little else uses, so a freed one's
    memory is what the next one gets."""

    __hash__ = None  # type: ignore[assignment]
    __slots__ = ("k",) + tuple(f"pad{i}" for i in range(40))

    def __init__(self, k: float):
        self.k = k


@tl.constexpr_function
def factor(k):
    return Factor(k)


@jit
def scaled(x, f):
    return x * f.k


@jit
def sum_of_scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in tl.static_range(4):
        acc += scaled(x, factor(i + 2))
    tl.store(out_ptr + offsets, acc)


def test_callees_of_unhashable_constants_made_while_lowering_are_told_apart(inputs):
    module = module_of(sum_of_scaled, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, BLOCK=16)
    callees = [op.attrs["callee"] for op in module.walk() if op.name == "call"]
    assert len(set(callees)) == 4
    x, out = inputs.normal(16), inputs.poisoned(16)
    run(module, (1,), x, out)
    np.testing.assert_allclose(out, x * (2 + 3 + 4 + 5), rtol=1e-6)
