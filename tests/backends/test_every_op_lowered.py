"""Every Tile IR op has a way to run on every backend: a reference (the interpreter), a CPU
lowering, a CUDA lowering; every elementwise op has the one shared scalar lowering that both
LLVM backends map over their tiles.  Adding an op and forgetting a backend fails here."""

from __future__ import annotations

import pytest

from kernellab.backends.cpu import table as cpu_table
from kernellab.backends.cuda.lower.context import LOWERINGS as CUDA_LOWERINGS
from kernellab.backends.cuda.lower.module import ModuleLowering  # noqa: F401  (registers the lowerings)
from kernellab.backends.llvm import SCALAR_OPS
from kernellab.ir.mathfns import MATH
from kernellab.ir.ops import CONTROL, ELEMENTWISE, OPS, TERMINATOR
from kernellab.ir.ops.registry import kernel_ops

# elementwise ops whose lowering is the tile mapping itself, not a scalar function
TILE_LEVEL = {"constant", "addptr"}


def _cpu_lowerings() -> set[str]:
    cpu_table._load_all()
    return set(cpu_table.LOWERINGS)


@pytest.mark.parametrize("backend", ["interpret", "cpu", "cuda"])
def test_every_op_has_a_lowering_on_every_backend(backend: str) -> None:
    if backend == "interpret":
        have = {name for name, op in OPS.items() if op.reference is not None or op.has(CONTROL)}
    elif backend == "cpu":  # terminators end the blocks the emitter lowers (Emitter.lower_block)
        have = _cpu_lowerings() | {name for name, op in OPS.items() if op.has(TERMINATOR)}
    else:
        have = set(CUDA_LOWERINGS)
    # a backend's own ops (gpu.*: CUDA's pipelining) need only run where they are made, and have
    # references (the interpreter runs a pipelined module)
    wanted = set(OPS) if backend in ("interpret", "cuda") else kernel_ops()
    missing = sorted(wanted - have)
    assert not missing, f"ops the {backend} backend cannot run: {missing}"


def test_every_elementwise_op_is_lowered_once_for_both_llvm_backends() -> None:
    elementwise = {name for name, op in OPS.items() if op.has(ELEMENTWISE)} - TILE_LEVEL
    assert sorted(elementwise - set(SCALAR_OPS)) == []
    assert set(MATH) <= set(SCALAR_OPS)
    for name in SCALAR_OPS:  # and the backends map exactly that function
        assert name in _cpu_lowerings() and name in CUDA_LOWERINGS
