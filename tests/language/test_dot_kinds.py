"""tl.dot of every operand kind at the shapes and warp counts that pick each CUDA engine (wgmma,
mma.sync, CUDA cores), with row- and column-major operands, against a float64 reference: int8
(exact), fp16 summed in fp16 (``out_dtype=tl.float16``), fp32 as tf32 (inputs rounded to tf32,
so the products are exact), the fp32 precisions that sum several tensor-core products
(tf32x3, bf16x3, bf16x6; inf inputs give inf, not NaN), chained dots and softmax epilogues,
pipelined K loops, and dots of 4-D and 5-D tiles (with ``tl.trans`` swapping the last two dims).
On the host targets every case computes in fp32/int32; on CUDA (``gpu``) each takes its engine."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

OUT_TYPES = {"int8": np.int32, "float16": np.float16, "float32": np.float32}


@kl.jit
def single_dot(x_ptr, stride_xm, stride_xk, y_ptr, stride_yk, stride_yn, z_ptr, w_ptr, M: tl.constexpr,
               N: tl.constexpr, K: tl.constexpr, PRECISION: tl.constexpr, OUT: tl.constexpr, EPILOGUE: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rk[None, :] * stride_xk)
    y = tl.load(y_ptr + rk[:, None] * stride_yk + rn[None, :] * stride_yn)
    z = tl.dot(x, y, input_precision=PRECISION, out_dtype=OUT)
    if EPILOGUE == "softmax":
        z = z.to(tl.float32)
        z = tl.exp(z - tl.max(z, 1)[:, None])
        z = z / tl.sum(z, 1)[:, None]
    if EPILOGUE == "chain":
        w = tl.load(w_ptr + rn[:, None] * N + rn[None, :])
        z = tl.dot(z.to(w.dtype), w, input_precision=PRECISION, out_dtype=OUT)
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], z)


class _Operand:
    """A random operand (int8 in [-8, 8), floats normal, rounded to tf32 when asked): ``values``
    and the contiguous ``storage`` the kernel reads them from with ``strides`` (the transposed
    values for a column-major operand)."""

    def __init__(self, inputs, shape, dtype: str, column_major: bool = False, tf32: bool = False):
        if dtype == "int8":
            values = inputs.integers(shape, -8, 8, np.int8)
        else:
            values = inputs.normal(shape, np.float32).astype(dtype)
        self.values = _to_tf32(values) if tf32 else values
        self.storage = np.ascontiguousarray(self.values.T if column_major else self.values)
        self.strides = (1, shape[0]) if column_major else (shape[1], 1)


def _to_tf32(x: np.ndarray) -> np.ndarray:
    """fp32 values with tf32's 10 mantissa bits (the low 13 cleared): their products are exact."""
    return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def _run_single(launch, inputs, m, n, k, warps, col_a, col_b, dtype, out, precision="ieee", epilogue="none"):
    if col_a != col_b and launch.target != "cuda":
        pytest.skip("the operands' layouts matter to the CUDA target's staging only")
    tf32 = precision == "tf32"
    x, y = _Operand(inputs, (m, k), dtype, col_a, tf32), _Operand(inputs, (k, n), dtype, col_b, tf32)
    w = _Operand(inputs, (n, n), dtype, tf32=tf32)
    z = inputs.poisoned((m, n), OUT_TYPES[out])
    launch(single_dot, (1,), x.storage, *x.strides, y.storage, *y.strides, z, w.storage, M=m, N=n, K=k,
           PRECISION=precision, OUT=getattr(tl, out if out != "int8" else "int32"), EPILOGUE=epilogue,
           num_warps=warps)
    return x.values, y.values, w.values, z


# (M, N, K, warps): on CUDA the first of each kind goes to wgmma, the others to mma.sync
INT8_SHAPES = [(64, 128, 64, 4), (64, 64, 32, 4), (32, 128, 64, 4), (128, 64, 64, 2), (128, 16, 32, 4)]
F16_SHAPES = [(128, 16, 32, 4), (64, 128, 128, 4), (32, 128, 64, 2), (32, 32, 128, 16), (16, 16, 16, 4)]
TF32_SHAPES = [(128, 64, 32, 4), (32, 32, 32, 4), (16, 16, 16, 4), (64, 64, 32, 1), (128, 128, 64, 2)]
LAYOUTS = [(False, False), (True, False), (False, True), (True, True)]


def _shape_id(case) -> str:
    return "x".join(map(str, case[:3])) + f"w{case[3]}"


