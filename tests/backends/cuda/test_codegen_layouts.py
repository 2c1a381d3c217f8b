"""Layout algebra and axis analysis of the CUDA code generator (no GPU needed).

Layouts are checked by enumerating every (register, lane, warp) and the element it holds, against
what the layout must mean: each element held somewhere, replication only where the tile is
smaller than the CTA, views (expand_dims, trans, reshape, broadcast sources, slices) holding the
elements the numpy view would put there."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kernellab.analysis.axis import AxisAnalysis
from kernellab.backends.cuda.layouts import linear as L
from kernellab.backends.cuda.layouts.assign import LayoutPlan
from kernellab.ir import Builder
from kernellab.ir import types as T


def holders(layout: L.Layout) -> dict[tuple, list[tuple[int, int, int]]]:
    """Element coordinate -> the (register, lane, warp) triples holding it."""
    out: dict[tuple, list] = {}
    for r, lane, warp in itertools.product(range(layout.num_regs), range(32), range(layout.num_warps)):
        out.setdefault(layout.coord(r, lane, warp), []).append((r, lane, warp))
    return out


def all_coords(shape) -> set[tuple]:
    return set(itertools.product(*[range(n) for n in shape]))


@pytest.mark.parametrize("shape,warps,vector", [((1024,), 4, 4), ((4096,), 8, 4), ((64, 128), 4, 8),
                                                ((128, 64), 8, 4), ((8,), 4, 1), ((16, 16), 4, 2)])
def test_blocked_layouts_cover_every_element(shape, warps, vector):
    layout = L.default_blocked(shape, warps, vector=vector)
    assert layout.is_distributed()
    held = holders(layout)
    assert set(held) == all_coords(shape)
    threads = 32 * warps
    numel = int(np.prod(shape))
    copies = {len(v) for v in held.values()}
    assert copies == {max(1, threads * layout.num_regs // numel)}
    if numel >= threads * vector:
        assert copies == {1} and layout.vector_width(len(shape) - 1) == vector


def test_vector_add_layout_is_four_consecutive_floats_per_thread_and_coalesced():
    layout = L.default_blocked((1024,), 4, vector=4)
    assert layout.reg == ((1,), (2,), (512,))
    assert [layout.coord(0, lane, 0)[0] for lane in range(4)] == [0, 4, 8, 12]
    assert layout.coord(0, 0, 1) == (128,)


def test_small_tiles_replicate_instead_of_duplicating_registers():
    layout = L.default_blocked((8,), 4)
    assert layout.num_regs == 1
    assert layout.replicated_lane_bits() == 0b11000
    assert layout.replicated_warp_bits() == 0b11


@pytest.mark.parametrize("axis", [0, 1])
def test_slice_holds_the_projection_of_the_parent(axis):
    parent = L.default_blocked((64, 32), 4, vector=4)
    sliced = L.slice_layout(parent, axis)
    for r, lane, warp in itertools.product(range(sliced.num_regs), range(32), range(4)):
        coord = sliced.coord(r, lane, warp)
        parent_coords = {parent.coord(pr, lane, warp) for pr in range(parent.num_regs)}
        projected = {c[:axis] + c[axis + 1:] for c in parent_coords}
        assert coord in projected


def test_views_move_elements_as_numpy_does():
    layout = L.default_blocked((16, 32), 4, vector=4)
    values = np.arange(16 * 32).reshape(16, 32)
    trans = L.permute(layout, (1, 0))
    reshaped = L.reshape(layout, (32, 16))
    expanded = L.expand(layout, 1)
    for r, lane, warp in itertools.product(range(layout.num_regs), range(32), range(4)):
        held = values[layout.coord(r, lane, warp)]
        assert values.T[trans.coord(r, lane, warp)] == held
        assert values.reshape(32, 16)[reshaped.coord(r, lane, warp)] == held
        assert values[:, None, :][expanded.coord(r, lane, warp)] == held
    assert L.squeeze(expanded, 1) == layout


def test_projection_is_a_broadcast_source():
    result = L.default_blocked((64, 64), 4, vector=4)
    source = L.project(result, (1,))
    assert source.shape == (64, 1)
    for r, lane, warp in itertools.product(range(result.num_regs), range(32), range(4)):
        row = result.coord(r, lane, warp)[0]
        assert any(source.coord(sr, lane, warp) == (row, 0) for sr in range(source.num_regs))


@pytest.mark.parametrize("shape,warps", [((128, 128), 4), ((64, 64), 4), ((16, 16), 4), ((128, 256), 8)])
def test_mma_accumulator_matches_the_ptx_fragment(shape, warps):
    layout = L.mma_accumulator(shape, warps)
    assert set(holders(layout)) == all_coords(shape)
    for lane in range(32):
        group, tid = lane // 4, lane % 4
        assert layout.coord(0, lane, 0) == (group, 2 * tid)
        assert layout.coord(1, lane, 0) == (group, 2 * tid + 1)
        assert layout.coord(2, lane, 0) == (group + 8, 2 * tid)


def test_same_threads_detects_register_permutations():
    a = L.blocked((128,), L.BlockedSpec((2,), (32,), (1,), (0,)))
    b = L.Layout(a.shape, tuple(reversed(a.reg)), a.lane, a.warp)
    assert a != b and L.same_threads(a, b)
    assert len(a.reg) == 2 and not L.same_threads(a, L.default_blocked((128,), 1))


def test_non_power_of_two_tiles_are_refused():
    with pytest.raises(ValueError, match="powers of two"):
        L.default_blocked((12,), 4)


# ---- axis analysis and access layouts ----------------------------------------------------------------

def _vector_add(divisible_n: bool, block: int = 1024):
    b = Builder()
    P = T.pointer(T.f32)
    fn = b.function("add", [P, T.i32], [], ["x", "n"], {"kernel": True})
    fn.arg_attrs[0]["divisibility"] = 16
    if divisible_n:
        fn.arg_attrs[1]["divisibility"] = 16
    x, n = fn.args
    I, PF = T.tile(T.i32, (block,)), T.tile(P, (block,))
    with b.at_end(fn.body):
        pid = b.create("program_id", [], [T.i32], {"axis": 0}).result
        start = b.create("mul", [pid, b.constant(block, T.i32)], [T.i32]).result
        offs = b.create("add", [b.create("splat", [start], [I]).result,
                                b.create("arange", [], [I], {"start": 0, "end": block}).result], [I]).result
        mask = b.create("cmp", [offs, b.create("splat", [n], [I]).result], [T.tile(T.i1, (block,))],
                        {"predicate": "lt"}).result
        ptrs = b.create("addptr", [b.create("splat", [x], [PF]).result, offs], [PF]).result
        load = b.create("load", [ptrs, mask, None], [T.tile(T.f32, (block,))], grouped=True)
        b.return_()
    return fn, offs, mask, ptrs, load


@pytest.mark.parametrize("divisible_n,constancy", [(True, 16), (False, 1)])
def test_axis_facts_of_a_vector_add(divisible_n, constancy):
    fn, offs, mask, ptrs, load = _vector_add(divisible_n)
    info = AxisAnalysis(fn)
    assert info.info(offs).contiguity == (1024,) and info.info(offs).divisibility[0] >= 1024
    assert info.info(ptrs).divisibility[0] >= 16 and info.info(ptrs).contiguity == (1024,)
    assert info.info(mask).constancy == (constancy,)


def test_load_anchor_is_a_128_bit_coalesced_layout():
    fn, offs, mask, ptrs, load = _vector_add(True)
    plan = LayoutPlan(fn, 4)
    anchor = plan.anchor(load)
    assert anchor.vector_width(0) == 4
    assert plan.is_lazy(offs) and plan.is_lazy(mask) and not plan.is_lazy(load.result)
    assert plan.layout(load.result) == anchor
