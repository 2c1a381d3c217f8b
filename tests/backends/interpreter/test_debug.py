"""device_print, device_assert, inline assembly and errors raised inside op references."""

from __future__ import annotations

import numpy as np
import pytest

from kernellab.errors import InterpreterError
from kernellab.ir import types as T

from .kit import F32P, I32P, Kit, poisoned, run


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def _printing_kernel():
    k = Kit()
    fn = k.kernel("show", [("x_ptr", I32P), ("f_ptr", F32P)])
    x_ptr, f_ptr = fn.args
    with k.body(fn.body):
        pid = k.pid()
        offs = k.bin("add", k.splat(k.bin("mul", pid, k.const(4, T.i32)), (4,)), k.arange(4))
        x = k.load(k.addptr(x_ptr, offs))
        k.op("print", [[pid]], [], {"prefix": " pid: "}, grouped=True)
        k.op("print", [[x]], [], {"prefix": " x: ", "hex": True}, grouped=True)
        f = k.load(f_ptr)
        k.op("print", [[f, pid]], [], {"prefix": " both: "}, grouped=True)
        k.ret()
    return k.module


def test_device_print_lines(capsys, rng):
    x = rng.integers(-1000, 1000, 8).astype(np.int32)
    f = np.array([1.5], np.float32)
    run(_printing_kernel(), (2,), x, f)
    lines = capsys.readouterr().out.splitlines()
    expected = []
    for p in range(2):
        expected.append(f"pid ({p}, 0, 0) idx () pid: {p}")
        expected += [f"pid ({p}, 0, 0) idx ({i}) x: 0x{int(x[4 * p + i]) & 0xFFFFFFFF:08x}" for i in range(4)]
        expected += [f"pid ({p}, 0, 0) idx () both: (operand 0) 1.500000",
                     f"pid ({p}, 0, 0) idx () both: (operand 1) {p}"]
    assert lines == expected


def test_device_print_pads_indices_of_2d_tiles(capsys):
    k = Kit()
    fn = k.kernel("grid2d", [])
    with k.body(fn.body):
        ramp = k.one("reshape", [k.arange(12)], T.tile(T.i32, (3, 4)))
        k.op("print", [[ramp]], [], {"prefix": " r: "}, grouped=True)
        k.ret()
    run(k.module, (1, 1, 1))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "pid (0, 0, 0) idx (0, 0) r: 0"
    assert lines[-1] == "pid (0, 0, 0) idx (2, 3) r: 11"
    assert len(lines) == 12


def _asserting_kernel(limit_name: str = "limit"):
    k = Kit()
    fn = k.kernel("checked", [("x_ptr", I32P), (limit_name, T.i32)])
    x_ptr, limit = fn.args
    with k.body(fn.body):
        pid = k.pid()
        offs = k.bin("add", k.splat(k.bin("mul", pid, k.const(8, T.i32)), (8,)), k.arange(8))
        x = k.load(k.addptr(x_ptr, offs))
        k.op("assert", [k.cmp("lt", x, k.splat(limit, (8,)))], [], {"message": "x < limit"})
        k.ret()
    return k.module


def test_device_assert_failure_names_program_index_and_message():
    x = np.arange(24, dtype=np.int32)
    run(_asserting_kernel(), (3,), x, 100)  # holds everywhere
    with pytest.raises(InterpreterError) as caught:
        run(_asserting_kernel(), (3,), x, 11)
    message = str(caught.value)
    assert "device_assert failed in program (1, 0, 0) at index (3,): x < limit" in message
    assert "kernels.py" in message


def test_inline_asm_is_an_interpreter_error():
    k = Kit()
    fn = k.kernel("asm", [("x_ptr", F32P)])
    (x_ptr,) = fn.args
    with k.body(fn.body):
        x = k.load(x_ptr)
        k.op("inline_asm", [x], [T.f32], {"asm": "mov.b32 $0, $1;", "constraints": "=r,r"})
        k.ret()
    with pytest.raises(InterpreterError, match="inline_asm at kernels.py:2:4.*cannot run here"):
        run(k.module, (1,), np.ones(1, np.float32))


def test_reference_errors_are_located():
    """range() with a zero step fails inside the generated loop: the error names the op."""
    k = Kit()
    fn = k.kernel("stuck", [("out_ptr", I32P), ("step", T.i32)])
    out_ptr, step = fn.args
    with k.body(fn.body):
        (total,) = k.for_(k.const(0, T.i32), k.const(4, T.i32), step, [k.const(0, T.i32)],
                          lambda i, acc: [k.bin("add", acc, i)])
        k.store(out_ptr, total)
        k.ret()
    out = poisoned(1, np.int32)
    run(k.module, (1,), out, 1)
    assert out[0] == 6
    with pytest.raises(InterpreterError, match=r"ValueError in for at kernels\.py:\d+:4, program \(0, 0, 0\)"):
        run(k.module, (1,), out, 0)


def test_integer_arithmetic_wraps_silently(recwarn):
    k = Kit()
    fn = k.kernel("wrap", [("out_ptr", I32P), ("x", T.i32)])
    out_ptr, x = fn.args
    with k.body(fn.body):
        big = k.bin("mul", x, x)
        summed = k.reduce_with("add", k.splat(big, (4,)))
        k.store(out_ptr, summed)
        k.ret()
    out = poisoned(1, np.int32)
    run(k.module, (1,), out, 70000)
    expected = np.array([70000], np.int64) ** 2 * 4
    assert out[0] == ((expected[0] + 2**31) % 2**32) - 2**31
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
