"""Tuple kernel arguments (Triton's ``kernel[grid]((x, y), (1, 2), ...)``): tuples of arrays,
scalars, constexprs and nested tuples (NamedTuples keep their class) on every target, each
element specialized on its own (alignment, ints equal to 1, divisibility), the structure in the
cache key, the native launch path leaving tuple launches to the binder, CUDA's launch values
(checked with a stand-in launcher: no GPU needed), ``kl.compile`` with tuple signatures, and
the errors of bad tuple arguments."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.compiler import ASTSource
from kernellab.errors import CompilationError, KernelArgumentError
from kernellab.runtime.native import capi
from kernellab.runtime.targets import backend_available


@kl.jit
def scale_each(Ins, Outs, factors, n, BLOCK: tl.constexpr):
    """Outs[i] = Ins[i] * factors[i] for every i (as many arrays as the tuples hold)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    for i in tl.static_range(len(Ins)):
        tl.store(Outs[i] + offs, tl.load(Ins[i] + offs, mask=mask) * factors[i], mask=mask)


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_tuples_of_arrays_and_scalars(host_target, inputs, count):
    n = 300
    ins = tuple(inputs.normal(n) for _ in range(count))
    outs = tuple(inputs.poisoned(n) for _ in range(count))
    factors = tuple(float(f) for f in inputs.uniform(count, 0.5, 2.0))
    scale_each[(kl.cdiv(n, 128),)](ins, outs, factors, n, BLOCK=128)
    for x, out, f in zip(ins, outs, factors):
        np.testing.assert_allclose(out, x * np.float32(f), rtol=1e-6)


@kl.jit
def nested(Z, pair, inner, BLOCK: tl.constexpr):
    """Z = pair[0] + inner[0][0] * inner[1], where inner[0][1] may be None."""
    offs = tl.arange(0, BLOCK)
    acc = tl.load(pair[0] + offs) + tl.load(inner[0][0] + offs) * inner[1]
    if inner[0][1] is not None:
        acc += tl.load(inner[0][1] + offs)
    tl.store(Z + offs, acc + pair[1])


@pytest.mark.parametrize("with_none", [True, False])
def test_nested_tuples(host_target, inputs, with_none):
    a, b, c = inputs.normal(64), inputs.normal(64), inputs.normal(64)
    z = inputs.poisoned(64)
    nested[(1,)](z, (a, 3), ((b, None if with_none else c), 2.5), BLOCK=64)
    expected = a + b * np.float32(2.5) + (0 if with_none else c) + 3
    np.testing.assert_allclose(z, expected, rtol=1e-6)


class View(NamedTuple):
    ptr: object
    stride: int
    size: int


