"""tl.randint / rand / randn ... end to end on every target: Triton's numbers, checked against an
independent numpy Philox."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

from ..language_ir.philox_reference import normal_reference, triton_randint4x, uniform_reference


@kl.jit
def random_blocks(seed, base, ints, uniforms, normals, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = base + pid * BLOCK + tl.arange(0, BLOCK)
    where = pid * BLOCK + tl.arange(0, BLOCK)
    i0, i1, i2, i3 = tl.randint4x(seed, offsets)
    tl.store(ints + where, tl.randint(seed, offsets))
    tl.store(ints + 1024 + where, i3)
    tl.store(uniforms + where, tl.rand(seed, offsets))
    u0, u1, u2, u3 = tl.rand4x(seed, offsets)
    tl.store(uniforms + 1024 + where, u2)
    tl.store(normals + where, tl.randn(seed, offsets))
    n0, n1, n2, n3 = tl.randn4x(seed, offsets)
    tl.store(normals + 1024 + where, n3)


@pytest.mark.parametrize("seed,base", [(0, 0), (123456789, 1000), (-1, 2**31 - 600), (2**45 + 17, 5)])
def test_random_numbers_match_triton(launch, seed: int, base: int) -> None:
    block, programs = 128, 4
    ints = np.zeros((2, 1024), np.uint32)
    uniforms = np.full((2, 1024), np.nan, np.float32)
    normals = np.full((2, 1024), np.nan, np.float32)
    launch(random_blocks, (programs,), seed, base, ints, uniforms, normals, BLOCK=block)
    count = block * programs
    offsets = np.array([(base + i) & 0xFFFFFFFF for i in range(count)], np.uint32).view(np.int32)
    expected = triton_randint4x(seed, offsets)
    np.testing.assert_array_equal(ints[0, :count], expected[0])
    np.testing.assert_array_equal(ints[1, :count], expected[3])
    u = [uniform_reference(e) for e in expected]
    np.testing.assert_array_equal(uniforms[0, :count], u[0])
    np.testing.assert_array_equal(uniforms[1, :count], u[2])
    n0, _ = normal_reference(u[0], u[1])
    _, n3 = normal_reference(u[2], u[3])
    np.testing.assert_allclose(normals[0, :count], n0, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(normals[1, :count], n3, rtol=1e-5, atol=1e-5)


@kl.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    """Triton's tutorial dropout: keep with probability 1 - p, scale by 1 / (1 - p)."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.rand(seed, offsets) > p
    tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_seeded_dropout(launch, inputs) -> None:
    x = inputs.normal(1000)
    out = inputs.poisoned(1000, np.float32)
    launch(dropout, (8,), x, out, 1000, 0.5, 42, BLOCK=128)
    keep = uniform_reference(triton_randint4x(42, np.arange(1000, dtype=np.int32))[0]) > 0.5
    np.testing.assert_allclose(out, np.where(keep, x / np.float32(0.5), 0), rtol=1e-6)
    assert 0.4 < keep.mean() < 0.6


@kl.jit
def rand_with_seed(out_ptr, seed):
    offsets = tl.arange(0, 4)
    tl.store(out_ptr + offsets, tl.rand(seed, offsets))


@pytest.mark.parametrize("seed", [np.zeros(1, np.int32), 2.5])
def test_a_seed_that_is_not_an_integer_is_a_compile_error(host_target, seed):
    with pytest.raises(kl.CompilationError, match="the random seed must be an integer") as error:
        rand_with_seed[(1,)](np.zeros(4, np.float32), seed)
    assert "tl.rand(seed, offsets)" in str(error.value)
