"""Kernels cross process boundaries as Triton's do: a ``@jit`` kernel pickles by its module's name
for it, or (torch inductor's compile workers, which clear ``fn`` first) as its definition without
what the process compiled; a ``CompiledKernel`` pickles its stages and metadata, also when it is
rebuilt from a copy of its ``__dict__``; and it launches through Triton's ``run`` signature."""

from __future__ import annotations

import collections
import pickle

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.runtime.jit import JITFunction


@kl.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)


SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "factor": "fp32"}


def _compiled(target: str) -> kl.CompiledKernel:
    return kl.compile(scale, signature=SIGNATURE, constexprs={"BLOCK": 64}, target=target)


def test_a_module_level_kernel_pickles_as_its_name():
    assert pickle.loads(pickle.dumps(scale)) is scale


def test_a_kernel_without_its_function_pickles_its_definition(host_target, inputs):
    x = inputs.normal(100)
    out = np.zeros_like(x)
    cleared = JITFunction(scale.fn)  # not the module's `scale`: pickled by its state
    cleared[(2,)](x, out, 100, 2.0, BLOCK=64)
    assert cleared.cache
    key = cleared.cache_key
    cleared.fn, cleared.__globals__ = None, None  # what torch inductor does before pickling
    back = pickle.loads(pickle.dumps(cleared))
    assert isinstance(back, JITFunction) and back.fn is None and not back.cache
    assert back.arg_names == ["x_ptr", "out_ptr", "n", "factor", "BLOCK"] and back.constexprs == [4]
    assert back.repr(back) == "scale" and back.used_global_vals == {}
    assert back.cache_key == key  # torch inductor's multi-kernel cache reads it in the parent


@pytest.mark.parametrize("from_disk", [False, True])
def test_a_compiled_kernel_pickles_and_launches(host_target, inputs, from_disk):
    compiled = _compiled(host_target)
    if from_disk:  # compiled again with the kernel's memory cleared: from the entry the first stored
        scale.cache.clear()
        compiled = _compiled(host_target)
        assert compiled.origin == "disk"
    back = pickle.loads(pickle.dumps(compiled))
    assert dict(back.asm) == dict(compiled.asm) and back.metadata == compiled.metadata
    x = inputs.normal(100)
    out = np.zeros_like(x)
    back[(2,)](x, out, 100, 3.0)
    np.testing.assert_allclose(out, x * 3.0, rtol=1e-6)


def test_a_kernel_rebuilt_from_a_copy_of_its_dict_launches(host_target, inputs):
    """torch inductor's TritonCompileResult: a copy of __dict__ with the metadata as a namedtuple
    and Triton's run/function/module set to None, put into CompiledKernel.__new__."""
    compiled = _compiled(host_target)
    state = {**compiled.__dict__, "metadata": dict(compiled.metadata), "run": None, "function": None, "module": None}
    state = pickle.loads(pickle.dumps(state))
    state["metadata"] = collections.namedtuple("KernelMetadata", list(state["metadata"]))(**state["metadata"])
    rebuilt = kl.CompiledKernel.__new__(kl.CompiledKernel)
    rebuilt.__dict__.update(state)
    assert rebuilt.hash == compiled.hash  # read before _init_handles
    rebuilt._init_handles()
    x = inputs.normal(100)
    out = np.zeros_like(x)
    rebuilt.run(2, 1, 1, None, rebuilt.function, rebuilt.packed_metadata, None, None, None, x, out, 100, 0.5, 64)
    np.testing.assert_allclose(out, x * 0.5, rtol=1e-6)


def test_run_takes_tritons_launcher_arguments(host_target, inputs):
    compiled = _compiled(host_target)
    assert compiled.src.fn is scale and compiled.packed_metadata is compiled.metadata
    seen = []
    x = inputs.normal(130)
    out = np.zeros_like(x)
    metadata = compiled.launch_metadata((3, 1, 1), None, x, out, 130, 2.0, 64)
    compiled.run(3, 1, 1, None, compiled.function, compiled.packed_metadata, metadata,
                 lambda m: seen.append(("enter", m.get()["name"])), lambda m: seen.append(("exit", m.get()["name"])),
                 x, out, 130, 2.0, 64)
    np.testing.assert_allclose(out, x * 2.0, rtol=1e-6)
    assert seen == [("enter", "scale"), ("exit", "scale")]
    with pytest.raises(TypeError, match="takes its 5 arguments"):
        compiled.run(1, 1, 1, None, None, None, None, None, None, x, out)
