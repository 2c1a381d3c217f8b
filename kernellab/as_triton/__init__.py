"""The opt-in alias: ``import triton`` (and every ``triton.*`` module path) gives kernellab.

    python -m kernellab.as_triton script.py [args]      # a script
    python -m kernellab.as_triton -m pytest tests/       # a module, e.g. a pytest run
    pytest -p kernellab.as_triton.pytest_plugin tests/   # the pytest plugin
    %load_ext kernellab.as_triton  /  %as_triton         # a notebook (line magic)
    kernellab.as_triton.install()                        # from Python

``triton.X.Y`` is ``kernellab.X.Y`` (the same module object), except for the few Triton paths
whose kernellab counterpart lives elsewhere (:data:`RENAMED`); every kernellab module loaded
while the alias is installed is also in ``sys.modules`` under its ``triton.*`` names.  ``triton._internal_testing``,
the helpers Triton's own unit tests import, has no kernellab counterpart: when a real Triton is
installed its file is loaded on top of the alias (so its code runs against kernellab), else the
import fails saying so.  Installing refuses when the real ``triton`` is already imported: one
process cannot hold both under one name.  Installing also sets ``KERNELLAB_AS_TRITON=1`` for the
process's Python children, which then start aliased (``startup.py``): torch inductor's compile
workers, for one, compile with kernellab rather than import the real Triton.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from typing import Any

# Triton module path -> the kernellab module that stands for it, where the names differ.
RENAMED = {
    "triton.runtime._allocation": "kernellab.runtime.interface",
    "triton.runtime._async_compile": "kernellab.runtime.interface",
    "triton.runtime.autotuner": "kernellab.runtime.autotuning.autotuner",
    "triton.backends.compiler": "kernellab.runtime.driver",
    "triton.compiler.compiler": "kernellab.compiler",  # Triton's compiler module is its package's contents
    "triton.language.extra.cuda": "kernellab.language.extra.cuda",
    "triton.language.extra.cuda.libdevice": "kernellab.language.extra.libdevice",
    "triton._filecheck": "kernellab.testing.filecheck",  # the helper Triton's tests import
}

# Set by install() for the process's children: kernellab_as_triton.pth installs the alias at their start
# (kernellab/config.py documents it).
CHILD_VARIABLE = "KERNELLAB_AS_TRITON"

# Triton modules loaded from an installed Triton's own file, on top of the alias.
FROM_INSTALLED_TRITON = ("triton._internal_testing",)

# The Triton release whose user-facing API kernellab follows: ``triton.__version__`` while the alias
# is on (code gates features on it: ``Version(triton.__version__) >= Version("3.0.0")``).
TRITON_VERSION = "3.6.0"


class _StandingForTriton(types.ModuleType):
    """kernellab's module class while it is ``triton``: its ``__version__`` is Triton's."""

    @property
    def __version__(self) -> str:
        return TRITON_VERSION


class TritonAlreadyImported(RuntimeError):
    """The real triton is in this process: the alias cannot take its name."""


def kernellab_name(triton_name: str) -> str:
    """The kernellab module standing for the Triton module path ``triton_name``."""
    return RENAMED.get(triton_name) or "kernellab" + triton_name[len("triton"):]


class _SameModule(importlib.abc.Loader):
    """Gives the kernellab module itself (``triton.language is kernellab.language``)."""

    def __init__(self, module: types.ModuleType):
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.spec  # importlib set the alias's spec on it: the module keeps its own


class _Mirrored:
    """A kernellab module's own loader, which also enters the module under its ``triton.*``
    names in ``sys.modules`` once loaded (so ``sys.modules["triton.runtime.driver"]`` and
    ``importlib.reload`` of it work as with Triton)."""

    def __init__(self, loader: Any):
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.loader.exec_module(module)
        _enter_triton_names(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename... for inspect and linecache
        return getattr(self.loader, name)


def triton_names(kernellab_module: str) -> list[str]:
    """The ``triton.*`` paths that stand for the kernellab module ``kernellab_module``."""
    names = [triton for triton, ours in RENAMED.items() if ours == kernellab_module]
    direct = "triton" + kernellab_module[len("kernellab"):]
    return names if direct in RENAMED else [direct, *names]


def _enter_triton_names(module: types.ModuleType) -> None:
    for name in triton_names(module.__name__):
        present = sys.modules.get(name)
        if present is None or present.__name__.startswith("kernellab"):
            sys.modules[name] = module
    _attach_renamed()


def _attach_renamed() -> None:
    """Each renamed path in ``sys.modules`` is an attribute of its parent too, as an import makes
    it (``import triton.backends.compiler`` finds it entered already, so the import system does not
    set ``triton.backends.compiler``, which code then reads)."""
    for name in RENAMED:
        parent, _, child = name.rpartition(".")
        module, holder = sys.modules.get(name), sys.modules.get(parent)
        if module is not None and holder is not None and child not in vars(holder):
            setattr(holder, child, module)
            _ATTACHED.append((holder, child))


_ATTACHED: list[tuple[types.ModuleType, str]] = []  # what _attach_renamed set, which uninstall removes


class TritonAlias(importlib.abc.MetaPathFinder):
    """The meta-path finder behind the alias (first on ``sys.meta_path`` while installed)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.startswith("kernellab."):  # loaded as always, and entered under its triton name too
            spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Mirrored(spec.loader)
            return spec
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        if fullname in FROM_INSTALLED_TRITON:
            return _installed_triton_file(fullname)
        name = kernellab_name(fullname)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            raise ModuleNotFoundError(f"No module named {fullname!r}: kernellab (standing in for triton through "
                                      f"kernellab.as_triton) has no {name}", name=fullname) from None
        is_package = hasattr(module, "__path__")
        return importlib.util.spec_from_loader(fullname, _SameModule(module), is_package=is_package)


