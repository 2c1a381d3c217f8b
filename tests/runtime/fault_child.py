"""A new process that launches the fault-injection tests' kernels from the cache
(``tests/runtime/faults.py`` runs it): ``python fault_child.py MODULE MODE FACTOR``.

MODE ``launch``: ``add_kernel`` and ``scale_kernel`` twice each (the second launch takes the
native launch path; the first reads every stage of ``add_kernel``); ``tune``: ``tuned_kernel``
autotuned with ``cache_results=True``.  Every result is checked against numpy; the last line
printed is JSON: ``{"ok", "steps", "warnings"}``.

``FAULT_KILL_AT=k`` (with ``FAULT_HALF=1``: half-way through a write) sends the process SIGKILL at
its k-th write step: before or after each ``os.mkdir``/``makedirs``/``rename``/``replace``/``link``
and each write of a file opened for writing (``steps`` counts them when nothing is killed).
"""

from __future__ import annotations

import builtins
import importlib.util
import io
import json
import os
import signal
import sys
import warnings

_STEPS = [0]
_KILL_AT = int(os.environ.get("FAULT_KILL_AT", "0"))


def _step() -> None:
    _STEPS[0] += 1
    if _STEPS[0] == _KILL_AT:
        os.kill(os.getpid(), signal.SIGKILL)


def _counted(function):
    def wrapper(*args, **kwargs):
        _step()
        result = function(*args, **kwargs)
        _step()
        return result
    return wrapper


class _CountedWrites:
    """A file opened for writing whose writes are steps (half the data, then the rest)."""

    def __init__(self, file):
        self._file = file

    def write(self, data):
        half = len(data) // 2
        _step()
        written = self._file.write(data[:half])
        if os.environ.get("FAULT_HALF") == "1":
            self._file.flush()
        _step()
        return written + self._file.write(data[half:])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._file.close()

    def __getattr__(self, name):
        return getattr(self._file, name)


def _counting_open(original):
    def wrapper(file, mode="r", *args, **kwargs):
        opened = original(file, mode, *args, **kwargs)
        return _CountedWrites(opened) if "b" in mode and any(c in mode for c in "wax+") else opened
    return wrapper


def _install_steps() -> None:
    for name in ("mkdir", "makedirs", "rename", "replace", "link"):
        setattr(os, name, _counted(getattr(os, name)))
    builtins.open = _counting_open(builtins.open)
    io.open = _counting_open(io.open)


def main() -> None:
    module_path, mode, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
    _install_steps()
    import numpy as np

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = importlib.util.spec_from_file_location("fault_kernels", module_path)
        kernels = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(kernels)
        rng = np.random.default_rng()
        n = 300
        x = rng.standard_normal(n).astype(np.float32) + 0.5
        y = rng.standard_normal(n).astype(np.float32) - 0.5
        ok = True
        for launch in range(2 if mode == "launch" else 1):
            out = np.full(n, np.nan, np.float32)
            if mode == "launch":
                compiled = kernels.add_kernel[(3,)](x, y, out, n, BLOCK=128)
                ok &= bool(np.array_equal(out, x + y))
                if launch == 0:  # every stage read back (the launch read one)
                    ok &= all(len(text) > 0 for text in compiled.asm.values()) and "llvm" in compiled.asm
                out = np.full(n, np.nan, np.float32)
                kernels.scale_kernel[(3,)](x, out, n, BLOCK=128)
                ok &= bool(np.allclose(out, x * np.float32(factor)))
            else:
                kernels.tuned_kernel[lambda meta: ((n + meta["BLOCK"] - 1) // meta["BLOCK"],)](x, out, n)
                ok &= bool(np.allclose(out, x - 1.0))
    print(json.dumps({"ok": ok, "steps": _STEPS[0], "warnings": [str(w.message) for w in caught]}))


if __name__ == "__main__":
    main()
