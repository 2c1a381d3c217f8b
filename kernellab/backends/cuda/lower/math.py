"""The CUDA math library, as the shared math lowering's hook (``backends/llvm/math.py``):
NVVM approximate instructions where Triton uses them for f32 (``ex2.approx``, ``lg2.approx``,
``sqrt.approx``, ``rsqrt.approx``), LLVM intrinsics NVPTX turns into instructions
(``llvm.floor``, ``llvm.sqrt``, ``llvm.fma``, ``llvm.ctpop``...), ``tanh.approx`` for
``fast_tanhf``, and libdevice (``__nv_*``, each function's ``nv`` symbol, linked into the module
only when used) for everything else.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import llvmlite.ir as ir

from .nvvm import Nvvm, inline_asm
from .types import F32, F64

LOG2E = 1.0 / math.log(2.0)
LN2 = math.log(2.0)

# LLVM intrinsics NVPTX lowers to instructions (others, such as llvm.exp or llvm.sin, would
# become calls to functions that do not exist on the device: those go to libdevice).
NATIVE_INTRINSICS = frozenset({"sqrt", "floor", "ceil", "rint", "trunc", "roundeven", "fabs", "fma", "minnum",
                               "maxnum", "minimum", "maximum", "ctpop", "ctlz", "cttz", "abs"})


def libdevice_call(nvvm: Nvvm, builder: ir.IRBuilder, c_name: str, values: list[ir.Value]) -> ir.Value:
    """``__nv_<name>f`` for f32, ``__nv_<name>`` for f64."""
    ty = values[0].type
    symbol = f"__nv_{c_name}" if ty == F64 else f"__nv_{c_name}f"
    return nvvm.call(builder, symbol, ty, values)


def _approx(name: str, ftz: bool = False) -> Callable[[Nvvm, ir.IRBuilder, ir.Value], ir.Value]:
    symbol = f"llvm.nvvm.{name}.approx.{'ftz.' if ftz else ''}f"

    def fn(nvvm: Nvvm, builder: ir.IRBuilder, x: ir.Value) -> ir.Value:
        return nvvm.call(builder, symbol, F32, [x])
    return fn


_ex2, _lg2 = _approx("ex2"), _approx("lg2")


def _exp(nvvm: Nvvm, builder: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _ex2(nvvm, builder, builder.fmul(x, ir.Constant(F32, LOG2E)))


def _log(nvvm: Nvvm, builder: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return builder.fmul(_lg2(nvvm, builder, x), ir.Constant(F32, LN2))


# f32 functions Triton computes with approximate instructions.  ``exp2`` flushes results below
# 2**-126 to zero, as Triton's (libdevice's exp2f under its ftz setting): one MUFU.EX2, where the
# non-ftz form costs a compare and two multiplies around it in SASS (attention's inner loop).
F32_APPROX = {"exp": _exp, "exp2": _approx("ex2", ftz=True), "log": _log, "log2": _lg2, "sqrt": _approx("sqrt"),
              "rsqrt": _approx("rsqrt")}


def math_override(nvvm: Nvvm, builder: ir.IRBuilder, name: str, values: list[ir.Value]) -> ir.Value | None:
    """The device's own code for math function ``name``, or None for the shared recipe."""
    x = values[0]
    if name in F32_APPROX and x.type == F32:
        return F32_APPROX[name](nvvm, builder, x)
    if name == "fast_tanhf":  # HIP's function; on NVIDIA GPUs the tanh.approx instruction (sm_75+)
        return inline_asm(builder, "tanh.approx.f32 $0, $1;", "=f,f", [F32], [x], side_effect=False)[0]
    return None
