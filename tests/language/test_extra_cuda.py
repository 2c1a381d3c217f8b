"""``tl.extra.cuda``'s utilities (Triton's ``triton.language.extra.cuda``): ``smid`` and
``globaltimer`` read PTX special registers on CUDA targets and are compile errors elsewhere;
``num_warps`` and ``num_threads`` are compile-time constants of the launch."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas


@kl.jit
def sm_ids(out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.extra.cuda.smid())


@kl.jit
def timers(out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.extra.cuda.globaltimer())


@kl.jit
def thread_count(out_ptr):
    count: tl.constexpr = tl.extra.cuda.num_threads()
    tl.store(out_ptr + tl.arange(0, count), tl.extra.cuda.num_warps())


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_special_registers_in_the_ptx(monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "cuda:sm_90a")
    assert sm_ids.warmup(np.zeros(4, np.int32), grid=(4,)).asm["ptx"].count("%smid") == 1
    assert timers.warmup(np.zeros(4, np.int64), grid=(4,)).asm["ptx"].count("%globaltimer") == 1


def test_special_registers_are_cuda_only(host_target) -> None:
    with pytest.raises(kl.CompilationError, match="%smid: CUDA targets only"):
        sm_ids[(1,)](np.zeros(1, np.int32))


@pytest.mark.parametrize("warps", [1, 2, 8])
def test_num_threads_follows_num_warps(host_target, warps) -> None:
    out = np.zeros(32 * warps, np.int32)
    thread_count[(1,)](out, num_warps=warps)
    assert (out == warps).all()


@kl.jit
def add_with_pdl(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, USE_GDC: tl.constexpr):
    # Triton's tutorial 11 (programmatic dependent launch)
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offsets, x + y, mask=mask)


def test_grid_dependency_control_runs_on_the_host(host_target) -> None:
    rng = np.random.default_rng(11)
    x, y = rng.random(3000, np.float32), rng.random(3000, np.float32)
    out = np.zeros_like(x)
    add_with_pdl[(3,)](x, y, out, 3000, BLOCK=1024, USE_GDC=True, launch_pdl=True)
    np.testing.assert_array_equal(out, x + y)


def _pdl_ptx_lines(arch: str) -> list[str]:
    compiled = kl.compile(add_with_pdl, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                          constexprs={"BLOCK": 1024, "USE_GDC": True}, target=f"cuda:{arch}",
                          options={"launch_pdl": True})
    return compiled.asm["ptx"].splitlines()


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_grid_dependency_control_in_the_ptx_on_hopper() -> None:
    lines = _pdl_ptx_lines("sm_90a")

    def where(text: str) -> list[int]:
        return [i for i, line in enumerate(lines) if text in line]

    (wait,), (launch,) = where("griddepcontrol.wait"), where("griddepcontrol.launch_dependents")
    loads = where("ld.global")
    assert wait < loads[0] and loads[-1] < launch < where("st.global")[0]


def test_grid_dependency_control_is_nothing_before_hopper() -> None:
    assert not [line for line in _pdl_ptx_lines("sm_80") if "griddepcontrol" in line]


@pytest.mark.gpu
def test_dependent_launches_see_the_previous_grid_on_the_gpu() -> None:
    """A chain of launches with launch_pdl=True, each reading what the one before wrote: gdc_wait
    must hold every load until the previous grid is done."""
    torch = pytest.importorskip("torch")
    n = 1 << 22
    x = torch.rand(n, device="cuda")
    step = torch.rand(n, device="cuda")
    want = x.double() + 20 * step.double()
    grid = (kl.cdiv(n, 1024),)
    for _ in range(20):
        out = torch.empty_like(x)
        add_with_pdl[grid](x, step, out, n, BLOCK=1024, USE_GDC=True, launch_pdl=True)
        x = out
    torch.cuda.synchronize()
    assert torch.allclose(x.double(), want, rtol=1e-5, atol=1e-5)


@kl.jit
def fp8e4b15_round_trip(x_ptr, by_converter_ptr, by_cast_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    packed = tl.extra.cuda.convert_custom_float8_sm80(x, tl.float8e4b15)
    tl.store(by_converter_ptr + offs, tl.extra.cuda.convert_custom_float8_sm70(packed, tl.float32))
    tl.store(by_cast_ptr + offs, x.to(tl.float8e4b15).to(tl.float32))


def test_custom_float8_converters_are_the_casts(host_target) -> None:
    x = np.random.default_rng(3).standard_normal(256).astype(np.float32)
    by_converter, by_cast = np.zeros_like(x), np.zeros_like(x)
    fp8e4b15_round_trip[(1,)](x, by_converter, by_cast, BLOCK=256)
    np.testing.assert_array_equal(by_converter, by_cast)
    assert np.abs(by_cast - np.clip(x, -1.75, 1.75)).max() <= 0.125  # 3 mantissa bits, clamped at 1.75
