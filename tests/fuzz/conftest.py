"""The fuzz tests compile hundreds of kernels: they skip the suite's sm_90a PTX check of every
host kernel (tests/ptx_check.py), which would triple their time; the CUDA backend sees random
kernels through ``python -m kernellab.fuzz --targets ...,cuda`` on a GPU machine.
``host_target``: the targets that take host arrays (interpret, cpu), forced for the test."""

from __future__ import annotations

import pytest

from kernellab.runtime import compiler as compiler_module
from kernellab.runtime import jit as jit_module
from tests.compat.conftest import host_target  # noqa: F401  (the targets that take host arrays)


@pytest.fixture(autouse=True)
def _without_the_ptx_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit_module, "compile_specialized", compiler_module.compile_specialized)
