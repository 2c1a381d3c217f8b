"""Loop iterators.  The frontend recognizes these in ``for`` loops; they build no IR themselves.

* ``tl.range(start, end, step, num_stages=..., loop_unroll_factor=..., ...)``: a counted loop
  (bounds may be runtime values) with hints for the compiler;
* ``tl.static_range(start, end, step)``: a loop unrolled at compile time (constexpr bounds).
"""

from __future__ import annotations

import builtins
from typing import Any

from .core import SemanticError, compile_time, unwrap


def _bounds(arg1: Any, arg2: Any, step: Any) -> tuple[Any, Any, Any]:
    arg1, arg2, step = unwrap(arg1), unwrap(arg2), unwrap(step)
    step = 1 if step is None else step
    return (0, arg1, step) if arg2 is None else (arg1, arg2, step)


class range:
    """``for i in tl.range(...)``: like Python's ``range``, with compiler hints.

    ``num_stages`` pipelines the loop; ``loop_unroll_factor`` unrolls it; ``flatten`` and
    ``warp_specialize`` are scheduling requests; ``disallow_acc_multi_buffer`` keeps a dot
    accumulator single-buffered; ``disable_licm`` keeps loop-invariant code inside the loop
    (shorter live ranges).
    """

    def __init__(self, arg1: Any, arg2: Any = None, step: Any = None, num_stages: Any = None,
                 loop_unroll_factor: Any = None, disallow_acc_multi_buffer: Any = False, flatten: Any = False,
                 warp_specialize: Any = False, disable_licm: Any = False):
        self.start, self.end, self.step = _bounds(arg1, arg2, step)
        self.num_stages = compile_time(num_stages, "tl.range's num_stages")
        self.loop_unroll_factor = compile_time(loop_unroll_factor, "tl.range's loop_unroll_factor")
        self.disallow_acc_multi_buffer = bool(compile_time(disallow_acc_multi_buffer, "disallow_acc_multi_buffer"))
        self.flatten = bool(compile_time(flatten, "tl.range's flatten"))
        self.warp_specialize = bool(compile_time(warp_specialize, "tl.range's warp_specialize"))
        self.disable_licm = bool(compile_time(disable_licm, "tl.range's disable_licm"))

    def __iter__(self):
        raise RuntimeError("tl.range can only be used in a for loop inside a @jit function")

    def __repr__(self) -> str:
        return f"tl.range({self.start}, {self.end}, {self.step})"


class static_range:
    """``for i in tl.static_range(...)``: unrolled at compile time; ``i`` is a constexpr."""

    def __init__(self, arg1: Any, arg2: Any = None, step: Any = None):
        start, end, step = _bounds(arg1, arg2, step)
        for name, value in (("start", start), ("end", end), ("step", step)):
            value = compile_time(value, f"tl.static_range's {name}")
            if isinstance(value, bool) or not isinstance(value, int):
                raise SemanticError(f"tl.static_range's {name} must be a compile-time integer, got {value!r}")
        if step == 0:
            raise SemanticError("tl.static_range's step must not be zero")
        self.start, self.end, self.step = start, end, step

    def values(self) -> builtins.range:
        """The iteration values, as a Python range."""
        return builtins.range(self.start, self.end, self.step)

    def __iter__(self):
        raise RuntimeError("tl.static_range can only be used in a for loop inside a @jit function")

    def __repr__(self) -> str:
        return f"tl.static_range({self.start}, {self.end}, {self.step})"


__all__ = ["range", "static_range"]
