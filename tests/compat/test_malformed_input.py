"""Malformed kernels and launches end in a user-facing error naming what is wrong (issue 16's
list: huge grids, shifts of pointers, slicing scalars, read-only arrays, option and grid-function
mistakes, messages that came from Python internals, an edited PTX with other parameters)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda.ptx_params import entry_params
from kernellab.errors import LaunchError, OptionValueError


@kl.jit
def copy_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("grid", [(2**32,), (2**31,), (2**63,), (1, 2**64), (1, 1, 2**40)])
def test_grids_past_int32_program_ids_are_refused(host_target, inputs, grid):
    x, o = inputs.normal(100), inputs.poisoned(100)
    for _ in range(3):  # the native launch path is in front of the binder from the third launch
        copy_kernel[(1,)](x, o, 100, BLOCK=128)
    with pytest.raises(LaunchError, match=r"grid dimension \d+ is too large: program ids are int32"):
        copy_kernel[grid](x, o, 100, BLOCK=128)
    with pytest.raises(LaunchError, match="too large"):
        copy_kernel.warmup(tl.float32, tl.float32, 100, BLOCK=128, grid=(1,))[grid](x, o, 100, 128)


@kl.jit
def shift_pointer_kernel(x_ptr, o_ptr):
    offs = tl.arange(0, 8)
    tl.store(o_ptr >> offs, tl.load(x_ptr + offs))


@kl.jit
def slice_scalar_kernel(x_ptr, o_ptr):
    offs = tl.arange(0, 8)
    tl.store(o_ptr + offs, tl.load(x_ptr[:, None, None] + offs[None, :]))


@kl.jit
def scan_without_axis_kernel(x_ptr, o_ptr):
    offs = tl.arange(0, 8)
    tl.store(o_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=None))


@kl.jit
def index_a_number_kernel(x_ptr, o_ptr):
    offs = tl.arange(0, 8)
    c = 1j
    tl.store(o_ptr + offs, tl.load(x_ptr + offs) * c[0])


@kl.jit
def tensor_attribute_kernel(x_ptr, o_ptr):
    offs = tl.arange(0, 8)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs, x.load(offs))


@pytest.mark.parametrize("kernel, message", [
    (shift_pointer_kernel, r"pointer<fp32> and int32: this operation does not take pointers"),
    (slice_scalar_kernel, r"cannot index a scalar with \[:, None, None\].*use None to add dims"),
    (scan_without_axis_kernel, r"tl.cumsum needs an axis \(an integer\).*got None"),
    (index_a_number_kernel, r"`c` is a complex \(1j\), which cannot be indexed"),
    (tensor_attribute_kernel, r"`x` is a tensor \(fp32\[8\]\), which has no attribute `load`; a tensor has: "),
], ids=["shr-pointer", "slice-scalar", "cumsum-axis-none", "index-number", "tensor-attribute"])
def test_mistakes_get_messages_that_say_what_is_allowed(launch, inputs, kernel, message):
    with pytest.raises(kl.CompilationError, match=message) as error:
        launch(kernel, (1,), inputs.normal(8), inputs.poisoned(8))
    assert "test_malformed_input.py:" in str(error.value)  # the kernel's file and line


def test_read_only_arrays_are_refused_where_the_kernel_writes(host_target, inputs):
    x = inputs.normal(100)
    x.setflags(write=False)
    o = inputs.poisoned(100)
    for _ in range(3):  # read-only inputs are fine, on the binder and the native path
        copy_kernel[(1,)](x, o, 100, BLOCK=128)
    np.testing.assert_array_equal(o, x)
    frozen = inputs.poisoned(100)
    frozen.setflags(write=False)
    for grid in [(1,), (1,), (1,), (1, 1), lambda meta: (1,)]:  # a 1-d grid is checked on a path of its own
        with pytest.raises((LaunchError, kl.InterpreterError), match="read-only"):
            copy_kernel[grid](x, frozen, 100, BLOCK=128)
    assert np.isnan(frozen).all()


def test_the_written_arguments_are_recorded(monkeypatch):
    compiled = copy_kernel.warmup(tl.float32, tl.float32, 100, BLOCK=128, grid=(1,))
    assert compiled.metadata["written_args"] == ["o_ptr"]


@pytest.mark.parametrize("option, message", [({"num_warps": 0}, "num_warps"), ({"num_stages": -1}, "num_stages")])
def test_bad_options_name_the_kernel(launch, inputs, option, message):
    with pytest.raises(OptionValueError, match=f"`copy_kernel` cannot be compiled with these options: {message}"):
        launch(copy_kernel, (1,), inputs.normal(8), inputs.poisoned(8), 8, BLOCK=8, **option)
    assert issubclass(OptionValueError, ValueError) and issubclass(OptionValueError, LaunchError)


def test_grid_functions_must_take_the_launch_dict(inputs, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x, o = inputs.normal(8), inputs.poisoned(8)
    with pytest.raises(LaunchError, match="the grid of `copy_kernel` is a function, so it must take one argument"):
        copy_kernel[lambda: (1,)](x, o, 8, BLOCK=8)
    with pytest.raises(ZeroDivisionError):  # an error inside the grid function stays its own
        copy_kernel[lambda meta: (1 // 0,)](x, o, 8, BLOCK=8)


def test_an_argument_given_twice_names_the_kernel(inputs, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    with pytest.raises(TypeError, match=r"copy_kernel\[grid\]\(\) got multiple values for argument 'BLOCK'"):
        copy_kernel[(1,)](inputs.normal(8), inputs.poisoned(8), 8, 8, BLOCK=8)


SIGNATURE = {"x_ptr": "*fp32", "o_ptr": "*fp32", "n": "i32"}


def test_an_edited_ptx_with_another_parameter_list_is_refused(tmp_path):
    compiled = kl.compile(copy_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cuda:sm_90a")
    ptx = compiled.asm["ptx"]
    params = entry_params(ptx)["copy_kernel"]
    assert params == ["u64", "u64", "u32"]
    edited = tmp_path / "copy_kernel.ptx"
    last = ptx.index(".param .u32 copy_kernel_param_2") + len(".param .u32 copy_kernel_param_2")
    edited.write_text(ptx[:last] + ",\n\t.param .u32 copy_kernel_param_3" + ptx[last:])
    mismatch = (r"declares 4 parameter\(s\) of `copy_kernel` \(.u64, .u64, .u32, .u32\), "
                r"but the launch passes 3 \(x_ptr: .u64, o_ptr: .u64, n: .u32\)")
    with pytest.raises(kl.CompilationError, match=mismatch):
        kl.compile(copy_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cuda:sm_90a",
                   ir_override=str(edited))
    # trailing 64-bit parameters are Triton's scratch pointers: passed as null pointers
    edited.write_text(ptx[:last] + ",\n\t.param .u64 .ptr .global .align 1 copy_kernel_param_3,"
                      "\n\t.param .u64 copy_kernel_param_4" + ptx[last:])
    accepted = kl.compile(copy_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cuda:sm_90a",
                          ir_override=str(edited))
    assert accepted.metadata["null_params"] == 2
    edited.write_text(ptx.replace(".entry copy_kernel(", ".entry renamed("))
    with pytest.raises(kl.CompilationError, match="has no .entry named `copy_kernel` .its entries: renamed"):
        kl.compile(copy_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cuda:sm_90a",
                   ir_override=str(edited))
    edited.write_text(ptx)  # the same parameters: accepted
    kl.compile(copy_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128}, target="cuda:sm_90a",
               ir_override=str(edited))
