"""Debugging and compiler hints: ``static_print``, ``static_assert``, ``device_print``,
``device_assert``, ``multiple_of``, ``max_contiguous``, ``max_constancy``, ``assume``,
``debug_barrier``, ``inline_asm_elementwise``."""

from __future__ import annotations

from typing import Any

from .core import SemanticError, builtin, compile_time, compile_time_ints, semantic, tensor, unwrap


@builtin
def static_print(*values: Any, sep: str = " ", end: str = "\n", file: Any = None, flush: bool = False) -> None:
    """Print at compile time (constexprs by value, tensors as ``dtype[shape]``)."""
    semantic().static_print(values, sep=sep, end=end, file=file, flush=flush)


@builtin
def static_assert(cond: Any, msg: Any = "") -> None:
    """Fail the compilation when the compile-time ``cond`` is false."""
    semantic().static_assert(cond, unwrap(msg))


@builtin
def device_print(prefix: Any, *args: Any, hex: Any = False) -> None:
    """Print ``prefix`` and the values at run time, from every program."""
    semantic().device_print(unwrap(prefix), [unwrap(a) for a in args], bool(compile_time(hex, "hex")))


@builtin
def device_assert(cond: Any, msg: Any = "", mask: Any = None) -> None:
    """Check ``cond`` at run time where ``mask`` holds; active only in debug mode
    (``debug=True``, ``KERNELLAB_DEBUG=1``, and always in the interpreter)."""
    semantic().device_assert(unwrap(cond), compile_time(msg, "device_assert's message"), unwrap(mask))


def _hint(kind: str):
    def hint(input: Any, values: Any) -> tensor:
        return semantic().hint(unwrap(input), kind, compile_time_ints(values, f"{kind}'s values"))

    hint.__name__ = hint.__qualname__ = kind
    return builtin(hint)


multiple_of = _hint("multiple_of")
multiple_of.__doc__ = "``input``, telling the compiler each value is a multiple of ``values`` (one per dim)."
max_contiguous = _hint("max_contiguous")
max_contiguous.__doc__ = "``input``, telling the compiler the first ``values`` elements of each dim are contiguous."
max_constancy = _hint("max_constancy")
max_constancy.__doc__ = "``input``, telling the compiler ``values`` consecutive elements of each dim are equal."


@builtin
def assume(cond: Any) -> None:
    """Let the compiler assume the boolean ``cond`` holds."""
    semantic().assume(unwrap(cond))


@builtin
def debug_barrier() -> None:
    """Synchronize all threads of a program."""
    semantic().debug_barrier()


@builtin
def inline_asm_elementwise(asm: Any, constraints: Any, args: Any, dtype: Any, is_pure: Any, pack: Any) -> Any:
    """Run target assembly elementwise over the broadcast ``args``, ``pack`` elements at a time;
    ``dtype`` may be a tuple (then a tuple of tensors is returned)."""
    dtype = compile_time(dtype, "inline_asm_elementwise's dtype")
    several = isinstance(dtype, (tuple, list))
    args = unwrap(args)
    if not isinstance(args, (tuple, list)):
        raise SemanticError("inline_asm_elementwise's args must be a list or tuple of tensors")
    results = semantic().inline_asm_elementwise(
        compile_time(asm, "asm"), compile_time(constraints, "constraints"), list(args),
        list(dtype) if several else [dtype], bool(compile_time(is_pure, "is_pure")), compile_time(pack, "pack"))
    return results if several else results[0]


__all__ = ["static_print", "static_assert", "device_print", "device_assert", "multiple_of", "max_contiguous",
           "max_constancy", "assume", "debug_barrier", "inline_asm_elementwise"]
