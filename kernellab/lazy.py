"""Package attributes that load on first use (PEP 562), so that ``import kernellab`` and
``import kernellab.language`` import only what defining and launching kernels needs; the
compiler (frontend, passes, IR ops, LLVM) loads when something is compiled.

A package lists its lazy names and asks for the module functions::

    __getattr__, __dir__ = lazy_attributes(globals(), {"Builder": (".builder", "Builder"),
                                                       "ops": (".ops", None)})

Module names may be relative to the package; ``None`` as the attribute means the module itself.
A value, once loaded, is stored in the package's namespace (later reads cost nothing).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

LazyTable = dict[str, tuple[str, str | None]]


def lazy_attributes(namespace: dict[str, Any], table: LazyTable) -> tuple[Callable[[str], Any],
                                                                          Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package whose globals are ``namespace``."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        try:
            module_name, attribute = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        module = importlib.import_module(module_name, package)
        value = module if attribute is None else getattr(module, attribute)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__


def names_from(module: str, *names: str) -> LazyTable:
    """``{name: (module, name)}`` for each of ``names``."""
    return {name: (module, name) for name in names}


__all__ = ["lazy_attributes", "names_from", "LazyTable"]
