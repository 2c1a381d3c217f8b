"""The axis analysis (``kernellab.analysis``) reads the target-independent Tile IR: the facts it
finds in a kernel compiled for any target (here the CPU's Tile IR stage, parsed back)."""

from __future__ import annotations

import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.analysis.axis import AxisAnalysis
from kernellab.ir.parser import parse_module

SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


@kl.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def _facts(target: str, arg_attrs: dict) -> dict:
    compiled = kl.compile(copy, signature=SIGNATURE, constexprs={"BLOCK": 256}, target=target, arg_attrs=arg_attrs)
    function = parse_module(compiled.asm["tile"]).kernel
    analysis = AxisAnalysis(function)
    ops = {op.name: op for op in function.body.ops}  # the last op of each name
    return {"offs": analysis.info(ops["add"].results[0]), "mask": analysis.info(ops["cmp"].results[0]),
            "x_ptrs": analysis.info(ops["load"].operands[0])}


@pytest.mark.parametrize("target", ["interpret", "cpu"])
@pytest.mark.parametrize("aligned", [True, False])
def test_the_analysis_reads_any_targets_tile_ir(target: str, aligned: bool) -> None:
    attrs = {"x_ptr": {"divisibility": 16}, "n": {"divisibility": 16}} if aligned else {}
    facts = _facts(target, attrs)
    assert facts["offs"].contiguity == (256,) and facts["offs"].divisibility == (256,)
    assert facts["x_ptrs"].contiguity == (256,)
    assert facts["x_ptrs"].divisibility == ((16,) if aligned else (1,))  # bytes: from the specialization only
    assert facts["mask"].constancy == ((16,) if aligned else (1,))  # n % 16 == 0: runs of 16 equal bits
