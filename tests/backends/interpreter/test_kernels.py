"""Whole kernels, built as Tile IR by hand, run by the interpreter and compared with numpy."""

from __future__ import annotations

import numpy as np
import pytest

from kernellab.errors import InterpreterError
from kernellab.ir import types as T

from .kit import F32P, I32P, Kit, poisoned, run, vector_add


@pytest.fixture
def rng():
    return np.random.default_rng(20261129)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@pytest.mark.parametrize("n", [4096, 1000])  # a multiple of BLOCK (contiguous fast path) and a ragged tail
def test_vector_add(rng, n):
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = poisoned(n)
    run(vector_add(256), (_cdiv(n, 256),), x, y, out, n)
    np.testing.assert_array_equal(out, x + y)


def test_vector_add_leaves_masked_out_elements_alone(rng):
    n = 1000
    x = rng.standard_normal(1024, dtype=np.float32)
    y = rng.standard_normal(1024, dtype=np.float32)
    out = poisoned(1024)
    run(vector_add(128), (8,), x, y, out, n)
    np.testing.assert_array_equal(out[:n], x[:n] + y[:n])
    assert np.isnan(out[n:]).all()


def _block_sums(block: int, combine: str):
    """sums[pid] = reduce(x[pid*B : pid*B+B] masked by n), with `combine` = add (a ufunc
    region) or a two-op region that the interpreter cannot map to a ufunc."""
    k = Kit()
    fn = k.kernel("block_sum", [("x_ptr", F32P), ("sums_ptr", F32P), ("n", T.i32)])
    x_ptr, sums_ptr, n = fn.args
    tile = T.tile(T.f32, (block,))
    with k.body(fn.body):
        pid = k.pid()
        offs = k.bin("add", k.splat(k.bin("mul", pid, k.const(block, T.i32)), (block,)), k.arange(block))
        mask = k.cmp("lt", offs, k.splat(n, (block,)))
        x = k.load(k.addptr(x_ptr, offs), mask, k.const(0.0, tile))
        if combine == "add":
            total = k.reduce_with("add", x)
        else:  # (a + b) * 1: the same sum, through the region's Python function
            total = k.reduce([x], 0, lambda a, b: [k.bin("mul", k.bin("add", a, b), k.const(1.0, T.f32))])[0]
        k.store(k.addptr(sums_ptr, pid), total)
        k.ret()
    return k.module


