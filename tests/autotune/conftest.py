"""Autotuning test helpers: arrays on the test's target, and do_bench stand-ins."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

import kernellab as kl


class Placed:
    """numpy arrays moved to the test's target (device arrays on CUDA), and back."""

    def __init__(self, target: str, monkeypatch: pytest.MonkeyPatch):
        self.target = target
        if target != "cuda":
            monkeypatch.setenv("KERNELLAB_TARGET", target)

    def put(self, array: np.ndarray):
        return kl.to_device(array) if self.target == "cuda" else array

    def get(self, array) -> np.ndarray:
        return array.numpy() if self.target == "cuda" else array


@pytest.fixture
def placed(target: str, monkeypatch: pytest.MonkeyPatch) -> Placed:
    return Placed(target, monkeypatch)


class ScriptedBench:
    """A do_bench that runs the kernel once and reports the next scripted time (the configs are
    timed in their order, so ``times[i]`` is config i's time); records every call."""

    def __init__(self, times: Sequence[float]):
        self.times = list(times)
        self.calls = 0

    def __call__(self, fn: Callable[[], None], quantiles: Sequence[float]) -> list[float]:
        fn()
        value = self.times[self.calls % len(self.times)]
        self.calls += 1
        return [value, value * 0.9, value * 1.1]


@pytest.fixture
def fresh():
    """A new JITFunction for a kernel's Python function (an empty in-memory cache)."""
    return lambda kernel: kl.jit(kernel.fn)