@pytest.mark.parametrize("col_a, col_b", LAYOUTS, ids=["rr", "cr", "rc", "cc"])
@pytest.mark.parametrize("shape", INT8_SHAPES, ids=_shape_id)
def test_int8_dot_is_exact(launch, inputs, shape, col_a, col_b) -> None:
    m, n, k, warps = shape
    x, y, _, z = _run_single(launch, inputs, m, n, k, warps, col_a, col_b, "int8", "int8")
    np.testing.assert_array_equal(z, x.astype(np.int64) @ y.astype(np.int64))


@pytest.mark.parametrize("col_a, col_b", LAYOUTS, ids=["rr", "cr", "rc", "cc"])
@pytest.mark.parametrize("shape", F16_SHAPES, ids=_shape_id)
def test_fp16_dot_summed_in_fp16(launch, inputs, shape, col_a, col_b) -> None:
    m, n, k, warps = shape
    x, y, _, z = _run_single(launch, inputs, m, n, k, warps, col_a, col_b, "float16", "float16")
    want = x.astype(np.float64) @ y.astype(np.float64)
    # an fp16 sum of K products: each partial sum rounds to fp16 (2^-11 of its size)
    bound = 4 * k * 2.0 ** -11 * np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64))
    assert np.all(np.abs(z.astype(np.float64) - want) <= bound + 1e-3)


@pytest.mark.parametrize("col_a, col_b", LAYOUTS, ids=["rr", "cr", "rc", "cc"])
@pytest.mark.parametrize("shape", TF32_SHAPES, ids=_shape_id)
def test_tf32_dot_of_tf32_values_is_fp32_exact(launch, inputs, shape, col_a, col_b) -> None:
    m, n, k, warps = shape
    x, y, _, z = _run_single(launch, inputs, m, n, k, warps, col_a, col_b, "float32", "float32", "tf32")
    want = x.astype(np.float64) @ y.astype(np.float64)
    np.testing.assert_allclose(z, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))


@pytest.mark.parametrize("epilogue", ["softmax", "chain"])
@pytest.mark.parametrize("dtype, out, precision", [("float32", "float32", "tf32"), ("float16", "float16", "ieee"),
                                                   ("float16", "float32", "ieee")])
@pytest.mark.parametrize("shape", [(32, 32, 32, 4), (64, 64, 64, 4), (16, 16, 16, 4)], ids=_shape_id)
def test_dot_epilogues(launch, inputs, shape, dtype, out, precision, epilogue) -> None:
    m, n, k, warps = shape
    x, y, w, z = _run_single(launch, inputs, m, n, k, warps, False, False, dtype, out, precision, epilogue)
    x, y, w = (v.astype(np.float64) * 1 for v in (x, y, w))
    want = x @ y
    if epilogue == "softmax":
        want = np.exp(want - want.max(1, keepdims=True))
        want /= want.sum(1, keepdims=True)
    else:
        rounded = want.astype(np.float32 if precision == "tf32" else np.float16).astype(np.float64)
        want = (_to_tf32(rounded.astype(np.float32)).astype(np.float64) if precision == "tf32" else rounded) @ w
    tolerance = 2e-2 if out == "float16" else 1e-3
    scale = np.abs(want).max()
    np.testing.assert_allclose(z.astype(np.float64), want, rtol=tolerance, atol=tolerance * scale)


# relative error (of the Frobenius norm) each fp32 precision keeps below, against float64
PRECISION_BOUNDS = {"tf32x3": 1e-5, "bf16x3": 1.5e-4, "bf16x6": 1e-5, "ieee": 1e-5}


@pytest.mark.parametrize("precision", list(PRECISION_BOUNDS))
@pytest.mark.parametrize("shape", [(64, 64, 64, 4), (32, 32, 32, 4), (128, 64, 128, 8)], ids=_shape_id)
def test_fp32_precisions_beyond_tf32(launch, inputs, shape, precision) -> None:
    m, n, k, warps = shape
    x, y, _, z = _run_single(launch, inputs, m, n, k, warps, False, False, "float32", "float32", precision)
    want = x.astype(np.float64) @ y.astype(np.float64)
    assert np.linalg.norm(z - want) / np.linalg.norm(want) < PRECISION_BOUNDS[precision]


