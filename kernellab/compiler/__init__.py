"""Triton's ``triton.compiler``: ``compile(ASTSource(fn, signature, constexprs, attrs), target=,
options=)``, ``CompiledKernel``, ``make_backend(target)`` and the error classes (``errors``).
kernellab's compiler itself is ``kernellab.runtime.compiler``; this package is the path Triton
code imports."""

from __future__ import annotations

from ..errors import CompilationError
from ..lazy import lazy_attributes, names_from
from . import errors

__getattr__, __dir__ = lazy_attributes(globals(), {
    **names_from("kernellab.runtime.ast_source", "ASTSource"),
    **names_from("kernellab.runtime.compiler", "compile"),
    **names_from("kernellab.runtime.compiled", "CompiledKernel"),
    **names_from("kernellab.runtime.driver", "make_backend"),
})

__all__ = ["ASTSource", "CompiledKernel", "CompilationError", "compile", "errors", "make_backend"]
