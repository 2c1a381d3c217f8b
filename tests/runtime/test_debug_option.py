"""``debug``: Triton's per-launch option (``kernel[grid](..., debug=True)``) over the kernel's own
``@jit(debug=...)``, and ``TRITON_DEBUG=1`` (like ``KERNELLAB_DEBUG=1``) turning it on for every
kernel whatever the kernel says."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import knobs
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
