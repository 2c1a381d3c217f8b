"""An independent numpy model of Philox (written in Random123's form) and of Triton's random
functions built on it: the expected numbers of tl.randint / tl.rand / tl.randn."""

from __future__ import annotations

import numpy as np

MASK32, MASK64 = (1 << 32) - 1, (1 << 64) - 1
PHILOX = {  # bits: (multipliers M0, M1), (Weyl increments W0, W1)
    32: ((0xD2511F53, 0xCD9E8D57), (0x9E3779B9, 0xBB67AE85)),
    64: ((0xD2E7470EE14C6C93, 0xCA5A826395121157), (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)),
}


def philox_reference(counter: list, key: list, bits: int = 32, rounds: int = 10) -> list:
    """Random123's philox4xN: counters and keys as arrays of Python ints (object dtype)."""
    (m0, m1), (w0, w1) = PHILOX[bits]
    mask = (1 << bits) - 1
    ctr = [np.asarray(c, dtype=object) for c in counter]
    k0, k1 = (np.asarray(k, dtype=object) for k in key)
    for _ in range(rounds):
        product0, product1 = m0 * ctr[0], m1 * ctr[2]
        ctr = [(product1 >> bits) ^ ctr[1] ^ k0, product1 & mask, (product0 >> bits) ^ ctr[3] ^ k1, product0 & mask]
        k0, k1 = (k0 + w0) & mask, (k1 + w1) & mask
    return ctr


def triton_randint4x(seed: int, offsets: np.ndarray) -> list[np.ndarray]:
    """Triton 3.6's mapping: key = seed as uint64 split in 32-bit halves, counter = (the offset's
    low 32 bits, its high 32 bits (0 for 32-bit offsets), 0, 0); four uint32 blocks."""
    bits = offsets.dtype.itemsize * 8
    counter = offsets.astype(np.int64 if bits == 32 else np.uint64).astype(object) & ((1 << bits) - 1)
    seed64 = seed & MASK64
    key = [seed64 & MASK32, seed64 >> 32]
    out = philox_reference([counter & MASK32, counter >> 32, 0, 0], key, 32)
    return [np.asarray(o.astype(object), dtype=np.uint32) for o in out]


def uniform_reference(x: np.ndarray) -> np.ndarray:
    signed = x.view(np.int32 if x.dtype == np.uint32 else np.int64)
    signed = np.where(signed < 0, -signed - 1, signed)
    scale = np.float32(4.6566127342e-10) if x.dtype == np.uint32 else np.float32(1.0842020432385337e-19)
    return signed.astype(np.float32) * scale


def normal_reference(u1: np.ndarray, u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u1 = np.maximum(np.float32(1.0e-7), u1)
    theta = np.float32(6.283185307179586) * u2
    radius = np.sqrt(np.float32(-2.0) * np.log(u1))
    return radius * np.cos(theta), radius * np.sin(theta)
