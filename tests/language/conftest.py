"""End-to-end language tests: kernels written with ``tl`` builtins, launched through
``kernellab.jit`` on every target this machine has (the ``target`` fixture of
``tests/conftest.py``), compared with numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


class Launch:
    """Launch a kernel on the test's target with numpy arrays; CUDA runs get device copies and
    the arrays are copied back afterwards, so callers always read numpy arrays."""

    def __init__(self, target: str, monkeypatch: pytest.MonkeyPatch):
        self.target = target
        monkeypatch.setenv("KERNELLAB_TARGET", target)

    def __call__(self, kernel: Any, grid: tuple, *args: Any, **meta: Any) -> list:
        if self.target != "cuda":
            kernel[grid](*args, **meta)
            return list(args)
        import kernellab as kl

        moved = [kl.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        kernel[grid](*moved, **meta)
        for original, copy in zip(args, moved):
            if isinstance(original, np.ndarray):
                original[...] = copy.numpy()
        return list(args)


@pytest.fixture
def launch(target: str, monkeypatch: pytest.MonkeyPatch) -> Launch:
    return Launch(target, monkeypatch)
