"""``kl.cdiv`` and ``kl.next_power_of_2``: constexpr functions, usable on the host (grids,
block sizes) and inside kernels (on constexprs; ``cdiv`` on tensors becomes ``tl.cdiv``)."""

from __future__ import annotations

from typing import Any

from ..language.core import builtin, constexpr, constexpr_function, tensor


def _unwrap(value: Any) -> Any:
    return value.value if isinstance(value, constexpr) else value


@builtin  # so that the frontend hands it tensors too (a plain constexpr_function only gets constexprs)
@constexpr_function
def cdiv(x: Any, y: Any) -> Any:
    """``ceil(x / y)`` for positive integers: ``(x + y - 1) // y``; on kernel tensors,
    ``tl.cdiv``."""
    x, y = _unwrap(x), _unwrap(y)
    if isinstance(x, tensor) or isinstance(y, tensor):
        from .. import language

        return language.cdiv(x, y)
    return (x + y - 1) // y


@constexpr_function
def next_power_of_2(n: Any) -> int:
    """The smallest power of two >= ``n`` (``0`` for ``n <= 0``, as Triton's)."""
    n = int(_unwrap(n))
    return 0 if n <= 0 else 1 << (n - 1).bit_length()


__all__ = ["cdiv", "next_power_of_2"]
