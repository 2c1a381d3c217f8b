"""Triton's ``tl.core.extern`` and ``tl.core.extern_elementwise``: user code that declares its own
library functions, as Triton's libdevice does::

    @core.extern
    def fast_exp(x, _semantic=None):
        return core.extern_elementwise("", "", [x], {(core.dtype("fp32"),): ("__nv_fast_expf", core.dtype("fp32"))},
                                       is_pure=True, _semantic=_semantic)

kernellab has no foreign-library linker: a symbol is one it knows, resolved to its own function,
so the call runs on every target (libdevice on CUDA, the host's code on the CPU, the numpy
reference in the interpreter):

- libdevice's ``__nv_*`` functions (every one of Triton 3.6's libdevice table), by the math table
  (``ir/mathfns``);
- NVVM's special-register reads ``llvm.nvvm.read.ptx.sreg.<name>`` (``tid.x``, ``smid``,
  ``clock64``...), CUDA targets only.

Any other symbol (a function of a user's own bitcode file) is a compile error naming what is
known.  As in Triton, the argument types must be one of the dictionary's keys exactly (after
broadcasting the shapes), and the result has the dictionary's result type."""

from __future__ import annotations

import functools
from typing import Any

from ..ir import types as T
from .core import SemanticError, builtin, semantic, tensor, unwrap

SREG_PREFIX = "llvm.nvvm.read.ptx.sreg."

# libdevice symbols that name kernellab builtins rather than math-table functions
# (``tl.extra.libdevice``'s abs, div_rn and fma): symbol -> (function, argument types, result)
_SPECIAL_SYMBOLS = {
    "__nv_abs": ("abs", ("i32",), "i32"), "__nv_llabs": ("abs", ("i64",), "i64"),
    "__nv_fabsf": ("abs", ("f32",), "f32"), "__nv_fabs": ("abs", ("f64",), "f64"),
    "__nv_fdiv_rn": ("div_rn", ("f32", "f32"), "f32"), "__nv_ddiv_rn": ("div_rn", ("f64", "f64"), "f64"),
    "__nv_fmaf": ("fma", ("f32", "f32", "f32"), "f32"), "__nv_fma": ("fma", ("f64", "f64", "f64"), "f64"),
}


@functools.cache
def libdevice_symbols() -> dict[tuple[str, tuple[T.Type, ...]], tuple[str, T.Type]]:
    """(libdevice symbol, argument types) -> (the ``tl.extra.libdevice`` function computing it,
    its result type)."""
    from ..ir.mathfns import MATH

    table = {}
    for fn in MATH.values():
        for signature, symbol in fn.nv.items():
            table[symbol, tuple(T.by_ir(a) for a in signature)] = (fn.name, T.by_ir(fn.signatures[signature]))
    for symbol, (name, signature, result) in _SPECIAL_SYMBOLS.items():
        table[symbol, tuple(T.by_ir(a) for a in signature)] = (name, T.by_ir(result))
    return table


def extern(fn: Any) -> Any:
    """Triton's decorator for library functions: a builtin (given ``_semantic``)."""
    return builtin(fn)


@builtin
def extern_elementwise(lib_name: str, lib_path: str, args: Any, arg_type_symbol_dict: dict, is_pure: bool) -> tensor:
    """Call the library function that ``arg_type_symbol_dict`` (argument dtypes -> (symbol, result
    dtype)) names for the arguments' dtypes, elementwise over their broadcast shape."""
    sem = semantic()
    values = [sem.to_tensor(unwrap(a)) for a in unwrap(args)]
    arg_types = tuple(T.element_of(v.type) for v in values)
    choices = {tuple(unwrap(t) for t in unwrap(key)): entry for key, entry in unwrap(arg_type_symbol_dict).items()}
    if not choices:
        raise SemanticError("extern_elementwise's arg_type_symbol_dict is empty")
    if arg_types not in choices:
        given = ", ".join(t.name for t in arg_types) or "no arguments"
        raise SemanticError(f"extern_elementwise: no entry for arguments of type ({given}); the entries take "
                            + "; ".join("(" + ", ".join(t.name for t in key) + ")" for key in choices))
    symbol, result = (unwrap(x) for x in choices[arg_types])
    if len(values) > 1:
        values = list(sem.broadcast_all(*values))
    if str(symbol).startswith(SREG_PREFIX):
        return _special_register(str(symbol), result, values, bool(unwrap(is_pure)))
    return _known_function(str(symbol), arg_types, result, values, lib_path)


def _known_function(symbol: str, arg_types: tuple, result: Any, values: list, lib_path: Any) -> tensor:
    known = libdevice_symbols().get((symbol, arg_types))
    if known is None:
        where = f" of {unwrap(lib_path)}" if unwrap(lib_path) else ""
        raise SemanticError(
            f"extern_elementwise: `{symbol}`{where} is not a function kernellab knows for these argument types; "
            f"it runs libdevice's __nv_* functions (as Triton's libdevice table types them) and NVVM's "
            f"{SREG_PREFIX}* registers, and links no other library")
    name, known_result = known
    if known_result is not result:
        raise SemanticError(f"extern_elementwise: `{symbol}` returns {known_result.name}, the entry says {result.name}")
    from .extra import libdevice
    return getattr(libdevice, name)(*values)


def _special_register(symbol: str, result: Any, values: list, is_pure: bool) -> tensor:
    if values:
        raise SemanticError(f"extern_elementwise: `{symbol}` takes no arguments")
    if result not in (T.i32, T.u32, T.i64, T.u64):
        raise SemanticError(f"extern_elementwise: `{symbol}` is read as a 32- or 64-bit integer, not {result.name}")
    from .extra.cuda import special_register

    return special_register(symbol.removeprefix(SREG_PREFIX), result, is_pure, f"extern_elementwise: `{symbol}`")


__all__ = ["extern", "extern_elementwise", "libdevice_symbols"]
