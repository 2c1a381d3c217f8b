"""Helpers the teaching notebooks share: where kernels run, and how big the problems are.

* :func:`target`: the environment's forced target (``KERNELLAB_TARGET``, interpret mode), else
  ``cuda`` when a GPU and the CUDA backend are present, else the host (``cpu``).
* :func:`on_target` / :func:`to_host`: numpy arrays to the target's memory and back.
* :func:`pick`: a small size (seconds on 2 cores, what CI runs) or a full one, by
  ``KERNELLAB_TUTORIAL_SIZE`` (``small``/``full``; default: full when the target is a GPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import config


def gpu_available() -> bool:
    from .. import backends
    from ..runtime.targets import available_targets

    return any(backends.capabilities(name).gpu for name in available_targets())


def target() -> str:
    """The target the notebooks run on (the runtime's default target)."""
    from ..runtime.targets import default_target

    return default_target()


def is_gpu(where: str | None = None) -> bool:
    from .. import backends

    return backends.capabilities(where or target()).gpu


def on_target(array: Any, where: str | None = None) -> Any:
    """``array`` (numpy) where the target's kernels read it: a device copy for a target that
    does not launch host memory."""
    from .. import backends

    where = where or target()
    if backends.capabilities(where).launches_host_arrays:
        return np.ascontiguousarray(array)
    return backends.get(where).to_device(np.ascontiguousarray(array))


def empty_like(array: Any, where: str | None = None) -> Any:
    """An uninitialised array shaped like ``array`` on the target (NaN-filled floats on the host,
    so a kernel that leaves elements unwritten shows it)."""
    host = np.full(array.shape, np.nan, dtype=array.dtype) if array.dtype.kind == "f" else np.zeros_like(array)
    return on_target(host, where)


def to_host(array: Any) -> np.ndarray:
    """A numpy copy of an array from any target."""
    from ..testing.compare import to_numpy

    return to_numpy(array)


def size_mode() -> str:
    """``small`` or ``full``."""
    return config.tutorial_size() or ("full" if is_gpu() else "small")


def pick(small: Any, full: Any) -> Any:
    """``small`` in small mode (CI, laptops), else ``full``."""
    return small if size_mode() == "small" else full


def bench_budget() -> dict[str, float]:
    """``do_bench`` warmup/rep (ms) to use: short in small mode."""
    return {"warmup": 5, "rep": 20} if size_mode() == "small" else {"warmup": 25, "rep": 100}


__all__ = ["target", "gpu_available", "is_gpu", "on_target", "empty_like", "to_host", "size_mode", "pick",
           "bench_budget"]
