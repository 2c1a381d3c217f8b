"""Triton's ``triton.compiler.errors``: the errors compiling a kernel raises."""

from __future__ import annotations

from ..errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct
from ..errors import KernelLabError as TritonError

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct", "TritonError"]
