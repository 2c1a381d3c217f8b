"""Triton's frontend-test helpers (``triton._filecheck``): run_parser, run_filecheck_test and
filecheck_test over kernellab's Tile IR."""

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError
from kernellab.ir.printer import print_module
from kernellab.testing.filecheck import filecheck_test, run_filecheck_test, run_parser


@kl.jit
def sink(v):
    pass


@kl.jit
def kernel_with_args(x, n, BLOCK: tl.constexpr):
    sink(tl.arange(0, BLOCK) + n)
    sink(x)


def test_run_parser_specializes_as_a_launch():
    rng = np.random.default_rng()
    block = int(2 ** rng.integers(1, 6))
    n = int(rng.integers(2, 1000))
    text = print_module(run_parser(kernel_with_args, args=(np.zeros(4, np.float32), n), kwargs={"BLOCK": block}))
    assert f"arange {{start = 0, end = {block}}} : tile<{block}xi32>" in text
    assert "func @kernel_with_args(%x: ptr<f32>" in text and "%n: i32" in text
    one = print_module(run_parser(kernel_with_args, kwargs={"x": np.zeros(4, np.float32), "n": 1, "BLOCK": block}))
    assert "%n" not in one  # an int equal to 1 is a constant of the specialization


def test_run_parser_takes_options_and_targets():
    module = run_parser(kernel_with_args, args=(np.zeros(2, np.float64), 7, 8), kwargs={"num_warps": 2},
                        target="cuda:sm_90a")
    assert module.kernel.name == "kernel_with_args"


def test_run_parser_raises_compilation_error():
    @kl.jit
    def bad():
        tl.arange(0, 3)

    with pytest.raises(CompilationError, match="power of 2"):
        run_parser(bad)


def test_printed_without_locations():
    module = run_parser(kernel_with_args, args=(np.zeros(4, np.float32), 5, 4))
    assert "loc(" in print_module(module)
    plain = print_module(module, locations=False)
    assert "loc(" not in plain and "#f0" not in plain and "arange" in plain


@filecheck_test
@kl.jit
def test_filecheck_test_checks_the_kernel_source():
    # CHECK-LABEL: func @test_filecheck_test_checks_the_kernel_source
    # CHECK: [[R:%\w+]] = arange {start = 0, end = 8}
    # CHECK-COUNT-2: call([[R]])
    # CHECK-NOT: loc(
    r = tl.arange(0, 8)
    sink(r)
    sink(r)


def test_run_filecheck_test_reports_a_mismatch():
    @kl.jit
    def mismatch():
        # CHECK: arange {start = 0, end = 16}
        sink(tl.arange(0, 8))

    with pytest.raises(ValueError, match="end = 16"):
        run_filecheck_test(mismatch)
    with pytest.raises(TypeError, match="@jit function"):
        run_filecheck_test(lambda: None)
