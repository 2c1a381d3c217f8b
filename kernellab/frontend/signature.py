"""Parameters of jit functions: which are ``tl.constexpr``, how a kernel's parameters split
between the runtime signature and the compile-time values, and how a call's arguments bind to
a jit callee's parameters."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from ..ir.core import Value
from ..ir.types import Type
from ..language.core import SemanticError, is_constexpr_annotation, tensor
from .arguments import parse_entry, runtime_leaves, same_structure
from .source import jit_name, python_function
from .values import wrap


def parameters(jit: Any) -> list[inspect.Parameter]:
    """The parameters of a jit function; ``*args`` and ``**kwargs`` are not allowed."""
    params = list(inspect.signature(python_function(jit)).parameters.values())
    for param in params:
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"jit function `{jit_name(jit)}` has a variadic parameter `{param.name}`; "
                            "kernels and jit functions take named parameters only")
    return params


def signature_type(name: str, spec: Any, constant: Any = None) -> Any:
    """A signature entry as a type (a ``Type`` or Triton's spelling, ``"*fp32"``) or, for a
    tuple parameter, a nested entry (``arguments.py``; ``constant(path)`` values its
    ``"constexpr"`` elements)."""
    return parse_entry(name, spec, constant)


def bind_entry(entry: Any, args: Iterator[Value]) -> Any:
    """The kernel value of a parameter whose signature entry is ``entry``: a tensor of the next
    IR argument for a type, a constexpr for a constant leaf, tuples rebuilt (NamedTuples as
    their class)."""
    if isinstance(entry, Type):
        handle = next(args)
        return tensor(handle, handle.type)
    if isinstance(entry, tuple):
        return same_structure(entry, [bind_entry(item, args) for item in entry])
    return entry


def check_kernel_bindings(jit: Any, signature: dict[str, Any], constexprs: dict[str, Any],
                          arg_attrs: dict[str, dict]) -> list[inspect.Parameter]:
    """Check that every parameter is either in ``signature`` or in ``constexprs`` (a
    ``tl.constexpr`` one must be in ``constexprs``); returns the parameters."""
    name = jit_name(jit)
    params = parameters(jit)
    names = [p.name for p in params]
    both = sorted(set(signature) & set(constexprs))
    if both:
        raise TypeError(f"`{name}`: parameter(s) {both} are given both a type in signature and a value in "
                        "constexprs; give each parameter one of them")
    extra = [n for n in list(signature) + list(constexprs) if n not in names]
    if extra:
        raise TypeError(f"`{name}` has no parameter(s) {extra}; its parameters are {names}")
    missing = [n for n in names if n not in signature and n not in constexprs]
    if missing:
        raise TypeError(f"`{name}`: parameter(s) {missing} have no type in signature and no value in constexprs")
    for param in params:
        if is_constexpr_annotation(param.annotation) and param.name not in constexprs:
            raise TypeError(f"`{name}`: parameter `{param.name}` is annotated tl.constexpr, so its value must be "
                            "given in constexprs, not a type in signature")
    runtime = runtime_leaves({n: parse_entry(n, spec) for n, spec in signature.items()})
    stray = [n for n in arg_attrs if n not in runtime]
    if stray:
        raise TypeError(f"`{name}`: arg_attrs names {stray}, which are not runtime parameters (in signature; "
                        "a tuple's elements as `name.0`, `name.1.0`...)")
    return params


def bind_call(jit: Any, args: list, kwargs: dict) -> dict[str, Any]:
    """The values of a jit callee's parameters for one call (defaults filled in).

    As in Triton, a callee's ``tl.constexpr`` annotation does not reject a tensor argument
    (Triton's fused-attention tutorial passes tiles to such parameters): every compile-time
    argument specializes the callee, every tensor becomes a runtime argument."""
    name = jit_name(jit)
    params = parameters(jit)
    try:
        bound = inspect.Signature(params).bind(*args, **kwargs)
    except TypeError as error:
        shown = ", ".join(p.name for p in params)
        raise SemanticError(f"wrong arguments in the call to `{name}`: {error}; `{name}` takes ({shown})") from None
    bound.apply_defaults()
    return {key: wrap(value) for key, value in bound.arguments.items()}


__all__ = ["parameters", "is_constexpr_annotation", "signature_type", "bind_entry", "check_kernel_bindings",
           "bind_call"]
