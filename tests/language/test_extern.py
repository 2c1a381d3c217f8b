"""``tl.core.extern`` / ``tl.core.extern_elementwise``: library functions declared the way Triton's
libdevice declares them (a dictionary from argument dtypes to a symbol and a result dtype) run on
every target for libdevice's symbols; NVVM's special registers on CUDA; anything else is an
error that says what is known."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas
from kernellab.language import core


@core.extern
def exp_by_symbol(arg0, _semantic=None):
    return core.extern_elementwise("", "", [arg0], {
        (core.dtype("fp32"),): ("__nv_expf", core.dtype("fp32")),
        (core.dtype("fp64"),): ("__nv_exp", core.dtype("fp64")),
    }, is_pure=True, _semantic=_semantic)


@core.extern
def div_rn_by_symbol(arg0, arg1, _builder=None):  # as written for Triton before 3.4
    return core.extern_elementwise("", "", [arg0, arg1], {
        (core.dtype("fp32"), core.dtype("fp32")): ("__nv_fdiv_rn", core.dtype("fp32")),
    }, is_pure=True, _builder=_builder)


@core.extern
def popc_by_symbol(arg0, _semantic=None):
    return core.extern_elementwise("", "", [arg0], {
        (core.dtype("int32"),): ("__nv_popc", core.dtype("int32")),
        (core.dtype("int64"),): ("__nv_popcll", core.dtype("int32")),
    }, is_pure=True, _semantic=_semantic)


@core.extern
def sm_id(_semantic=None):
    return core.extern_elementwise("", "", [], {(): ("llvm.nvvm.read.ptx.sreg.smid", core.dtype("int32"))},
                                   is_pure=False, _semantic=_semantic)


@core.extern
def from_own_library(x, _semantic=None):
    return core.extern_elementwise("mine", "/opt/mine.bc", [x], {(core.dtype("fp32"),): ("mine_f", core.dtype("fp32"))},
                                   is_pure=True, _semantic=_semantic)


@core.extern
def fp64_only(x, _semantic=None):
    return core.extern_elementwise("", "", [x], {(core.dtype("fp64"),): ("__nv_exp", core.dtype("fp64"))},
                                   is_pure=True, _semantic=_semantic)


@kl.jit
def by_symbols(x_ptr, y_ptr, z_ptr, i_ptr, count_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, exp_by_symbol(x) + div_rn_by_symbol(x, tl.load(y_ptr + offs, mask=mask)), mask=mask)
    tl.store(count_ptr + offs, popc_by_symbol(tl.load(i_ptr + offs, mask=mask)), mask=mask)


@kl.jit
def exp_of_scalar(out_ptr, x):
    tl.store(out_ptr, exp_by_symbol(x))


@kl.jit
def sm_ids(out_ptr):
    tl.store(out_ptr + tl.program_id(0), sm_id())


@kl.jit
def calls_own_library(ptr):
    tl.store(ptr, from_own_library(tl.load(ptr)))


@kl.jit
def calls_with_other_types(ptr):
    tl.store(ptr, fp64_only(tl.load(ptr)))


def test_libdevice_symbols_run_on_the_host(host_target) -> None:
    rng = np.random.default_rng(7)
    n = 1000
    x, y = rng.random(n, np.float32), rng.random(n, np.float32) + 0.5
    ints = rng.integers(-2**62, 2**62, n)
    out, counts = np.zeros(n, np.float32), np.zeros(n, np.int32)
    by_symbols[(kl.cdiv(n, 256),)](x, y, out, ints, counts, n, BLOCK=256)
    want = np.exp(x.astype(np.float64)) + x.astype(np.float64) / y
    np.testing.assert_allclose(out, want, rtol=2e-6)
    np.testing.assert_array_equal(counts, [bin(v % 2**64).count("1") for v in ints.tolist()])
    scalar = np.zeros(1, np.float64)
    exp_of_scalar[(1,)](scalar, 1.5)  # a Python float is fp32 in a kernel: the fp32 entry
    assert scalar[0] == pytest.approx(np.exp(1.5), rel=1e-6)


def test_every_libdevice_symbol_of_triton_is_known() -> None:
    """Triton 3.6's libdevice table has 311 (symbol, argument types) entries; each names a
    kernellab function of the same result type."""
    from kernellab.language.extern import libdevice_symbols

    table = libdevice_symbols()
    assert len(table) >= 311
    assert table["__nv_popcll", (core.dtype("int64"),)] == ("popc", core.dtype("int32"))
    assert table["__nv_fmaf", (core.dtype("fp32"),) * 3] == ("fma", core.dtype("fp32"))


def test_unknown_symbols_and_types_are_errors(host_target) -> None:
    with pytest.raises(kl.CompilationError, match=r"`mine_f` of /opt/mine.bc is not a function kernellab knows"):
        calls_own_library[(1,)](np.zeros(1, np.float32))
    with pytest.raises(kl.CompilationError, match=r"no entry for arguments of type \(fp32\); the entries take \(fp64"):
        calls_with_other_types[(1,)](np.zeros(1, np.float32))
    with pytest.raises(kl.CompilationError, match="%smid: CUDA targets only"):
        sm_ids[(1,)](np.zeros(1, np.int32))


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_symbols_in_the_ptx() -> None:
    compiled = kl.compile(by_symbols, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "i_ptr": "*i64",
                                                 "count_ptr": "*i32", "n": "i32"},
                          constexprs={"BLOCK": 256}, target="cuda:sm_90a")
    ptx = compiled.asm["ptx"]
    assert "popc.b64" in ptx and "div.rn.f32" in ptx
    assert kl.compile(sm_ids, signature={"out_ptr": "*i32"}, target="cuda:sm_90a").asm["ptx"].count("%smid") == 1
