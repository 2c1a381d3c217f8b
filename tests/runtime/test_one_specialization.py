"""One specialization path: ``kernel[grid]``, ``warmup``, ``kl.compile`` and the notebook's
``%%tile_kernel`` (``notebook.launch``) turn arguments into the same Specialization and compile
it through the same function, so they share one compiled kernel."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import KernelArgumentError
from kernellab.notebook import launch as nb_launch
from kernellab.runtime import jit as jit_module
from kernellab.runtime import specialize

from .sample_kernels import add_kernel, add_unspecialized

N = 256


@pytest.fixture
def seen(monkeypatch) -> list:
    """Every Specialization compiled, through the one function all paths call."""
    calls = []
    original = jit_module.compile_specialization

    def spy(jit, spec, target, options):
        calls.append((jit.__name__, spec, target))
        return original(jit, spec, target, options)

    monkeypatch.setattr(jit_module, "compile_specialization", spy)
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    return calls


def _fresh(kernel):
    return kl.jit(kernel.fn)


def test_the_four_paths_make_one_specialization_and_one_kernel(seen, inputs) -> None:
    x, y = inputs.normal(N), inputs.normal(N)
    out = inputs.poisoned(N)
    by_launch = _fresh(add_kernel)
    by_launch[(N // 64,)](x, y, out, N, BLOCK=64)
    np.testing.assert_array_equal(out, x + y)
    launched = next(iter(by_launch.cache.values()))
    warmed = _fresh(add_kernel).warmup(tl.float32, tl.float32, tl.float32, N, BLOCK=64, grid=(1,))
    compiled = kl.compile(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                          {"BLOCK": 64}, target="interpret",
                          arg_attrs={name: {"divisibility": 16} for name in ("x_ptr", "y_ptr", "out_ptr", "n")})
    named = nb_launch.named_arguments(add_kernel, [x, y, out, N, 64])
    spec = nb_launch.specialize(add_kernel, named)
    from_notebook = nb_launch.compile_for(add_kernel, spec, nb_launch.choose_target(add_kernel, spec, None), {})
    specs = [s for _, s, _ in seen]
    assert len(specs) == 4, "every path compiles through jit.compile_specialization"
    assert all(s.key() == specs[0].key() for s in specs), [s.key() for s in specs]
    assert specs[0].arg_attrs == {name: {"divisibility": 16} for name in ("x_ptr", "y_ptr", "out_ptr", "n")}
    keys = {k.metadata["cache_key"] for k in (launched, warmed, compiled, from_notebook)}
    assert len(keys) == 1


def test_the_rules_are_the_binders(seen, inputs) -> None:
    x = inputs.normal(N)
    found = specialize.from_arguments(add_unspecialized, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 1, "BLOCK": 8})
    assert "divisibility" not in found.arg_attrs.get("x_ptr", {})  # do_not_specialize_on_alignment
    assert found.signature["n"].ir == "i32" and "n" not in found.constexprs  # do_not_specialize: 1 stays a value
    one = specialize.from_arguments(add_kernel, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 1, "BLOCK": 8})
    assert one.constexprs == {"n": 1, "BLOCK": 8}
    with pytest.raises(KernelArgumentError, match="argument `n` of `add_kernel` is"):
        specialize.from_arguments(add_kernel, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 1j, "BLOCK": 8})
    with pytest.raises(KernelArgumentError, match="needs a value for `BLOCK`"):
        specialize.from_arguments(add_kernel, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 3})
