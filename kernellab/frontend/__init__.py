"""The frontend: a ``@jit`` kernel's Python AST -> Tile IR, through the language's builtins and
semantics (``lower``), and the static dependency analysis the runtime's cache key needs
(``dependencies``).

Layout (one visitor class, ``module.FunctionLowering``, assembled from one mixin per concept):

* ``source``       — a jit function's source, file, absolute lines, parsed AST;
* ``analysis``     — names read/assigned, early-return restructuring;
* ``values``       — the values names hold while lowering (tensor, constexpr, tuples, objects);
* ``plans``        — how values cross region boundaries (if yields, loop carries, calls);
* ``names``        — globals, closures and builtins a kernel may read;
* ``signature``    — parameters, constexpr annotations, argument binding;
* ``base``         — dispatch, locations, error conversion, scopes;
* ``expressions`` / ``statements`` / ``control_flow`` / ``calls`` — the visitor's methods;
* ``python_builtins`` — Python builtins kernels may call at compile time;
* ``module``       — ``lower`` and the specialization of jit callees;
* ``dependencies`` — ``dependencies``.

A cache hit needs ``dependencies`` (the cache key), not the visitor: ``lower`` loads on first
use (``kernellab.lazy``) with the semantics and the IR ops it builds with.  (``dependencies``
is bound here, not lazily: importing the submodule of that name would otherwise shadow it.)
"""

from __future__ import annotations

from ..lazy import lazy_attributes, names_from
from .dependencies import Dependencies, dependencies
from .source import is_jit, jit_name, source_text

__getattr__, __dir__ = lazy_attributes(globals(), names_from(".module", "lower"))

__all__ = ["lower", "dependencies", "Dependencies", "is_jit", "jit_name", "source_text"]
