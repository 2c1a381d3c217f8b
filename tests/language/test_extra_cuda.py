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
