"""Triton's per-launch compile options: ``debug`` (``kernel[grid](..., debug=True)``) over the
kernel's own ``@jit(debug=...)``, ``TRITON_DEBUG=1`` (like ``KERNELLAB_DEBUG=1``) turning it on
for every kernel whatever the kernel says, and ``enable_fp_fusion``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import knobs
from kernellab.backends.cuda import ptxas
from kernellab.errors import InterpreterError


def _asserting(debug):
    @kl.jit(debug=debug)
    def check(x_ptr, OK: tl.constexpr):
        tl.device_assert(OK, "the launch asked for a failing check")
    return check


@pytest.mark.parametrize("jit_debug", [None, False, True])
def test_the_launch_option_decides(host_target, monkeypatch, jit_debug) -> None:
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    monkeypatch.delenv("KERNELLAB_DEBUG", raising=False)
    kernel = _asserting(jit_debug)
    x = np.zeros(1, np.float32)
    with pytest.raises(InterpreterError, match="the launch asked for a failing check"):
        kernel[(1,)](x, False, debug=True)
    kernel[(1,)](x, False, debug=False)  # compiled without the check
    kernel[(1,)](x, True, debug=True)
    with pytest.raises(InterpreterError):  # the variant is kept
        kernel[(1,)](x, False, debug=True)


@pytest.mark.parametrize("variable", ["TRITON_DEBUG", "KERNELLAB_DEBUG"])
def test_the_environment_turns_it_on(host_target, monkeypatch, variable) -> None:
    monkeypatch.setenv(variable, "1")
    assert knobs.runtime.debug
    with pytest.raises(InterpreterError):
        _asserting(False)[(1,)](np.zeros(1, np.float32), False)
    monkeypatch.setenv(variable, "0")
    assert not knobs.runtime.debug


@kl.jit
def takes_debug(out, debug):
    tl.store(out, debug)


def test_a_parameter_named_debug_is_an_argument(host_target) -> None:
    out = np.zeros(1, np.int32)
    takes_debug[(1,)](out, 7)
    assert out[0] == 7


def test_the_option_is_named_among_the_launch_options(host_target) -> None:
    with pytest.raises(TypeError, match="debug"):
        _asserting(None)[(1,)](np.zeros(1, np.float32), True, debugg=True)


@kl.jit
def mul_add(data):
    offsets = tl.arange(0, 128)
    tl.store(data + offsets, tl.load(data + offsets) * 1.5 + 1.0)


def test_enable_fp_fusion_is_a_launch_option_too(host_target) -> None:
    x = np.ones(128, np.float32)
    mul_add[(1,)](x, enable_fp_fusion=False)
    assert (x == 2.5).all()


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_enable_fp_fusion_false_keeps_multiply_and_add_apart_on_cuda(monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "cuda:sm_90a")
    fused = re.compile(r"(mad|fma)\.r[nzmp]\.(ftz\.)?f32")
    x = np.ones(128, np.float32)
    assert fused.search(mul_add.warmup(x, grid=(1,)).asm["ptx"])
    assert not fused.search(mul_add.warmup(x, grid=(1,), enable_fp_fusion=False).asm["ptx"])
    assert fused.search(mul_add.warmup(x, grid=(1,), enable_fp_fusion=True, debug=False).asm["ptx"])
