"""The on-disk cache of autotuning results, one file per config (``cache_results=True`` or
``KERNELLAB_CACHE_AUTOTUNING=1``).

Layout under the kernel cache folder (``KERNELLAB_CACHE_DIR``)::

    autotune/<kernel>/<entry>.json

``<kernel>`` is the sha256 of what a timing depends on besides the config: kernellab's own
source, the kernel's name, source (with every jit function it calls) and the values of the
globals it reads, the target, the backend's toolchain and the device.  ``<entry>`` is the
sha256 of the tuning key and the config (:meth:`Config.digest`).  So adding a config to the
list times only that config, removing one times nothing, and editing the kernel times all.

An entry is JSON (never pickle), sealed (``cachedir.write_sealed_json``: a MAC under this
user's key over its name and bytes, as its first key), written atomically::

    {"mac": "...", "format": 1, "kernel": "matmul_kernel", "key": ["1024", "float16"], "config": {...},
     "timings": [0.52, 0.50, 0.55], "failure": null, "compile_seconds": 0.41}

Infinite timings (a failed config) are stored as ``null``.  An unreadable, unsealed, foreign or
wrongly shaped entry is a miss (the config is timed again and the entry replaced); a cache
folder that cannot be used (``cachedir.root()`` is None, ``autotune/`` a file...) stores
nothing.  Configs with a ``pre_hook`` are never stored: a function cannot be written down.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import backends, cachedir
from ..cache import canonical_json, compiler_fingerprint, stable_value
from .config import Config

FORMAT = 1
FOLDER = "autotune"


@dataclass
class Entry:
    """One config's stored result."""

    timings: list[float]
    failure: str | None
    compile_seconds: float | None


def _device_identity(backend: Any) -> str:
    """The device timings are measured on: the backend's ``device_identity()`` where it has
    devices (CUDA), ``"host"`` for host targets."""
    identity = getattr(backend, "device_identity", None)
    return "host" if identity is None else identity()


def kernel_identity(jit: Any, target: str) -> dict[str, Any]:
    """Everything a timing depends on besides the config and the tuning key."""
    dependencies = jit.dependencies()
    backend = backends.get(target)
    return {
        "kernellab": compiler_fingerprint(),
        "kernel": f"{jit.fn.__module__}.{jit.fn.__qualname__}",
        "source": dependencies.source_hash,
        "globals": {name: stable_value(value) for name, value in sorted(jit.global_values().items())},
        "jit": {"version": stable_value(jit.version), "debug": jit.debug},
        "target": target,
        "backend": backend.version_key(),
        "device": _device_identity(backend),
    }


def key_strings(key: tuple) -> list[str]:
    """A tuning key as JSON strings (the file keeps them for people to read)."""
    return [canonical_json(stable_value(part)) for part in key]


def _sha(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


class ResultCache:
    """The stored results of one kernel on one target."""

    def __init__(self, jit: Any, target: str, root: Path | None = None):
        self.name = jit.__name__
        self.root = root if root is not None else cachedir.root()
        identity = _sha(kernel_identity(jit, target))
        self.folder = self.root / FOLDER / identity if self.root is not None else None

    def _path(self, key: tuple, config: Config) -> Path | None:
        if self.folder is None or config.pre_hook is not None:
            return None
        return self.folder / f"{_sha({'key': key_strings(key), 'config': config.digest()})}.json"

    def load(self, key: tuple, config: Config) -> Entry | None:
        """The stored result of ``config`` under ``key``; ``None`` when absent, unreadable or
        not of the right shape."""
        path = self._path(key, config)
        return _entry_of(cachedir.read_sealed_json(path)) if path is not None else None

    def store(self, key: tuple, config: Config, entry: Entry) -> bool:
        """Write ``config``'s result atomically; ``False`` when it cannot be stored."""
        path = self._path(key, config)
        if path is None:
            return False
        record = {"format": FORMAT, "kernel": self.name, "key": key_strings(key), "config": config.to_json(),
                  "timings": [_finite_or_none(t) for t in entry.timings], "failure": entry.failure,
                  "compile_seconds": entry.compile_seconds}
        return cachedir.write_sealed_json(path, record, self.root)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _entry_of(record: Any) -> Entry | None:
    """The Entry a stored record describes, when it has the shape :meth:`ResultCache.store`
    writes; else None."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return None
    timings, failure, seconds = record.get("timings"), record.get("failure"), record.get("compile_seconds")
    if not isinstance(timings, list) or not all(t is None or (_is_number(t) and t >= 0) for t in timings):
        return None
    if not (failure is None or isinstance(failure, str)) or not (seconds is None or _is_number(seconds)):
        return None
    return Entry([math.inf if t is None else float(t) for t in timings], failure, seconds)


__all__ = ["ResultCache", "Entry", "kernel_identity", "key_strings", "FORMAT", "FOLDER"]
