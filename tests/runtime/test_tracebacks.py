"""A mistake in a kernel or a launch shows the user's line and the message, not kernellab's
internals: at most one frame of the entry point (the generated launch function, which shows no
source line, or kl.compile's re-raise)."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError, InterpreterError, KernelArgumentError


@kl.jit
def bad_arange(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, n)
    tl.store(x_ptr + offs, offs)


@kl.jit
def out_of_bounds(x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)


def _kernellab_frames(error: BaseException) -> list[str]:
    frames = traceback.extract_tb(error.__traceback__)
    return [f"{f.filename}:{f.lineno}" for f in frames if "kernellab" in f.filename and "tests" not in f.filename]


def _raised(call) -> BaseException:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the test inspects whatever came out
        return error
    raise AssertionError("nothing was raised")


def test_compile_error_traceback_has_no_compiler_frames(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    error = _raised(lambda: bad_arange[(1,)](np.zeros(16, np.float32), 16, BLOCK=16))
    assert isinstance(error, CompilationError)
    assert _kernellab_frames(error) == [] or all("<kernellab binder" in f for f in _kernellab_frames(error))
    assert error.__suppress_context__
    # as Triton's: the language function's error is the cause (its message, none of its frames)
    cause = error.__cause__
    assert cause is not None and str(cause) in error.message and cause.__traceback__ is None
    line = next(i for i, text in enumerate(open(__file__), 1) if "offs = tl.arange(0, n)" in text)
    assert f"test_tracebacks.py:{line}:" in str(error)
    printed = "".join(traceback.format_exception(error))
    assert "frontend" not in printed and "semantics" not in printed


def test_interpreter_error_traceback_has_no_interpreter_frames(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    error = _raised(lambda: out_of_bounds[(2,)](np.ones(100, np.float32), BLOCK=64))
    assert isinstance(error, InterpreterError) and "program (1, 0, 0)" in str(error)
    assert all("<kernellab binder" in f for f in _kernellab_frames(error))


def test_kl_compile_and_bad_arguments_are_trimmed_too():
    error = _raised(lambda: kl.compile(bad_arange, signature={"x_ptr": "*fp32", "n": "i32"},
                                       constexprs={"BLOCK": 16}, target="interpret"))
    frames = _kernellab_frames(error)  # only kl.compile's own line, where it re-raises
    assert isinstance(error, CompilationError) and len(frames) == 1 and "runtime/compiler.py" in frames[0]
    error = _raised(lambda: bad_arange[(1,)](np.zeros(4, np.float32), 4, BLOCK=4, colour="red"))
    assert isinstance(error, KernelArgumentError) and isinstance(error, TypeError)
    assert "colour" in str(error) and all("<kernellab binder" in f for f in _kernellab_frames(error))


def test_full_tracebacks_on_request(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TRACEBACK", "full")
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    fresh = kl.jit(bad_arange.fn)
    with pytest.raises(CompilationError) as info:
        fresh[(1,)](np.zeros(16, np.float32), 16, BLOCK=16)
    assert any("frontend" in f for f in _kernellab_frames(info.value))
    assert any("semantics" in f for f in _kernellab_frames(info.value.__cause__))  # where the language raised it