@kl.jit
def strided_copy(src, dst, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < src.size
    tl.store(dst.ptr + offs * dst.stride, tl.load(src.ptr + offs * src.stride, mask=mask), mask=mask)


def test_namedtuple_arguments(host_target, inputs):
    x = inputs.normal(200)
    out = inputs.poisoned(200)
    strided_copy[(1,)](View(x, 3, 60), View(out, 2, 60), BLOCK=64)
    np.testing.assert_array_equal(out[0:120:2], x[0:180:3])
    assert np.isnan(out[1:120:2]).all()


def test_each_element_is_specialized(host_target, inputs):
    x = inputs.normal(64)
    out = inputs.poisoned(64)
    kernel = scale_each[(1,)]((x, x[1:]), (out, out[1:]), (1, 2.0), 32, BLOCK=64)
    meta = kernel.metadata
    assert list(meta["signature"]) == ["Ins.0", "Ins.1", "Outs.0", "Outs.1", "factors.1", "n"]
    assert meta["signature"]["Ins.1"] == "*fp32" and meta["signature"]["factors.1"] == "fp32"
    assert meta["constexprs"]["factors.0"] == 1  # an int equal to 1 is a constant, inside tuples too
    assert meta["specialization"] == {"Ins.0": {"divisibility": 16}, "Outs.0": {"divisibility": 16},
                                      "n": {"divisibility": 16}}  # x[1:] is not 16-byte aligned
    assert out[0] == x[0]  # out[1:] is written twice: by the first element, then by the second
    np.testing.assert_allclose(out[1:33], x[1:33] * 2, rtol=1e-6)


@kl.jit(do_not_specialize=["vals"])
def store_vals(out, vals):
    for i in tl.static_range(len(vals)):
        tl.store(out + i, vals[i])


def test_do_not_specialize_reaches_the_elements(host_target, inputs):
    out = inputs.poisoned(3, np.int32)
    kernel = store_vals[(1,)](out, (1, 32, 7))
    assert kernel.metadata["signature"] == {"out": "*i32", "vals.0": "i32", "vals.1": "i32", "vals.2": "i32"}
    assert kernel.metadata["specialization"] == {"out": {"divisibility": 16}}
    assert out.tolist() == [1, 32, 7]


class Pair(NamedTuple):
    a: object
    b: object


@kl.jit
def store_all(out, vals):
    for i in tl.static_range(len(vals)):
        tl.store(out + i, vals[i])


def test_the_structure_is_part_of_the_cache_key(host_target, inputs):
    out = inputs.poisoned(3, np.float32)
    calls = [(7, 9), Pair(7, 9), (7, 9, 11), (7, 1), (7, 9.0), (7, 32)]
    before = len(store_all.cache)
    kernels = [store_all[(1,)](out, vals) for vals in calls]
    assert len({k.hash for k in kernels}) == len(calls)
    assert len(store_all.cache) == before + len(calls)
    assert store_all[(1,)](out, (5, 6)) is kernels[0]  # a hit
    assert out.tolist() == [5, 6, 11]


def test_nested_structure_changes_the_cache_key(host_target, inputs):
    a, b, c = inputs.normal(64), inputs.normal(64), inputs.normal(64)
    z = inputs.poisoned(64)
    first = nested[(1,)](z, (a, 3), ((b, c), 2.5), BLOCK=64)
    second = nested[(1,)](z, (a, 3), ((b, None), 2.5), BLOCK=64)
    assert first.hash != second.hash and first is not second


@kl.jit
def add_pairs(pair, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(pair[0] + offs, mask=mask) + tl.load(pair[1] + offs, mask=mask), mask=mask)


native_only = pytest.mark.skipif(not (backend_available("cpu") and capi.supported()),
                                 reason="needs the cpu target and a CPython the native path supports")


@pytest.fixture
def native(monkeypatch):
    monkeypatch.setenv("KERNELLAB_NATIVE_LAUNCH", "1")
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")


def is_native(kernel: kl.JITFunction) -> bool:
    return type(kernel._head).__name__ == "builtin_function_or_method"


@native_only
def test_the_native_path_launches_tuples(native, inputs):
    for _ in range(4):  # native functions are made from a specialization's second launch on
        x, y, out = inputs.normal(100), inputs.normal(100), inputs.poisoned(100)
        add_pairs[(1,)]((x, y), out, 100, BLOCK=128)
        np.testing.assert_allclose(out, x + y, rtol=1e-6)
    assert is_native(add_pairs) and len(add_pairs._native.installed) == 1


@kl.jit
def mixed(out, T, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.load(T[0] + offs) * T[1] + T[2][0]
    if T[2][1] is not None:
        acc += tl.load(T[2][1] + offs)
    tl.store(out + offs, acc)


def mixed_reference(T, n=64):
    extra = T[2][1][:n] if T[2][1] is not None else 0
    return T[0][:n] * np.float32(T[1]) + np.float32(T[2][0]) + extra


@native_only
def test_every_element_is_checked_by_the_native_function(native, inputs):
    """Once a tuple specialization runs natively, a call differing in any element (type, value 1,
    alignment, length, class, None) is passed on to the binder, which compiles or reports it."""
    x, y = inputs.normal(80), inputs.normal(80)
    first = (x, 2.5, (3, y))
    variants = [(x, 2.5, (4, y)), (x[1:65], 2.5, (3, y)), (x, 2, (3, y)), (x, 2.5, (1, y)), (x, 2.5, (3, None)),
                (x, 2.5, (3, y[1:65])), (x, 2.5, (3.5, y)), (x, 2.5, (2**40, y))]
    for _ in range(3):
        out = inputs.poisoned(64)
        mixed[(1,)](out, first, BLOCK=64)
        np.testing.assert_allclose(out, mixed_reference(first), rtol=1e-6)
    assert is_native(mixed)
    for value in variants + [first]:
        out = inputs.poisoned(64)
        mixed[(1,)](out, value, BLOCK=64)
        np.testing.assert_allclose(out, mixed_reference(value), rtol=1e-5, err_msg=repr(value[1:]))
    with pytest.raises(KernelArgumentError, match=r"`T\[0\]` of `mixed` is a builtins.list"):
        mixed[(1,)](inputs.poisoned(64), ([1.0], 2.5, (3, y)), BLOCK=64)
    with pytest.raises(CompilationError, match="index 2 is out of range: `T` has 2 elements"):
        mixed[(1,)](inputs.poisoned(64), (x, 2.5), BLOCK=64)


@native_only
def test_namedtuples_and_keywords_natively(native, inputs):
    x = inputs.normal(200)
    for _ in range(3):
        out = inputs.poisoned(200)
        strided_copy[(1,)](src=View(x, 3, 60), dst=View(out, 2, 60), BLOCK=64)
        np.testing.assert_array_equal(out[0:120:2], x[0:180:3])
    assert is_native(strided_copy)
    out = inputs.poisoned(200)
    strided_copy[(1,)](View(x, 2, 60), View(out, 1, 60), BLOCK=64)  # stride 1: another specialization
    np.testing.assert_array_equal(out[:60], x[0:120:2])
    with pytest.raises(CompilationError, match="'tuple' object has no attribute 'size'"):  # not a View: the binder
        strided_copy[(1,)]((x, 3, 60), View(out, 2, 60), BLOCK=64)


@kl.jit
def tuple_or_scalar(a, out):
    tl.store(out, a[0] if isinstance(a, tl.tuple) else a)


@native_only
def test_a_native_function_of_another_specialization_passes_tuples_on(native, inputs):
    out = inputs.poisoned(1, np.int32)
    for value in (5, 6, 7):
        tuple_or_scalar[(1,)](value, out)
        assert out[0] == value
    for value in ((8, 0), (9, 0), (10, 0), 11, (12,)):
        tuple_or_scalar[(1,)](value, out)
        assert out[0] == (value[0] if isinstance(value, tuple) else value)


# ---- CUDA: the values a launcher receives (no GPU: a stand-in launcher) ----

class RecordingLauncher:
    """Takes the launch values as the CUDA launcher does (addresses, not Buffers)."""

    wants_buffers = False

    def __init__(self):
        self.calls = []

    def __call__(self, grid, values, stream=None):
        self.calls.append((grid, tuple(values)))


def test_cuda_launches_pass_each_element_as_a_value(inputs):
    kernel = kl.compile(nested, signature={"Z": "*fp32", "pair": ("*fp32", "i32"),
                                           "inner": (("*fp32", "constexpr"), "fp32")},
                        constexprs={"BLOCK": 64, "inner.0.1": None}, target="cuda:sm_90a")
    assert kernel.asm["cubin"]  # ptxas assembled it
    declared = [line for line in kernel.asm["ptx"].splitlines() if line.strip().startswith(".param ")]
    assert len(declared) == 5  # Z, pair[0], pair[1], inner[0][0], inner[1]
    a, b, z = inputs.normal(64), inputs.normal(64), inputs.poisoned(64)
    launcher = RecordingLauncher()
    kernel._launcher = launcher
    kernel.bind_values(["Z", "pair", "inner"], {"Z", "pair.0", "inner.0.0"})
    values = (z.ctypes.data, (a.ctypes.data, 3), ((b.ctypes.data, None), 2.5))
    kernel._run((2,), values, (z, (a, 3), ((b, None), 2.5)), None)
    kernel.launch((3,), z, (a, 3), ((b, None), 2.5), 64)  # all of the kernel's arguments, tuples as passed
    expected = (z.ctypes.data, a.ctypes.data, 3, b.ctypes.data, 2.5)
    assert launcher.calls == [((2, 1, 1), expected), ((3, 1, 1), expected)]


def test_kl_compile_takes_tuple_signatures_in_both_forms():
    ours = kl.compile(scale_each, signature={"Ins": ("*fp32", "*fp16"), "Outs": ("*fp32", "*fp16"),
                                             "factors": ("constexpr", "fp32"), "n": "i32"},
                      constexprs={"BLOCK": 64, "factors.0": 2}, arg_attrs={"Ins.0": {"divisibility": 16}},
                      target="interpret")
    triton = kl.compile(ASTSource(scale_each, {"Ins": ("*fp32", "*fp16"), "Outs": ("*fp32", "*fp16"),
                                               "factors": ("constexpr", "fp32"), "n": "i32", "BLOCK": "constexpr"},
                                  {(2, 0): 2, (4,): 64}, {(0, 0): [["tt.divisibility", 16]]}), target="interpret")
    for kernel in (ours, triton):
        assert kernel.metadata["signature"] == {"Ins.0": "*fp32", "Ins.1": "*fp16", "Outs.0": "*fp32",
                                                "Outs.1": "*fp16", "factors.1": "fp32", "n": "i32"}
        assert kernel.metadata["constexprs"] == {"BLOCK": 64, "factors.0": 2}
        assert kernel.metadata["specialization"] == {"Ins.0": {"divisibility": 16}}
    assert ours.hash == triton.hash


def test_kl_compile_names_a_constexpr_element_without_a_value():
    with pytest.raises(TypeError, match=r"`factors\[0\]` 'constexpr'.*'factors.0'"):
        kl.compile(scale_each, signature={"Ins": ("*fp32",), "Outs": ("*fp32",), "factors": ("constexpr",),
                                          "n": "i32"}, constexprs={"BLOCK": 64}, target="interpret")
    with pytest.raises(TypeError, match=r"`factors\[1\]`.*does not mark"):
        kl.compile(scale_each, signature={"Ins": ("*fp32",), "Outs": ("*fp32",), "factors": ("fp32",),
                                          "n": "i32"}, constexprs={"BLOCK": 64, "factors.1": 3}, target="interpret")


# ---- mistakes ----

def test_an_unsupported_element_is_named(host_target, inputs):
    out = inputs.poisoned(3, np.int32)
    with pytest.raises(KernelArgumentError, match=r"argument `vals\[1\]\[0\]` of `store_vals` is a builtins.dict"):
        store_vals[(1,)](out, (1, ({},)))
    with pytest.raises(KernelArgumentError, match=r"argument `vals\[2\]` of `store_vals` is a builtins.list"):
        store_vals[(1,)](out, (1, 2, [3]))


@kl.jit
def constexpr_param(out, T: tl.constexpr):
    tl.store(out, T[0])


def test_arrays_in_a_constexpr_tuple_are_refused(host_target, inputs):
    out = inputs.poisoned(1, np.int32)
    constexpr_param[(1,)](out, (4, 5))
    assert out[0] == 4
    with pytest.raises(KernelArgumentError, match="constexpr parameter `T` got a value of type tuple"):
        constexpr_param[(1,)](out, (out,))


@kl.jit
def out_of_range(T, out):
    tl.store(out, T[2])


@kl.jit
def runtime_index(T, out, i):
    tl.store(out, T[i])


def test_indexing_mistakes_are_compile_errors(host_target, inputs):
    out = inputs.poisoned(1, np.int32)
    with pytest.raises(CompilationError, match="index 2 is out of range: `T` has 2 elements"):
        out_of_range[(1,)]((3, 4), out)
    with pytest.raises(CompilationError, match="indexed with compile-time integers"):
        runtime_index[(1,)]((3, 4), out, 0)
    runtime_index[(1,)]((3, 4), out, 1)  # 1 is a constant
    assert out[0] == 4


def test_a_direct_launch_checks_the_structure(host_target, inputs):
    x, y, out = inputs.normal(16), inputs.normal(16), inputs.poisoned(16)
    kernel = add_pairs.warmup((x, y), out, 16, BLOCK=16, grid=(1,))
    kernel[(1,)]((x, y), out, 16, 16)
    np.testing.assert_allclose(out, x + y, rtol=1e-6)
    with pytest.raises(TypeError, match=r"argument `pair` does not have the structure.*`pair\[1\]`"):
        kernel[(1,)]((x,), out, 16, 16)


def test_reset_to_zero_zeroes_the_arrays_of_a_tuple(host_target, inputs):
    @kl.autotune(configs=[kl.Config({"BLOCK": 32}), kl.Config({"BLOCK": 64})], key=["n"], reset_to_zero=["Outs"])
    @kl.jit
    def accumulate(Ins, Outs, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        for i in tl.static_range(len(Ins)):
            tl.atomic_add(Outs[i] + offs, tl.load(Ins[i] + offs, mask=mask), mask=mask)

    x, y = inputs.normal(100), inputs.normal(100)
    ox, oy = np.zeros(100, np.float32), np.zeros(100, np.float32)
    accumulate[lambda meta: (kl.cdiv(100, meta["BLOCK"]),)]((x, y), (ox, oy), 100)
    np.testing.assert_allclose(ox, x, rtol=1e-6)
    np.testing.assert_allclose(oy, y, rtol=1e-6)


def test_messages_name_the_element(host_target, inputs):
    x, out = inputs.normal(64), inputs.poisoned(64)
    out.flags.writeable = False
    read_only = r"(argument `Outs\[1\]`.*read-only|read-only memory of argument 'Outs\[1\]')"
    with pytest.raises(kl.LaunchError if host_target == "cpu" else kl.InterpreterError, match=read_only):
        scale_each[(1,)]((x, x), (inputs.poisoned(64), out), (2.0, 3.0), 64, BLOCK=64)
    if host_target == "interpret":
        with pytest.raises(kl.InterpreterError, match=r"out-of-bounds store through argument 'Outs\[0\]'"):
            scale_each[(1,)]((x,), (inputs.poisoned(10),), (2.0,), 64, BLOCK=64)


def test_the_tuning_key_has_the_dtypes_of_a_tuples_arrays(host_target, inputs):
    @kl.autotune(configs=[kl.Config({"BLOCK": 32}), kl.Config({"BLOCK": 64})], key=["n"])
    @kl.jit
    def copy_each(Ins, Outs, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        for i in tl.static_range(len(Ins)):
            tl.store(Outs[i] + offs, tl.load(Ins[i] + offs, mask=offs < n), mask=offs < n)

    for dtype in (np.float32, np.float16):
        x, out = inputs.normal(100, dtype), inputs.poisoned(100, dtype)
        copy_each[lambda meta: (kl.cdiv(100, meta["BLOCK"]),)]((x,), (out,), 100)
        np.testing.assert_array_equal(out, x)
    assert {key[1:] for key in copy_each.cache} == {("float32", "float32"), ("float16", "float16")}
