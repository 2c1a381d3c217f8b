"""Where a cached first launch's time goes, phase by phase (``bench/cold_start.py --phases``).

``install()`` wraps a few kernellab functions with ``perf_counter`` timers (inclusive times,
summed over calls) and returns the dict they fill, in seconds (copy it right after the first
launch: the second one reads the native launch function's object from the cache too).  Only functions that exist when
kernellab is imported are wrapped, so a backend imported inside the launch is timed as part
of ``backends.get`` rather than imported early.  The wrappers cost ~1 us per call, which the
phases' own times (0.03-1.5 ms) dwarf.
"""

from __future__ import annotations

import functools
import time
from typing import Any

PHASES = [
    # (module, attribute path, label)
    ("kernellab.runtime.jit", "JITFunction._make_binder", "binder (made once per kernel)"),
    ("kernellab.runtime.jit", "JITFunction.dependencies", "dependencies (inside binder and key)"),
    ("kernellab.runtime.jit", "compile_specialized", "compile_specialized (key + entry + object)"),
    ("kernellab.backends", "get", "backends.get (imports a backend)"),
    ("kernellab.runtime.compiler", "resolve_options", "options"),
    ("kernellab.runtime.compiler", "key_parts", "key parts (fingerprint, toolchain)"),
    ("kernellab.runtime.cache", "DiskCache.record", "entry read (metadata)"),
    ("kernellab.runtime.cache", "DiskCache.read_stages", "entry read (stages)"),
    ("kernellab.runtime.compiled", "CompiledKernel._load", "load (module, launcher)"),
    ("kernellab.runtime.compiled", "CompiledKernel._run_first", "load + first launch"),
]


def install() -> dict[str, float]:
    import importlib

    timings: dict[str, float] = {}
    for module_name, path, label in PHASES:
        owner: Any = importlib.import_module(module_name)
        *parents, name = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        setattr(owner, name, _timed(getattr(owner, name), label, timings))
    return timings


def _timed(function: Any, label: str, timings: dict[str, float]) -> Any:
    clock = time.perf_counter

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return function(*args, **kwargs)
        finally:
            timings[label] = timings.get(label, 0.0) + clock() - start

    return timed
