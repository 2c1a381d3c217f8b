"""tl.randint/rand/randn... give Triton's numbers: checked against an independent numpy Philox
(written in Random123's form and validated on Random123's known-answer vectors)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab.language as tl
from kernellab.ir import types as T

from .harness import kernel
from .philox_reference import MASK32, normal_reference, philox_reference, triton_randint4x, uniform_reference


def test_reference_matches_random123_known_answers() -> None:
    hexes = lambda values: [hex(int(v)) for v in values]  # noqa: E731
    assert hexes(philox_reference([0, 0, 0, 0], [0, 0])) == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]
    assert hexes(philox_reference([MASK32] * 4, [MASK32] * 2)) == ["0x408f276d", "0x41c83b0e", "0xa20bc7c6",
                                                                  "0x6d5451fd"]
    pi = philox_reference([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0])
    assert hexes(pi) == ["0xd16cfe09", "0x94fdcceb", "0x5001e420", "0x24126ea1"]
    assert hexes(philox_reference([0] * 4, [0, 0], bits=64)) == [
        "0x16554d9eca36314c", "0xdb20fe9d672d0fdc", "0xd7e772cee186176b", "0x7e68b68aec7ba23b"]


SEEDS = [0, 12345, -7, 2**40 + 3, 2**62 + 11]


def _run_all(seed: int, base: int, offset_type):
    """Every random builtin on the 64 offsets ``base + i`` with a runtime seed (int64)."""
    with kernel(T.i64, offset_type) as k:
        seed_arg, base_arg = k.args
        offsets = base_arg + tl.arange(0, 64).to(offset_type)
        outputs = {
            "randint": tl.randint(seed_arg, offsets),
            "randint4x": tl.randint4x(seed_arg, offsets),
            "rand": tl.rand(seed_arg, offsets),
            "rand4x": tl.rand4x(seed_arg, offsets),
            "randn": tl.randn(seed_arg, offsets),
            "randn4x": tl.randn4x(seed_arg, offsets),
        }
    flat = []
    for value in outputs.values():
        flat.extend(value if isinstance(value, tuple) else [value])
    results = iter(k.run(seed, base, results=flat))
    got = {name: tuple(next(results) for _ in value) if isinstance(value, tuple) else next(results)
           for name, value in outputs.items()}
    bits = offset_type.primitive_bitwidth
    wrapped = np.array([(base + i) & ((1 << bits) - 1) for i in range(64)], dtype=np.dtype(f"u{bits // 8}"))
    offsets = wrapped.view(offset_type.np_dtype)
    return got, offsets, outputs


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("offset_type,base", [(T.i32, 0), (T.i32, 2**31 - 40), (T.i32, -30), (T.u32, 2**32 - 20),
                                               (T.i64, 2**40 - 7), (T.u64, 2**63 + 5)])
def test_random_builtins_match_triton(seed: int, offset_type, base: int) -> None:
    got, offsets, outputs = _run_all(seed, base, offset_type)
    expected = triton_randint4x(seed, offsets)
    assert outputs["randint"].dtype is tl.uint32
    np.testing.assert_array_equal(got["randint"], expected[0])
    for got_block, want in zip(got["randint4x"], expected):
        np.testing.assert_array_equal(got_block, want)
    uniforms = [uniform_reference(e) for e in expected]
    np.testing.assert_array_equal(got["rand"], uniforms[0])
    for got_block, want in zip(got["rand4x"], uniforms):
        np.testing.assert_array_equal(got_block, want)
    assert np.all((got["rand"] >= 0) & (got["rand"] < 1))
    n1, n2 = normal_reference(uniforms[0], uniforms[1])
    n3, n4 = normal_reference(uniforms[2], uniforms[3])
    np.testing.assert_allclose(got["randn"], n1, rtol=1e-6, atol=1e-6)
    for got_block, want in zip(got["randn4x"], (n1, n2, n3, n4)):
        np.testing.assert_allclose(got_block, want, rtol=1e-6, atol=1e-6)


def test_philox_impl_runs_random123_rounds() -> None:
    """The raw rounds on an arbitrary counter and key (uint32 scalars)."""
    counter = [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344]
    key = [0xA4093822, 0x299F31D0]
    with kernel(*[T.u32] * 6) as k:
        result = tl.philox_impl(*k.args)
        seven = tl.philox_impl(*k.args, n_rounds=7)
    got = k.run(*counter, *key, results=list(result) + list(seven))
    assert [int(v) for v in got[:4]] == [int(v) for v in philox_reference(counter, key)]
    assert [int(v) for v in got[4:]] == [int(v) for v in philox_reference(counter, key, rounds=7)]


def test_random_streams_are_reproducible_and_distinct() -> None:
    got_a, _, _ = _run_all(42, 0, T.i32)
    got_b, _, _ = _run_all(42, 0, T.i32)
    got_c, _, _ = _run_all(43, 0, T.i32)
    np.testing.assert_array_equal(got_a["rand"], got_b["rand"])
    assert np.mean(got_a["rand"] == got_c["rand"]) < 0.05
    assert abs(float(np.mean(got_a["randn"]))) < 0.5 and 0.5 < float(np.std(got_a["randn"])) < 1.5