@pytest.mark.parametrize("combine", ["add", "region"])
def test_masked_reduction(rng, combine):
    n, block = 1000, 128
    x = rng.standard_normal(n, dtype=np.float32)
    sums = poisoned(_cdiv(n, block))
    run(_block_sums(block, combine), (len(sums),), x, sums, n)
    padded = np.zeros(len(sums) * block, np.float32)
    padded[:n] = x
    np.testing.assert_allclose(sums, padded.reshape(-1, block).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_two_operand_reduce_argmax(rng):
    """A (value, index) reduce: the combine region has several ops and two results."""
    block = 64
    k = Kit()
    fn = k.kernel("argmax", [("x_ptr", F32P), ("out_ptr", I32P)])
    x_ptr, out_ptr = fn.args
    with k.body(fn.body):
        offs = k.arange(block)
        x = k.load(k.addptr(x_ptr, offs))

        def combine(v1, i1, v2, i2):
            keep = k.cmp("ge", v1, v2)
            return [k.one("select", [keep, v1, v2], T.f32), k.one("select", [keep, i1, i2], T.i32)]

        _, index = k.reduce([x, offs], 0, combine)
        k.store(out_ptr, index)
        k.ret()
    x = rng.standard_normal(block, dtype=np.float32)
    out = poisoned(1, np.int32)
    run(k.module, (1,), x, out)
    assert out[0] == np.argmax(x)


def _softmax(block: int):
    k = Kit()
    fn = k.kernel("softmax", [("out_ptr", F32P), ("in_ptr", F32P), ("stride", T.i32), ("n_cols", T.i32)])
    out_ptr, in_ptr, stride, n_cols = fn.args
    tile = T.tile(T.f32, (block,))
    with k.body(fn.body):
        row_start = k.bin("mul", k.pid(), stride)
        cols = k.arange(block)
        mask = k.cmp("lt", cols, k.splat(n_cols, (block,)))
        row = k.load(k.addptr(k.addptr(in_ptr, row_start), cols), mask, k.const(float("-inf"), tile))
        biggest = k.reduce_with("maximum", row)
        numerator = k.un("exp", k.bin("sub", row, k.splat(biggest, (block,))))
        denominator = k.reduce_with("add", numerator)
        result = k.bin("div", numerator, k.splat(denominator, (block,)))
        k.store(k.addptr(k.addptr(out_ptr, row_start), cols), result, mask)
        k.ret()
    return k.module


@pytest.mark.parametrize("n_cols", [64, 37])
def test_softmax_rows(rng, n_cols):
    rows, block = 12, 64
    x = rng.standard_normal((rows, n_cols), dtype=np.float32) * 4
    out = poisoned((rows, n_cols))
    run(_softmax(block), (rows,), out, x, n_cols, n_cols)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_for_loop_carries_accumulator_and_pointer(rng):
    """acc += k * x[pid, k, :] for k in range(K), with the pointer advanced in the loop."""
    block, chunks, programs = 32, 5, 3
    k = Kit()
    fn = k.kernel("weighted_sum", [("x_ptr", F32P), ("out_ptr", F32P), ("K", T.i32)])
    x_ptr, out_ptr, count = fn.args
    tile = T.tile(T.f32, (block,))
    with k.body(fn.body):
        pid = k.pid()
        start = k.addptr(x_ptr, k.bin("mul", pid, k.bin("mul", count, k.const(block, T.i32))))
        ptrs = k.addptr(start, k.arange(block))

        def body(i, acc, p):
            weight = k.splat(k.one("cast", [i], T.f32), (block,))
            acc = k.bin("add", acc, k.bin("mul", k.load(p), weight))
            return [acc, k.addptr(p, k.const(block, T.tile(T.i32, (block,))))]

        zero, one = k.const(0, T.i32), k.const(1, T.i32)
        acc, _ = k.for_(zero, count, one, [k.const(0.0, tile), ptrs], body)
        offs = k.bin("add", k.splat(k.bin("mul", pid, k.const(block, T.i32)), (block,)), k.arange(block))
        k.store(k.addptr(out_ptr, offs), acc)
        k.ret()
    x = rng.standard_normal((programs, chunks, block), dtype=np.float32)
    out = poisoned((programs, block))
    run(k.module, (programs,), x, out, chunks)
    weights = np.arange(chunks, dtype=np.float32)[None, :, None]
    np.testing.assert_allclose(out, (x * weights).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_for_loop_with_negative_step_and_no_iterations(rng):
    k = Kit()
    fn = k.kernel("countdown", [("out_ptr", I32P), ("lo", T.i32), ("hi", T.i32)])
    out_ptr, lo, hi = fn.args
    with k.body(fn.body):
        def body(i, total):
            return [k.bin("add", k.bin("mul", total, k.const(10, T.i32)), i)]

        (down,) = k.for_(hi, lo, k.const(-1, T.i32), [k.const(0, T.i32)], body)
        (none,) = k.for_(lo, hi, k.const(-1, T.i32), [k.const(7, T.i32)], body)
        k.store(out_ptr, down)
        k.store(k.addptr(out_ptr, k.const(1, T.i32)), none)
        k.ret()
    out = poisoned(2, np.int32)
    run(k.module, (1,), out, 1, 4)
    assert out.tolist() == [432, 7]  # range(4, 1, -1) = 4, 3, 2; range(1, 4, -1) is empty


def _collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_while_loop_scalar_collatz(rng):
    k = Kit()
    fn = k.kernel("collatz", [("x_ptr", I32P), ("out_ptr", I32P)])
    x_ptr, out_ptr = fn.args
    i32 = T.i32
    with k.body(fn.body):
        pid = k.pid()
        start = k.load(k.addptr(x_ptr, pid))

        def before(n, steps):
            return ("condition", k.cmp("ne", n, k.const(1, i32)), [n, steps])

        def after(n, steps):
            even = k.cmp("eq", k.bin("rem", n, k.const(2, i32)), k.const(0, i32))
            half = k.bin("div", n, k.const(2, i32))
            up = k.bin("add", k.bin("mul", n, k.const(3, i32)), k.const(1, i32))
            return [k.one("select", [even, half, up], i32), k.bin("add", steps, k.const(1, i32))]

        _, steps = k.while_([start, k.const(0, i32)], before, [i32, i32], after)
        k.store(k.addptr(out_ptr, pid), steps)
        k.ret()
    x = rng.integers(1, 500, 16).astype(np.int32)
    out = poisoned(16, np.int32)
    run(k.module, (16,), x, out)
    assert out.tolist() == [_collatz_steps(int(v)) for v in x]


def test_if_with_results_and_if_without(rng):
    """Odd programs triple, even ones double; program 0 also writes a flag."""
    block = 16
    k = Kit()
    fn = k.kernel("branchy", [("x_ptr", F32P), ("out_ptr", F32P), ("flag_ptr", I32P)])
    x_ptr, out_ptr, flag_ptr = fn.args
    tile = T.tile(T.f32, (block,))
    with k.body(fn.body):
        pid = k.pid()
        offs = k.bin("add", k.splat(k.bin("mul", pid, k.const(block, T.i32)), (block,)), k.arange(block))
        x = k.load(k.addptr(x_ptr, offs))
        odd = k.cmp("eq", k.bin("rem", pid, k.const(2, T.i32)), k.const(1, T.i32))
        (y,) = k.if_(odd, [tile], lambda: [k.bin("mul", x, k.const(3.0, tile))],
                     lambda: [k.bin("mul", x, k.const(2.0, tile))])
        k.store(k.addptr(out_ptr, offs), y)
        first = k.cmp("eq", pid, k.const(0, T.i32))
        k.if_(first, [], lambda: k.store(flag_ptr, k.const(42, T.i32)), lambda: None)
        k.ret()
    x = rng.standard_normal(4 * block, dtype=np.float32)
    out = poisoned(4 * block)
    flag = poisoned(1, np.int32)
    run(k.module, (4,), x, out, flag)
    factor = np.repeat([2.0, 3.0, 2.0, 3.0], block).astype(np.float32)
    np.testing.assert_array_equal(out, x * factor)
    assert flag[0] == 42


def test_call_of_a_function_of_the_module(rng):
    block = 32
    tile = T.tile(T.f32, (block,))
    k = Kit()
    fn = k.kernel("axpy_kernel", [("x_ptr", F32P), ("y_ptr", F32P), ("out_ptr", F32P), ("a", T.f32)])
    helper = k.function("axpy", [("a", T.f32), ("x", tile), ("y", tile)], [tile])
    with k.body(helper.body):
        a, x, y = helper.args
        k.ret([k.bin("add", k.bin("mul", k.splat(a, (block,)), x), y)])
    x_ptr, y_ptr, out_ptr, a = fn.args
    with k.body(fn.body):
        offs = k.arange(block)
        x, y = k.load(k.addptr(x_ptr, offs)), k.load(k.addptr(y_ptr, offs))
        (r,) = k.call("axpy", [a, x, y], [tile])
        k.store(k.addptr(out_ptr, offs), r)
        k.ret()
    x = rng.standard_normal(block, dtype=np.float32)
    y = rng.standard_normal(block, dtype=np.float32)
    out = poisoned(block)
    run(k.module, (1,), x, y, out, 2.5)
    np.testing.assert_allclose(out, np.float32(2.5) * x + y, rtol=1e-6)


def _block_pointer_kernel(bm: int, bn: int):
    """out = 2 * a over an M x N matrix in BM x BN blocks (boundary-checked); sums[pm, pn] =
    the sum of the block as loaded (zero padding outside the matrix)."""
    k = Kit()
    fn = k.kernel("double", [("a_ptr", F32P), ("out_ptr", F32P), ("sums_ptr", F32P), ("M", T.i32),
                             ("N", T.i32)])
    a_ptr, out_ptr, sums_ptr, m, n = fn.args
    block = T.tile(T.f32, (bm, bn))
    with k.body(fn.body):
        pm, pn = k.pid(0), k.pid(1)
        shape = [k.one("cast", [m], T.i64), k.one("cast", [n], T.i64)]
        strides = [k.one("cast", [n], T.i64), k.const(1, T.i64)]
        offsets = [k.bin("mul", pm, k.const(bm, T.i32)), k.bin("mul", pn, k.const(bn, T.i32))]
        a_block = k.block_ptr(a_ptr, shape, strides, offsets, (bm, bn))
        origin = k.block_ptr(out_ptr, shape, strides, [k.const(0, T.i32)] * 2, (bm, bn))
        out_block = k.op("advance", [origin, offsets], [origin.type], grouped=True).result
        a = k.load(a_block, boundary_check=(0, 1), padding="zero")
        k.store(out_block, k.bin("mul", a, k.const(2.0, block)), boundary_check=(0, 1))
        row_sums = k.reduce_with("add", a, axis=1)
        total = k.reduce_with("add", row_sums, axis=0)
        grid_n = k.one("num_programs", [], T.i32, {"axis": 1})
        k.store(k.addptr(sums_ptr, k.bin("add", k.bin("mul", pm, grid_n), pn)), total)
        k.ret()
    return k.module


def test_block_pointers_with_boundary_check(rng):
    m, n, bm, bn = 37, 45, 16, 16
    grid = (_cdiv(m, bm), _cdiv(n, bn))
    a = rng.standard_normal((m, n), dtype=np.float32)
    # out lives inside a larger allocation: a store that ignored the boundary would land in
    # the guard rows (or wrap into the next row) instead of failing
    whole = poisoned((m + 4, n))
    out = whole[:m]
    sums = poisoned(grid)
    run(_block_pointer_kernel(bm, bn), grid, a, out, sums, m, n)
    np.testing.assert_array_equal(out, 2 * a)
    assert np.isnan(whole[m:]).all()
    padded = np.zeros((grid[0] * bm, grid[1] * bn), np.float32)
    padded[:m, :n] = a
    expected = padded.reshape(grid[0], bm, grid[1], bn).sum(axis=(1, 3))
    np.testing.assert_allclose(sums, expected, rtol=1e-4, atol=1e-4)


def test_tensor_descriptor_load_and_store(rng):
    """out[block] = a[block] + 1 through tensor descriptors; nan padding shows in the sums."""
    m, n, bm, bn = 20, 12, 8, 8
    k = Kit()
    fn = k.kernel("desc_copy", [("a_ptr", F32P), ("out_ptr", F32P), ("sums_ptr", F32P)])
    a_ptr, out_ptr, sums_ptr = fn.args
    block = T.tile(T.f32, (bm, bn))
    with k.body(fn.body):
        pm, pn = k.pid(0), k.pid(1)
        shape = [k.const(m, T.i64), k.const(n, T.i64)]
        strides = [k.const(n, T.i64), k.const(1, T.i64)]

        def descriptor(base, padding):
            return k.op("make_tensor_descriptor", [base, shape, strides], [T.desc(block)], {"padding": padding},
                        grouped=True).result

        offsets = [k.bin("mul", pm, k.const(bm, T.i32)), k.bin("mul", pn, k.const(bn, T.i32))]
        a = k.op("descriptor_load", [descriptor(a_ptr, "nan"), offsets], [block], grouped=True).result
        k.op("descriptor_store", [descriptor(out_ptr, "zero"), k.bin("add", a, k.const(1.0, block)), offsets], [],
             grouped=True)
        total = k.reduce_with("add", k.reduce_with("add", a, axis=1))
        k.store(k.addptr(sums_ptr, k.bin("add", k.bin("mul", pm, k.const(2, T.i32)), pn)), total)
        k.ret()
    a = rng.standard_normal((m, n), dtype=np.float32)
    out = poisoned((m, n))
    sums = poisoned((3, 2))
    run(k.module, (3, 2), a, out, sums)
    np.testing.assert_array_equal(out, a + 1)
    assert np.isnan(sums[:, 1]).all() and np.isnan(sums[2, :]).all()  # blocks that cross the edge
    np.testing.assert_allclose(sums[:2, 0], [a[:8, :8].sum(), a[8:16, :8].sum()], rtol=1e-5)


@pytest.mark.parametrize("reverse", [False, True])
def test_scans(rng, reverse):
    """A cumulative sum (ufunc region) and a running 'max with count' (a two-value region)."""
    block = 32
    k = Kit()
    fn = k.kernel("scans", [("x_ptr", F32P), ("sum_ptr", F32P), ("max_ptr", F32P)])
    x_ptr, sum_ptr, max_ptr = fn.args
    tile = T.tile(T.f32, (block,))
    with k.body(fn.body):
        offs = k.arange(block)
        x = k.load(k.addptr(x_ptr, offs))
        scan_region = k.region([T.f32, T.f32], lambda a, b: [k.bin("add", a, b)])
        (cumsum,) = k.op("scan", [x], [tile], {"axis": 0, "reverse": reverse}, [scan_region]).results
        steps = k.const(1.0, tile)

        def running_max(m1, c1, m2, c2):
            return [k.bin("maximum", m1, m2), k.bin("add", c1, c2)]

        max_region = k.region([T.f32] * 4, running_max)
        top, _ = k.op("scan", [x, steps], [tile, tile], {"axis": 0, "reverse": reverse}, [max_region]).results
        k.store(k.addptr(sum_ptr, offs), cumsum)
        k.store(k.addptr(max_ptr, offs), top)
        k.ret()
    x = rng.standard_normal(block, dtype=np.float32)
    sums, tops = poisoned(block), poisoned(block)
    run(k.module, (1,), x, sums, tops)
    order = slice(None, None, -1) if reverse else slice(None)
    np.testing.assert_allclose(sums, np.cumsum(x[order], dtype=np.float32)[order], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(tops, np.maximum.accumulate(x[order])[order])


def _matmul(bm: int, bn: int, bk: int):
    """c = a @ b with a loop over K tiles, 2-D pointer tiles and dot (a tutorial-style kernel)."""
    k = Kit()
    fn = k.kernel("matmul", [("a_ptr", F32P), ("b_ptr", F32P), ("c_ptr", F32P), ("M", T.i32), ("N", T.i32),
                             ("K", T.i32)])
    a_ptr, b_ptr, c_ptr, m, n, kk = fn.args

    def column(v, rows):  # v[:, None] broadcast to (rows_len, cols)
        return k.one("expand_dims", [v], T.tile(T.element_of(v.type), (T.shape_of(v.type)[0], 1)), {"axis": 1})

    def row(v):
        return k.one("expand_dims", [v], T.tile(T.element_of(v.type), (1, T.shape_of(v.type)[0])), {"axis": 0})

    def grid2(rows, cols, shape):  # rows[:, None] + cols[None, :]
        r = k.one("broadcast", [rows], T.tile(T.i32, shape))
        c = k.one("broadcast", [cols], T.tile(T.i32, shape))
        return k.bin("add", r, c)

    def scaled(v, s):
        return k.bin("mul", v, k.splat(s, T.shape_of(v.type)))

    with k.body(fn.body):
        pm, pn = k.pid(0), k.pid(1)
        rm = k.bin("add", k.splat(k.bin("mul", pm, k.const(bm, T.i32)), (bm,)), k.arange(bm))
        rn = k.bin("add", k.splat(k.bin("mul", pn, k.const(bn, T.i32)), (bn,)), k.arange(bn))
        rk = k.arange(bk)
        a_offs = grid2(scaled(column(rm, bm), kk), row(rk), (bm, bk))
        b_offs = grid2(scaled(column(rk, bk), n), row(rn), (bk, bn))
        a_ptrs, b_ptrs = k.addptr(a_ptr, a_offs), k.addptr(b_ptr, b_offs)
        acc_type = T.tile(T.f32, (bm, bn))

        def body(i, acc, pa, pb):
            acc = k.one("dot", [k.load(pa), k.load(pb), acc], acc_type)
            step_a = k.const(bk, T.tile(T.i32, (bm, bk)))
            step_b = k.splat(k.bin("mul", n, k.const(bk, T.i32)), (bk, bn))
            return [acc, k.addptr(pa, step_a), k.addptr(pb, step_b)]

        acc, _, _ = k.for_(k.const(0, T.i32), kk, k.const(bk, T.i32), [k.const(0.0, acc_type), a_ptrs, b_ptrs],
                           body)
        c_offs = grid2(scaled(column(rm, bm), n), row(rn), (bm, bn))
        mask = k.bin("and", k.one("broadcast", [k.cmp("lt", column(rm, bm), k.splat(m, (bm, 1)))],
                                  T.tile(T.i1, (bm, bn))),
                     k.one("broadcast", [k.cmp("lt", row(rn), k.splat(n, (1, bn)))], T.tile(T.i1, (bm, bn))))
        k.store(k.addptr(c_ptr, c_offs), acc, mask)
        k.ret()
    return k.module


def test_matmul_with_dot_in_a_loop(rng):
    m, n, kk, bm, bn, bk = 40, 48, 64, 16, 16, 16
    a_rows = rng.standard_normal((48, kk), dtype=np.float32)  # the last row block reads rows 40..47:
    a = a_rows[:m]  # they exist in the allocation, and the store of those rows is masked off
    b = rng.standard_normal((kk, n), dtype=np.float32)
    c_rows = poisoned((48, n))
    c = c_rows[:m]
    run(_matmul(bm, bn, bk), (_cdiv(m, bm), n // bn), a, b, c, m, n, kk)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert np.isnan(c_rows[m:]).all()


def test_tensor_descriptor_argument_from_the_host(rng):
    """A desc<...> parameter takes a host descriptor (base array, shape, strides), as Triton's
    TensorDescriptor; accesses are checked against the base array's allocation."""
    from types import SimpleNamespace

    m, n, b = 12, 10, 8
    block = T.tile(T.f32, (b, b))
    k = Kit()
    fn = k.kernel("desc_arg", [("a_desc", T.desc(block)), ("out_ptr", F32P)])
    a_desc, out_ptr = fn.args
    with k.body(fn.body):
        offsets = [k.bin("mul", k.pid(0), k.const(b, T.i32)), k.bin("mul", k.pid(1), k.const(b, T.i32))]
        tile = k.op("descriptor_load", [a_desc, offsets], [block], grouped=True).result
        out = k.op("make_tensor_descriptor", [out_ptr, [k.const(m, T.i64), k.const(n, T.i64)],
                                              [k.const(n, T.i64), k.const(1, T.i64)]], [T.desc(block)],
                   grouped=True).result
        k.op("descriptor_store", [out, k.bin("mul", tile, tile), offsets], [], grouped=True)
        k.ret()
    a = rng.standard_normal((m, n), dtype=np.float32)
    out = poisoned((m, n))
    run(k.module, (2, 2), SimpleNamespace(base=a, shape=(m, n), strides=(n, 1)), out)
    np.testing.assert_array_equal(out, a * a)
    with pytest.raises(InterpreterError, match=r"out-of-bounds load through argument 'a_desc'.*program \(1, 0, 0\)"):
        run(k.module, (2, 2), SimpleNamespace(base=a, shape=(m + 4, n), strides=(n, 1)), poisoned((m, n)))


def test_reduce_region_capturing_a_program_value(rng):
    """The combine region uses a value of the program (a per-program cap): min(max(a, b), cap)."""
    block = 16
    k = Kit()
    fn = k.kernel("capped_max", [("x_ptr", F32P), ("cap_ptr", F32P), ("out_ptr", F32P)])
    x_ptr, cap_ptr, out_ptr = fn.args
    with k.body(fn.body):
        pid = k.pid()
        offs = k.bin("add", k.splat(k.bin("mul", pid, k.const(block, T.i32)), (block,)), k.arange(block))
        x = k.load(k.addptr(x_ptr, offs))
        cap = k.load(k.addptr(cap_ptr, pid))
        (top,) = k.reduce([x], 0, lambda a, b: [k.bin("minimum", k.bin("maximum", a, b), cap)])
        k.store(k.addptr(out_ptr, pid), top)
        k.ret()
    x = rng.standard_normal((3, block), dtype=np.float32)
    caps = np.array([10.0, 0.0, -5.0], np.float32)
    out = poisoned(3)
    run(k.module, (3,), x, caps, out)
    np.testing.assert_array_equal(out, np.minimum(x.max(axis=1), caps))
