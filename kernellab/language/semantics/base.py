"""What every semantics module shares: the builder, the compile options and the error type."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...ir.builder import Builder


class SemanticError(Exception):
    """A kernel does something the language does not allow (a type error, a bad shape...).

    The frontend catches it and reraises a ``CompilationError`` that points at the kernel's
    source line; the message says what is wrong and what is allowed.
    """


@dataclass
class SemanticOptions:
    """Options the semantics consult (set from the compile options)."""

    debug: bool = False  # device_assert and overflow checks are emitted only when true
    sanitize_overflow: bool = False
    target: str = "interpret"
    extra: dict[str, Any] = field(default_factory=dict)


class SemanticBase:
    """Holds the builder; mixins add the operations."""

    def __init__(self, builder: Builder, options: SemanticOptions | None = None):
        self.builder = builder
        self.options = options or SemanticOptions()
