"""Triton's JIT hooks and *specialization data*: one specialization of a kernel as JSON text,
which the JIT hooks receive (``knobs.runtime.jit_cache_hook`` / ``jit_post_compile_hook``:
``compile["specialization_data"]``) and ``JITFunction.preload`` compiles again, in this process
or another.

The text holds the kernel's full name, the signature (tuple parameters as nested entries), the
constexpr values, the element facts, the target and the compile options.  Values are encoded so
that they read back as they were: numbers, strings, None, dtypes (``{"type": "f32"}``), tuples
and NamedTuples, ``constexpr`` wrappers, and functions or classes by module and qualified name
(``{"object": "module:Qual.name"}``, found again by import).  Anything else cannot be
serialized: the text then says so (``{"unserializable": repr}``) and ``preload`` refuses it.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from typing import Any

from ..frontend.arguments import describe_entry
from ..ir import types as T
from ..language.core import constexpr, is_namedtuple_class
from .cache import NOT_SCALAR, scalar_json
from .specialize import Specialization

VERSION = 1


def full_name(jit: Any) -> str:
    return f"{jit.fn.__module__}.{jit.fn.__qualname__}"


def serialize(jit: Any, spec: Specialization, target: str, options: dict[str, Any]) -> str:
    """The specialization data of ``spec`` compiled for ``target`` with ``options``."""
    return json.dumps({
        "version": VERSION, "name": full_name(jit), "target": target,
        "signature": {name: describe_entry(entry, encode) for name, entry in spec.signature.items()},
        "constexprs": {name: encode(value) for name, value in spec.constexprs.items()},
        "attrs": spec.arg_attrs, "pointers": [list(p) for p in spec.pointers],
        "options": {name: encode(value) for name, value in options.items()},
    })


def deserialize(jit: Any, text: str) -> tuple[Specialization, str, dict[str, Any]]:
    """``(specialization, target, options)`` from specialization data made for ``jit``."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise ValueError("not kernellab specialization data (made by jit_cache_hook / jit_post_compile_hook)")
    if data["name"] != full_name(jit):
        raise RuntimeError(f"Specialization data is for {data['name']} but trying to preload for {full_name(jit)}")
    spec = Specialization({name: _entry(entry) for name, entry in data["signature"].items()},
                          {name: decode(value) for name, value in data["constexprs"].items()},
                          dict(data["attrs"]), [tuple(p) for p in data["pointers"]])
    return spec, data["target"], {name: decode(value) for name, value in data["options"].items()}


# ---- values ----

def encode(value: Any) -> Any:
    """A JSON value that :func:`decode` reads back as ``value``."""
    if isinstance(value, constexpr):
        return {"constexpr": encode(value.value)}
    scalar = scalar_json(value)
    if scalar is not NOT_SCALAR:
        return scalar
    if isinstance(value, tuple) and is_namedtuple_class(type(value)):
        return {"namedtuple": _object_name(type(value)), "items": [encode(v) for v in value]}
    if isinstance(value, (tuple, list)):
        return {type(value).__name__ if type(value) in (tuple, list) else "tuple": [encode(v) for v in value]}
    if callable(value) and _findable(value):  # jit functions, functions, classes at module level
        return {"object": _object_name(value)}
    return {"unserializable": repr(value)}


def decode(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if "constexpr" in value:
        return constexpr(decode(value["constexpr"]))
    if "float" in value:
        return float(value["float"])
    if "type" in value:
        return T.parse_type(value["type"])
    if "namedtuple" in value:
        return _find(value["namedtuple"])(*map(decode, value["items"]))
    if "tuple" in value:
        return tuple(map(decode, value["tuple"]))
    if "list" in value:
        return list(map(decode, value["list"]))
    if "object" in value:
        return _find(value["object"])
    raise ValueError(f"specialization data holds a value that cannot be read back: {value.get('unserializable')}")


def _entry(described: Any) -> Any:
    """A signature entry from :func:`..frontend.arguments.describe_entry`'s form."""
    if isinstance(described, str):
        return T.from_signature(described)
    if "constexpr" in described:
        return constexpr(decode(described["constexpr"]))
    items = [_entry(item) for item in described["tuple"]]
    return _find(described["namedtuple"])(*items) if "namedtuple" in described else tuple(items)


# ---- objects by name ----

def _object_name(obj: Any) -> str:
    return f"{obj.__module__}:{obj.__qualname__}"


def _findable(obj: Any) -> bool:
    try:
        return _find(_object_name(obj)) is obj
    except (AttributeError, ValueError):
        return False


def _find(name: str) -> Any:
    """The object ``module:Qual.name`` (``module.Qual`` as ``describe_entry`` writes
    NamedTuples: the longest importable module prefix)."""
    if ":" in name:
        module_name, qualname = name.split(":", 1)
        return _attribute(_module(module_name), qualname)
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = _module(".".join(parts[:cut]), missing_ok=True)
        if module is not None:
            return _attribute(module, ".".join(parts[cut:]))
    raise ValueError(f"specialization data names {name}, which cannot be imported")


def _module(name: str, missing_ok: bool = False) -> Any:
    found = sys.modules.get(name)
    if found is not None:
        return found
    try:
        return importlib.import_module(name)
    except ImportError:
        if missing_ok:
            return None
        raise ValueError(f"specialization data names the module {name}, which cannot be imported") from None


def _attribute(module: Any, qualname: str) -> Any:
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
        if value is None:
            raise ValueError(f"specialization data names {module.__name__}:{qualname}, which it does not define")
    return value


# ---- the hooks ----

@dataclass
class JitFunctionInfo:
    """What Triton's JIT hooks receive as ``fn``."""

    module: Any
    name: str
    jit_function: Any


def call_hook(hook: Any, jit: Any, key: tuple, spec: Specialization, target: str, options: dict[str, Any],
              warmup: bool) -> Any:
    """Call a JIT hook with Triton's keywords (``key``, ``repr``, ``fn``, ``compile``,
    ``is_manual_warmup``, ``already_compiled``); returns what it returns."""
    signature = {name: describe_entry(entry, encode) for name, entry in spec.signature.items()}
    compile_args = {
        "key": key, "signature": signature, "device": target, "constants": dict(spec.constexprs),
        "num_warps": options.get("num_warps"), "num_ctas": options.get("num_ctas"),
        "num_stages": options.get("num_stages"), "enable_fp_fusion": options.get("enable_fp_fusion", True),
        "launch_cooperative_grid": False, "extern_libs": None, "configs": [dict(spec.arg_attrs)],
        "specialization_data": serialize(jit, spec, target, options), "is_warmup": warmup,
    }
    shown = ", ".join(f"{name}: {entry}" for name, entry in signature.items())
    described = (f"{jit.fn.__qualname__}[num_warps={options.get('num_warps')}, num_ctas={options.get('num_ctas')}, "
                 f"num_stages={options.get('num_stages')}]({shown})")
    return hook(key=key, repr=described, fn=JitFunctionInfo(jit.fn.__module__, jit.fn.__qualname__, jit),
                compile=compile_args, is_manual_warmup=warmup, already_compiled=False)


__all__ = ["serialize", "deserialize", "encode", "decode", "full_name", "call_hook", "JitFunctionInfo", "VERSION"]
