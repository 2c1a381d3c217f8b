"""One semantics for float -> integer casts on every target (Triton's on GPUs): truncate toward
zero, saturate at the target's range (infinities too), NaN -> 0.  Every float -> integer pair,
with values inside, at the edges of and far outside each range; the expected values are
computed here with Python integers, not with kernellab's reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.ir import types as T

N = 64
FLOATS = ["fp16", "bf16", "fp32", "fp64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@kl.jit
def cast_kernel(x_ptr, out_ptr, n, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(DTYPE), mask=mask)


def _values(rng: np.random.Generator, target: np.dtype) -> np.ndarray:
    info = np.iinfo(target)
    edges = [info.max, info.max + 0.75, info.max + 1.0, info.max * 4.0, info.min, info.min - 0.75, info.min - 1.0,
             info.min * 4.0 - 8]
    specials = [math.nan, -math.nan, math.inf, -math.inf, -0.0, 0.5, -0.5, 0.999, -0.999, 1e20, -1e20, 3e9, -3e9,
                2.0**31, 2.0**63, 2.0**64, 1e300]
    scale = rng.uniform(-4.0, 4.0 * math.log10(float(info.max)) / 4.0, N)
    random = rng.standard_normal(N) * 10.0 ** scale
    return np.concatenate([np.array(edges + specials, np.float64), random])[:N]


def _expected(values: np.ndarray, target: np.dtype) -> np.ndarray:
    info = np.iinfo(target)
    out = []
    for v in values.tolist():
        if math.isnan(v):
            out.append(0)
        elif math.isinf(v):
            out.append(info.max if v > 0 else info.min)
        else:
            out.append(min(max(math.trunc(v), int(info.min)), int(info.max)))
    return np.array(out, dtype=target)


@pytest.mark.parametrize("source", FLOATS)
@pytest.mark.parametrize("dest", INTS)
def test_float_to_int_truncates_saturates_and_sends_nan_to_zero(launch, rng, source: str, dest: str) -> None:
    source_dtype = T.by_name(source).np_dtype
    target = np.dtype(dest)
    with np.errstate(over="ignore", invalid="ignore"):
        x = _values(rng, target).astype(source_dtype)
    wanted = _expected(x.astype(np.float64), target)
    out = np.full(N, np.iinfo(target).min + 1, target)  # poison: no expected value is min + 1
    launch(cast_kernel, (1,), x, out, N, DTYPE=T.by_name(dest), BLOCK=N)
    bad = np.flatnonzero(out != wanted)
    assert bad.size == 0, [(float(x[i].astype(np.float64)), int(out[i]), int(wanted[i])) for i in bad[:6]]
