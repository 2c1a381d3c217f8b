"""Fixtures of the compatibility tests: ``launch`` (the language tests' launcher: numpy arrays,
copied to the GPU and back on CUDA) and ``host_target`` (the targets that take host arrays, for
behaviour that is about host memory: read-only numpy arrays, grids checked before a launch)."""

from __future__ import annotations

import pytest

from tests.language.conftest import Launch


@pytest.fixture
def launch(target: str, monkeypatch: pytest.MonkeyPatch) -> Launch:
    return Launch(target, monkeypatch)


@pytest.fixture(params=["interpret", "cpu"])
def host_target(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    from kernellab.runtime.targets import backend_available

    if not backend_available(request.param):
        pytest.skip(f"the {request.param} target is not available here")
    monkeypatch.setenv("KERNELLAB_TARGET", request.param)
    return request.param
