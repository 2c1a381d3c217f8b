"""Triton's ``tl.core`` holds the language itself: kernels and libraries write
``tl.core.static_range``, ``from triton.language.core import static_range`` and call
``tl.core._unwrap_if_constexpr`` in their constexpr functions (FlagGems' bitonic sort)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.language.core import _unwrap_if_constexpr, static_range


@tl.constexpr_function
def _twice(n):
    return 2 * tl.core._unwrap_if_constexpr(n)


@kl.jit
def unrolled_sum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.core.static_range(STEPS):
        acc += tl.core.load(x_ptr + i * BLOCK + offs)
    for _ in static_range(_twice(STEPS)):
        acc += 1.0
    tl.store(out_ptr + offs, acc)


def test_core_namespace_names_the_language(launch, inputs):
    block, steps = 32, 3
    x = inputs.normal(steps * block)
    out = inputs.poisoned(block)
    launch(unrolled_sum_kernel, (1,), x, out, BLOCK=block, STEPS=steps)
    expected = x.reshape(steps, block).sum(axis=0) + 2 * steps
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_core_names_are_the_languages_own():
    assert tl.core.static_range is tl.static_range and tl.core.float32 is tl.float32
    assert _unwrap_if_constexpr(tl.constexpr(3)) == 3 and _unwrap_if_constexpr(5) == 5
    constant = tl.constexpr([tl.constexpr(1)])
    assert _unwrap_if_constexpr(constant) == [tl.constexpr(1)]  # one level, as Triton's


@pytest.mark.parametrize("name", ["no_such_builtin", "_private", "standard"])
def test_other_names_are_attribute_errors(name):
    with pytest.raises(AttributeError, match=name):
        getattr(tl.core, name)


@kl.jit
def _scaled(x, flag: tl.constexpr = tl.core.CONSTEXPR_0):
    # a jit function's default from tl.core (fla's bitonic argsort: descending=tl.core.CONSTEXPR_0)
    if flag:
        return -x
    return x


@kl.jit
def constexpr_0_default_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, _scaled(x) + 2 * _scaled(x, 1))


def test_constexpr_0_is_a_default_of_jit_functions(launch, inputs):
    assert tl.core.CONSTEXPR_0 == tl.constexpr(0) and isinstance(tl.core.CONSTEXPR_0, tl.constexpr)
    x = inputs.normal(32)
    out = inputs.poisoned(32)
    launch(constexpr_0_default_kernel, (1,), x, out, BLOCK=32)
    np.testing.assert_allclose(out, -x, rtol=1e-6)