def _installed_triton_file(fullname: str) -> importlib.machinery.ModuleSpec:
    """The spec of ``fullname``'s source file in an installed Triton (not imported)."""
    real = importlib.machinery.PathFinder.find_spec("triton")
    relative = fullname.split(".")[1:]
    for root in (real.submodule_search_locations or []) if real else []:
        candidate = importlib.machinery.PathFinder.find_spec(relative[-1], [root])
        if candidate is not None and candidate.origin:
            return importlib.util.spec_from_file_location(fullname, candidate.origin)
    raise ModuleNotFoundError(f"No module named {fullname!r}: it is Triton's own test helper module, which "
                              "kernellab does not provide; install triton beside kernellab to use it through "
                              "the alias", name=fullname)


_FINDER = TritonAlias()


def active() -> bool:
    """Whether the alias is installed."""
    return _FINDER in sys.meta_path


class _WhereAbsent(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on ``sys.meta_path`` (:func:`install_where_absent`): asked for ``triton`` only when no
    other finder has it (Triton is not installed); loading what it finds installs the alias and
    gives kernellab (finding alone changes nothing)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader("triton", self, is_package=True) if fullname == "triton" else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        remove_where_absent()
        install()
        return sys.modules["triton"]

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = sys.modules["kernellab"].__spec__  # importlib set triton's on it


_WHERE_ABSENT = _WhereAbsent()


def install_where_absent() -> None:
    """Make ``import triton`` give kernellab only where Triton is not installed: nothing changes
    until such an import, which then installs the alias (``%load_ext kernellab`` does this, so
    Triton code pasted into the lab runs unchanged)."""
    if not active() and "triton" not in sys.modules and _WHERE_ABSENT not in sys.meta_path:
        sys.meta_path.append(_WHERE_ABSENT)


def remove_where_absent() -> None:
    if _WHERE_ABSENT in sys.meta_path:
        sys.meta_path.remove(_WHERE_ABSENT)


def install() -> None:
    """Make ``import triton`` give kernellab from now on in this process.

    Raises :class:`TritonAlreadyImported` when the real triton is already imported."""
    present = sys.modules.get("triton")
    if present is not None and not present.__name__.startswith("kernellab"):
        where = getattr(present, "__file__", None) or "?"
        raise TritonAlreadyImported(f"the real triton is already imported in this process ({where}); the "
                                    "kernellab alias must be installed before anything imports triton (run "
                                    "python -m kernellab.as_triton ..., or restart the kernel and use %as_triton "
                                    "first)")
    os.environ[CHILD_VARIABLE] = "1"  # the process's Python children start aliased too (startup.py)
    if active():
        return
    import kernellab

    from ..ir import types as ir_types

    sys.meta_path.insert(0, _FINDER)
    sys.modules["triton"] = kernellab
    kernellab.__class__ = _StandingForTriton
    for module in [m for name, m in sys.modules.items() if name.startswith("kernellab.") and m is not None]:
        _enter_triton_names(module)
    importlib.import_module("kernellab.runtime.driver")  # as `import triton` imports it (the driver stays unmade)
    ir_types.REPR_MODULE = "triton.language"


def uninstall() -> None:
    """Remove the alias and every ``triton`` module path it gave (kernellab stays imported)."""
    from ..ir import types as ir_types

    os.environ.pop(CHILD_VARIABLE, None)
    remove_where_absent()
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    while _ATTACHED:
        holder, child = _ATTACHED.pop()
        vars(holder).pop(child, None)
    kernellab = sys.modules.get("kernellab")
    if kernellab is not None and isinstance(kernellab, _StandingForTriton):
        kernellab.__class__ = types.ModuleType
    for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
        if sys.modules[name].__name__.startswith("kernellab") or name in FROM_INSTALLED_TRITON:
            del sys.modules[name]
    ir_types.REPR_MODULE = "kernellab.language"


def as_triton_magic(line: str = "") -> str:
    """``%as_triton`` (or ``%as_triton on``): install the alias; ``%as_triton off``: remove it;
    ``%as_triton status``: say whether it is on."""
    word = line.strip().lower() or "on"
    if word == "on":
        install()
    elif word == "off":
        uninstall()
    elif word != "status":
        raise ValueError(f"%as_triton takes on, off or status, not {line.strip()!r}")
    return "import triton gives kernellab" if active() else "import triton is not aliased"


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext kernellab.as_triton``: install the alias and register ``%as_triton``."""
    shell.register_magic_function(as_triton_magic, "line", "as_triton")
    install()


def unload_ipython_extension(shell: Any) -> None:
    uninstall()


__all__ = ["install", "uninstall", "active", "install_where_absent", "remove_where_absent", "TritonAlias",
           "TritonAlreadyImported", "RENAMED", "TRITON_VERSION", "kernellab_name", "as_triton_magic",
           "load_ipython_extension", "unload_ipython_extension"]
