"""Print, as JSON, the facts of the installed Triton that tests/compat/test_public_names.py
compares with kernellab: each module's public names, the knob groups and their knobs, and the
dtypes' widths.  Run as a child process (``python -m tests.compat.triton_facts``) so that the
test process never imports the real triton: once it is imported, ``kernellab.as_triton`` refuses
to install its alias, as it should, and the alias's own tests would fail after this one."""

from __future__ import annotations

import importlib
import json
import types
import typing

MODULES = ["triton", "triton.language", "triton.language.math", "triton.testing", "triton.runtime",
           "triton.runtime.errors", "triton.compiler.errors", "triton.tools.tensor_descriptor",
           "triton.language.extra.libdevice", "triton.language.extra.cuda", "triton.language.extra.cuda.libdevice"]
DTYPES = ["int1", "int8", "uint32", "float16", "bfloat16", "float32", "float8e4nv", "float8e5", "float8e4b15",
          "float8e4b8", "float8e5b16"]
FAMILIES = ["SINT_TYPES", "UINT_TYPES", "FP_TYPES", "STANDARD_FP_TYPES", "OTHER_TYPES"]


def api_names(module_name: str) -> list[str]:
    """Names a user imports from the module: Triton's own objects and its submodules, not the
    helpers its source imports (``os``, ``List``, ``wraps``, ``tl`` in triton.testing...)."""
    module = importlib.import_module(module_name)
    names = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            if value.__name__ == f"{module_name}.{name}":
                names.append(name)
            continue
        if isinstance(value, typing.TypeVar):  # typing helpers of Triton's source
            continue
        if (getattr(value, "__module__", None) or "triton").split(".")[0] == "triton":
            names.append(name)
    return names


def knob_groups() -> dict[str, list[str]]:
    import triton

    groups = {g: getattr(triton.knobs, g) for g in dir(triton.knobs)}
    return {g: [n for n in dir(group) if not n.startswith("_")] for g, group in groups.items()
            if isinstance(group, triton.knobs.base_knobs)}


def dtype_facts() -> dict[str, dict]:
    import triton.language as tl

    facts = {}
    for name in DTYPES:
        dtype = getattr(tl, name)
        facts[name] = {"name": dtype.name, "bits": dtype.primitive_bitwidth,
                       "fp": [dtype.fp_mantissa_width, dtype.exponent_bias] if dtype.is_floating() else None}
    return facts


def main() -> None:
    import triton
    import triton.language as tl

    print(json.dumps({
        "version": triton.__version__,
        "names": {module: api_names(module) for module in MODULES},
        "knobs": knob_groups(),
        "dtypes": dtype_facts(),
        "families": {family: sorted(getattr(tl.dtype, family)) for family in FAMILIES},
    }))


if __name__ == "__main__":
    main()
