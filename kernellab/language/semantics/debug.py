"""Debugging (compile-time and device prints and asserts), compiler hints, barriers and inline
assembly."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from ...ir import types as T
from ...ir.types import ScalarType
from ..core import StaticAssertionError, tensor
from .arith import ArithMixin
from .base import SemanticError
from .typing import python_value, tile_type


def format_static(value: Any) -> str:
    """How ``static_print`` shows a value, as Triton's does: constexprs by value, tensors as
    ``dtype[shape]`` with each dim a constexpr (``int32[constexpr[128]]``, Triton's text)."""
    value = python_value(value)
    if isinstance(value, tensor):
        dims = ", ".join(f"constexpr[{d}]" for d in T.shape_of(value.type))
        return f"{value.dtype}[{dims}]"
    return str(value)


class DebugMixin(ArithMixin):
    # ---- compile time ----
    def static_print(self, values: Sequence[Any], sep: str = " ", end: str = "\n", file: Any = None,
                     flush: bool = False) -> None:
        print(*(format_static(v) for v in values), sep=sep, end=end, file=file, flush=flush)

    def static_assert(self, cond: Any, msg: str = "") -> None:
        value = python_value(cond)
        if isinstance(value, tensor):
            raise SemanticError("static_assert needs a compile-time condition (constexprs and Python values); got a "
                                "runtime tensor — use tl.device_assert for runtime checks")
        if not value:
            raise StaticAssertionError(f"static_assert failed: {python_value(msg)}" if msg else "static_assert failed")

    # ---- device ----
    def device_print(self, prefix: Any, args: Sequence[Any], hex: bool = False) -> None:
        """Print ``prefix`` then each value, per program (as ``print`` in a kernel does)."""
        prefix = python_value(prefix)
        if not isinstance(prefix, str):
            raise SemanticError(f"device_print's prefix must be a string literal, got {prefix!r}")
        if any(ch not in string.printable for ch in prefix):
            raise SemanticError(f"device_print's prefix must be printable ASCII, got {prefix!r}")
        values = [self.to_tensor(a) for a in args]
        if values:  # as Triton: with values the prefix ends in ": "
            if not prefix.endswith(" "):
                prefix += " "
            if not prefix.endswith(": "):
                prefix = prefix[:-1] + ": "
        if len(prefix) > 2 and not prefix.startswith(" "):  # and it starts with " " when long enough
            prefix = " " + prefix
        self.builder.create("print", [v.handle for v in values], [], {"prefix": prefix, "hex": bool(hex)})

    def device_assert(self, cond: Any, msg: Any = "", mask: Any = None) -> None:
        """Fail (at run time, per program) where ``cond`` is false; emitted only with debug on."""
        msg = python_value(msg)
        if not isinstance(msg, str):
            raise SemanticError(f"device_assert's message must be a string literal, got {msg!r}")
        cond = self.to_tensor(cond)
        if not self.options.debug:
            return
        cond = self.to_bool(cond)
        if python_value(mask) is not None:
            cond = self.logical_or(cond, self.logical_not(mask))
        self.builder.create("assert", [cond.handle], [], {"message": msg})

    # ---- hints ----
    def hint(self, x: Any, kind: str, values: Sequence[int]) -> tensor:
        """``x`` with a fact for the compiler: ``multiple_of``, ``max_contiguous`` or ``max_constancy``."""
        x = self.to_tensor(x)
        rank = len(T.shape_of(x.type))
        expected = max(1, rank) if kind == "multiple_of" else rank
        if len(values) != expected:
            raise SemanticError(f"{kind} needs {expected} value(s) (one per dim of the tensor), got {list(values)}")
        return self.make("hint", [x], x.type, {kind: tuple(values)})

    def assume(self, cond: Any) -> None:
        cond = self.to_tensor(cond)
        if cond.dtype is not T.i1:
            raise SemanticError(f"tl.assume needs a boolean condition, got {cond.dtype.name}")
        self.builder.create("assume", [cond.handle], [])

    def debug_barrier(self) -> None:
        self.builder.create("barrier", [], [])

    # ---- inline assembly ----
    def inline_asm_elementwise(self, asm: str, constraints: str, args: Sequence[Any], dtypes: Sequence[Any],
                               is_pure: bool, pack: int) -> tuple[tensor, ...]:
        """Target assembly applied elementwise (``pack`` elements at a time) over the broadcast
        ``args``; one result per dtype."""
        if not isinstance(asm, str) or not isinstance(constraints, str):
            raise SemanticError("inline_asm_elementwise's asm and constraints must be string literals")
        if not dtypes:
            raise SemanticError("inline_asm_elementwise must return at least one value (give a dtype)")
        for dtype in dtypes:
            if not isinstance(dtype, ScalarType):
                raise SemanticError(f"inline_asm_elementwise's dtype must be scalar dtypes, got {dtype!r}")
        if isinstance(pack, bool) or not isinstance(pack, int) or pack < 1:
            raise SemanticError(f"inline_asm_elementwise's pack must be a positive integer, got {pack!r}")
        values = self.broadcast_all(*[self.to_tensor(a) for a in args]) if args else ()
        shape = T.shape_of(values[0].type) if values else ()
        result_types = [tile_type(d, shape) for d in dtypes]
        op = self.builder.create("inline_asm", [v.handle for v in values], result_types,
                                 {"asm": asm, "constraints": constraints, "pure": bool(is_pure), "pack": pack})
        return tuple(tensor(r, t) for r, t in zip(op.results, result_types))
