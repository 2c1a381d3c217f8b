"""``ir_override``: an edited stage file compiled in place of the generated stage (``.tile`` on
every target, ``.ll``/``.llvm`` on the CPU, ``.ptx`` on CUDA), through ``Config``, a launch
option and ``kl.compile``."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl

from . import kernels as K

N = 100


def arrays(inputs, placed):
    x, y = inputs.normal(N), inputs.normal(N)
    return x, y, placed.put(x), placed.put(y)


def edit(text: str, old: str, new: str, line_has: str = "") -> str:
    """``text`` with ``old`` replaced by ``new`` on the first line that has both ``old`` and
    ``line_has``."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if old in line and line_has in line:
            lines[i] = line.replace(old, new, 1)
            return "".join(lines)
    raise AssertionError(f"no line has {old!r} and {line_has!r}: the stage changed shape")


def edited_stage(kernel, args, stage: str, old: str, new: str, path) -> str:
    """Write ``kernel``'s ``stage`` with the float ``old`` op made ``new`` to ``path``."""
    text = kernel.warmup(*args, N, BLOCK=64).asm[stage]
    path.write_text(edit(text, old, new, "xf32>" if stage == "tile" else ""))
    return str(path)


def test_an_edited_tile_stage_runs_on_every_target(target, placed, inputs, fresh, tmp_path):
    kernel = fresh(K.add_kernel)
    x, y, dx, dy = arrays(inputs, placed)
    out = placed.put(inputs.poisoned(N))
    path = edited_stage(kernel, (dx, dy, out), "tile", " = add(", " = sub(", tmp_path / "sub.tile")
    compiled = kernel[(2,)](dx, dy, out, N, BLOCK=64, ir_override=path)
    np.testing.assert_array_equal(placed.get(out), x - y)
    assert compiled.metadata["ir_override"] == {"path": path, "stage": "tile"}
    assert " = sub(" in compiled.asm["tile"]


def test_a_config_with_ir_override_is_autotuned_like_any_other(target, placed, inputs, fresh, tmp_path):
    kernel = fresh(K.add_kernel)
    x, y, dx, dy = arrays(inputs, placed)
    out = placed.put(inputs.poisoned(N))
    path = edited_stage(kernel, (dx, dy, out), "tile", " = add(", " = mul(", tmp_path / "mul.tile")
    times = iter([5.0, 1.0])
    tuner = kl.autotune([kl.Config({"BLOCK": 64}), kl.Config({"BLOCK": 64}, ir_override=path)], key=["n"],
                        do_bench=lambda fn, quantiles: fn() or [next(times)] * 3, parallel_compile=False)(kernel)
    tuner[(2,)](dx, dy, out, N)
    assert tuner.best_config.ir_override == path
    assert tuner.best_config.all_kwargs()["ir_override"] == path
    np.testing.assert_allclose(placed.get(out), x * y, rtol=1e-6)


def test_an_edited_llvm_stage_on_the_cpu(inputs, fresh, tmp_path, monkeypatch):
    from kernellab.runtime.targets import backend_available

    if not backend_available("cpu"):
        pytest.skip("needs the CPU backend")
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    kernel = fresh(K.add_kernel)
    x, y = inputs.normal(N), inputs.normal(N)
    out = inputs.poisoned(N)
    for suffix in (".ll", ".llvm"):
        path = edited_stage(kernel, (x, y, out), "llvm", "fadd float", "fmul float", tmp_path / f"mul{suffix}")
        out[:] = np.nan
        compiled = kernel[(2,)](x, y, out, N, BLOCK=64, ir_override=path)
        np.testing.assert_allclose(out, x * y, rtol=1e-6)
        assert "fmul float" in compiled.asm["llvm"] and compiled.metadata["ir_override"]["stage"] == "llvm"


