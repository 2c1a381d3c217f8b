"""torch tests: skipped where torch is not installed (kernellab never requires it).

* ``gen``: a torch Generator seeded from the test's id (fresh inputs per test, reproducible).
* ``host_target``: the targets CPU tensors run on here, ``interpret`` and ``cpu`` (forced with
  ``KERNELLAB_TARGET``).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tests.conftest import seed_of  # noqa: E402


@pytest.fixture
def gen(request: pytest.FixtureRequest):
    return torch.Generator().manual_seed(seed_of(request.node.nodeid))


@pytest.fixture(params=["interpret", "cpu"])
def host_target(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KERNELLAB_TARGET", request.param)
    return request.param


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
