"""The CUDA code generator on a GPU, at sizes that exercise what small tests do not: layouts with
repeated registers, reductions and scans across several warps, layout conversions through
shared memory, every ``dot`` path (mma.sync f16/bf16, FMA f32/int8, batched), atomics under
contention.  Each result is compared with numpy on fresh random inputs; outputs start as NaN."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

pytestmark = pytest.mark.gpu


def run(kernel, grid, *args, **meta):
    """Launch on the GPU with numpy arrays copied to the device and back."""
    moved = [kl.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid](*moved, **meta)
    for original, copy in zip(args, moved):
        if isinstance(original, np.ndarray):
            original[...] = copy.numpy()


def nan(shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype)


# ---- reductions -----------------------------------------------------------------------------

@kl.jit
def reduce_2d(x_ptr, sum0_ptr, max1_ptr, arg1_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(sum0_ptr + cols, tl.sum(x, axis=0))
    tl.store(max1_ptr + rows, tl.max(x, axis=1))
    tl.store(arg1_ptr + rows, tl.argmax(x, axis=1))


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("shape", [(64, 128), (8, 512), (256, 16)])
def test_reductions_across_warps(rng, shape, num_warps):
    m, n = shape
    x = rng.standard_normal(shape).astype(np.float32)
    sum0, max1, arg1 = nan(n), nan(m), np.full(m, -1, np.int32)
    run(reduce_2d, (1,), x, sum0, max1, arg1, M=m, N=n, num_warps=num_warps)
    np.testing.assert_allclose(sum0, x.sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(max1, x.max(axis=1))
    np.testing.assert_array_equal(arg1, x.argmax(axis=1))


@kl.jit
def row_softmax(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(out_ptr + offs, e / tl.sum(e, axis=1)[:, None])


def test_broadcast_of_a_reduction(rng):
    x = rng.standard_normal((16, 256)).astype(np.float32)
    out = nan(x.shape)
    run(row_softmax, (1,), x, out, M=16, N=256, num_warps=4)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


# ---- scans ----------------------------------------------------------------------------------

@kl.jit
def scans_2d(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(out_ptr + M * N + offs, tl.cumsum(x, axis=1))
    tl.store(out_ptr + 2 * M * N + offs, tl.cumsum(x, axis=1, reverse=True))
    tl.store(out_ptr + 3 * M * N + offs, tl.cumprod(x, axis=0, reverse=True))


@pytest.mark.parametrize("num_warps", [1, 4])
def test_scans_across_lanes_and_warps(rng, num_warps):
    m, n = 32, 64
    x = rng.integers(-3, 4, (m, n)).astype(np.int32)
    x[x == 0] = 1
    out = np.full((4, m, n), -(2**31), np.int32)
    run(scans_2d, (1,), x, out, M=m, N=n, num_warps=num_warps)
    np.testing.assert_array_equal(out[0], np.cumsum(x, axis=0))
    np.testing.assert_array_equal(out[1], np.cumsum(x, axis=1))
    np.testing.assert_array_equal(out[2], np.flip(np.cumsum(np.flip(x, 1), axis=1), 1))
    np.testing.assert_array_equal(out[3], np.flip(np.cumprod(np.flip(x, 0), axis=0), 0).astype(np.int32))


@kl.jit
def long_cumsum(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


def test_long_scan_with_several_elements_per_thread(rng):
    x = rng.integers(-5, 6, 4096).astype(np.int32)
    out = np.full(4096, -(2**31), np.int32)
    run(long_cumsum, (1,), x, out, N=4096, num_warps=8)
    np.testing.assert_array_equal(out, np.cumsum(x))


# ---- layout conversions -----------------------------------------------------------------------

@kl.jit
def transpose(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    t = tl.trans(x)
    tl.store(out_ptr + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], t)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
def test_transpose_converts_through_shared_memory(rng, dtype):
    x = (rng.standard_normal((64, 32)) * 50).astype(dtype)
    out = np.zeros((32, 64), dtype) + dtype(7)
    run(transpose, (1,), x, out, M=64, N=32, num_warps=4)
    np.testing.assert_array_equal(out, x.T)


# ---- dot --------------------------------------------------------------------------------------

@kl.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


def _bf16():
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("shape", [(16, 16, 16), (16, 16, 32), (64, 64, 32), (128, 128, 64), (32, 128, 16),
                                   (128, 16, 64)])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_tensor_core_dot(rng, shape, dtype, num_warps):
    m, n, k = shape
    np_type = np.float16 if dtype == "f16" else _bf16()
    a = rng.standard_normal((m, k)).astype(np_type)
    b = rng.standard_normal((k, n)).astype(np_type)
    c = nan((m, n))
    run(dot_kernel, (1,), a, b, c, M=m, N=n, K=k, OUT=tl.float32, num_warps=num_warps)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=2e-3, atol=2e-3)


@kl.jit
def dot_any_order(a_ptr, b_ptr, c_ptr, sam, sak, sbk, sbn, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak)
    b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("a_order,b_order", [("row", "col"), ("col", "row"), ("col", "col")])
def test_tensor_core_dot_of_transposed_operands(rng, a_order, b_order):
    """Operands whose registers run along m (A) or k (B) are kept that way in shared memory and
    read with the other ldmatrix variant."""
    m, n, k = 64, 64, 32
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    a_mem = a if a_order == "row" else np.ascontiguousarray(a.T)
    b_mem = b if b_order == "row" else np.ascontiguousarray(b.T)
    sam, sak = (k, 1) if a_order == "row" else (1, m)
    sbk, sbn = (n, 1) if b_order == "row" else (1, k)
    c = nan((m, n))
    run(dot_any_order, (1,), a_mem, b_mem, c, sam, sak, sbk, sbn, M=m, N=n, K=k, num_warps=4)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=2e-3, atol=2e-3)


@kl.jit
def dot_in_a_loop(a_ptr, b_ptr, c_ptr, steps, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])  # loop invariant: its fragments are made once
    acc = tl.zeros((M, N), tl.float32)
    for i in range(steps):
        b = tl.load(b_ptr + i * K * N + rk[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def test_loop_invariant_dot_operand(rng):
    m, n, k, steps = 64, 64, 32, 5
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((steps, k, n)).astype(np.float16)
    c = nan((m, n))
    run(dot_in_a_loop, (1,), a, b, c, steps, M=m, N=n, K=k, num_warps=4)
    ref = sum(a.astype(np.float64) @ b[i].astype(np.float64) for i in range(steps))
    np.testing.assert_allclose(c, ref, rtol=5e-3, atol=5e-3)


@kl.jit
def chained_dots(a_ptr, b_ptr, c_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                 P: tl.constexpr):
    rm, rn, rk, rp = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K), tl.arange(0, P)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.load(c_ptr + rn[:, None] * P + rp[None, :])
    p = tl.dot(a, b) * 0.25  # an accumulator that is the next dot's A operand, in registers
    tl.store(out_ptr + rm[:, None] * P + rp[None, :], tl.dot(p.to(tl.float16), c))


@pytest.mark.parametrize("num_warps", [4, 8])
def test_chained_dots_pass_the_accumulator_in_registers(rng, num_warps):
    m, n, k, p = 128, 64, 32, 32
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = rng.standard_normal((n, p)).astype(np.float16)
    out = nan((m, p))
    run(chained_dots, (1,), a, b, c, out, M=m, N=n, K=k, P=p, num_warps=num_warps)
    first = ((a.astype(np.float32) @ b.astype(np.float32)) * 0.25).astype(np.float16)
    np.testing.assert_allclose(out, first.astype(np.float64) @ c.astype(np.float64), rtol=1e-2, atol=1e-2)


@kl.jit
def ieee_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, out_dtype=OUT, input_precision="ieee")  # fp32 in full precision, not tf32
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@pytest.mark.parametrize("dtype,out", [(np.float32, "float32"), (np.int8, "int32"), (np.float64, "float64")])
def test_fma_dot(rng, dtype, out):
    m, n = 32, 64
    k = 32 if np.dtype(dtype).itemsize == 1 else 16  # Triton's CUDA target takes 8-bit dots from K = 32
    if np.dtype(dtype).kind == "i":
        a = rng.integers(-100, 100, (m, k)).astype(dtype)
        b = rng.integers(-100, 100, (k, n)).astype(dtype)
    else:
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), -7, np.dtype(out))
    out_type = {"float32": tl.float32, "int32": tl.int32, "float64": tl.float64}[out]
    run(ieee_dot_kernel, (1,), a, b, c, M=m, N=n, K=k, OUT=out_type, num_warps=4)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(c, ref.astype(np.int64).astype(np.int32))
    else:
        np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)


@kl.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb, rm, rn, rk = tl.arange(0, B), tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], tl.dot(a, b))


def test_batched_dot(rng):
    a = rng.standard_normal((4, 16, 32)).astype(np.float16)
    b = rng.standard_normal((4, 32, 16)).astype(np.float16)
    c = nan((4, 16, 16))
    run(batched_dot, (1,), a, b, c, B=4, M=16, N=16, K=32, num_warps=4)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=2e-3, atol=2e-3)


def test_tutorial_matmul_fp16(rng):
    from tests.kernels import tutorials

    a = rng.standard_normal((256, 192)).astype(np.float16)
    b = rng.standard_normal((192, 320)).astype(np.float16)
    c = np.full((256, 320), np.nan, np.float16)
    da, db, dc = kl.to_device(a), kl.to_device(b), kl.to_device(c)
    tutorials.run_matmul(da, db, dc, block_m=128, block_n=128, block_k=64, num_warps=4)
    np.testing.assert_allclose(dc.numpy().astype(np.float64), tutorials.ref_matmul(a, b), rtol=1e-2, atol=1e-2)


# ---- atomics --------------------------------------------------------------------------------------

@kl.jit
def contended_atomics(x_ptr, sum_ptr, count_ptr, max_ptr, min_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    slot = offs % 8
    tl.atomic_add(sum_ptr + slot, x)
    tl.atomic_add(count_ptr + slot, 1)
    tl.atomic_max(max_ptr + slot, x)
    tl.atomic_min(min_ptr + slot, x)


def test_atomics_under_contention(rng):
    blocks, block = 64, 256
    x = rng.standard_normal(blocks * block).astype(np.float32)
    sums, counts = np.zeros(8, np.float32), np.zeros(8, np.int32)
    maxs, mins = np.full(8, -np.inf, np.float32), np.full(8, np.inf, np.float32)
    run(contended_atomics, (blocks,), x, sums, counts, maxs, mins, BLOCK=block, num_warps=4)
    per_slot = x.reshape(-1, 8)
    np.testing.assert_allclose(sums, per_slot.sum(axis=0), rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(counts, np.full(8, blocks * block // 8))
    np.testing.assert_array_equal(maxs, per_slot.max(axis=0))
    np.testing.assert_array_equal(mins, per_slot.min(axis=0))


@kl.jit
def scalar_atomic_ticket(counter_ptr, tickets_ptr):
    ticket = tl.atomic_add(counter_ptr, 1)
    tl.store(tickets_ptr + tl.program_id(0), ticket)


def test_scalar_atomic_returns_one_value_per_program():
    counter = np.zeros(1, np.int32)
    tickets = np.full(300, -1, np.int32)
    run(scalar_atomic_ticket, (300,), counter, tickets, num_warps=4)
    assert counter[0] == 300
    np.testing.assert_array_equal(np.sort(tickets), np.arange(300))


# ---- memory -----------------------------------------------------------------------------------

@kl.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0) * 2, mask=mask)


@pytest.mark.parametrize("n", [4096, 4093, 17])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.float64])
def test_vector_and_scalar_masked_accesses(rng, n, dtype):
    x = (rng.standard_normal(n) * 20).astype(dtype)
    out = np.zeros(n + 64, dtype) + dtype(5)
    run(copy_kernel, (kl.cdiv(n, 1024),), x, out, n, BLOCK=1024, num_warps=4)
    np.testing.assert_array_equal(out[:n], (x * dtype(2)).astype(dtype))
    np.testing.assert_array_equal(out[n:], np.full(64, 5, dtype))


@kl.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


def test_large_histogram(rng):
    x = rng.integers(0, 64, 4096).astype(np.int32)
    out = np.full(64, -1, np.int32)
    run(histogram_kernel, (1,), x, out, N=4096, BINS=64, num_warps=8)
    np.testing.assert_array_equal(out, np.bincount(x, minlength=64))


@kl.jit
def sort_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=1, descending=DESCENDING))


@pytest.mark.parametrize("descending", [False, True])
def test_sort_rows(rng, descending):
    x = rng.integers(-50, 50, (8, 128)).astype(np.float32)
    out = nan(x.shape)
    run(sort_kernel, (1,), x, out, M=8, N=128, DESCENDING=descending, num_warps=4)
    want = np.sort(x, axis=1)
    np.testing.assert_array_equal(out, want[:, ::-1] if descending else want)


def test_tutorial_layer_norm(rng):
    from tests.kernels import tutorials

    m, n = 64, 4096
    x = rng.standard_normal((m, n)).astype(np.float32)
    w, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    y, mean, rstd = nan((m, n)), nan(m), nan(m)
    moved = [kl.to_device(a) for a in (x, w, b, y, mean, rstd)]
    tutorials.run_layer_norm(*moved)
    ref = tutorials.ref_layer_norm(x, w, b)
    np.testing.assert_allclose(moved[3].numpy(), ref[0], rtol=1e-4, atol=1e-4)


# ---- control flow, calls, half precision, fp8, printing -----------------------------------------

@kl.jit(noinline=True)
def axpy(x, y, a):
    return a * x + y


@kl.jit
def control_flow(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = tl.zeros((BLOCK,), tl.float32)
    i = 0
    while i < n:
        acc += x
        i += 1
    if n > 2:
        y = acc * 2.0
    else:
        y = acc - 1.0
    tl.store(out_ptr + offs, axpy(x, y, 3.0))


@pytest.mark.parametrize("n", [1, 5])
def test_while_if_and_a_noinline_call_carry_tiles(rng, n):
    x = rng.standard_normal(512).astype(np.float32)
    out = nan(512)
    run(control_flow, (1,), x, out, n, BLOCK=512, num_warps=4)
    acc = x * n
    y = acc * 2 if n > 2 else acc - 1
    np.testing.assert_allclose(out, 3 * x + y, rtol=1e-6, atol=1e-6)


@kl.jit
def half_math(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.exp(x.to(tl.float32)).to(x.dtype) + tl.abs(x) * x - tl.maximum(x, 0.5) + tl.where(x > 0, x, -x) / 4
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_precision_math(rng, dtype):
    np_type = np.float16 if dtype == "f16" else _bf16()
    x = rng.uniform(-2, 2, 1024).astype(np_type)
    out = np.full(1024, np.nan, np_type)
    run(half_math, (1,), x, out, BLOCK=1024, num_warps=4)
    xf = x.astype(np.float64)
    want = np.exp(xf) + np.abs(xf) * xf - np.maximum(xf, 0.5) + np.abs(xf) / 4
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=2e-2, atol=2e-2)


@kl.jit
def fp8_round_trip(x_ptr, out_ptr, BLOCK: tl.constexpr, FP8: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(FP8).to(tl.float32))


@pytest.mark.parametrize("kind", ["e4m3", "e5m2"])
def test_fp8_conversions(rng, kind):
    import ml_dtypes

    np_type = ml_dtypes.float8_e4m3fn if kind == "e4m3" else ml_dtypes.float8_e5m2
    fp8 = tl.float8e4nv if kind == "e4m3" else tl.float8e5
    x = (rng.standard_normal(256) * 10).astype(np.float32)
    out = nan(256)
    run(fp8_round_trip, (1,), x, out, BLOCK=256, FP8=fp8, num_warps=4)
    np.testing.assert_array_equal(out, x.astype(np_type).astype(np.float32))


@kl.jit
def print_tile(x_ptr, N: tl.constexpr):
    tl.device_print("value", tl.load(x_ptr + tl.arange(0, N)))


def test_device_print_writes_one_line_per_element(capfd):
    x = np.array([7, 8, 9, 10], np.int32)
    run(print_tile, (2,), x, N=4, num_warps=4)  # copying x back synchronizes: the lines are out
    lines = [line for line in capfd.readouterr().out.splitlines() if "value" in line]
    assert len(lines) == 8
    assert sorted(int(line.split()[-1]) for line in lines) == [7, 7, 8, 8, 9, 9, 10, 10]
