"""Differential tests: the same @jit kernels on "interpret" and "cpu", against numpy, on fresh
random inputs with NaN-poisoned outputs."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import InterpreterError


@pytest.fixture
def run_on(target, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", target)
    return target


def _offsets2d(M: tl.constexpr, N: tl.constexpr):
    return tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]


@kl.jit
def reduce_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        r = tl.min(x, axis=AXIS)
    else:
        r = tl.argmax(x, axis=AXIS)
    size: tl.constexpr = N if AXIS == 0 else M
    tl.store(out_ptr + tl.arange(0, size), r)


@pytest.mark.parametrize("op", ["sum", "max", "min", "argmax"])
@pytest.mark.parametrize("axis", [0, 1])
def test_reductions(run_on, inputs, op, axis):
    M, N = 16, 64
    x = inputs.normal((M, N))
    ref = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax}[op](x, axis=axis)
    out = inputs.poisoned(ref.shape, ref.dtype if op != "argmax" else np.int32)
    reduce_kernel[(1,)](x, out, M, N, axis, op)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


@kl.jit
def scan_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=AXIS, reverse=REVERSE))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_scans(run_on, inputs, axis, reverse):
    x = inputs.integers((8, 32))
    out = inputs.poisoned((8, 32), np.int32)
    scan_kernel[(1,)](x, out, 8, 32, axis, reverse)
    ref = np.flip(np.cumsum(np.flip(x, axis), axis), axis) if reverse else np.cumsum(x, axis)
    np.testing.assert_array_equal(out, ref)


@kl.jit
def sort_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=1, descending=DESC))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
def test_sort(run_on, inputs, descending, dtype):
    x = inputs.integers((4, 64), 0, 200).astype(dtype) if dtype != np.float32 else inputs.normal((4, 64))
    out = inputs.poisoned((4, 64), dtype)
    sort_kernel[(1,)](x, out, 4, 64, descending)
    ref = np.sort(x, axis=1)
    np.testing.assert_array_equal(out, ref[:, ::-1] if descending else ref)


@kl.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


@pytest.mark.parametrize("shape", [(16, 16, 16), (32, 64, 32), (64, 8, 16), (16, 128, 64), (8, 4, 8)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_dot(run_on, inputs, shape, dtype):
    M, N, K = shape
    a, b = inputs.normal((M, K), dtype), inputs.normal((K, N), dtype)
    c = inputs.poisoned((M, N))
    dot_kernel[(1,)](a, b, c, M, N, K)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_dot_int8(run_on, inputs):
    a = inputs.integers((16, 32), -100, 100, np.int8)
    b = inputs.integers((32, 16), -100, 100, np.int8)
    c = inputs.poisoned((16, 16), np.int32)
    dot_kernel[(1,)](a, b, c, 16, 16, 32)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


@kl.jit
def loop_kernel(x_ptr, out_ptr, n_steps, N: tl.constexpr):
    offs = tl.arange(0, N)
    acc = tl.zeros((N,), dtype=tl.float32)
    ptrs = x_ptr + offs
    for i in range(n_steps):
        v = tl.load(ptrs)
        if i % 2 == 0:
            acc += v * 2.0
        else:
            acc = acc - v
        ptrs += N
    count = 0
    total = tl.sum(acc)
    while total > 1.0:
        total = total / 2.0
        count += 1
    tl.store(out_ptr + offs, acc)
    tl.store(out_ptr + N, total)
    tl.store(out_ptr + N + 1, count.to(tl.float32))


def test_control_flow(run_on, inputs):
    N, steps = 64, 7
    x = inputs.uniform((steps, N), 0.0, 1.0)
    out = inputs.poisoned(N + 2)
    loop_kernel[(1,)](x, out, steps, N)
    acc = np.zeros(N, np.float64)
    for i in range(steps):
        acc = acc + 2 * x[i] if i % 2 == 0 else acc - x[i]
    total, count = acc.sum(), 0
    while total > 1.0:
        total, count = total / 2, count + 1
    np.testing.assert_allclose(out[:N], acc, rtol=1e-5)
    np.testing.assert_allclose(out[N:], [total, count], rtol=1e-4)


@kl.jit
def shape_kernel(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    t = tl.trans(x)                                   # N x M
    r = tl.reshape(t, (M, N))                          # row-major reinterpretation
    a, b = tl.split(tl.join(x, y))
    f = tl.flip(y, 1)
    tl.store(out_ptr + offs, r)
    tl.store(out_ptr + M * N + offs, a - b)
    tl.store(out_ptr + 2 * M * N + offs, f)
    tl.store(out_ptr + 3 * M * N + tl.arange(0, 2 * M * N), tl.cat(tl.ravel(x), tl.ravel(y), can_reorder=True))


def test_shape_ops(run_on, inputs):
    M, N = 8, 16
    x, y = inputs.normal((M, N)), inputs.normal((M, N))
    out = inputs.poisoned(5 * M * N)
    shape_kernel[(1,)](x, y, out, M, N)
    np.testing.assert_array_equal(out[:M * N], x.T.reshape(-1))
    np.testing.assert_array_equal(out[M * N:2 * M * N], (x - y).reshape(-1))
    np.testing.assert_array_equal(out[2 * M * N:3 * M * N], y[:, ::-1].reshape(-1))
    np.testing.assert_array_equal(np.sort(out[3 * M * N:]), np.sort(np.concatenate([x.ravel(), y.ravel()])))


@kl.jit
def gather_kernel(x_ptr, i_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.gather(tl.load(x_ptr + offs), tl.load(i_ptr + offs), 0))


def test_gather(run_on, inputs, rng):
    x = inputs.normal(64)
    index = rng.integers(0, 64, 64).astype(np.int32)
    out = inputs.poisoned(64)
    gather_kernel[(1,)](x, index, out, 64)
    np.testing.assert_array_equal(out, x[index])


@kl.jit
def histogram_kernel(x_ptr, hist_ptr, fhist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x, 1, mask=mask)
    tl.atomic_add(fhist_ptr + x, 0.5, mask=mask)


def test_atomic_histogram_under_threads(run_on, rng):
    """Many programs on several threads add into the same 16 bins: atomics must not lose any."""
    n, bins = 200_000, 16
    x = rng.integers(0, bins, n).astype(np.int32)
    hist = np.zeros(bins, np.int32)
    fhist = np.zeros(bins, np.float32)
    block = 256 if run_on == "cpu" else 8192
    histogram_kernel[(kl.cdiv(n, block),)](x, hist, fhist, n, block)
    counts = np.bincount(x, minlength=bins)
    np.testing.assert_array_equal(hist, counts)
    np.testing.assert_allclose(fhist, counts * 0.5)


@kl.jit
def tl_histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + tl.arange(0, N)), BINS))


def test_tl_histogram(run_on, inputs, rng):
    x = rng.integers(0, 32, 256).astype(np.int32)
    out = inputs.poisoned(32, np.int32)
    tl_histogram_kernel[(1,)](x, out, 256, 32)
    np.testing.assert_array_equal(out, np.bincount(x, minlength=32))


@kl.jit
def atomic_kinds_kernel(ptr, vals_ptr, old_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(vals_ptr + offs)
    old = tl.atomic_max(ptr + offs % 4, v)
    tl.store(old_ptr + offs, old)
    tl.atomic_min(ptr + 4 + offs % 4, v)
    tl.atomic_xchg(ptr + 8 + offs * 0, v)
    tl.atomic_cas(ptr + 9, 7, 11)


def test_atomic_kinds(run_on, inputs, rng):
    vals = rng.integers(-1000, 1000, 32).astype(np.int32)
    state = np.array([-5000] * 4 + [5000] * 4 + [0, 7], np.int32)
    old = inputs.poisoned(32, np.int32)
    atomic_kinds_kernel[(1,)](state, vals, old, 32)
    np.testing.assert_array_equal(state[:4], [vals[i::4].max() for i in range(4)])
    np.testing.assert_array_equal(state[4:8], [vals[i::4].min() for i in range(4)])
    assert state[8] in vals and state[9] == 11
    assert np.all(old >= -5000)


@kl.jit
def block_ptr_kernel(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(0, 0), block_shape=(BM, BN),
                            order=(1, 0))
    dst = tl.make_block_ptr(out_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(0, 0), block_shape=(BM, BN),
                            order=(1, 0))
    for _ in range(0, tl.cdiv(N, BN)):
        block = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        tl.store(dst, block * 2.0 + 1.0, boundary_check=(0, 1))
        src = tl.advance(src, (0, BN))
        dst = tl.advance(dst, (0, BN))


def test_block_pointers(run_on, inputs):
    M, N = 13, 70  # ragged in both dims
    x = inputs.normal((M, N))
    out = inputs.poisoned((M, N))
    block_ptr_kernel[(1,)](x, out, M, N, N, 16, 32)
    np.testing.assert_allclose(out, x * 2 + 1, rtol=1e-6)


@kl.jit
def descriptor_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    block = src.load([pid_m * BM, pid_n * BN])
    dst.store([pid_m * BM, pid_n * BN], block + 1.0)


def test_tensor_descriptors(run_on, inputs):
    M, N = 20, 40
    x = inputs.normal((M, N))
    out = inputs.poisoned((M, N))
    descriptor_kernel[(2, 3)](x, out, M, N, 16, 16)
    np.testing.assert_allclose(out, x + 1, rtol=1e-6)


@kl.jit
def rand_kernel(out_ptr, seed, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out_ptr + offs, tl.rand(seed, offs))


def test_random_matches_interpreter(monkeypatch, inputs):
    results = {}
    for target in ("interpret", "cpu"):
        monkeypatch.setenv("KERNELLAB_TARGET", target)
        out = inputs.poisoned(4 * 128)
        rand_kernel[(4,)](out, 1234, 128)
        results[target] = out
    np.testing.assert_array_equal(results["cpu"], results["interpret"])
    assert 0 <= results["cpu"].min() and results["cpu"].max() < 1 and results["cpu"].std() > 0.2


@kl.jit
def print_kernel(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0) * N + tl.arange(0, N))
    tl.device_print("x", x)
    tl.device_print("pid", tl.program_id(0))


def test_device_print_matches_interpreter(monkeypatch, capsys):
    x = np.arange(12, dtype=np.int32) * 3 + 1
    printed = {}
    for target in ("interpret", "cpu"):
        monkeypatch.setenv("KERNELLAB_TARGET", target)
        print_kernel[(3,)](x, 4)
        printed[target] = capsys.readouterr().out.splitlines()
    assert printed["cpu"] == printed["interpret"]
    assert len(printed["cpu"]) == 3 * 5 and "pid (2, 0, 0)" in printed["cpu"][-1]


@kl.jit(debug=True)
def assert_kernel(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0) * N + tl.arange(0, N))
    tl.device_assert(x < 100, "x is too large")


def test_device_assert(run_on):
    x = np.arange(64, dtype=np.int32)
    assert_kernel[(4,)](x, 16)  # passes
    x[37] = 1000
    with pytest.raises(InterpreterError, match="x is too large"):
        assert_kernel[(4,)](x, 16)


@kl.jit(noinline=True)
def scaled(x, k):
    return x * k


@kl.jit
def call_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, scaled(tl.load(x_ptr + offs), 3.0))


def test_noinline_call(run_on, inputs):
    x = inputs.normal(32)
    out = inputs.poisoned(32)
    call_kernel[(1,)](x, out, 32)
    np.testing.assert_allclose(out, x * 3, rtol=1e-6)


@kl.jit
def aliasing_kernel(x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(x_ptr + offs + 1, tl.load(x_ptr + offs) * 2)


def test_store_after_load_of_overlapping_memory(run_on):
    """The whole load happens before the store, even when they overlap (shifted in place)."""
    x = np.arange(17, dtype=np.float32)
    aliasing_kernel[(1,)](x, 16)
    np.testing.assert_array_equal(x, np.concatenate([[0], np.arange(16) * 2]).astype(np.float32))
