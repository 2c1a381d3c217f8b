"""Debugging builtins, compiler hints and loop iterators end to end on every target."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError, InterpreterError


@kl.jit
def hinted(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.assume(n > 0)
    offs = tl.multiple_of(tl.program_id(0) * BLOCK, 16) + tl.max_contiguous(tl.arange(0, BLOCK), BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.debug_barrier()
    tl.store(out_ptr + offs, tl.max_constancy(x, 1) + 1, mask=offs < n)


def test_hints_keep_values(launch, inputs) -> None:
    x = inputs.normal(40)
    out = inputs.poisoned(40, np.float32)
    launch(hinted, (3,), x, out, 40, BLOCK=16)
    np.testing.assert_array_equal(out, x + 1)


@kl.jit
def loops(out_ptr, n, STEPS: tl.constexpr):
    total = 0
    for i in tl.range(1, n, 2, num_stages=2, loop_unroll_factor=2):
        total += i
    product = 1
    for k in tl.static_range(1, STEPS + 1):
        product *= k
    tl.store(out_ptr, total)
    tl.store(out_ptr + 1, product)


def test_range_and_static_range(launch) -> None:
    out = np.full(2, -1, np.int32)
    launch(loops, (1,), out, 10, STEPS=5)
    assert out.tolist() == [1 + 3 + 5 + 7 + 9, 120]


@kl.jit
def printing(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.device_print("x", x)
    tl.static_print("compiling with N =", N)


def test_device_print_and_static_print(launch, capfd) -> None:
    x = np.array([3, 1, 4, 1], np.int32)
    launch(printing, (2,), x, N=4)  # GPU printf writes to file descriptor 1, hence capfd
    out = capfd.readouterr().out
    assert "compiling with N = 4" in out
    printed = [line for line in out.splitlines() if "x:" in line]
    assert len(printed) == 8  # 4 values from each of 2 programs
    assert {line.split()[-1] for line in printed} == {"3", "1", "4"}


@kl.jit
def printing_as_triton(x_ptr, N: tl.constexpr, TAG: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N)).to(tl.int16)
    tl.static_print("", x)
    print("no arg")
    tl.device_print("x", x, hex=True)


def test_print_lines_as_tritons(launch, capfd, rng) -> None:
    """Triton's test_print formats: a static_print of a tensor shows its dims as constexprs, a
    prefix alone prints no ``idx``, hexadecimal is padded to the element's width."""
    x = rng.integers(1, 1000, 4).astype(np.int32)
    launch(printing_as_triton, (1,), x, N=4, TAG=int(rng.integers(1 << 30)))  # TAG: compiled afresh
    lines = capfd.readouterr().out.splitlines()
    assert " int16[constexpr[4]]" in lines and "pid (0, 0, 0) no arg" in lines
    assert sorted(line for line in lines if " x: " in line) == [f"pid (0, 0, 0) idx ({i}) x: 0x{v:04x}"
                                                                for i, v in enumerate(x)]


@kl.jit(debug=True)
def checked(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.device_assert(x < 100, "x must stay below 100")


@kl.jit(debug=False)
def unchecked(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.device_assert(x < 100, "x must stay below 100")


def test_device_assert_in_debug_mode(launch, target: str) -> None:
    if target == "cuda":
        pytest.skip("a device-side assert ends the process's CUDA context; tests/backends/cuda runs it alone")
    x = np.arange(16, dtype=np.int32)
    launch(checked, (1,), x, N=16)  # passes
    x[5] = 500
    with pytest.raises(InterpreterError, match="x must stay below 100"):
        launch(checked, (1,), x, N=16)
    if target != "interpret":  # the interpreter always runs in debug mode
        launch(unchecked, (1,), x, N=16)


@kl.jit
def static_checks(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 16, "BLOCK must be at least 16")
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), tl.float32))


def test_static_assert(launch) -> None:
    x = np.ones(16, np.float32)
    launch(static_checks, (1,), x, BLOCK=16)
    assert not x.any()
    with pytest.raises(CompilationError, match="static_assert failed: BLOCK must be at least 16") as caught:
        launch(static_checks, (1,), x, BLOCK=8)
    assert "test_debug.py" in str(caught.value)


@kl.jit
def runtime_arange(x_ptr, n):
    tl.store(x_ptr + tl.arange(0, n), 1.0)


def test_builtin_misuse_points_at_the_kernel_line(launch) -> None:
    with pytest.raises(CompilationError, match="arange's bounds must be tl.constexpr") as caught:
        launch(runtime_arange, (1,), np.zeros(16, np.float32), 16)
    assert "tl.store(x_ptr + tl.arange(0, n), 1.0)" in str(caught.value)


@kl.jit
def assembly(x_ptr, y_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + tl.arange(0, N), y)


def test_inline_asm_needs_a_gpu_on_host_targets(launch, target: str) -> None:
    x = np.arange(16, dtype=np.int32)
    y = np.zeros(16, np.int32)
    if target == "cuda":
        launch(assembly, (1,), x, y, N=16)
        np.testing.assert_array_equal(y, x)
        return
    with pytest.raises((CompilationError, InterpreterError), match="inline_asm"):
        launch(assembly, (1,), x, y, N=16)
