"""Source lines in the compiled stages, as Triton's users read them: ``TRITON_DISABLE_LINE_INFO``
(or ``knobs.compilation.disable_line_info``) compiles without them (no ``.loc`` in the PTX or
host assembly, no line table in the cubin), each setting its own cache entry; a ``noinline``
callee stays a call on CUDA, so its call site keeps its line; ``TRITON_DEFAULT_FP_FUSION=0``
makes ``enable_fp_fusion`` default to off.  Compiled for sm_90a without a GPU."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import knobs
from kernellab.backends.cuda import tools


@kl.jit(noinline=True)
def scaled_copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 3)


@kl.jit
def calls_noinline(x_ptr, out_ptr, BLOCK: tl.constexpr):
    scaled_copy(x_ptr, out_ptr, BLOCK)  # the call site


@kl.jit
def fused(x_ptr, y_ptr, z_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * tl.load(y_ptr + offs) + tl.load(z_ptr + offs))


def _call_line() -> int:
    code = calls_noinline.fn.__code__
    lines = open(code.co_filename).read().splitlines()
    return next(i + 1 for i, text in enumerate(lines) if text.strip().startswith("scaled_copy(x_ptr, out_ptr, BLOCK)"))


def _compile(kernel, target: str, block: int = 128, **options):
    signature = {name: "*fp32" for name in kernel.arg_names if name != "BLOCK"}
    return kl.compile(kernel, signature=signature, constexprs={"BLOCK": block}, target=target, **options)


def _cubin_lines(cubin: bytes, tmp_path) -> set[int]:
    """The source lines of the cubin's line table (nvdisasm -g), as Triton's test reads them."""
    nvdisasm = tools.find_tool("nvdisasm")
    if nvdisasm is None:
        pytest.skip("no nvdisasm (pip install nvidia-cuda-nvdisasm)")
    path = tmp_path / "kernel.cubin"
    path.write_bytes(cubin)
    listing = subprocess.run([nvdisasm, "-g", str(path)], capture_output=True, text=True, check=True).stdout
    return {int(m.group(1)) for m in re.finditer(r'## File ".*?", line (\d+)', listing)}


HOST_LOC = {"cuda:sm_90a": ("ptx", r"^\s*\.loc\s"), "cpu": ("asm", r"^\s*\.loc\s")}


@pytest.mark.parametrize("target", list(HOST_LOC))
@pytest.mark.parametrize("how", ["variable", "knob"])
def test_line_info_can_be_turned_off(target, how, monkeypatch):
    stage, pattern = HOST_LOC[target]
    monkeypatch.delenv("TRITON_DISABLE_LINE_INFO", raising=False)
    with_lines = _compile(fused, target, 64)
    with knobs.compilation.scope():
        if how == "variable":
            monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "1")
        else:
            knobs.compilation.disable_line_info = True
        without = _compile(fused, target, 64)
    assert re.search(pattern, with_lines.asm[stage], re.M)
    assert not re.search(pattern, without.asm[stage], re.M) and "!DILocation" not in without.asm["llvm"]
    assert with_lines.hash != without.hash  # its own cache entry
    assert without.metadata["options"]["line_info"] is False


@pytest.mark.skipif(shutil.which("ptxas") is None and tools.find_ptxas() is None, reason="needs ptxas")
def test_the_cubin_has_no_line_table_without_line_info(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "0")
    assert _cubin_lines(_compile(fused, "cuda:sm_90a").asm["cubin"], tmp_path)
    monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "1")
    assert not _cubin_lines(_compile(fused, "cuda:sm_90a").asm["cubin"], tmp_path)


def test_a_noinline_call_keeps_its_line(monkeypatch, tmp_path):
    monkeypatch.delenv("TRITON_DISABLE_LINE_INFO", raising=False)
    kernel = _compile(calls_noinline, "cuda:sm_90a")
    ptx, line = kernel.asm["ptx"], _call_line()
    assert re.search(r"^\s*call(\.uni)?\b", ptx, re.M), "the noinline callee was inlined"
    before_call = ptx[:re.search(r"^\s*call(\.uni)?\b", ptx, re.M).start()]
    assert re.findall(r"\.loc\s+\d+\s+(\d+)", before_call)[-1] == str(line)
    if "cubin" in kernel.asm:
        assert line in _cubin_lines(kernel.asm["cubin"], tmp_path)


def test_fp_fusion_defaults_to_the_variable(monkeypatch):
    monkeypatch.delenv("TRITON_DEFAULT_FP_FUSION", raising=False)
    assert re.search(r"\bfma\.rn\.f32\b", _compile(fused, "cuda:sm_90a").asm["ptx"])
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    off = _compile(fused, "cuda:sm_90a")
    assert not re.search(r"\bfma\.rn\.f32\b", off.asm["ptx"]) and off.metadata["options"]["enable_fp_fusion"] is False
    assert re.search(r"\bfma\.rn\.f32\b", _compile(fused, "cuda:sm_90a", enable_fp_fusion=True).asm["ptx"])


def test_clearing_device_caches_compiles_again_with_the_new_setting(monkeypatch):
    """Triton's way to see a changed knob: ``kernel.device_caches.clear()``, then warm up again
    (the in-memory cache, keyed by the launch, does not see the environment)."""
    monkeypatch.setenv("KERNELLAB_TARGET", "cuda:sm_90a")
    monkeypatch.delenv("TRITON_DISABLE_LINE_INFO", raising=False)
    kernel = kl.jit(fused.fn)
    first = kernel.warmup(tl.float32, tl.float32, tl.float32, tl.float32, BLOCK=64)
    assert len(kernel.device_caches[0][0]) == 1 and ".loc" in first.asm["ptx"]
    monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "1")
    kernel.device_caches.clear()
    assert len(kernel.cache) == 0
    again = kernel.warmup(tl.float32, tl.float32, tl.float32, tl.float32, BLOCK=64)
    assert ".loc" not in again.asm["ptx"]
