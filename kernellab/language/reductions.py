"""Reductions, scans, sorting and gathering: ``reduce``, ``sum``, ``max``, ``min``, ``argmax``,
``argmin``, ``xor_sum``, ``reduce_or``, ``associative_scan``, ``cumsum``, ``cumprod``, ``sort``,
``flip``, ``histogram``, ``gather``.

``axis=None`` reduces every dim; ``keep_dims=True`` keeps reduced dims with length 1.  Result
dtypes follow Triton (see ``kernellab.language.semantics.reduce``).
"""

from __future__ import annotations

from typing import Any

from .core import SemanticError, builtin, compile_time, member, semantic, tensor, unwrap


def _axis(axis: Any, what: str) -> int | None:
    axis = compile_time(axis, f"{what}'s axis")
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
        raise SemanticError(f"{what}'s axis must be an integer or None, got {axis!r}")
    return axis


def _scan_axis(axis: Any, what: str) -> int:
    """A scan's axis: an integer (a scan runs along one dim; None is not allowed)."""
    axis = _axis(axis, what)
    if axis is None:
        raise SemanticError(f"{what} needs an axis (an integer): a scan runs along one dim; got None")
    return axis


def _inputs(input: Any) -> tuple[list[Any], bool]:
    """A list of inputs, and whether the caller gave a single tensor (vs a tuple)."""
    input = unwrap(input)
    if isinstance(input, (tuple, list)):
        return list(input), False
    return [input], True


@member
@builtin
def reduce(input: Any, axis: Any, combine_fn: Any, keep_dims: Any = False) -> Any:
    """Combine the elements along ``axis`` with ``combine_fn`` (a ``@jit`` function of two groups
    of scalars); ``input`` may be a tensor or a tuple of tensors of one shape."""
    inputs, single = _inputs(input)
    results = semantic().reduce(inputs, _axis(axis, "tl.reduce"), unwrap(combine_fn),
                                bool(compile_time(keep_dims, "keep_dims")))
    return results[0] if single else results


@member
@builtin
def associative_scan(input: Any, axis: Any, combine_fn: Any, reverse: Any = False) -> Any:
    """Inclusive scan along ``axis`` with ``combine_fn`` (associative); from the end with ``reverse``."""
    inputs, single = _inputs(input)
    axis = _scan_axis(axis, "tl.associative_scan")
    results = semantic().associative_scan(inputs, axis, unwrap(combine_fn), bool(compile_time(reverse, "reverse")))
    return results[0] if single else results


@member
@builtin
def sum(input: Any, axis: Any = None, keep_dims: Any = False, dtype: Any = None) -> tensor:
    """The sum along ``axis``; integers narrower than 32 bits accumulate in (u)int32, or in ``dtype``."""
    return semantic().sum(unwrap(input), _axis(axis, "tl.sum"), bool(compile_time(keep_dims, "keep_dims")),
                          compile_time(dtype, "tl.sum's dtype"))


def _extremum(name: str, largest: bool):
    def extremum(input: Any, axis: Any = None, return_indices: Any = False, return_indices_tie_break_left: Any = True,
                 keep_dims: Any = False) -> Any:
        return semantic().extremum(unwrap(input), _axis(axis, f"tl.{name}"), largest,
                                   bool(compile_time(return_indices, "return_indices")),
                                   bool(compile_time(return_indices_tie_break_left, "return_indices_tie_break_left")),
                                   bool(compile_time(keep_dims, "keep_dims")))

    extremum.__name__ = extremum.__qualname__ = name
    what = "maximum" if largest else "minimum"
    extremum.__doc__ = (f"The {what} along ``axis`` (all dims for None), and its index with ``return_indices`` "
                        "(ties pick the left-most with ``return_indices_tie_break_left``).  bf16 and narrower "
                        "floats compute in fp32, integers narrower than 32 bits in int32 (without indices).")
    return member(builtin(extremum))


max = _extremum("max", largest=True)
min = _extremum("min", largest=False)


@member
@builtin
def argmax(input: Any, axis: Any, tie_break_left: Any = True, keep_dims: Any = False) -> tensor:
    """The (int32) index of the maximum along ``axis``; ties pick the left-most with ``tie_break_left``."""
    return max(input, axis, True, tie_break_left, keep_dims)[1]


@member
@builtin
def argmin(input: Any, axis: Any, tie_break_left: Any = True, keep_dims: Any = False) -> tensor:
    """The (int32) index of the minimum along ``axis``; ties pick the left-most with ``tie_break_left``."""
    return min(input, axis, True, tie_break_left, keep_dims)[1]


@member
@builtin
def xor_sum(input: Any, axis: Any = None, keep_dims: Any = False) -> tensor:
    """The bitwise xor of the (integer) elements along ``axis``."""
    return semantic().xor_sum(unwrap(input), _axis(axis, "tl.xor_sum"), bool(compile_time(keep_dims, "keep_dims")))


@member
@builtin
def reduce_or(input: Any, axis: Any = None, keep_dims: Any = False) -> tensor:
    """The bitwise or of the (integer) elements along ``axis``."""
    return semantic().reduce_or(unwrap(input), _axis(axis, "tl.reduce_or"),
                                bool(compile_time(keep_dims, "keep_dims")))


@member
@builtin
def cumsum(input: Any, axis: Any = 0, reverse: Any = False, dtype: Any = None) -> tensor:
    """The inclusive running sum along ``axis`` (bf16 computes in fp32; narrow integers in (u)int32)."""
    return semantic().cumsum(unwrap(input), _scan_axis(axis, "tl.cumsum"), bool(compile_time(reverse, "reverse")),
                             compile_time(dtype, "tl.cumsum's dtype"))


@member
@builtin
def cumprod(input: Any, axis: Any = 0, reverse: Any = False) -> tensor:
    """The inclusive running product along ``axis`` (bf16 computes in fp32)."""
    return semantic().cumprod(unwrap(input), _scan_axis(axis, "tl.cumprod"), bool(compile_time(reverse, "reverse")))


@member
@builtin
def sort(x: Any, dim: Any = None, descending: Any = False) -> tensor:
    """``x`` sorted along its last dim (the only one supported, as in Triton)."""
    return semantic().sort(unwrap(x), _axis(dim, "tl.sort"), bool(compile_time(descending, "descending")))


@member
@builtin
def flip(x: Any, dim: Any = None) -> tensor:
    """``x`` reversed along ``dim`` (default: the last dim)."""
    return semantic().flip(unwrap(x), _axis(dim, "tl.flip"))


@member
@builtin
def histogram(input: Any, num_bins: Any, mask: Any = None) -> tensor:
    """Counts of the values ``0..num_bins-1`` in a 1-D integer tile (bins of width 1 from 0;
    values outside are ignored, as are masked-out elements)."""
    num_bins = compile_time(num_bins, "histogram's num_bins")
    if isinstance(num_bins, bool) or not isinstance(num_bins, int):
        raise SemanticError(f"histogram's num_bins must be an integer, got {num_bins!r}")
    return semantic().histogram(unwrap(input), num_bins, unwrap(mask))


@member
@builtin
def gather(src: Any, index: Any, axis: Any) -> tensor:
    """``result[..i..] = src[..index[..i..]..]`` along ``axis``."""
    axis = _axis(axis, "tl.gather")
    if axis is None:
        raise SemanticError("tl.gather needs an axis")
    return semantic().gather(unwrap(src), unwrap(index), axis)


__all__ = ["reduce", "associative_scan", "sum", "max", "min", "argmax", "argmin", "xor_sum", "reduce_or", "cumsum",
           "cumprod", "sort", "flip", "histogram", "gather"]
