"""Every public name of Triton 3.6's user-facing modules exists in kernellab (with Triton
installed; skipped without it).  What differs on purpose is listed here, with the reason."""

from __future__ import annotations

import importlib
import types
import typing

import pytest

triton = pytest.importorskip("triton")

MODULES = ["triton", "triton.language", "triton.language.math", "triton.testing", "triton.runtime",
           "triton.runtime.errors", "triton.compiler.errors", "triton.tools.tensor_descriptor"]

# Public in Triton's modules, absent from kernellab on purpose.
ON_PURPOSE = {
    "triton.runtime": {"build"},  # Triton compiles its C launcher with it; kernellab generates its launchers
}


def _api_names(module_name: str) -> list[str]:
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


def _kernellab_module(module_name: str) -> types.ModuleType:
    return importlib.import_module("kernellab" + module_name.removeprefix("triton"))


@pytest.mark.parametrize("module_name", MODULES)
def test_no_public_name_is_missing(module_name):
    ours = _kernellab_module(module_name)
    missing = [n for n in _api_names(module_name) if n not in ON_PURPOSE.get(module_name, ()) and not hasattr(ours, n)]
    assert not missing, f"{module_name}: kernellab lacks {missing}"


def test_no_libdevice_function_is_missing():
    test_no_public_name_is_missing("triton.language.extra.libdevice")


def test_every_knob_group_and_knob_exists():
    import kernellab.knobs as knobs

    groups = [g for g in dir(triton.knobs) if isinstance(getattr(triton.knobs, g), triton.knobs.base_knobs)]
    assert len(groups) >= 7
    for group in groups:
        theirs = getattr(triton.knobs, group)
        ours = getattr(knobs, group)
        wanted = [n for n in dir(theirs) if not n.startswith("_")]
        missing = [n for n in wanted if not hasattr(ours, n)]
        assert not missing, f"knobs.{group} lacks {missing}"


@pytest.mark.parametrize("name", ["int1", "int8", "uint32", "float16", "bfloat16", "float32", "float8e4nv",
                                  "float8e5", "float8e4b15", "float8e4b8", "float8e5b16"])
def test_dtypes_match_tritons(name):
    import kernellab.language as tl

    theirs, ours = getattr(triton.language, name), getattr(tl, name)
    assert ours.name == theirs.name
    assert ours.primitive_bitwidth == theirs.primitive_bitwidth
    if ours.is_floating():
        assert (ours.fp_mantissa_width, ours.exponent_bias) == (theirs.fp_mantissa_width, theirs.exponent_bias)
    for family in ("SINT_TYPES", "UINT_TYPES", "FP_TYPES", "STANDARD_FP_TYPES", "OTHER_TYPES"):
        assert getattr(tl.dtype, family) == getattr(triton.language.dtype, family)