def test_kl_compile_takes_ir_override(fresh, tmp_path):
    kernel = fresh(K.add_kernel)
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    plain = kl.compile(kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret")
    path = tmp_path / "sub.tile"
    path.write_text(edit(plain.asm["tile"], " = add(", " = sub(", "xf32>"))
    edited = kl.compile(kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret",
                        ir_override=str(path))
    assert edited.hash != plain.hash and " = sub(" in edited.asm["tile"]
    path.write_text(edit(plain.asm["tile"], " = add(", " = mul(", "xf32>"))
    again = kl.compile(kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret",
                       ir_override=str(path))
    assert again.hash != edited.hash  # the file's contents are in the key, not its path


def test_errors_name_the_file_and_what_is_allowed(placed, inputs, fresh, tmp_path):
    kernel = fresh(K.add_kernel)
    x = placed.put(inputs.normal(N))
    wrong = tmp_path / "kernel.txt"
    wrong.write_text("")
    with pytest.raises(ValueError, match=r"suffix names the stage.*\.tile, \.llvm, \.ll, \.llir, \.ptx"):
        kernel[(2,)](x, x, x, N, BLOCK=64, ir_override=str(wrong))
    for suffix, what in ((".ttir", "TTIR"), (".ttgir", "TTGIR")):  # Triton's MLIR: said plainly
        mlir = tmp_path / f"kernel{suffix}"
        mlir.write_text("module {\n}\n")
        with pytest.raises(ValueError, match=f"is Triton's {what} \\(MLIR\\), which kernellab cannot compile.*"
                                             r"\.tile file"):
            kernel[(2,)](x, x, x, N, BLOCK=64, ir_override=str(mlir))
    with pytest.raises(FileNotFoundError, match="missing.tile"):
        kernel[(2,)](x, x, x, N, BLOCK=64, ir_override=str(tmp_path / "missing.tile"))


def test_a_stage_the_target_cannot_start_from(inputs, fresh, tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    kernel = fresh(K.add_kernel)
    x = inputs.normal(N)
    path = tmp_path / "kernel.ptx"
    path.write_text("// nothing")
    with pytest.raises(ValueError, match="interpret target cannot start from; it accepts: tile"):
        kernel[(2,)](x, x, x, N, BLOCK=64, ir_override=str(path))


@pytest.mark.gpu
def test_an_edited_ptx_stage_on_cuda(inputs, fresh, tmp_path):
    kernel = fresh(K.add_kernel)
    x, y = inputs.normal(N), inputs.normal(N)
    dx, dy, out = kl.to_device(x), kl.to_device(y), kl.to_device(inputs.poisoned(N))
    text = kernel.warmup(dx, dy, out, N, BLOCK=64).asm["ptx"]
    path = tmp_path / "mul.ptx"
    # the f32 add is add.f32 under enable_fp_fusion (the default: ptxas may contract it), else add.rn.f32
    path.write_text(edit(text, "add.", "mul.", ".f32"))
    kernel[(2,)](dx, dy, out, N, BLOCK=64, ir_override=str(path))
    np.testing.assert_allclose(out.numpy(), x * y, rtol=1e-6)


@pytest.mark.gpu
def test_ptx_with_tritons_trailing_scratch_pointers_runs_on_cuda(inputs, fresh, tmp_path):
    """PTX that Triton wrote ends with its global scratch pointer (Triton's test_override_ptx):
    the parameter gets a null pointer, as Triton passes to a kernel that needs no scratch."""
    kernel = fresh(K.add_kernel)
    x, y = inputs.normal(N), inputs.normal(N)
    dx, dy, out = kl.to_device(x), kl.to_device(y), kl.to_device(inputs.poisoned(N))
    text = edit(kernel.warmup(dx, dy, out, N, BLOCK=64).asm["ptx"], "add.", "mul.", ".f32")
    last = text.index("add_kernel_param_3") + len("add_kernel_param_3")
    path = tmp_path / "scratch.ptx"
    path.write_text(text[:last] + ",\n\t.param .u64 .ptr .global .align 1 add_kernel_param_4" + text[last:])
    compiled = kernel[(2,)](dx, dy, out, N, BLOCK=64, ir_override=str(path))
    assert compiled.metadata["null_params"] == 1
    np.testing.assert_allclose(out.numpy(), x * y, rtol=1e-6)
    kernel[(2,)](dx, dy, out, N, BLOCK=64, ir_override=str(path))  # the fast path
    np.testing.assert_allclose(out.numpy(), x * y, rtol=1e-6)


def test_compiling_an_ir_file_says_what_kernellab_compiles(tmp_path):
    """Triton's compile(path) of a .ttir file: kernellab says its IR is not Triton's MLIR and
    how to start from an edited stage instead (Triton's test_line_info_ir_source)."""
    path = tmp_path / "test.ttir"
    path.write_text("module {\n}\n")
    for given in (str(path), path):
        with pytest.raises(TypeError, match=r"not IR files; Triton's .ttir/.ttgir files are MLIR.*ir_override=path"):
            kl.compile(given)
