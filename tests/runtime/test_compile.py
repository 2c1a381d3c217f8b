"""``kl.compile`` and ``CompiledKernel``: stages, metadata and direct launches."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.runtime.targets import backend_available

from . import sample_kernels as sk

SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


def test_compile_returns_stages_and_metadata():
    compiled = kl.compile(sk.add_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="interpret")
    assert isinstance(compiled, kl.CompiledKernel)
    assert list(compiled.asm)[:2] == ["source", "tile"]
    assert compiled.asm["source"].startswith("def add_kernel(")
    assert "func @add_kernel(" in compiled.asm["tile"] and "ptr<f32>" in compiled.asm["tile"]
    md = compiled.metadata
    assert (md.name, md.target, md.debug) == ("add_kernel", "interpret", True)
    assert md.signature == SIGNATURE and md.constexprs == {"BLOCK": 128} and md.arg_names == sk.add_kernel.arg_names
    assert {"lower", "passes", "verify", "tile", "total"} <= set(md.compile_seconds)
    assert all(seconds >= 0 for seconds in md.compile_seconds.values())
    assert md.num_warps is not None and md.num_stages is not None
    with pytest.raises(AttributeError, match="no 'shared_memory'"):
        md.shared_memory


def test_tile_line_map_points_into_the_kernel():
    compiled = kl.compile(sk.add_kernel, signature=SIGNATURE, constexprs={"BLOCK": 64}, target="interpret")
    first = sk.add_kernel.first_line
    lines = compiled.asm["tile"].splitlines()
    line_map = compiled.metadata.line_maps["tile"]
    assert line_map
    for tile_line, file, source_line, _column in line_map:
        assert file == sk.__file__ and first < source_line <= first + 4
        assert 1 <= tile_line <= len(lines)
    store_lines = [source for tile, _, source, _ in line_map if lines[tile - 1].lstrip().startswith("store")]
    assert store_lines == [first + 4]


def test_signature_types_and_indices():
    compiled = kl.compile(sk.add_kernel, signature={0: tl.pointer_type(tl.float16) if hasattr(tl, "pointer_type") else
                                                    "*fp16", "y_ptr": "*fp16", (2,): "*fp16", "n": tl.int64},
                          constexprs={"BLOCK": 32}, target="interpret")
    assert compiled.metadata.signature == {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i64"}


def test_compile_needs_every_parameter():
    with pytest.raises(TypeError, match="`n` has neither"):
        kl.compile(sk.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"},
                   constexprs={"BLOCK": 32}, target="interpret")
    with pytest.raises(TypeError, match="`BLOCK` of `add_kernel` is a constexpr"):
        kl.compile(sk.add_kernel, signature=SIGNATURE, target="interpret")
    with pytest.raises(TypeError, match="not a parameter"):
        kl.compile(sk.add_kernel, signature={**SIGNATURE, "m": "i32"}, constexprs={"BLOCK": 32}, target="interpret")
    with pytest.raises(ValueError, match="unknown signature type"):
        kl.compile(sk.add_kernel, signature={**SIGNATURE, "n": "int"}, constexprs={"BLOCK": 32}, target="interpret")


def test_compile_a_plain_function_and_constants_in_the_signature():
    def scale(x_ptr, out_ptr, factor):
        tl.store(out_ptr + tl.arange(0, 16), tl.load(x_ptr + tl.arange(0, 16)) * factor)

    compiled = kl.compile(scale, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"}, constexprs={"factor": 3},
                          target="interpret")
    x, out = np.arange(1, 17, dtype=np.float32), np.full(16, np.nan, np.float32)
    compiled[(1,)](x, out, 3)  # all arguments, the constexpr included
    np.testing.assert_array_equal(out, 3 * x)


def test_direct_launch_with_runtime_arguments(inputs):
    compiled = kl.compile(sk.add_kernel, signature=SIGNATURE, constexprs={"BLOCK": 64}, target="interpret")
    n = 200
    x, y, out = inputs.normal(n), inputs.normal(n), inputs.poisoned(n)
    compiled[(kl.cdiv(n, 64),)](x, y, out, n)
    np.testing.assert_array_equal(out, x + y)
    out[:] = np.nan
    compiled[lambda meta: (kl.cdiv(meta["n"], 64),)](x, y, out, n, 64)
    np.testing.assert_array_equal(out, x + y)
    with pytest.raises(TypeError, match="takes its 5 arguments .* or only the 4 runtime ones"):
        compiled[(1,)](x, y, out)


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_direct_launch_with_the_parameters_not_declared_constexpr(target, inputs, monkeypatch):
    # Triton 3.0-3.2's compiled kernels took these (FlagGems' libentry launches so): a runtime
    # argument specialized to the constant 1 is passed, and ignored
    if not backend_available(target):
        pytest.skip(f"no {target} backend")
    monkeypatch.setenv("KERNELLAB_TARGET", target)
    n = 96
    x, out = inputs.normal(n), inputs.poisoned(n)
    alpha = float(inputs.normal(1)[0])
    compiled = kl.jit(sk.axpy_kernel.fn)[(kl.cdiv(n, 32),)](x, out, n, alpha, BLOCK=32)
    assert "n" in compiled.runtime_args
    ones = inputs.normal(1)
    compiled_one = kl.jit(sk.axpy_kernel.fn)[(1,)](ones, inputs.poisoned(1), 1, alpha, BLOCK=32)
    assert compiled_one.runtime_args == ["x_ptr", "out_ptr", "alpha"]
    x2, out2 = inputs.normal(1), inputs.poisoned(1)
    compiled_one[(1,)](x2, out2, 1, alpha)  # the 4 parameters not declared constexpr
    np.testing.assert_allclose(out2, alpha * x2, rtol=1e-6)
    out[:] = np.nan
    compiled[(kl.cdiv(n, 32),)](x, out, n, alpha)
    np.testing.assert_allclose(out, alpha * x, rtol=1e-6)


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_disk_loaded_kernels_launch(target, inputs, tmp_path, monkeypatch):
    if not backend_available(target):
        pytest.skip(f"no {target} backend")
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KERNELLAB_TARGET", target)
    kl.jit(sk.add_kernel.fn).warmup(*(["*fp32"] * 3), 256, BLOCK=64)
    fresh = kl.jit(sk.add_kernel.fn)
    x, y, out = inputs.normal(256), inputs.normal(256), inputs.poisoned(256)
    compiled = fresh[(4,)](x, y, out, 256, BLOCK=64)
    assert compiled.origin == "disk"
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.skipif(not backend_available("cuda"), reason="no cuda backend")
def test_compiling_for_a_gpu_needs_no_gpu():
    compiled = kl.compile(sk.add_kernel, signature=SIGNATURE, constexprs={"BLOCK": 256}, target="cuda:sm_90a",
                          num_warps=4)
    assert {"source", "tile"} <= set(compiled.asm) and compiled.metadata.target == "cuda:sm_90a"
    assert any(".target sm_90a" in text for text in compiled.asm.values() if isinstance(text, str))


def test_compile_errors_point_at_the_kernel():
    @kl.jit
    def broken(x_ptr, n):
        tl.store(x_ptr + tl.arange(0, n), 1.0)

    with pytest.raises(kl.CompilationError) as info:
        kl.compile(broken, signature={"x_ptr": "*fp32", "n": "i32"}, target="interpret")
    assert "test_compile.py" in str(info.value) and "tl.arange(0, n)" in str(info.value)


@pytest.mark.skipif(not backend_available("cuda"), reason="no cuda backend")
def test_warmup_for_a_gpu_needs_no_gpu(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "cuda:sm_90a")
    kernel = kl.jit(sk.add_kernel.fn)
    compiled = kernel.warmup(tl.float32, tl.float32, tl.float32, 4096, BLOCK=256, grid=(16,))
    assert compiled.target == "cuda:sm_90a" and {"source", "tile"} <= set(compiled.asm)
    assert compiled.metadata.specialization["n"] == {"divisibility": 16}
    assert compiled._launcher is None  # compiled, never loaded
