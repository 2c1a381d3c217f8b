"""Every public name of Triton 3.6's user-facing modules exists in kernellab (with Triton
installed; skipped without it).  What differs on purpose is listed here, with the reason."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from .triton_facts import DTYPES, FAMILIES, MODULES

ROOT = Path(__file__).resolve().parents[2]

if importlib.util.find_spec("triton") is None:
    pytest.skip("Triton is not installed (./dev test installs it: triton==3.6.0, CPU-only use)",
                allow_module_level=True)

# Public in Triton's modules, absent from kernellab on purpose.
ON_PURPOSE = {
    "triton.runtime": {"build"},  # Triton compiles its C launcher with it; kernellab generates its launchers
}


@pytest.fixture(scope="module")
def facts() -> dict:
    """The installed Triton's names, knobs and dtypes, read by a child process."""
    done = subprocess.run([sys.executable, "-m", "tests.compat.triton_facts"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _kernellab_module(module_name: str) -> types.ModuleType:
    return importlib.import_module("kernellab" + module_name.removeprefix("triton"))


def test_the_installed_triton_is_the_one_compared_with(facts):
    assert facts["version"].startswith("3.6"), f"the public names are Triton 3.6's; installed: {facts['version']}"


@pytest.mark.parametrize("module_name", MODULES)
def test_no_public_name_is_missing(facts, module_name):
    ours = _kernellab_module(module_name)
    skip = ON_PURPOSE.get(module_name, ())
    missing = [n for n in facts["names"][module_name] if n not in skip and not hasattr(ours, n)]
    assert not missing, f"{module_name}: kernellab lacks {missing}"


def test_every_knob_group_and_knob_exists(facts):
    import kernellab.knobs as knobs

    assert len(facts["knobs"]) >= 7
    for group, wanted in facts["knobs"].items():
        ours = type(getattr(knobs, group))  # the class: reading a tool knob runs the tool (or raises without it)
        missing = [n for n in wanted if not hasattr(ours, n)]
        assert not missing, f"knobs.{group} lacks {missing}"


@pytest.mark.parametrize("name", DTYPES)
def test_dtypes_match_tritons(facts, name):
    import kernellab.language as tl

    theirs, ours = facts["dtypes"][name], getattr(tl, name)
    assert ours.name == theirs["name"]
    assert ours.primitive_bitwidth == theirs["bits"]
    if ours.is_floating():
        assert [ours.fp_mantissa_width, ours.exponent_bias] == theirs["fp"]


@pytest.mark.parametrize("family", FAMILIES)
def test_dtype_families_match_tritons(facts, family):
    import kernellab.language as tl

    assert sorted(getattr(tl.dtype, family)) == facts["families"][family]
