"""Host tensor descriptors (``TensorDescriptor`` from ``kernellab.tools.tensor_descriptor``, as
Triton's ``triton.tools``) as kernel arguments: on every host target the kernel sees
``tl.make_tensor_descriptor`` of the descriptor's parts (loads and stores of blocks, edges
padded or dropped), the block shape and padding are constants of the specialization, the parts
are specialized as tuple elements, and for CUDA the descriptor made from them is one whose
tensor map the launch encodes (the TMA path, checked by compiling for sm_90a)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas
from kernellab.frontend.arguments import HostDescriptor
from kernellab.ir.types import from_signature
from kernellab.language.core import constexpr
from kernellab.tools.tensor_descriptor import TensorDescriptor
from tests.kernels import tutorials


@kl.jit
def scale_blocks(src, dst, factor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    block = src.load([pm * BLOCK_M, pn * BLOCK_N])
    dst.store([pm * BLOCK_M, pn * BLOCK_N], block * factor)


@pytest.mark.parametrize("shape, block", [((100, 72), (32, 16)), ((64, 64), (64, 64)), ((7, 40), (8, 8))])
def test_a_kernel_takes_host_descriptors(host_target, inputs, shape, block):
    x = inputs.normal(shape)
    y = np.full_like(x, np.nan)
    src, dst = TensorDescriptor.from_tensor(x, list(block)), TensorDescriptor.from_tensor(y, list(block))
    grid = (kl.cdiv(shape[0], block[0]), kl.cdiv(shape[1], block[1]))
    scale_blocks[grid](src, dst, 1.5, BLOCK_M=block[0], BLOCK_N=block[1])
    np.testing.assert_array_equal(y, x * np.float32(1.5))  # every element written, the edges dropped


def test_out_of_bounds_blocks_read_the_padding(host_target, inputs):
    x = inputs.normal((20, 24))
    y = np.full((32, 32), np.nan, np.float32)
    src = TensorDescriptor(x, list(x.shape), [24, 1], [32, 32], padding="nan")
    scale_blocks[(1, 1)](src, TensorDescriptor.from_tensor(y, [32, 32]), 1.0, BLOCK_M=32, BLOCK_N=32)
    np.testing.assert_array_equal(y[:20, :24], x)
    assert np.isnan(y[20:]).all() and np.isnan(y[:, 24:]).all()
    zeros = TensorDescriptor(x, list(x.shape), [24, 1], [32, 32])  # padding "zero"
    scale_blocks[(1, 1)](zeros, TensorDescriptor.from_tensor(y, [32, 32]), 1.0, BLOCK_M=32, BLOCK_N=32)
    assert (y[20:] == 0).all() and (y[:, 24:] == 0).all()


def test_the_block_shape_and_padding_are_part_of_the_specialization(host_target, inputs):
    x = inputs.normal((64, 64))
    y = np.full_like(x, np.nan)
    compiled = []
    for block, padding in (([16, 16], "zero"), ([32, 16], "zero"), ([16, 16], "zero"), ([16, 16], "nan")):
        src = TensorDescriptor(x, [64, 64], [64, 1], block, padding)
        compiled.append(scale_blocks[(64 // block[0], 64 // block[1])](src, TensorDescriptor.from_tensor(y, block),
                                                                       2.0, BLOCK_M=block[0], BLOCK_N=block[1]))
        np.testing.assert_array_equal(y, x * 2)
    assert compiled[0] is compiled[2] and len({id(c) for c in compiled}) == 3


def test_a_descriptor_of_the_wrong_block_is_refused_by_the_kernel(host_target, inputs):
    x = inputs.normal((64, 64))
    src = TensorDescriptor.from_tensor(x, [16, 16])
    dst = TensorDescriptor.from_tensor(np.zeros_like(x), [32, 32])
    with pytest.raises(Exception, match=r"(?i)shape|block"):
        scale_blocks[(1, 1)](src, dst, 1.0, BLOCK_M=16, BLOCK_N=16)


def _entry(dtype: str, block: tuple[int, int]) -> HostDescriptor:
    return HostDescriptor(from_signature(f"*{dtype}"), (from_signature("i32"), from_signature("i32")),
                          (from_signature("i32"), constexpr(1)), tuple(constexpr(b) for b in block), constexpr("zero"))


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_on_cuda_host_descriptors_are_tensor_maps_the_launch_encodes():
    """Tutorial 09's host-descriptor matmul compiled for sm_90a: each descriptor's parts are
    kernel parameters, so its tensor map is a hidden parameter the launch encodes and the rings
    are filled by the tensor memory accelerator."""
    signature = {"a_desc": _entry("fp16", (128, 64)), "b_desc": _entry("fp16", (128, 64)),
                 "c_desc": _entry("fp16", (128, 128)), "M": "i32", "N": "i32", "K": "i32"}
    attrs = {name: {"divisibility": 16} for name in ("a_desc.0", "b_desc.0", "c_desc.0", "a_desc.2.0",
                                                     "b_desc.2.0", "c_desc.2.0", "M", "N", "K")}
    kernel = kl.compile(tutorials.matmul_host_descriptor_kernel, signature=signature, target="cuda:sm_90a",
                        constexprs={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64},
                        arg_attrs=attrs, num_warps=4, num_stages=3)
    maps = kernel.metadata["tma"]
    assert [m["box"] for m in maps] == [[128, 64], [128, 64], [128, 64]] and len(maps) == 3
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in kernel.asm["ptx"]
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in kernel.asm["ptx"]


def _blocks_from_the_config(nargs):
    """Liger-Kernel's way: descriptors made with a placeholder block shape, which each autotuned
    config's pre_hook sets before the launch that compiles it."""
    for name in ("src", "dst"):
        nargs[name].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]


@kl.autotune(configs=[kl.Config({"BLOCK_M": m, "BLOCK_N": n}, pre_hook=_blocks_from_the_config)
                      for m, n in ((16, 8), (32, 16))], key=["rows"])
@kl.jit
def tuned_scale_blocks(src, dst, factor, rows, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    dst.store([pm * BLOCK_M, pn * BLOCK_N], src.load([pm * BLOCK_M, pn * BLOCK_N]) * factor)


def test_a_config_pre_hook_sets_the_block_shape_before_the_sweep_compiles(host_target, inputs):
    x = inputs.normal((40, 24))
    y = np.full_like(x, np.nan)
    src, dst = TensorDescriptor.from_tensor(x, [1, 1]), TensorDescriptor.from_tensor(y, [1, 1])
    grid = lambda meta: (kl.cdiv(40, meta["BLOCK_M"]), kl.cdiv(24, meta["BLOCK_N"]))  # noqa: E731
    tuned_scale_blocks[grid](src, dst, 0.5, 40)
    np.testing.assert_array_equal(y, x * np.float32(0.5))
    assert all(t[0] < float("inf") for t in tuned_scale_blocks.configs_timings.values())  # both compiled and ran
