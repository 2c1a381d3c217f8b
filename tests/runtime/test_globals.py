"""Globals a kernel reads: non-constexpr ones are checked at launch, constexpr ones are part
of the cache key."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

from . import sample_kernels as sk


@pytest.fixture
def interpret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")


def run(kernel, inputs, n: int = 100):
    x, out = inputs.normal(n), inputs.poisoned(n)
    kernel[(1,)](x, out, n, BLOCK=128)
    return x, out


def test_changed_global_raises(inputs, interpret, monkeypatch):
    kernel = kl.jit(sk.scale_by_global.fn)
    x, out = run(kernel, inputs)
    np.testing.assert_array_equal(out, x * np.float32(2.0))
    monkeypatch.setattr(sk, "SCALE", 3.0)
    with pytest.raises(RuntimeError, match=r"global `SCALE` changed since `scale_by_global` was compiled "
                                           r"\(2\.0 -> 3\.0\); declare it tl.constexpr or pass it as an argument"):
        run(kernel, inputs)
    monkeypatch.setattr(sk, "SCALE", 2.0)  # back to the compiled value: launches again
    x, out = run(kernel, inputs)
    np.testing.assert_array_equal(out, x * np.float32(2.0))


def test_a_global_of_another_type_is_a_change(inputs, interpret, monkeypatch):
    kernel = kl.jit(sk.scale_by_global.fn)
    run(kernel, inputs)
    monkeypatch.setattr(sk, "SCALE", 2)
    with pytest.raises(RuntimeError, match="SCALE"):
        run(kernel, inputs)


def test_constexpr_globals_are_in_the_cache_key(inputs, interpret, monkeypatch):
    first = kl.jit(sk.add_constexpr_global.fn)
    x, out = run(first, inputs)
    np.testing.assert_array_equal(out, x + np.float32(3))
    monkeypatch.setattr(sk, "OFFSET", tl.constexpr(5))
    run(first, inputs)  # not checked at launch: the kernel compiled with 3 keeps running
    second = kl.jit(sk.add_constexpr_global.fn)
    x, out = run(second, inputs)
    np.testing.assert_array_equal(out, x + np.float32(5))
    assert second.stats == {"compiled": 1, "disk": 0}  # a new key, not the entry compiled with OFFSET = 3


def test_only_kernels_reading_plain_globals_check_them():
    plain, constant = kl.jit(sk.scale_by_global.fn), kl.jit(sk.add_constexpr_global.fn)
    plain.binder, constant.binder
    assert "_kl_check_globals()" in plain.binder_source
    assert "_kl_check_globals()" not in constant.binder_source
    assert [name for name, _, _ in plain._watched] == ["SCALE"] and constant._watched == []
