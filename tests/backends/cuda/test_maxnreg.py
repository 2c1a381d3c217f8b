"""``maxnreg`` reaches ptxas: as PTX ``.maxnreg`` (the LLVM attribute ``"nvvm.maxnreg"``), since
ptxas ignores ``--maxrregcount`` for a kernel with launch bounds and every kernellab kernel has
them (``.maxntid``).  No GPU needed; skipped without ptxas."""

from __future__ import annotations

import pytest
from kernels import tutorials as tut

import kernellab as kl
from kernellab.backends.cuda import ptxas

pytestmark = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas installed")

SOFTMAX = {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32", "output_row_stride": "i32",
           "n_rows": "i32", "n_cols": "i32"}
ALIGNED = {name: {"divisibility": 16} for name in ("output_ptr", "input_ptr", "input_row_stride",
                                                   "output_row_stride", "n_cols")}


def _softmax(**options):
    return kl.compile(tut.softmax_kernel, signature=SOFTMAX, constexprs={"BLOCK_SIZE": 4096, "num_stages": 2},
                      target="cuda:sm_90a", arg_attrs=ALIGNED, num_warps=4, **options)


def test_maxnreg_limits_the_registers_ptxas_uses(monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    free = _softmax()
    limited = _softmax(maxnreg=40)
    assert free.metadata["registers"] > 40 and ".maxnreg" not in free.asm["ptx"]
    assert limited.metadata["registers"] <= 40
    assert ".maxnreg 40" in limited.asm["ptx"] and '"nvvm.maxnreg"="40"' in limited.asm["llvm"]
