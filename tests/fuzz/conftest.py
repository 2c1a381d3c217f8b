"""The fuzz tests compile hundreds of kernels: they skip the suite's sm_90a PTX check of every
host kernel (tests/ptx_check.py), which would triple their time; the CUDA backend sees random
kernels through ``python -m kernellab.fuzz --targets ...,cuda`` on a GPU machine.
``host_target``: the targets that take host arrays (interpret, cpu), forced for the test."""

from __future__ import annotations

import pytest

from kernellab.runtime import compiler as compiler_module
from kernellab.runtime import jit as jit_module
from kernellab.runtime.targets import backend_available


@pytest.fixture(autouse=True)
def _without_the_ptx_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit_module, "compile_specialized", compiler_module.compile_specialized)


@pytest.fixture(params=["interpret", "cpu"])
def host_target(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if not backend_available(request.param):
        pytest.skip(f"the {request.param} target is not available here")
    monkeypatch.setenv("KERNELLAB_TARGET", request.param)
    return request.param