@pytest.mark.parametrize("precision", ["tf32x3", "bf16x3", "bf16x6"])
def test_split_precisions_keep_infinities(launch, inputs, precision) -> None:
    """An infinite input's small parts are NaN (inf - inf); only its big product may count."""
    m = n = k = 32
    x, y = _Operand(inputs, (m, k), "float32").values, _Operand(inputs, (k, n), "float32").values
    x[0, 3] = np.inf
    z = inputs.poisoned((m, n), np.float32)
    launch(single_dot, (1,), x, k, 1, y, n, 1, z, y, M=m, N=n, K=k, PRECISION=precision, OUT=tl.float32,
           EPILOGUE="none", num_warps=4)
    np.testing.assert_array_equal(z[0], np.where(y[3] > 0, np.inf, -np.inf))
    want = x[1:].astype(np.float64) @ y.astype(np.float64)
    assert np.linalg.norm(z[1:] - want) / np.linalg.norm(want) < 2e-4


@kl.jit
def k_loop(a_ptr, b_ptr, c_ptr, K, stride_bk, stride_bn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           OUT: tl.constexpr, PRECISION: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), OUT)
    for k in tl.range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("b_k_major", [False, True], ids=["b_n_major", "b_k_major"])
@pytest.mark.parametrize("block_m, warps", [(32, 4), (64, 4), (128, 8), (64, 2)])
@pytest.mark.parametrize("dtype", ["int8", "float32", "float16"])
def test_pipelined_k_loops(launch, inputs, dtype, block_m, warps, b_k_major) -> None:
    """A K loop whose operand loads the CUDA target streams through shared-memory rings (K-major
    ones for int8 and tf32), on wgmma and on mma.sync."""
    bn, bk, k = 64, 32, 256
    out = {"int8": "int32", "float32": "float32", "float16": "float16"}[dtype]
    tf32 = dtype == "float32"
    a, b = _Operand(inputs, (block_m, k), dtype, tf32=tf32), _Operand(inputs, (k, bn), dtype, b_k_major, tf32)
    c = inputs.poisoned((block_m, bn), np.dtype(out))
    launch(k_loop, (1,), a.storage, b.storage, c, k, *b.strides, BM=block_m, BN=bn, BK=bk, OUT=getattr(tl, out),
           PRECISION="tf32" if dtype == "float32" else "ieee", num_warps=warps, num_stages=3)
    a, b = a.values, b.values
    want = a.astype(np.float64) @ b.astype(np.float64)
    if dtype == "int8":
        np.testing.assert_array_equal(c, want.astype(np.int64))
    elif dtype == "float32":
        np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    else:
        bound = 4 * k * 2.0 ** -11 * np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
        assert np.all(np.abs(c.astype(np.float64) - want) <= bound + 1e-3)


@kl.jit
def batched_nd(x_ptr, y_ptr, z_ptr, RANK: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr):
    numel: tl.constexpr = 256 << RANK
    x = tl.load(x_ptr + tl.arange(0, numel)).reshape([2] * (RANK - 2) + [32, 32])
    y = tl.load(y_ptr + tl.arange(0, numel)).reshape([2] * (RANK - 2) + [32, 32])
    if TRANS_A:
        x = tl.trans(x)
    if TRANS_B:
        y = tl.trans(y)
    z = tl.dot(x, y, input_precision="ieee")
    tl.store(z_ptr + tl.arange(0, numel), z.reshape([numel]))


@pytest.mark.parametrize("trans_a, trans_b", LAYOUTS, ids=["nn", "tn", "nt", "tt"])
@pytest.mark.parametrize("rank", [3, 4, 5])
def test_dots_of_tiles_of_rank_3_and_more(launch, inputs, rank, trans_a, trans_b) -> None:
    shape = (2,) * (rank - 2) + (32, 32)
    x, y = inputs.normal(shape), inputs.normal(shape)
    z = inputs.poisoned(shape, np.float32)
    launch(batched_nd, (1,), x.reshape(-1), y.reshape(-1), z.reshape(-1), RANK=rank, TRANS_A=trans_a,
           TRANS_B=trans_b)
    a = np.swapaxes(x, -1, -2) if trans_a else x
    b = np.swapaxes(y, -1, -2) if trans_b else y
    np.testing.assert_allclose(z, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_a_dot_of_mismatched_batch_dims_is_a_compile_error(host_target) -> None:
    @kl.jit
    def kernel(x_ptr, z_ptr):
        x = tl.load(x_ptr + tl.arange(0, 4096)).reshape([2, 2, 32, 32])
        y = tl.load(x_ptr + tl.arange(0, 4096)).reshape([4, 1, 32, 32])
        tl.store(z_ptr + tl.arange(0, 4096), tl.dot(x, y).reshape(4096))

    with pytest.raises(kl.CompilationError, match="batch dims differ"):
        kernel[(1,)](np.ones(4096, np.float32), np.ones(4096, np.float32))


@kl.jit
def fp8_dot(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, LIMIT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * K + rk[None, :]).to(tl.float8e4nv, bitcast=True)
    y = tl.load(y_ptr + rn[None, :] * K + rk[:, None]).to(tl.float8e4nv, bitcast=True)  # K-major
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], tl.dot(x, y, max_num_imprecise_acc=LIMIT))


