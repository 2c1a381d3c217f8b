"""Library functions built from other builtins (Triton's ``triton.language.standard``):
``bitonic_merge``, ``topk``, ``map_elementwise``; and ``dot_scaled``, which no kernellab target
has yet (it says so).

They run at compile time with the active semantics, like every builtin, and build their IR from
the shape, comparison and selection builtins, so every target runs them.
"""

from __future__ import annotations

from typing import Any

from .core import SemanticError, builtin, compile_time, constexpr_function, member, semantic, tensor, unwrap
from .creation import arange, zeros_like  # noqa: F401 - Triton's triton.language.standard has zeros_like
from .indexing import where
from .reductions import gather, sort


def _last_dim(x: tensor, dim: Any, what: str) -> int:
    """The dim ``what`` works on: the last one (the only one Triton supports, as for ``sort``)."""
    rank = len(x.shape)
    dim = compile_time(dim, f"{what}'s dim")
    if dim is not None and dim not in (rank - 1, -1):
        raise SemanticError(f"{what} works along the last dim only (dim={rank - 1} or None), got dim={dim}")
    return rank - 1


def _half_clean(x: tensor, stride: int, descending: bool) -> tensor:
    """One stage of a bitonic merge along the last dim: element ``i`` and ``i + stride`` of each
    block of ``2 * stride`` are put in order (the smaller first unless ``descending``)."""
    sem = semantic()
    lead, n = list(x.shape[:-1]), x.shape[-1]
    blocks = n // (2 * stride)
    rank = len(lead) + 3
    pairs = sem.reshape(x, (*lead, blocks, 2, stride), False)
    order = (*range(rank - 3), rank - 3, rank - 1, rank - 2)  # the pair's two members last
    first, second = sem.split(sem.permute(pairs, order))
    swap = first < second if descending else first > second
    ordered = sem.join(where(swap, second, first), where(swap, first, second))
    return sem.reshape(sem.permute(ordered, order), (*lead, n), False)


@member
@builtin
def bitonic_merge(x: Any, dim: Any = None, descending: Any = False) -> tensor:
    """Merge a bitonic sequence along the last dim into sorted order (ascending unless
    ``descending``): the half-cleaner stages with strides n/2, n/4, ..., 1."""
    x = semantic().to_tensor(unwrap(x))
    _last_dim(x, dim, "tl.bitonic_merge")
    descending = bool(compile_time(descending, "descending"))
    stride = x.shape[-1] // 2
    while stride >= 1:
        x = _half_clean(x, stride, descending)
        stride //= 2
    return x


@member
@builtin
def topk(x: Any, k: Any, dim: Any = None) -> tensor:
    """The ``k`` largest elements along the last dim, largest first (``k`` a power of two)."""
    x = semantic().to_tensor(unwrap(x))
    axis = _last_dim(x, dim, "tl.topk")
    k = compile_time(k, "tl.topk's k")
    n = x.shape[-1]
    if isinstance(k, bool) or not isinstance(k, int) or k < 1 or k > n or k & (k - 1):
        raise SemanticError(f"tl.topk's k must be a power of two between 1 and the dim's size {n}, got {k!r}")
    ordered = sort(x, descending=True)
    index = arange(0, k)
    for _ in x.shape[:-1]:
        index = index[None]
    index = semantic().broadcast_to(index, (*x.shape[:-1], k))
    return gather(ordered, index, axis)


@builtin
def map_elementwise(scalar_fn: Any, *args: Any, pack: Any = 1) -> Any:
    """``scalar_fn`` (a ``@jit`` function of scalars, returning one value or a tuple) applied to
    each element of the broadcast ``args``.  kernellab applies it to whole tiles at once, so its
    body must be elementwise: an ``if`` on a value is a compile error there (use ``tl.where``)."""
    sem = semantic()
    if compile_time(pack, "map_elementwise's pack") != 1:
        raise SemanticError("tl.map_elementwise with pack > 1 is not supported; use pack=1 "
                            "(kernellab applies the function to whole tiles)")
    if not args:
        raise SemanticError("tl.map_elementwise needs at least one tensor argument")
    tensors = sem.broadcast_all(*(sem.to_tensor(unwrap(a)) for a in args))
    return sem.call_function(unwrap(scalar_fn), tensors)


@builtin
def dot_scaled(lhs: Any, lhs_scale: Any, lhs_format: Any, rhs: Any, rhs_scale: Any, rhs_format: Any,
               acc: Any = None, fast_math: Any = False, lhs_k_pack: Any = True, rhs_k_pack: Any = True,
               out_dtype: Any = None) -> tensor:
    """Triton's microscaled matrix product: ``lhs`` and ``rhs`` in ``e2m1`` (fp4, two per
    uint8), ``e4m3``/``e5m2`` (fp8) or ``bf16``/``fp16``, each with e8m0 scales (uint8,
    ``[M, K // 32]`` and ``[N, K // 32]``) or None, multiplied as Triton emulates it (upcast to
    bf16, or fp16 when either is fp16, scaled, then ``tl.dot`` into fp32; see
    ``semantics/scaled_dot.py``).  ``fast_math`` changes nothing here."""
    return semantic().dot_scaled(unwrap(lhs), unwrap(lhs_scale), compile_time(lhs_format, "lhs_format"), unwrap(rhs),
                                 unwrap(rhs_scale), compile_time(rhs_format, "rhs_format"), unwrap(acc),
                                 compile_time(fast_math, "fast_math"), compile_time(lhs_k_pack, "lhs_k_pack"),
                                 compile_time(rhs_k_pack, "rhs_k_pack"), unwrap(out_dtype))


@constexpr_function
def _log2(i: Any) -> int:
    """Triton's ``triton.language.standard._log2``: log2 of a power of two, at compile time
    (library sorts import it: FlagGems' argsort)."""
    return max(int(unwrap(i)).bit_length() - 1, 0)


__all__ = ["bitonic_merge", "topk", "map_elementwise", "dot_scaled"]
