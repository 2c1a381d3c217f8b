"""Math functions (``tl.math`` and ``libdevice``), each declared once, here.

A :class:`MathFunction` is the whole definition of one elementwise math function:

- ``signatures``: argument types -> result type, in Tile IR spellings (Triton 3.6's libdevice
  table: ``popc`` takes i32 or i64 and returns i32, ``float2uint_rn`` returns the i32 bits);
- ``reference``: a numpy function (Python's ``math`` or exact ``fractions`` where numpy has no
  such function), the spec; the interpreter runs it and constant folding uses it (the result is
  converted to the signature's result type);
- how an LLVM target computes it (``backends/llvm/math.py``): ``intrinsic`` (the overloaded
  LLVM intrinsic ``llvm.<intrinsic>.<type>``, where the target lowers it to instructions),
  ``nv`` (libdevice's ``__nv_*`` symbol per signature, which the CUDA target calls),
  ``c_name`` (the host's C math library: libm's ``tanhf`` / ``tanh``) and ``expand=True``
  (shared LLVM code in ``backends/llvm/math*.py`` under the function's name, for targets
  without a library function).  A target's math hook may compute any of them its own way (the
  host's vectorizable ``exp``, NVVM's approximate ``ex2``);
- ``modules``: where users find it (``tl.math.<name>`` / ``tl.<name>`` and/or
  ``tl.extra.libdevice.<name>``).

``ir/ops/math.py`` declares one Tile IR op per function from this table, the language builds
one builtin per function from it, and both LLVM backends lower every function through the
shared code: adding a function is one :func:`math_function` call in the module of its concept
(``core``: elementary functions and classification; ``rounding``: arithmetic in a rounding
mode, conversions and bit casts; ``bits``: integer bit functions; ``special``: error, gamma
and Bessel functions); one in ``tl.math`` also names itself in ``language/math.py``'s
``TABLE`` (a test checks the two agree).  These modules import only numpy and the standard
library; they load when a kernel is compiled or ``tl.extra`` is read, not with
``kernellab.language`` (~9 ms).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

FLOAT = (("f32",), ("f64",))
FLOAT_32 = (("f32",),)
FLOAT2 = (("f32", "f32"), ("f64", "f64"))
FLOAT3 = (("f32", "f32", "f32"), ("f64", "f64", "f64"))

_NV_DEFAULT = "{name}{f}"


@dataclass(frozen=True)
class MathFunction:
    name: str
    signatures: dict[tuple[str, ...], str]
    reference: Callable
    doc: str
    intrinsic: str | None = None
    c_name: str | None = None
    expand: bool = False
    nv: dict[tuple[str, ...], str] | None = None
    modules: tuple[str, ...] = ("libdevice",)

    @property
    def arity(self) -> int:
        return len(next(iter(self.signatures)))


MATH: dict[str, MathFunction] = {}


def _nv_symbols(name: str, nv: str | dict | None, signatures: dict) -> dict[tuple[str, ...], str]:
    """libdevice's symbol per signature: a pattern (``{f}``: ``f`` for f32 and nothing for f64,
    ``{fd}``: ``f`` or ``d``) or an explicit dict; ``__nv_`` is added."""
    if nv is None:
        return {}
    if isinstance(nv, dict):
        return {sig: f"__nv_{symbol}" for sig, symbol in nv.items()}
    symbols = {}
    for sig in signatures:
        single = next((ty == "f32" for ty in sig if ty in ("f32", "f64")), True)
        symbols[sig] = "__nv_" + nv.format(name=name, f="f" if single else "", fd="f" if single else "d")
    return symbols


def math_function(name: str, reference: Callable, doc: str, *, signatures=FLOAT, result: str | None = None,
                  intrinsic: str | None = None, c_name: str | None = None, expand: bool = False,
                  nv: str | dict | None = _NV_DEFAULT, modules: tuple[str, ...] = ("libdevice",)) -> MathFunction:
    """Declare one math function.  ``signatures`` is a dict (argument types -> result type) or
    a tuple of argument-type tuples whose result is ``result`` (default: the first argument's
    type).  ``intrinsic``, ``c_name`` or ``expand`` says how a target without libdevice
    computes it; ``nv`` names libdevice's function (default ``<name>f`` / ``<name>``)."""
    if name in MATH:
        raise ValueError(f"math function {name} is declared twice")
    if not (intrinsic or c_name or expand):
        raise ValueError(f"math function {name} needs an intrinsic, a c_name or expand=True")
    if not isinstance(signatures, dict):
        signatures = {args: result or args[0] for args in signatures}
    fn = MathFunction(name, dict(signatures), reference, doc, intrinsic, c_name, expand,
                      _nv_symbols(name, nv, signatures), modules)
    MATH[name] = fn
    return fn


def in_module(module: str) -> list[MathFunction]:
    """The functions users find in ``module`` (``"math"`` or ``"libdevice"``)."""
    return [fn for fn in MATH.values() if module in fn.modules]


from . import bits, core, rounding, special  # noqa: E402,F401  (the declarations)
