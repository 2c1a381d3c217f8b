"""Registers and occupancy: ``maxnreg`` reaches ptxas (as PTX ``.maxnreg``: ptxas ignores
``--maxrregcount`` for a kernel with launch bounds), and a kernel just over an occupancy cliff is
compiled again under the register limit that fits one more CTA per SM.  No GPU needed; the
compile tests skip without ptxas."""

from __future__ import annotations

import pytest
from kernels import tutorials as tut

import kernellab as kl
from kernellab.backends.cuda import occupancy, ptxas

needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas installed")

SOFTMAX = {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32", "output_row_stride": "i32",
           "n_rows": "i32", "n_cols": "i32"}
ALIGNED = {name: {"divisibility": 16} for name in ("output_ptr", "input_ptr", "input_row_stride",
                                                   "output_row_stride", "n_cols")}


@pytest.mark.parametrize("registers, threads, shared, arch, cap", [
    (71, 512, 0, "sm_90a", 64),      # one CTA of 512 threads per SM; 64 registers fit two
    (35, 256, 0, "sm_90a", 32),      # six CTAs -> seven needs 36 -> the 8-register unit below: 32
    (98, 512, 0, "sm_90a", None),    # 64 would take a third of its registers
    (255, 128, 0, "sm_90a", None),
    (26, 128, 0, "sm_90a", None),    # threads already stop the next CTA (2048 / 128 = 16)
    (71, 512, 120_000, "sm_90a", None),  # shared memory already stops it
    (71, 512, 100_000, "sm_90a", 64),    # two CTAs' shared memory fits in 228 KiB
    (71, 512, 100_000, "sm_89", None),   # ... not in 100 KiB
])
def test_register_cap(registers, threads, shared, arch, cap):
    assert occupancy.register_cap(registers, threads, shared, arch) == cap


def test_ctas_by_registers_rounds_to_the_allocation_unit():
    assert occupancy.ctas_by_registers(64, 512) == 2
    assert occupancy.ctas_by_registers(65, 512) == 1  # 72 registers are allocated
    assert occupancy.allocated(3) == 8


def _softmax(cols: int, warps: int, **options):
    return kl.compile(tut.softmax_kernel, signature=SOFTMAX, constexprs={"BLOCK_SIZE": cols, "num_stages": 2},
                      target="cuda:sm_90a", arg_attrs=ALIGNED, num_warps=warps, **options)


@needs_ptxas
def test_a_kernel_over_a_cliff_gets_the_register_limit_of_one_more_cta(monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    monkeypatch.setenv("KERNELLAB_CUDA_REGISTER_CAP", "0")
    plain = _softmax(16384, 16)
    assert "register_cap" not in plain.metadata and ".maxnreg" not in plain.asm["ptx"]
    natural = plain.metadata["registers"]
    threads = plain.metadata["threads_per_block"]
    cap = occupancy.register_cap(natural, threads, plain.metadata["shared"], "sm_90a")
    assert cap is not None, f"the wide softmax at {natural} registers is no longer over a cliff: pick another kernel"

    monkeypatch.setenv("KERNELLAB_CUDA_REGISTER_CAP", "1")
    capped = _softmax(16384, 16)
    record = capped.metadata["register_cap"]
    assert record["cap"] == cap and record["registers"][0] == natural and record["used"]
    assert capped.metadata["registers"] <= cap and capped.metadata["spills"] == 0
    assert record["ctas_per_sm"][1] == record["ctas_per_sm"][0] + 1
    assert f".maxnreg {cap}" in capped.asm["ptx"] and f'"nvvm.maxnreg"="{cap}"' in capped.asm["llvm"]


@needs_ptxas
def test_maxnreg_limits_the_registers_ptxas_uses(monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    free = _softmax(4096, 4)
    limited = _softmax(4096, 4, maxnreg=40)
    assert free.metadata["registers"] > 40
    assert limited.metadata["registers"] <= 40 and ".maxnreg 40" in limited.asm["ptx"]
    assert "register_cap" not in limited.metadata  # the user's limit is not second-guessed
