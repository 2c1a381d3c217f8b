"""Run a launcher with numpy inputs on the test's target (device copies for CUDA)."""

from __future__ import annotations

import numpy as np
import pytest


class OnTarget:
    def __init__(self, target: str, monkeypatch: pytest.MonkeyPatch):
        self.target = target
        self.monkeypatch = monkeypatch

    def run(self, launcher, *args, **kwargs) -> list:
        """Call ``launcher(*args)`` with every numpy array moved to the target; return the
        arguments afterwards as numpy arrays (outputs included)."""
        if self.target != "cuda":
            self.monkeypatch.setenv("KERNELLAB_TARGET", self.target)
            launcher(*args, **kwargs)
            return list(args)
        import kernellab as kl

        moved = [kl.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        launcher(*moved, **kwargs)
        return [m.numpy() if hasattr(m, "numpy") else m for m in moved]


@pytest.fixture
def on_target(target, monkeypatch) -> OnTarget:
    return OnTarget(target, monkeypatch)
