"""The dependency walk visits each jit function and aggregate class once, told apart by ``id``;
it keeps what it visited, so a class freed during the walk (a module that makes its attributes
on access) cannot lend its ``id`` to the next one, which would then be skipped: its source left
out of the hash that keys the kernel's cache."""

from __future__ import annotations

import gc
import sys
import types

import kernellab.language as tl
from kernellab.frontend import dependencies
from kernellab.language.aggregate import aggregate
from tests.frontend.support import jit


def shapes_module(keep: bool) -> types.ModuleType:
    """A module whose attributes are aggregate classes made on access (kept when ``keep``)."""
    made: dict[str, type] = {}

    def __getattr__(name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        if keep and name in made:
            return made[name]
        gc.collect()  # what a previous access made and nobody keeps is gone now
        cls = aggregate(type(name, (), {"__annotations__": {"x": tl.tensor}, "__module__": "shapes"}))
        if keep:
            made[name] = cls
        return cls

    module = types.ModuleType("shapes")
    module.__getattr__ = __getattr__
    return module


shapes = shapes_module(keep=True)


@jit
def kernel(x_ptr):
    first = shapes.First  # noqa: F841 - read: the walk follows it
    second = shapes.Second  # noqa: F841
    tl.store(x_ptr, tl.load(x_ptr) + 1)


def test_classes_made_on_access_are_each_hashed(monkeypatch):
    kept = dependencies(kernel).source_hash
    monkeypatch.setattr(sys.modules[__name__], "shapes", shapes_module(keep=False))
    assert dependencies(kernel).source_hash == kept
