"""End-to-end language tests: kernels written with ``tl`` builtins, launched through
``kernellab.jit`` on every target this machine has (the ``target`` fixture of
``tests/conftest.py``), compared with numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


class Launch:
    """Launch a kernel on the test's target with numpy arrays; CUDA runs get device copies (of
    the arrays in tuple arguments too) and the arrays are copied back afterwards, so callers
    always read numpy arrays."""

    def __init__(self, target: str, monkeypatch: pytest.MonkeyPatch):
        self.target = target
        monkeypatch.setenv("KERNELLAB_TARGET", target)

    def __call__(self, kernel: Any, grid: tuple, *args: Any, **meta: Any) -> list:
        if self.target != "cuda":
            kernel[grid](*args, **meta)
            return list(args)
        moved = [_to_device(a) for a in args]
        kernel[grid](*moved, **meta)
        for original, copy in zip(args, moved):
            _copy_back(original, copy)
        return list(args)


def _to_device(arg: Any) -> Any:
    import kernellab as kl

    if isinstance(arg, tuple):  # tuple arguments: their arrays too
        return type(arg)(*map(_to_device, arg)) if hasattr(arg, "_fields") else tuple(map(_to_device, arg))
    return kl.to_device(arg) if isinstance(arg, np.ndarray) else arg


def _copy_back(original: Any, copy: Any) -> None:
    if isinstance(original, tuple):
        for item, moved in zip(original, copy):
            _copy_back(item, moved)
    elif isinstance(original, np.ndarray):
        original[...] = copy.numpy()


@pytest.fixture
def launch(target: str, monkeypatch: pytest.MonkeyPatch) -> Launch:
    return Launch(target, monkeypatch)
