"""Every math function of ``ir/mathfns.py``, in every signature, lowered by both LLVM targets:
run on the CPU target against its numpy reference, and compiled for CUDA sm_90a down to a cubin
(ptxas: a libdevice function that does not exist fails there; no GPU needed).  A function
declared ``expand=True`` without its shared expansion, or whose C name the host's libm or
libdevice lacks, fails here."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas
from kernellab.backends.llvm.math import EXPANSIONS
from kernellab.ir import types as T
from kernellab.ir.mathfns import MATH
from kernellab.language.extra import libdevice
from kernellab.runtime.targets import backend_available

N = 64
CASES = [(name, signature) for name, fn in sorted(MATH.items()) for signature in fn.signatures]


@kl.jit
def unary(x_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, FN(tl.load(x_ptr + offs)))


@kl.jit
def binary(x_ptr, y_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, FN(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


def _kernel(signature: tuple[str, ...]):
    return unary if len(signature) == 1 else binary


def _operand(ty: str, rng: np.random.Generator, exponent: bool) -> np.ndarray:
    dtype = T.by_ir(ty).np_dtype
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-8, 8, N).astype(dtype) if exponent else rng.integers(-1000, 1000, N).astype(dtype)
    return rng.uniform(0.25, 2.0, N).astype(dtype)  # inside every function's domain


def _signature(signature: tuple[str, ...], result: str) -> dict[str, str]:
    names = ["x_ptr", "y_ptr"][:len(signature)]
    return {**{n: "*" + ty for n, ty in zip(names, signature)}, "out_ptr": "*" + result}  # "*f32", "*i32"


def test_every_function_has_its_lowering_declared() -> None:
    for fn in MATH.values():
        assert not fn.expand or fn.name in EXPANSIONS, f"{fn.name} is expand=True but backends/llvm/math.py " \
                                                       "has no expansion for it"
        assert hasattr(libdevice, fn.name), fn.name


@pytest.mark.skipif(not backend_available("cpu"), reason="the CPU backend does not import here")
@pytest.mark.parametrize("name, signature", CASES, ids=[f"{n}-{'-'.join(s)}" for n, s in CASES])
def test_the_cpu_target_computes_the_reference(name: str, signature: tuple[str, ...], monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    fn = MATH[name]
    rng = np.random.default_rng(len(name))
    args = [_operand(ty, rng, exponent=i > 0) for i, ty in enumerate(signature)]  # pow's i32 exponent
    out = np.zeros(N, T.by_ir(fn.signatures[signature]).np_dtype)
    _kernel(signature)[(1,)](*args, out, FN=getattr(libdevice, name), BLOCK=N)
    expected = np.asarray(fn.reference(*args)).astype(out.dtype)
    tolerance = 2e-6 if out.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, expected, rtol=tolerance, atol=tolerance, err_msg=name)


@pytest.mark.skipif(not backend_available("cuda") or ptxas.find_ptxas() is None,
                    reason="needs the CUDA backend and ptxas")
@pytest.mark.parametrize("name, signature", CASES, ids=[f"{n}-{'-'.join(s)}" for n, s in CASES])
def test_the_cuda_target_assembles_it(name: str, signature: tuple[str, ...]) -> None:
    fn = MATH[name]
    compiled = kl.compile(_kernel(signature), signature=_signature(signature, fn.signatures[signature]),
                          constexprs={"FN": getattr(libdevice, name), "BLOCK": N}, target="cuda:sm_90a")
    assert compiled.asm["cubin"].startswith(b"\x7fELF")
