"""Triton's JIT hooks (``knobs.runtime.jit_cache_hook``, ``jit_post_compile_hook``) and
``JITFunction.preload``: the hooks get Triton's keywords on an in-memory cache miss (a true
answer from the cache hook means nothing is compiled or launched), and the specialization data
they carry compiles the same kernel again (tuples, constexpr elements, NamedTuples, dtypes and
jit functions included)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import knobs


@pytest.fixture
def hooks(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    calls: dict[str, list] = {"cache": [], "post": []}
    with knobs.runtime.scope():
        knobs.runtime.jit_cache_hook = lambda **kw: calls["cache"].append(kw)
        knobs.runtime.jit_post_compile_hook = lambda **kw: calls["post"].append(kw)
        yield calls


class Block(NamedTuple):
    size: object
    dtype: object


@kl.jit
def twice(x):
    return x * 2


@kl.jit
def fill(out, values, block: tl.constexpr, fn: tl.constexpr):
    offs = tl.arange(0, block.size)
    tl.store(out + offs, fn(values[0] + values[1][0]).to(block.dtype))


def test_the_hooks_get_tritons_keywords_and_preload_compiles_the_same_kernel(hooks):
    out = np.full(8, -1, np.int32)
    launched = fill[(1,)](out, (3, (tl.constexpr(4), None)), Block(8, tl.int32), twice)
    assert out.tolist() == [14] * 8
    (cache_call,), (post_call,) = hooks["cache"], hooks["post"]
    assert set(cache_call) == {"key", "repr", "fn", "compile", "is_manual_warmup", "already_compiled"}
    assert cache_call["fn"].jit_function is fill and cache_call["fn"].name == "fill"
    compiled = cache_call["compile"]
    assert compiled["constants"]["block"] == Block(8, tl.int32) and compiled["constants"]["fn"] is twice
    assert compiled["signature"]["values"] == {"tuple": ["i32", {"tuple": [{"constexpr": 4}, {"constexpr": None}]}]}
    assert post_call["compile"]["specialization_data"] == compiled["specialization_data"]
    assert fill.preload(compiled["specialization_data"]).hash == launched.hash
    fill[(1,)](out, (3, (tl.constexpr(4), None)), Block(8, tl.int32), twice)  # a hit: no hook
    assert len(hooks["cache"]) == 1 and len(hooks["post"]) == 1


def test_a_cache_hook_saying_true_takes_the_compilation_over(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    out = np.full(8, -1, np.int32)
    with knobs.runtime.scope():
        knobs.runtime.jit_cache_hook = lambda **kw: True
        assert fill[(1,)](out, (5, (1, None)), Block(8, tl.int32), twice) is None
        assert fill.warmup(out, (5, (1, None)), Block(8, tl.int32), twice, grid=(1,)) is None
    assert out.tolist() == [-1] * 8  # nothing ran
    fill[(1,)](out, (5, (1, None)), Block(8, tl.int32), twice)
    assert out.tolist() == [12] * 8


@kl.jit
def other(out):
    tl.store(out, 1)


def test_preload_checks_the_data(hooks):
    other[(1,)](np.zeros(1, np.int32))
    data = hooks["cache"][-1]["compile"]["specialization_data"]
    with pytest.raises(RuntimeError, match="Specialization data is for .*other but trying to preload for .*fill"):
        fill.preload(data)
    with pytest.raises(ValueError, match="not kernellab specialization data"):
        other.preload('{"name": "x"}')


def test_a_value_that_cannot_be_named_is_refused_by_preload(hooks):
    @kl.jit
    def local_twice(x):
        return x * 2

    out = np.zeros(8, np.int32)
    fill[(1,)](out, (1, (2, None)), Block(8, tl.int32), local_twice)
    data = hooks["cache"][-1]["compile"]["specialization_data"]
    with pytest.raises(ValueError, match="cannot be read back: JITFunction"):
        fill.preload(data)
