"""Integer bit functions (``popc``, ``clz``, ``ffs``, ``brev``, ``byte_perm``) and integer
arithmetic helpers (``mulhi``, ``mul24``, ``sad``, ``hadd``, ``rhadd``), as libdevice defines them
on two's complement bit patterns."""

from __future__ import annotations

import numpy as np

from . import math_function
from .refs import elementwise

_INTS = {("i32",): "i32", ("i64",): "i32"}


def _unsigned(x) -> np.ndarray:
    x = np.asarray(x)
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _popc(x):
    """Set bits of the two's complement pattern (numpy counts a signed value's magnitude)."""
    return np.bitwise_count(_unsigned(x))


def _bit_length(u) -> np.ndarray:
    """The number of significant bits of each unsigned value (0 for 0), by halving."""
    v = np.asarray(u).astype(np.uint64)
    length = np.zeros(v.shape, np.int64)
    for step in (32, 16, 8, 4, 2, 1):
        big = (v >> np.uint64(step)) != 0
        length += np.where(big, step, 0)
        v = np.where(big, v >> np.uint64(step), v)
    return length + (v != 0)


def _clz(x):
    """Leading zero bits of the two's complement pattern (32 for 0 in i32, 64 in i64)."""
    u = _unsigned(x)
    return u.dtype.itemsize * 8 - _bit_length(u)


def _ffs(x):
    """1 + the index of the least significant set bit; 0 for 0."""
    u = _unsigned(x).astype(np.uint64)
    return _bit_length(u & (~u + np.uint64(1)))


def _brev(x):
    u = _unsigned(x)
    bits = u.dtype.itemsize * 8
    out = np.zeros_like(u)
    for i in range(bits):
        bit = (u >> u.dtype.type(i)) & u.dtype.type(1)
        out = out | (bit << u.dtype.type(bits - 1 - i))
    return out.view(np.asarray(x).dtype)


def _byte_perm(x, y, s):
    """Byte i of the result is byte ``(s >> 4i) & 7`` of the 8 bytes {y, x} (x the low word)."""
    x, y, s = (np.asarray(v).view(np.uint32).astype(np.uint64) for v in np.broadcast_arrays(x, y, s))
    pool = (y << np.uint64(32)) | x
    out = np.zeros(pool.shape, np.uint64)
    for i in range(4):
        selector = (s >> np.uint64(4 * i)) & np.uint64(7)
        out |= ((pool >> (selector * np.uint64(8))) & np.uint64(0xFF)) << np.uint64(8 * i)
    return out.astype(np.uint32).view(np.int32)


def _mulhi_scalar(bits: int, signed: bool):
    def high(x: int, y: int) -> int:
        product = (x * y) >> bits
        mask = (1 << bits) - 1
        value = product & mask
        return value - (1 << bits) if signed and value >> (bits - 1) else value
    return high


def _mulhi(x, y):
    x = np.asarray(x)
    bits, signed = x.dtype.itemsize * 8, x.dtype.kind == "i"
    return elementwise(_mulhi_scalar(bits, signed), x.dtype)(x, y)


def _mul24(x, y):
    """The low 32 bits of the product of the low 24 bits of x and y (sign-extended for i32)."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    signed = x.dtype.kind == "i"
    def low24(v):
        v = v.view(np.uint32).astype(np.int64) & 0xFFFFFF
        return np.where(v >= 1 << 23, v - (1 << 24), v) if signed else v
    product = (low24(x) * low24(y)) & 0xFFFFFFFF
    return product.astype(np.uint32).view(x.dtype)


def _sad(x, y, z):
    """|x - y| + z, the difference exact and the sum modulo 2**32."""
    x, y, z = np.broadcast_arrays(np.asarray(x), np.asarray(y), np.asarray(z))
    difference = np.abs(x.astype(np.int64) - y.astype(np.int64))
    total = (difference + z.view(np.uint32).astype(np.int64)) & 0xFFFFFFFF
    return total.astype(np.uint32).view(x.dtype)


def _halving(round_up: int):
    def run(x, y):
        x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
        total = x.astype(np.int64) + y.astype(np.int64) + round_up
        return (total >> 1).astype(x.dtype)
    return run


math_function("popc", _popc, "the number of set bits", signatures=_INTS, intrinsic="ctpop",
              nv={("i32",): "popc", ("i64",): "popcll"})
math_function("clz", _clz, "the number of leading zero bits (the width for 0)", signatures=_INTS, expand=True,
              nv={("i32",): "clz", ("i64",): "clzll"})
math_function("ffs", _ffs, "1 + the index of the lowest set bit (0 for 0)", signatures=_INTS, expand=True,
              nv={("i32",): "ffs", ("i64",): "ffsll"})
math_function("brev", _brev, "the bits in reverse order", signatures=(("i32",), ("i64",)), intrinsic="bitreverse",
              nv={("i32",): "brev", ("i64",): "brevll"})
math_function("byte_perm", _byte_perm, "bytes of {y, x} picked by the nibbles of z", signatures=(("i32",) * 3,),
              expand=True, nv="byte_perm")
math_function("mulhi", _mulhi, "the high half of the double-width product",
              signatures=(("i32", "i32"), ("u32", "u32"), ("i64", "i64"), ("u64", "u64")), expand=True,
              nv={("i32", "i32"): "mulhi", ("u32", "u32"): "umulhi", ("i64", "i64"): "mul64hi",
                  ("u64", "u64"): "umul64hi"})
math_function("mul24", _mul24, "the low 32 bits of the product of the low 24 bits of x and y",
              signatures=(("i32", "i32"), ("u32", "u32")), expand=True,
              nv={("i32", "i32"): "mul24", ("u32", "u32"): "umul24"})
math_function("sad", _sad, "|x - y| + z", signatures={("i32", "i32", "u32"): "i32", ("u32", "u32", "u32"): "u32"},
              expand=True, nv={("i32", "i32", "u32"): "sad", ("u32", "u32", "u32"): "usad"})
math_function("hadd", _halving(0), "(x + y) >> 1 without overflow (rounded down)",
              signatures=(("i32", "i32"), ("u32", "u32")), expand=True,
              nv={("i32", "i32"): "hadd", ("u32", "u32"): "uhadd"})
math_function("rhadd", _halving(1), "(x + y + 1) >> 1 without overflow (rounded up)",
              signatures=(("i32", "i32"), ("u32", "u32")), expand=True,
              nv={("i32", "i32"): "rhadd", ("u32", "u32"): "urhadd"})
