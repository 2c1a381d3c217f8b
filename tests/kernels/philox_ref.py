"""An independent numpy model of Philox 4x32-10 and of Triton's derived random functions, for
checking tl.randint / tl.rand / tl.randn bit for bit."""

from __future__ import annotations

import numpy as np

KEY_A = np.uint32(0x9E3779B9)
KEY_B = np.uint32(0xBB67AE85)
ROUND_A = np.uint32(0xD2511F53)
ROUND_B = np.uint32(0xCD9E8D57)


def _mulhilo(a: np.uint32, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    product = np.uint64(a) * b.astype(np.uint64)
    return (product >> np.uint64(32)).astype(np.uint32), (product & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def philox(seed: int, c0, c1, c2, c3, rounds: int = 10):
    """Four uint32 streams for counters (c0..c3) under a 64-bit seed."""
    seed = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    k0 = np.uint32(int(seed) & 0xFFFFFFFF)
    k1 = np.uint32(int(seed) >> 32)
    c = [np.asarray(x).astype(np.uint32) for x in (c0, c1, c2, c3)]
    with np.errstate(over="ignore"):
        for _ in range(rounds):
            hi_b, lo_b = _mulhilo(ROUND_B, c[2])
            hi_a, lo_a = _mulhilo(ROUND_A, c[0])
            c = [hi_b ^ c[1] ^ k0, lo_b, hi_a ^ c[3] ^ k1, lo_a]
            k0 = np.uint32((int(k0) + int(KEY_A)) & 0xFFFFFFFF)
            k1 = np.uint32((int(k1) + int(KEY_B)) & 0xFFFFFFFF)
    return c


def randint4x(seed: int, offsets):
    offsets = np.asarray(offsets).astype(np.uint32)
    zero = np.zeros_like(offsets)
    return philox(seed, offsets, zero, zero, zero)


def uint_to_uniform_float(x: np.ndarray) -> np.ndarray:
    signed = x.astype(np.uint32).view(np.int32)
    signed = np.where(signed < 0, -signed - 1, signed)
    return (signed.astype(np.float32) * np.float32(4.6566127342e-10)).astype(np.float32)


def rand(seed: int, offsets) -> np.ndarray:
    return uint_to_uniform_float(randint4x(seed, offsets)[0])


def randn(seed: int, offsets) -> np.ndarray:
    i1, i2, _, _ = randint4x(seed, offsets)
    u1 = np.maximum(np.float32(1.0e-7), uint_to_uniform_float(i1))
    u2 = uint_to_uniform_float(i2)
    theta = np.float32(6.283185307179586) * u2
    radius = np.sqrt(np.float32(-2.0) * np.log(u1))
    return (radius * np.cos(theta)).astype(np.float32)
