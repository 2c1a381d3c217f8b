"""``Config``: one point of an autotuning sweep (Triton's ``triton.Config``).

``Config(kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
ir_override=None)``: ``kwargs`` are meta-parameters passed to the kernel by name; the options
are compile options; ``pre_hook(named_args)`` runs before each launch with this config;
``ir_override`` is the path of an edited stage file (``.tile``, ``.llvm``/``.ll``, ``.ptx``)
compiled in place of the stage the compiler would generate.

``all_kwargs()`` is what a launch with this config receives: the meta-parameters and every
option that is not ``None``.  Two configs are equal (and hash alike) when their ``all_kwargs``
and ``pre_hook`` are.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ... import cachedir
from ..cache import canonical_json, stable_value

OPTION_NAMES = ("num_warps", "num_ctas", "num_stages", "maxnreg", "ir_override")


class Config:
    """A possible configuration of a kernel for the autotuner to try."""

    def __init__(self, kwargs: dict[str, Any], num_warps: int = 4, num_stages: int = 3, num_ctas: int = 1,
                 maxnreg: int | None = None, pre_hook: Callable[[dict[str, Any]], Any] | None = None,
                 ir_override: str | Path | None = None):
        if not isinstance(kwargs, dict) or not all(isinstance(name, str) for name in kwargs):
            raise TypeError(f"Config's kwargs are a dict of meta-parameter names to values, got {kwargs!r}")
        if pre_hook is not None and not callable(pre_hook):
            raise TypeError(f"Config's pre_hook must be callable (it receives the named arguments), got {pre_hook!r}")
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = str(ir_override) if isinstance(ir_override, Path) else ir_override

    def options(self) -> dict[str, Any]:
        """The compile options that are set (not ``None``)."""
        return {name: getattr(self, name) for name in OPTION_NAMES if getattr(self, name) is not None}

    def all_kwargs(self) -> dict[str, Any]:
        """The meta-parameters and the options that are set: what a launch receives."""
        return {**self.kwargs, **self.options()}

    def _identity(self) -> tuple:
        return (*self.all_kwargs().items(), self.pre_hook)

    def __hash__(self) -> int:
        return hash(self._identity())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return self._identity() == other._identity()

    def __str__(self) -> str:
        parts = [f"{name}: {value}" for name, value in self.kwargs.items()]
        parts += [f"{name}: {getattr(self, name)}" for name in OPTION_NAMES]
        return ", ".join(parts)

    def __repr__(self) -> str:
        options = ", ".join(f"{name}={value!r}" for name, value in self.options().items())
        hook = f", pre_hook={getattr(self.pre_hook, '__qualname__', self.pre_hook)}" if self.pre_hook else ""
        return f"Config({self.kwargs!r}{', ' if options else ''}{options}{hook})"

    # ---- for the on-disk result cache and the results table ----
    def to_json(self) -> dict[str, Any]:
        """A JSON description (meta-parameters as stable values; ``ir_override`` with the sha256
        of the file's contents, so editing the file makes it another config)."""
        described: dict[str, Any] = {"kwargs": {name: stable_value(value) for name, value in self.kwargs.items()}}
        for name in OPTION_NAMES:
            described[name] = getattr(self, name)
        if self.ir_override is not None:
            content = cachedir.file_digest(os.path.expanduser(self.ir_override))
            described["ir_override"] = {"path": self.ir_override, "sha256": content}
        return described

    def digest(self) -> str:
        """sha256 of :meth:`to_json` (the config's name in the result cache)."""
        return hashlib.sha256(canonical_json(self.to_json()).encode()).hexdigest()


__all__ = ["Config", "OPTION_NAMES"]
