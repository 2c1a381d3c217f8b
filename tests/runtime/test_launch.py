"""Launching jit kernels: binding, grids, constexprs, keyword arguments, launch options and the
errors a wrong launch gets."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

from . import sample_kernels as sk


@pytest.fixture
def interpret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")


def fresh(kernel: kl.JITFunction, **options) -> kl.JITFunction:
    """A new JITFunction for the same Python function (its own, empty, memory cache)."""
    return kl.jit(kernel.fn, **options)


def test_vector_add_on_every_target(target, inputs, monkeypatch):
    n = 1000  # not a multiple of the block
    x, y = inputs.normal(n), inputs.normal(n)
    out = inputs.poisoned(n)
    if target == "cuda":
        dx, dy, dout = kl.to_device(x), kl.to_device(y), kl.to_device(out)
        sk.add_kernel[(kl.cdiv(n, 128),)](dx, dy, dout, n, BLOCK=128)
        out = dout.numpy()
    else:
        monkeypatch.setenv("KERNELLAB_TARGET", target)
        compiled = sk.add_kernel[(kl.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
        assert compiled.target == target
    np.testing.assert_array_equal(out, x + y)


def test_default_target_follows_host_arrays(inputs, monkeypatch):
    from kernellab.runtime.targets import default_host_target

    monkeypatch.delenv("KERNELLAB_TARGET", raising=False)
    monkeypatch.delenv("KERNELLAB_INTERPRET", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    x, y, out = inputs.normal(64), inputs.normal(64), inputs.poisoned(64)
    compiled = sk.add_kernel[(1,)](x, y, out, 64, BLOCK=64)
    assert compiled.target == default_host_target()
    np.testing.assert_array_equal(out, x + y)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    out[:] = np.nan
    assert sk.add_kernel[(1,)](x, y, out, 64, BLOCK=64).target == "interpret"
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("grid", [(8,), [8], (8, 1), (8, 1, 1)], ids=["tuple", "list", "2d", "3d"])
def test_grid_forms(grid, inputs, interpret):
    n = 1000
    x, y, out = inputs.normal(n), inputs.normal(n), inputs.poisoned(n)
    sk.add_kernel[grid](x, y, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x + y)


def test_callable_grid_sees_arguments_and_options(inputs, interpret):
    n = 1000
    x, y, out = inputs.normal(n), inputs.normal(n), inputs.poisoned(n)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (kl.cdiv(meta["n"], meta["BLOCK"]),)

    sk.add_kernel[grid](x, y, out, n, BLOCK=128, num_warps=2)
    np.testing.assert_array_equal(out, x + y)
    assert seen["n"] == n and seen["BLOCK"] == 128 and seen["x_ptr"] is x
    assert seen["num_warps"] == 2 and "num_stages" in seen


def test_multidimensional_grid(interpret):
    grid = (3, 4, 5)
    out = np.full(60, -1, np.int32)
    sk.program_ids_kernel[grid](out)
    p0, p1, p2 = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), indexing="ij")
    expected = np.zeros(60, np.int32)
    expected[(p0 + 3 * (p1 + 4 * p2)).ravel()] = (p0 + 100 * p1 + 10000 * p2).ravel()
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("grid", [(0,), (4, 0), (2, 2, 0)])
def test_grid_with_a_zero_dimension_launches_nothing(grid, inputs, interpret):
    x, y, out = inputs.normal(64), inputs.normal(64), inputs.poisoned(64)
    compiled = sk.add_kernel[grid](x, y, out, 64, BLOCK=64)
    assert isinstance(compiled, kl.CompiledKernel)
    assert np.isnan(out).all()


def test_negative_grid_is_an_error(inputs, interpret):
    with pytest.raises(kl.LaunchError, match=">= 0"):
        sk.add_kernel[(-1,)](inputs.normal(4), inputs.normal(4), inputs.poisoned(4), 4, BLOCK=4)


def test_keyword_arguments_defaults_and_scalars(inputs, interpret):
    n = 300
    x, out = inputs.normal(n), inputs.poisoned(n)
    sk.axpy_kernel[(kl.cdiv(n, 64),)](x, out_ptr=out, alpha=1.5, n=n)  # BLOCK from its default (64)
    np.testing.assert_allclose(out, np.float32(1.5) * x, rtol=1e-6)
    out[:] = np.nan
    compiled = sk.axpy_kernel[(kl.cdiv(n, 32),)](x, out, n, np.float32(-2.0), 32)  # constexpr positionally
    np.testing.assert_allclose(out, -2 * x, rtol=1e-6)
    assert compiled.metadata.constexprs["BLOCK"] == 32


def test_none_argument_is_a_constexpr(inputs, interpret):
    n = 100
    x, bias, out = inputs.normal(n), inputs.normal(n), inputs.poisoned(n)
    with_bias = sk.optional_bias[(1,)](x, bias, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x + bias)
    out[:] = np.nan
    without = sk.optional_bias[(1,)](x, None, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x)
    assert "bias_ptr" in with_bias.metadata.signature
    assert without.metadata.constexprs["bias_ptr"] is None and "bias_ptr" not in without.metadata.signature


def test_unknown_keyword_names_it_and_lists_what_is_allowed(inputs, interpret):
    x = inputs.normal(16)
    with pytest.raises(TypeError) as info:
        sk.add_kernel[(1,)](x, x, x, 16, BLOCK=16, num_warp=4)
    message = str(info.value)
    assert "`num_warp`" in message
    assert "x_ptr, y_ptr, out_ptr, n, BLOCK" in message and "num_warps" in message and "stream" in message


def test_too_many_arguments(inputs, interpret):
    x = inputs.normal(16)
    with pytest.raises(TypeError, match=r"`add_kernel` takes 5 arguments \(x_ptr, y_ptr, out_ptr, n, BLOCK\); got 6"):
        sk.add_kernel[(1,)](x, x, x, 16, 16, 99)


@pytest.mark.parametrize("missing", ["n", "BLOCK"])
def test_missing_argument(missing, inputs, interpret):
    x = inputs.normal(16)
    kwargs = {"n": 16, "BLOCK": 16}
    del kwargs[missing]
    with pytest.raises(TypeError, match=f"missing `{missing}`"):
        sk.add_kernel[(1,)](x, x, x, **kwargs)


def test_argument_given_twice(inputs, interpret):
    x = inputs.normal(16)
    with pytest.raises(TypeError, match="multiple values for argument 'x_ptr'"):
        sk.add_kernel[(1,)](x, x, x, 16, x_ptr=x, BLOCK=16)


def test_unsupported_argument_type_names_the_parameter(interpret):
    x = np.zeros(16, np.float32)
    with pytest.raises(TypeError, match="argument `y_ptr` of `add_kernel` is a builtins.dict"):
        sk.add_kernel[(1,)](x, {}, x, 16, BLOCK=16)


def test_launch_options_reach_the_compiled_kernel(inputs, interpret):
    x, y, out = inputs.normal(64), inputs.normal(64), inputs.poisoned(64)
    compiled = sk.add_kernel[(1,)](x, y, out, 64, BLOCK=64, num_warps=8, num_stages=2)
    assert compiled.metadata.num_warps == 8 and compiled.metadata.num_stages == 2
    assert compiled.metadata.debug is True  # the interpreter runs with device_assert active by default
    np.testing.assert_array_equal(out, x + y)


def test_run_and_warmup(inputs, interpret):
    n = 200
    x, y, out = inputs.normal(n), inputs.normal(n), inputs.poisoned(n)
    kernel = fresh(sk.add_kernel)
    warm = kernel.warmup(x, y, out, n, BLOCK=64, grid=(4,))
    assert isinstance(warm, kl.CompiledKernel) and np.isnan(out).all()
    assert {"source", "tile"} <= set(warm.asm)
    ran = kernel.run(x, y, out, n, BLOCK=64, grid=(4,))
    assert ran is warm  # the warmed-up kernel is the one launched
    np.testing.assert_array_equal(out, x + y)


def test_warmup_with_dtypes_for_pointers(interpret):
    kernel = fresh(sk.add_kernel)
    compiled = kernel.warmup(tl.float16, np.dtype(np.float16), "*fp16", 1024, BLOCK=128, grid=(8,))
    assert compiled.metadata.signature == {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"}
    assert compiled.metadata.specialization["n"] == {"divisibility": 16}


@kl.jit
def cast_kernel(x_ptr, out_ptr, n, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n).to(OUT_DTYPE), mask=offs < n)


@pytest.mark.parametrize("how", ["positional", "keyword"])
def test_warmup_keeps_a_dtype_given_for_a_constexpr(inputs, interpret, how):
    """A dtype for a pointer parameter stands for a pointer; for a constexpr it is the value
    (Liger-Kernel's kernels take tl.float32 as a constexpr: warmup mocked it as a pointer)."""
    kernel = fresh(cast_kernel)
    if how == "positional":
        compiled = kernel.warmup(tl.float32, tl.float16, 100, tl.float16, 128, grid=(1,))
    else:
        compiled = kernel.warmup(tl.float32, tl.float16, 100, OUT_DTYPE=tl.float16, BLOCK=128, grid=(1,))
    assert compiled.metadata.signature["out_ptr"] == "*fp16"
    x, out = inputs.normal(100), np.full(100, np.nan, np.float16)
    kernel[(1,)](x, out, 100, tl.float16, 128)
    np.testing.assert_array_equal(out, x.astype(np.float16))


def test_calling_a_kernel_directly_is_an_error():
    with pytest.raises(RuntimeError, match=r"add_kernel\[grid\]"):
        sk.add_kernel(1, 2, 3)


def test_jit_function_attributes():
    kernel = sk.axpy_kernel
    assert kernel.__kernellab_jit__ is True and kernel.__name__ == "axpy_kernel" and kernel.fn.__name__ == "axpy_kernel"
    assert kernel.arg_names == ["x_ptr", "out_ptr", "n", "alpha", "BLOCK"]
    assert [p.is_constexpr for p in kernel.params] == [False, False, False, False, True]
    assert kernel.params[4].annotation == "tl.constexpr" and kernel.params[4].default == 64
    assert kernel.src.startswith("def axpy_kernel(")  # from the def line, as Triton 3.6's src
    assert repr(kernel) == f"JITFunction({sk.__name__}:axpy_kernel)"
    assert kernel.noinline is False and kl.jit(noinline=True)(kernel.fn).noinline is True
    unspecialized = sk.add_unspecialized
    assert unspecialized.do_not_specialize == {3} and unspecialized.do_not_specialize_on_alignment == {0}


def test_do_not_specialize_ignores_what_is_no_parameter():
    # as Triton: FlagGems lists names of a kernel that has no parameters yet
    kernel = kl.jit(do_not_specialize=["nope", 7, "n"])(sk.add_kernel.fn)
    assert kernel.do_not_specialize == {3}

    def unwritten():
        pass

    assert kl.jit(do_not_specialize=["seqlen"])(unwritten).do_not_specialize == set()
    with pytest.raises(TypeError, match="1.5.*x_ptr, y_ptr, out_ptr, n, BLOCK"):
        kl.jit(do_not_specialize=[1.5])(sk.add_kernel.fn)


def test_jit_function_signature_is_the_functions():
    kernel = kl.jit(sk.add_kernel.fn)
    assert kernel.signature == inspect.signature(sk.add_kernel.fn)
    assert list(kernel.signature.parameters) == kernel.arg_names
    assert kernel.__globals__ is sk.add_kernel.fn.__globals__


@kl.jit
def sum_of(out_ptr, *inputs, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(inputs[0] + offs))


@kl.jit
def calls_sum_of(out_ptr, x_ptr, BLOCK: tl.constexpr):
    sum_of(out_ptr, x_ptr, BLOCK=BLOCK)


def test_a_kernel_with_star_args_is_decorated_but_not_launched(host_target):
    """As in Triton, ``*inputs`` is a parameter of the JITFunction (code generators such as
    xformers' unroll_varargs rewrite its source into ``inputs0, inputs1...``); launching it,
    compiling it or calling it from a kernel says why not."""
    assert sum_of.arg_names == ["out_ptr", "inputs", "BLOCK"]
    x, out = np.ones(16, np.float32), np.zeros(16, np.float32)
    with pytest.raises(TypeError, match=r"plain positional parameters; `\*inputs` is not"):
        sum_of[(1,)](out, x, BLOCK=16)
    with pytest.raises(kl.CompilationError, match="variadic parameter `inputs`") as error:
        calls_sum_of[(1,)](out, x, BLOCK=16)
    assert "sum_of(out_ptr, x_ptr, BLOCK=BLOCK)" in str(error.value)  # the call's line, with a caret
