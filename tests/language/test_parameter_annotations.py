"""A kernel parameter annotated with a dtype has that type, as in Triton (``v: tl.float16``,
``"tl.uint8"``, ``n: int``): the argument is passed as it, and never specialized on its value."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl


def annotated(**types):
    def decorate(fn):
        fn.__annotations__ = dict(types)
        return fn
    return decorate


@kl.jit
@annotated(value=tl.float16)
def store_half(out, value):
    tl.static_assert(value.dtype == tl.float16)
    tl.store(out, value)


@kl.jit
@annotated(value="bf16")
def store_bf16(out, value):
    tl.static_assert(value.dtype == tl.bfloat16)
    tl.store(out, value)


@kl.jit
@annotated(offset="tl.uint8")
def mark_at(out, offset):
    tl.static_assert(offset.dtype == tl.uint8)
    tl.store(out + offset, offset)  # an unsigned offset: zero-extended


@kl.jit
@annotated(n=int)
def store_n(out, n):
    tl.static_assert(n.dtype == tl.int32)  # never the constant 1
    tl.store(out, n)


def test_a_float_annotation_passes_the_argument_as_that_type(launch, rng) -> None:
    value = float(rng.uniform(0.1, 10.0))
    out = np.full(1, np.nan, np.float32)
    launch(store_half, (1,), out, value)
    assert out[0] == np.float32(np.float16(value)) and out[0] != np.float32(value)
    launch(store_bf16, (1,), out, value)
    import ml_dtypes

    assert out[0] == np.float32(ml_dtypes.bfloat16(value))


def test_an_unsigned_annotation_zero_extends(launch, rng) -> None:
    offset = int(rng.integers(129, 256))  # the high bit set: as int8 it would be negative
    out = np.full(256, -1.0, np.float32)
    launch(mark_at, (1,), out, offset)
    assert out[offset] == offset and (np.delete(out, offset) == -1.0).all()


def test_an_int_annotation_is_never_specialized_to_a_constant(launch) -> None:
    out = np.zeros(1, np.float32)
    for n in (1, 7):
        launch(store_n, (1,), out, n)
        assert out[0] == n


@kl.jit
@annotated(value="*fp32")
def pointer_for_scalar(value):
    pass


def test_an_argument_of_the_other_kind_is_refused(host_target) -> None:
    with pytest.raises(TypeError, match=r"`value` of `pointer_for_scalar` is annotated pointer<fp32>"):
        pointer_for_scalar[(1,)](3)
