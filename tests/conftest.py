"""Fixtures every test area shares.

* ``target``: parametrized over the targets this machine has — ``interpret`` always, ``cpu``
  when ``kernellab.backends`` can get it, ``cuda`` (marked ``gpu``) when a device exists.
* ``gpu`` marker: skipped without a CUDA device.
* ``rng``: a numpy Generator seeded from the test's id (fresh inputs per test, reproducible);
  ``inputs``: helpers on top of it (random arrays that are never all zeros, NaN-poisoned
  outputs).
* Every test session writes its compiled kernels into its own cache folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile

import numpy as np
import pytest

from kernellab.runtime.targets import backend_available, cuda_device_count
from tests import ptx_check

_SESSION_CACHE: str | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    ptx_check.pytest_addoption(parser)
    parser.addoption("--long", action="store_true", help="the full fault-injection runs, not a seeded sample")


def pytest_configure(config: pytest.Config) -> None:
    global _SESSION_CACHE
    _SESSION_CACHE = tempfile.mkdtemp(prefix="kernellab-test-cache-")
    os.environ["KERNELLAB_CACHE_DIR"] = _SESSION_CACHE
    if not config.getoption("--no-ptx-check") and ptx_check.ptxas_available():
        ptx_check.install()


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if ptx_check.stats["kernels"] or ptx_check.stats["rules"]:
        terminalreporter.write_line(
            f"sm_90a PTX assembled by ptxas for {ptx_check.stats['kernels']} test kernels "
            f"({ptx_check.stats['rules']} more are refused by a CUDA-target rule of the language)")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SESSION_CACHE is not None:
        shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


def has_gpu() -> bool:
    return cuda_device_count() > 0


def _target_params() -> list:
    params = [pytest.param("interpret", id="interpret")]
    if backend_available("cpu"):
        params.append(pytest.param("cpu", id="cpu"))
    if has_gpu() and backend_available("cuda"):
        params.append(pytest.param("cuda", id="cuda", marks=pytest.mark.gpu))
    return params


TARGETS = _target_params()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest) -> str:
    """A target this machine can run (``interpret``, ``cpu``, ``cuda``)."""
    return request.param


@pytest.fixture
def host_target(target: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """``target`` where kernels take numpy arrays (interpret, cpu), made the launch target
    (``KERNELLAB_TARGET``); the cuda case is skipped."""
    if target == "cuda":
        pytest.skip("these tests launch numpy arrays on the host targets")
    monkeypatch.setenv("KERNELLAB_TARGET", target)
    return target


def seed_of(nodeid: str) -> int:
    return int.from_bytes(hashlib.sha256(nodeid.encode()).digest()[:8], "little")


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded from the test's id: fresh inputs per test, the same on every run."""
    return np.random.default_rng(seed_of(request.node.nodeid))


class Inputs:
    """Random test data: never all zeros, outputs poisoned with NaN before a run."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def normal(self, shape, dtype=np.float32) -> np.ndarray:
        return self.rng.standard_normal(shape).astype(dtype)

    def uniform(self, shape, low: float = -1.0, high: float = 1.0, dtype=np.float32) -> np.ndarray:
        return self.rng.uniform(low, high, shape).astype(dtype)

    def integers(self, shape, low: int = -100, high: int = 100, dtype=np.int32) -> np.ndarray:
        values = self.rng.integers(low, high, shape).astype(dtype)
        values[values == 0] = 1  # never zero: a kernel that writes nothing must not pass
        return values

    def poisoned(self, shape, dtype=np.float32) -> np.ndarray:
        """An output buffer full of NaN (or the most negative int for integer dtypes)."""
        dtype = np.dtype(dtype)
        fill = np.nan if dtype.kind in "fc" else np.iinfo(dtype).min if dtype.kind in "iu" else 0
        return np.full(shape, fill, dtype=dtype)


@pytest.fixture
def inputs(rng: np.random.Generator) -> Inputs:
    return Inputs(rng)
