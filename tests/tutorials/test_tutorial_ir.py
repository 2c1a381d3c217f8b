"""The tutorial kernels' Tile IR prints, parses back to the identical text and verifies."""

from __future__ import annotations

import numpy as np
import pytest
from kernels import tutorials as tut

from kernellab.ir.parser import parse_module
from kernellab.ir.printer import print_module
from kernellab.ir.verifier import verify


def _warm(kernel, args, **constexprs):
    return kernel.warmup(*args, grid=(1,), **constexprs)


def _f(*shape, dtype=np.float32):
    return np.ones(shape, dtype=dtype)


CASES = {
    "vector_add": lambda: _warm(tut.add_kernel, (_f(64), _f(64), _f(64), 64), BLOCK_SIZE=64),
    "fused_softmax": lambda: _warm(tut.softmax_kernel, (_f(4, 8), _f(4, 8), 8, 8, 4, 8), BLOCK_SIZE=8,
                                   num_stages=2),
    "grouped_matmul": lambda: _warm(
        tut.matmul_kernel, (_f(32, 32, dtype=np.float16), _f(32, 32, dtype=np.float16), _f(32, 32, dtype=np.float16),
                            32, 32, 32, 32, 1, 32, 1, 32, 1),
        BLOCK_SIZE_M=16, BLOCK_SIZE_N=16, BLOCK_SIZE_K=16, GROUP_SIZE_M=2, ACTIVATION="leaky_relu"),
    "low_memory_dropout": lambda: _warm(tut._seeded_dropout, (_f(64), _f(64), 64, 0.5, 7), BLOCK_SIZE=64),
    "layer_norm_forward": lambda: _warm(tut._layer_norm_fwd_fused, (_f(4, 8), _f(4, 8), _f(8), _f(8), _f(4), _f(4),
                                                                     8, 8, 1e-5), BLOCK_SIZE=8),
    "fused_attention_forward": lambda: _warm(
        tut._attn_fwd, (_f(1, 1, 32, 16, dtype=np.float16), _f(1, 1, 32, 16, dtype=np.float16),
                        _f(1, 1, 32, 16, dtype=np.float16), 0.5, _f(1, 32), _f(1, 1, 32, 16, dtype=np.float16),
                        *([512, 512, 16, 1] * 4), 1, 1),
        N_CTX=32, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=16, STAGE=3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tile_ir_round_trips_and_verifies(name, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    compiled = CASES[name]()
    text = compiled.asm["tile"]
    assert "func @" in text and "loc(#f0:" in text
    module = parse_module(text)
    verify(module)
    assert print_module(module) == text
