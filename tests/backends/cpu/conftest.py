"""The CPU backend's tests compare it with the interpreter on host (numpy) memory: their
``target`` is one of the two host targets, never cuda (whose kernels refuse host pointers)."""

from __future__ import annotations

import pytest

from tests.conftest import TARGETS

HOST_TARGETS = [param for param in TARGETS if param.values[0] in ("interpret", "cpu")]


@pytest.fixture(params=HOST_TARGETS)
def target(request: pytest.FixtureRequest) -> str:
    return request.param