def _e4m3(inputs, shape) -> tuple[np.ndarray, np.ndarray]:
    """Random e4m3 bytes (magnitudes 1/8 to 8, both signs) and their values."""
    sign = inputs.integers(shape, 0, 2, np.uint8) - 1  # integers() avoids 0: values 0 and 1
    exponent, mantissa = inputs.integers(shape, 4, 11, np.uint8), inputs.integers(shape, 1, 9, np.uint8) - 1
    codes = (sign << 7) | (exponent << 3) | mantissa
    values = np.where(sign == 1, -1.0, 1.0) * 2.0 ** (exponent.astype(np.float64) - 7) * (1 + mantissa / 8)
    return codes.astype(np.uint8), values


@pytest.mark.parametrize("shape", [(64, 64, 128, 4), (128, 128, 128, 8)], ids=_shape_id)
def test_fp8_dot_with_max_num_imprecise_acc(launch, inputs, shape) -> None:
    """Hopper's tensor cores sum fp8 products with fewer bits than fp32 (values lose their low
    bits as the sum grows); ``max_num_imprecise_acc`` = L adds each partial sum of L K elements to
    the fp32 accumulator apart, so a smaller L is closer to the exact sum (the products of fp8
    values are exact in fp32; the host targets sum in fp32 whatever L is)."""
    m, n, k, warps = shape
    x_codes, x = _e4m3(inputs, (m, k))
    y_codes, y = _e4m3(inputs, (n, k))
    want = x @ y.T
    errors = {}
    for limit in (None, 128, 64, 32):
        z = inputs.poisoned((m, n), np.float32)
        launch(fp8_dot, (1,), x_codes, y_codes, z, M=m, N=n, K=k, LIMIT=limit, num_warps=warps)
        errors[limit] = np.linalg.norm(z - want) / np.linalg.norm(want)
    assert max(errors.values()) < 4e-3
    if launch.target == "cuda":  # partial sums of 32 (one instruction each) lose less than sums of all 128
        assert errors[32] < errors[None] / 2 and errors[32] < errors[128] / 2
    else:
        assert max(errors.values()) < 1e-6


@kl.jit
def dot_plus_rows(x_ptr, y_ptr, r_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                  AS_ACC: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * K + rk[None, :])
    y = tl.load(y_ptr + rk[:, None] * N + rn[None, :])
    rows = tl.broadcast_to(tl.load(r_ptr + rm)[:, None], (M, N))
    if AS_ACC:
        z = tl.dot(x, y, rows, input_precision="ieee")
    else:
        z = tl.dot(x, y, input_precision="ieee") + rows
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], z)


@pytest.mark.parametrize("as_acc", [True, False], ids=["acc", "sum"])
@pytest.mark.parametrize("dtype, shape", [("float32", (16, 16, 16)), ("float16", (32, 32, 32)),
                                          ("float16", (64, 64, 64))])
def test_an_accumulator_in_another_layout(launch, inputs, dtype, shape, as_acc) -> None:
    """An accumulator whose layout differs from the product's (a loaded row broadcast) is converted
    before the operands are staged in shared memory (its conversion used the same scratch and
    overwrote A on the CUDA target); ``dot + rows`` is such a dot after combining."""
    m, n, k = shape
    x, y = inputs.normal((m, k), dtype), inputs.normal((k, n), dtype)
    rows = inputs.normal(m, np.float32)
    z = inputs.poisoned((m, n), np.float32)
    launch(dot_plus_rows, (1,), x, y, rows, z, M=m, N=n, K=k, AS_ACC=as_acc)
    want = x.astype(np.float64) @ y.astype(np.float64) + rows[:, None]
    np.testing.assert_allclose(z, want, rtol=1e-3, atol=1e-3)
