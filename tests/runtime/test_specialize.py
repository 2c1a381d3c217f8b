"""Specialization keys (Triton's rules) and what they do to the compiled kernel."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.runtime import specialize as S

from . import sample_kernels as sk


@pytest.fixture
def interpret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")


@pytest.mark.parametrize("value, key", [
    (1, S.ONE), (0, "i32/16"), (16, "i32/16"), (-32, "i32/16"), (17, "i32"), (-7, "i32"),
    (2**31 - 1, "i32"), (2**31, "i64/16"), (-(2**31) - 1, "i64"), (2**63 - 16, "i64/16"), (2**63, "u64/16"),
    (2**64 - 1, "u64"), (True, "i1"), (False, "i1"), (1.0, "fp32"), (None, S.NONE),
    (np.float16(1.5), "fp16"), (np.float64(2.0), "fp64"), (np.int64(32), "i64/16"), (np.int8(3), "i8"),
    (np.uint32(5), "u32"), (np.bool_(True), "i1"),
])
def test_scalar_keys(value, key):
    found, launch_value = S.FULL[type(value)](value)
    assert found == key
    if found not in (S.ONE, S.NONE):
        assert launch_value == value and type(launch_value) in (int, float, bool)


def test_integers_beyond_64_bits_are_invalid():
    key, _ = S.FULL[int](2**64)
    assert S.decode(key).kind == "invalid" and "64 bits" in S.decode(key).value


def test_rules_without_specialization():
    assert S.NO_SPEC[int](1)[0] == "i32" and S.NO_SPEC[int](32)[0] == "i32" and S.NO_SPEC[int](2**40)[0] == "i64"
    assert S.NO_ALIGN[int](1)[0] == S.ONE and S.NO_ALIGN[int](32)[0] == "i32"
    assert S.NO_ALIGN[np.int64](np.int64(32))[0] == "i64"


def test_pointer_keys_follow_alignment(rng):
    whole = rng.standard_normal(64).astype(np.float32)
    assert whole.ctypes.data % 16 == 0  # numpy aligns its allocations
    shifted = whole[1:]
    assert S.FULL[np.ndarray](whole) == ("*fp32@cpu/16", whole.ctypes.data)
    assert S.FULL[np.ndarray](shifted) == ("*fp32@cpu", shifted.ctypes.data)
    assert S.NO_ALIGN[np.ndarray](whole)[0] == "*fp32@cpu" and S.NO_SPEC[np.ndarray](whole)[0] == "*fp32@cpu"
    assert S.FULL[np.ndarray](whole[4:])[0] == "*fp32@cpu/16"
    assert S.FULL[np.ndarray](np.zeros(3, np.bool_))[0].startswith("*i1@cpu")


def test_addresses_are_read_correctly_for_views(rng):
    base = rng.standard_normal((8, 8)).astype(np.float64)
    for view in (base, base[3:], base[:, 2], base[::-1], base.T, np.asfortranarray(base)):
        assert S.FULL[type(view)](view)[1] == view.__array_interface__["data"][0]


def test_constants_and_unsupported_values():
    assert S.FULL[str]("relu")[0] == (S.CONST, "relu", str)
    assert S.FULL[type(tl.float16)](tl.float16)[0] == (S.CONST, tl.float16, type(tl.float16))
    assert S.FULL[tl.constexpr](tl.constexpr(8))[0] == (S.CONST, 8, int)
    assert S.FULL[kl.JITFunction](sk.add_kernel)[0][1] is sk.add_kernel
    assert S.decode(S.FULL[dict]({})[0]).kind == "invalid"


@pytest.mark.parametrize("key, kind, signature, divisibility, location", [
    ("*fp32@cpu/16", "pointer", "*fp32", 16, "cpu"), ("*bf16@cuda:1", "pointer", "*bf16", 1, "cuda:1"),
    ("i64/16", "scalar", "i64", 16, None), ("fp32", "scalar", "fp32", 1, None), ("i1", "scalar", "i1", 1, None),
])
def test_decode(key, kind, signature, divisibility, location):
    spec = S.decode(key)
    assert (spec.kind, spec.signature, spec.divisibility, spec.location) == (kind, signature, divisibility, location)


def launch_add(kernel, inputs, n, x_offset=0):
    x = inputs.normal(n + x_offset)[x_offset:]
    y, out = inputs.normal(n), inputs.poisoned(n)
    compiled = kernel[(kl.cdiv(n, 64),)](x, y, out, n, BLOCK=64)
    np.testing.assert_array_equal(out, x + y)
    return compiled


def test_specialization_reaches_the_compiled_kernel(inputs, interpret):
    kernel = kl.jit(sk.add_kernel.fn)
    divisible = launch_add(kernel, inputs, 64)
    everything = ("x_ptr", "y_ptr", "out_ptr", "n")
    assert divisible.metadata.specialization == {name: {"divisibility": 16} for name in everything}
    assert "divisibility = 16" in divisible.asm["tile"]
    plain = launch_add(kernel, inputs, 50)
    assert "n" not in plain.metadata.specialization and plain.metadata.signature["n"] == "i32"
    one = launch_add(kernel, inputs, 1)
    assert one.metadata.constexprs["n"] == 1 and "n" not in one.metadata.signature
    unaligned = launch_add(kernel, inputs, 64, x_offset=1)
    assert "x_ptr" not in unaligned.metadata.specialization and "y_ptr" in unaligned.metadata.specialization
    assert len({id(k) for k in (divisible, plain, one, unaligned)}) == 4 and len(kernel.cache) == 4


def test_do_not_specialize(inputs, interpret):
    kernel = kl.jit(sk.add_unspecialized.fn, do_not_specialize=["n"], do_not_specialize_on_alignment=[0])
    one = launch_add(kernel, inputs, 1)
    assert one.metadata.signature["n"] == "i32" and "n" not in one.metadata.constexprs
    sixty_four = launch_add(kernel, inputs, 64)
    assert sixty_four is one  # n's value no longer matters
    assert "x_ptr" not in one.metadata.specialization and "y_ptr" in one.metadata.specialization
    assert len(kernel.cache) == 1


def test_same_value_different_type_compiles_separately(inputs, interpret):
    kernel = kl.jit(sk.axpy_kernel.fn)
    x, out = inputs.normal(64), inputs.poisoned(64)
    as_int = kernel[(1,)](x, out, 64, 3, BLOCK=64)
    np.testing.assert_array_equal(out, 3 * x)
    as_float = kernel[(1,)](x, out, 64, 3.0, BLOCK=64)
    as_bool = kernel[(1,)](x, out, 64, True, BLOCK=64)
    assert as_int.metadata.signature["alpha"] == "i32"
    assert as_float.metadata.signature["alpha"] == "fp32" and as_bool.metadata.signature["alpha"] == "i1"
    block_int, block_float = kernel.warmup(x, out, 64, 2.0, BLOCK=64), kernel.warmup(x, out, 64, 2.0, BLOCK=64)
    assert block_int is block_float and len(kernel.cache) == 3


def test_numpy_dtypes_of_pointers(inputs, interpret):
    kernel = kl.jit(sk.add_kernel.fn)
    for dtype, name in [(np.float16, "*fp16"), (np.float64, "*fp64"), (np.int32, "*i32"), (np.uint8, "*u8")]:
        x, y = inputs.integers(32, 1, 50).astype(dtype), inputs.integers(32, 1, 50).astype(dtype)
        out = np.zeros(32, dtype)
        compiled = kernel[(1,)](x, y, out, 32, BLOCK=32)
        assert compiled.metadata.signature["x_ptr"] == name
        np.testing.assert_array_equal(out, x + y)


def test_a_parameters_annotation_is_read_once_when_the_kernel_is_made(monkeypatch):
    """What a parameter's annotation and default say is worked out when the kernel is made: a
    launch asks is_constexpr, has_default, is_const and annotated_type of every parameter many
    times (re-reading the annotation each time cost a new process's first launch ~0.16 M
    instructions)."""
    from kernellab.runtime import jit as jit_module

    @kl.jit
    def kernel(x_ptr, v: tl.float16, p: tl.const, n: tl.constexpr, m=4):
        pass

    asked = []
    for name in ("is_constexpr_annotation", "is_const_annotation", "annotation_type"):
        monkeypatch.setattr(jit_module, name, lambda *args, name=name: asked.append(name))
    facts = [(p.is_constexpr, p.has_default, p.is_const, p.annotated_type) for p in kernel.params]
    assert asked == []
    assert facts == [(False, False, False, None), (False, False, False, tl.float16), (False, False, True, None),
                     (True, False, False, None), (False, True, False, None)]
