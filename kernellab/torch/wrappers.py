"""Autotuned and heuristic kernels (``kl.autotune``, ``kl.heuristics``) in traced launches.

Their meta-parameters are not known at trace time (the autotuner picks a config when it runs),
so a traced launch carries one *variant* per config: the constexpr values that config and the
heuristics supply, with the grid evaluated for each.  The writes are the union over variants;
the eager launch runs the wrapper, whose grid function returns the grid of the variant it is
asked for.  Plain Python that Dynamo inlines (``variants``) or that runs outside tracing.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..runtime.autotuning.autotuner import Heuristics
from ..runtime.autotuning.compile import base_jit


def _chain(kernel: Any) -> list:
    """The wrappers around the kernel, outermost first."""
    chain = []
    while not getattr(kernel, "__kernellab_jit__", False):
        chain.append(kernel)
        kernel = kernel.fn
    return chain


def provided(kernel: Any) -> frozenset[str]:
    """Parameter names an autotune config or a heuristic supplies."""
    names: set[str] = set()
    for wrapper in _chain(kernel):
        if isinstance(wrapper, Heuristics):
            names |= set(wrapper.values)
        else:
            names |= {name for config in wrapper.configs for name in config.kwargs}
    return frozenset(names)


def variants(kernel: Any, bound: dict) -> list[dict]:
    """The meta-parameter values of each config (one empty variant for a plain kernel)."""
    found: list[dict] = [{}]
    for wrapper in _chain(kernel):
        if isinstance(wrapper, Heuristics):
            found = [{**v, **{name: h({**bound, **v}) for name, h in wrapper.values.items()}} for v in found]
        else:
            found = [{**v, **config.kwargs} for v in found for config in wrapper.configs]
    return found


def launcher(kernel: Any, grid: Any) -> Any:
    """``kernel[grid]`` without kernellab.torch's intercept."""
    if getattr(kernel, "__kernellab_jit__", False):
        return partial(kernel.launch_head(), grid)
    return partial(kernel._launch, grid)


__all__ = ["base_jit", "provided", "variants", "launcher"]
