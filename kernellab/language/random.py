"""Counter-based random numbers: Philox 4x32 exactly as Triton defines them, so a kernel gets
Triton's numbers for the same seed and offsets (a 64-bit offset fills two 32-bit counter words;
``philox`` itself also runs Philox 4x64 on 64-bit counters).

* the key is the seed as uint64, split into its low and high 32 bits (64-bit counters use the
  whole seed as the low key word and 0 as the high one);
* the counter is ``(offset, 0, 0, 0)`` (``(low, high, 0, 0)``: the words of a 64-bit offset);
  ``n_rounds`` (default 10) rounds each compute
  ``c0' = umulhi(B, c2) ^ c1 ^ k0``, ``c2' = umulhi(A, c0) ^ c3 ^ k1``, ``c1' = B * c2``,
  ``c3' = A * c0``, then bump the key by the Weyl constants;
* ``uint_to_uniform_float`` maps an integer to [0, 1) through its signed view;
  ``pair_uniform_to_normal`` is the Box-Muller transform.

Every function here is a builtin composed of other builtins.
"""

from __future__ import annotations

from typing import Any

from ..ir import types as _types
from .core import SemanticError, builtin, compile_time, semantic, tensor
from .indexing import where
from .math import cos, log, maximum, sin, sqrt, umulhi

N_ROUNDS_DEFAULT = 10

# (key_a, key_b, round_a, round_b) for 32- and 64-bit counters
PHILOX_CONSTANTS = {
    32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
    64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157),
}


def _rounds(n_rounds: Any) -> int:
    n_rounds = compile_time(n_rounds, "n_rounds")
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, int) or n_rounds < 0:
        raise SemanticError(f"n_rounds must be a non-negative compile-time integer, got {n_rounds!r}")
    return n_rounds


@builtin
def philox_impl(c0: Any, c1: Any, c2: Any, c3: Any, k0: Any, k1: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tuple:
    """``n_rounds`` Philox rounds over the counter ``(c0, c1, c2, c3)`` (uint32 or uint64) and key
    ``(k0, k1)``."""
    if c0.dtype not in (_types.u32, _types.u64):
        raise SemanticError(f"philox_impl works on uint32 or uint64 counters, got {c0.dtype.name}")
    key_a, key_b, round_a, round_b = PHILOX_CONSTANTS[c0.dtype.primitive_bitwidth]
    for _ in range(_rounds(n_rounds)):
        old_c0, old_c2 = c0, c2
        c0 = umulhi(round_b, old_c2) ^ c1 ^ k0
        c2 = umulhi(round_a, old_c0) ^ c3 ^ k1
        c1 = round_b * old_c2
        c3 = round_a * old_c0
        k0 = k0 + key_a
        k1 = k1 + key_b
    return c0, c1, c2, c3


@builtin
def philox(seed: Any, c0: Any, c1: Any, c2: Any, c3: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tuple:
    """Philox over the counter ``(c0..c3)`` keyed by ``seed`` (any integer; taken as uint64)."""
    sem = semantic()
    seed, c0, c1, c2, c3 = (sem.to_tensor(v) for v in (seed, c0, c1, c2, c3))
    if not (isinstance(seed.dtype, _types.ScalarType) and seed.dtype.is_int()):
        raise SemanticError(f"the random seed must be an integer (a scalar or an int argument), got {seed.type}: "
                            "pass the seed's value, not a pointer to it or a float")
    seed = seed.to(_types.u64)
    bits = c0.dtype.primitive_bitwidth
    if bits == 32:
        counter = _types.u32
        seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(_types.u32)
        seed_lo = (seed & 0xFFFFFFFF).to(_types.u32)
    elif bits == 64:
        counter = _types.u64
        seed_hi = sem.scalar_constant(0, _types.u64)
        seed_lo = seed
    else:
        raise SemanticError(f"philox needs 32- or 64-bit offsets, got {c0.dtype.name}")
    c0, c1, c2, c3 = (c.to(counter, bitcast=True) for c in (c0, c1, c2, c3))
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@builtin
def randint4x(seed: Any, offset: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tuple:
    """Four blocks of random uint32 for ``seed`` and ``offset``: Philox 4x32 over the counter
    ``(low 32 bits of offset, high 32 bits (0 for 32-bit offsets), 0, 0)``, as Triton 3.6 does."""
    offset = semantic().to_tensor(offset)
    low = offset.to(_types.u32)
    zero = low * 0
    high = (offset >> 32).to(_types.u32) if offset.dtype.primitive_bitwidth > 32 else zero
    return philox(seed, low, high, zero, zero, n_rounds)


@builtin
def randint(seed: Any, offset: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tensor:
    """A block of random uint32 (the first of :func:`randint4x`)."""
    return randint4x(seed, offset, n_rounds)[0]


@builtin
def uint_to_uniform_float(x: Any) -> tensor:
    """A random 32- or 64-bit integer mapped to an fp32 in [0, 1)."""
    x = semantic().to_tensor(x)
    if x.dtype in (_types.u32, _types.i32):
        x = x.to(_types.i32, bitcast=True)
        scale = 4.6566127342e-10  # the largest with MAX_INT32 * scale < 1 in fp32
    elif x.dtype in (_types.u64, _types.i64):
        x = x.to(_types.i64, bitcast=True)
        scale = 1.0842020432385337e-19
    else:
        raise SemanticError(f"uint_to_uniform_float takes 32- or 64-bit integers, got {x.dtype.name}")
    x = where(x < 0, -x - 1, x)
    return x * scale


@builtin
def rand(seed: Any, offset: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tensor:
    """A block of fp32 uniform in [0, 1)."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@builtin
def rand4x(seed: Any, offsets: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tuple:
    """Four blocks of fp32 uniform in [0, 1)."""
    return tuple(uint_to_uniform_float(i) for i in randint4x(seed, offsets, n_rounds))


@builtin
def pair_uniform_to_normal(u1: Any, u2: Any) -> tuple[tensor, tensor]:
    """Box-Muller: two independent standard normals from two uniforms in [0, 1)."""
    u1 = maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    radius = sqrt(-2.0 * log(u1))
    return radius * cos(theta), radius * sin(theta)


@builtin
def randn(seed: Any, offset: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tensor:
    """A block of fp32 standard normals."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@builtin
def randn4x(seed: Any, offset: Any, n_rounds: Any = N_ROUNDS_DEFAULT) -> tuple:
    """Four blocks of fp32 standard normals."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


__all__ = ["philox_impl", "philox", "randint4x", "randint", "uint_to_uniform_float", "rand", "rand4x",
           "pair_uniform_to_normal", "randn", "randn4x", "N_ROUNDS_DEFAULT", "PHILOX_CONSTANTS"]
