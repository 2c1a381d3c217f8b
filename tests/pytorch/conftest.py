"""torch tests: not collected where torch is not installed (kernellab never requires it).

* ``gen``: a torch Generator seeded from the test's id (fresh inputs per test, reproducible).
* ``host_target``: the targets CPU tensors run on here, ``interpret`` and ``cpu`` (forced with
  ``KERNELLAB_TARGET``).
* the jit intercept of ``kernellab.torch`` is on only during these tests.
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import seed_of

HAS_TORCH = importlib.util.find_spec("torch") is not None
collect_ignore_glob = [] if HAS_TORCH else ["*.py"]

if HAS_TORCH:
    import torch

    import kernellab.torch  # noqa: F401  (installs the intercept; undone below)
    from kernellab.torch import launch

    # Importing kernellab.torch changes kernel[grid] for the whole process (a Python __getitem__
    # that asks the intercept): the other tests of a worker process must not see that, so the
    # intercept is on only while a test of this folder runs.
    launch.uninstall()

    @pytest.fixture(autouse=True)
    def _torch_intercept():
        launch.install()
        yield
        launch.uninstall()

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
