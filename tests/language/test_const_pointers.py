"""``tl.const``: a pointer parameter to constant data, as Triton's (``*kfp32``): loads work, a
store or an atomic through it is a compile error, and it does not merge with a plain pointer."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError
from kernellab.ir.parser import parse_module
from kernellab.ir.printer import print_module


@kl.jit
def scale(src: tl.const, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(src + offs, mask=mask) * 3, mask=mask)


def test_loads_through_a_const_pointer(launch, inputs) -> None:
    x = inputs.normal(32)
    out = inputs.poisoned(32)
    launch(scale, (1,), x, out, 30, BLOCK=32)
    np.testing.assert_allclose(out[:30], x[:30] * 3, rtol=1e-6)
    assert np.isnan(out[30:]).all()


@kl.jit
def store_through(src: tl.const, BLOCK: tl.constexpr):
    tl.store(src + tl.arange(0, BLOCK), 1.0)


@kl.jit
def add_through(src: tl.const):
    tl.atomic_add(src, 1.0)


@kl.jit
def pick(src: tl.const, out, flag, BLOCK: tl.constexpr):
    target = src if flag > 0 else out
    tl.store(out + tl.arange(0, BLOCK), tl.load(target + tl.arange(0, BLOCK)))


@pytest.mark.parametrize("kernel, marker", [(store_through, "tl.store("), (add_through, "tl.atomic_add(")])
def test_writing_through_a_const_pointer_is_a_compile_error(host_target, kernel, marker) -> None:
    with pytest.raises(CompilationError, match=r"Cannot store to a constant pointer; const_pointer<fp32>") as info:
        kernel[(1,)](np.zeros(16, np.float32), BLOCK=16) if kernel is store_through else kernel[(1,)](
            np.zeros(1, np.float32))
    assert str(info.value.__cause__) == "Cannot store to a constant pointer" and marker in str(info.value)


def test_a_const_pointer_does_not_merge_with_a_plain_one(host_target) -> None:
    with pytest.raises(CompilationError, match=r"Ternary expression with dynamic condition has inconsistent types "
                                               r"ptr<const f32> and ptr<f32>"):
        pick[(1,)](np.ones(8, np.float32), np.zeros(8, np.float32), 3, BLOCK=8)  # (1 would be a constant)


def test_tritons_spelling_and_the_printed_ir() -> None:
    kernel = kl.compile(scale, signature={"src": "*kfp32", "out": "*fp32", "n": "i32"}, constexprs={"BLOCK": 16},
                        target="cuda:sm_90a")
    assert kernel.metadata["signature"]["src"] == "*kfp32" and kernel.asm["cubin"]
    assert "%src: ptr<const f32>" in kernel.asm["tile"]
    assert print_module(parse_module(kernel.asm["tile"])) == kernel.asm["tile"]
    assert tl.pointer_type(tl.float32, const=True).is_const() and not tl.pointer_type(tl.float32).is_const()
