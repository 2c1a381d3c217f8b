"""Defects the fuzzers found, each with the test that failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import KernelLabError, LaunchError


@kl.jit
def copy_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("grid", [(1.5,), (), (2**32,), lambda meta: None], ids=["float", "empty", "huge", "none"])
def test_a_bad_grid_names_the_kernel(host_target, grid):
    x = np.ones(8, np.float32)
    with pytest.raises(LaunchError, match="^`copy_kernel`: "):
        copy_kernel[grid](x, np.zeros(8, np.float32), 8, BLOCK=8)


def test_an_array_of_an_unsupported_dtype_names_the_kernel(host_target):
    with pytest.raises(LaunchError, match="^`copy_kernel`: arrays of dtype complex64 cannot be kernel arguments"):
        copy_kernel[(1,)](np.ones(8, np.complex64), np.zeros(8, np.float32), 8, BLOCK=8)


def test_a_numpy_scalar_of_no_kernellab_type_is_a_kernellab_error(host_target):
    with pytest.raises(KernelLabError, match="copy_kernel") as error:
        copy_kernel[(1,)](np.ones(8, np.float32), np.zeros(8, np.float32), np.datetime64("2020-01-01"), BLOCK=8)
    assert "datetime64" in str(error.value)


def _import(path, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_same_kernel_text_in_two_files_reports_each_files_line(tmp_path, monkeypatch):
    # code objects compare equal across files: the parsed-source memo gave the second file the
    # first one's locations (found by the malformed fuzzer, which wrote a case once per target)
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    text = ("import kernellab\nimport kernellab.language as tl\n\n\n@kernellab.jit\ndef twin(x_ptr):\n"
            "    tl.store(x_ptr, undefined_name + 1)\n")
    for name in ("first_twin", "second_twin"):
        (tmp_path / f"{name}.py").write_text(text)
    for name in ("first_twin", "second_twin"):
        kernel = _import(tmp_path / f"{name}.py", name).twin
        with pytest.raises(kl.CompilationError, match=rf"{name}\.py:7:"):
            kernel[(1,)](np.zeros(1, np.float32))
