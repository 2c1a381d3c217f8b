"""Triton's ``triton.compiler.ASTSource``: what to compile (a jit function, its signature, its
constexprs and argument facts), for ``kernellab.compile(ASTSource(...), target=..., options=...)``."""

from __future__ import annotations

from typing import Any

from .. import backends


class ASTSource:
    """``ASTSource(fn, signature, constexprs=None, attrs=None)`` as in Triton.

    ``signature`` maps parameter names (or indices) to type strings (``"*fp32"``, ``"i32"``,
    ``"constexpr"``); ``constexprs`` maps names, indices or 1-tuples to values; ``attrs`` maps
    1-tuples of indices to Triton's ``[["tt.divisibility", 16]]`` lists."""

    def __init__(self, fn: Any, signature: dict, constexprs: dict | None = None, attrs: dict | None = None):
        if not getattr(fn, "__kernellab_jit__", False):
            raise TypeError(f"ASTSource compiles a @jit function, not {fn!r}")
        self.fn = fn
        self.signature = dict(signature)
        self.constexprs = dict(constexprs or {})
        self.attrs = dict(attrs or {})
        self.ext = "ttir"
        self.name = fn.__name__

    def arg_attrs(self) -> dict[Any, dict]:
        """``attrs`` as kernellab's ``arg_attrs`` (index -> ``{"divisibility": 16}``)."""
        facts: dict[Any, dict] = {}
        for key, pairs in self.attrs.items():
            index = key[0] if isinstance(key, tuple) and len(key) == 1 else key
            for name, value in pairs:
                if name == "tt.divisibility":
                    facts.setdefault(index, {})["divisibility"] = int(value)
        return facts

    def runtime_signature(self) -> dict:
        """The signature without the ``"constexpr"`` entries (their values are in constexprs)."""
        return {k: v for k, v in self.signature.items() if v != "constexpr"}


def target_name(target: Any) -> str | None:
    """A target given as Triton's ``GPUTarget`` (``backend``, ``arch``) or as kernellab's string.

    ``GPUTarget.backend`` names a kernellab backend (``cuda``, ``cpu``; ``interpret`` too), whose
    capabilities turn the architecture into the target (``("cuda", 90)`` -> ``cuda:sm_90``)."""
    if target is None or isinstance(target, str):
        return target
    backend, arch = getattr(target, "backend", None), getattr(target, "arch", None)
    try:
        facts = backends.capabilities(backend) if isinstance(backend, str) else None
    except ValueError:
        facts = None
    if facts is None:
        raise ValueError(f"kernellab compiles for {', '.join(repr(n) for n in backends.known())} "
                         f"(cuda with an architecture: 'cuda:sm_XX'), not the target {target!r}")
    return facts.target_for_arch(arch)


__all__ = ["ASTSource", "target_name"]
