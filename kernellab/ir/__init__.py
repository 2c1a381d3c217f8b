"""Tile IR: types, values and ops (declared once, with numpy reference semantics), the builder,
printer, parser and verifier.

The names below load on first use (``kernellab.lazy``): ``kernellab.ir.types`` alone (what the
language's dtypes are) does not import the op registry, the builder or the verifier.
"""

from __future__ import annotations

from ..lazy import lazy_attributes, names_from

_LAZY = {
    "types": (".types", None),
    "ops": (".ops", None),
    **names_from(".builder", "Builder"),
    **names_from(".core", "UNKNOWN_LOC", "Block", "Function", "Location", "Module", "Op", "Value", "replace_all_uses",
                 "uses_of"),
    **names_from(".ops", "OPS", "OpDef", "VerifyError", "lookup"),
}
__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

__all__ = [
    "types", "ops", "Builder", "Block", "Function", "Location", "Module", "Op", "Value", "UNKNOWN_LOC",
    "replace_all_uses", "uses_of", "OPS", "OpDef", "VerifyError", "lookup",
]
