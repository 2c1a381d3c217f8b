"""Every kernel the test suite compiles for a host target is also compiled for ``cuda:sm_90a``
and its PTX assembled by ptxas, so the CUDA code generator sees every test kernel on machines
without a GPU (CI).  Installed by tests/conftest.py; ``pytest --no-ptx-check`` turns it off.

A ``CompilationError`` from the language layer is a rule of the CUDA target (``tl.dot`` needs
K >= 16 there, some fp8 dtypes are refused) and is accepted; a CUDA backend or ptxas failure fails the test that
compiled the kernel.
"""

from __future__ import annotations

import os
import threading

import pytest

from kernellab.errors import CompilationError
from kernellab.runtime import compiler as compiler_module
from kernellab.runtime import jit as jit_module

ARCH_TARGET = "cuda:sm_90a"
HOST_TARGETS = ("interpret", "cpu")
SHARED_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "debug")

_seen: set = set()
_local = threading.local()
stats = {"kernels": 0, "rules": 0}


def _key(jit, signature: dict, constexprs: dict, options: dict) -> tuple:
    try:
        return (id(jit), tuple((k, getattr(v, "ir", None) or repr(v)) for k, v in signature.items()),
                repr(sorted(constexprs.items())), repr(sorted(options.items())))
    except Exception:  # unprintable constexprs: check once per kernel
        return (id(jit),)


def _check_ptx(original, jit, signature, constexprs, arg_attrs, options, host_kernel) -> None:
    if "inline_asm" in str(host_kernel.asm.get("tile", "")):
        return  # host-target tests carry x86 or made-up assembly
    shared = {k: v for k, v in options.items() if k in SHARED_OPTIONS}
    key = _key(jit, signature, constexprs, shared)
    if key in _seen:
        return
    _seen.add(key)
    _local.no_disk = True  # leave the tests' disk caches as the tests made them
    try:
        compiled = original(jit, signature, constexprs, arg_attrs, ARCH_TARGET, shared)
    except CompilationError as error:
        if error.message.startswith("CUDA backend"):
            raise AssertionError(f"`{jit.__name__}` compiles for {host_kernel.metadata.get('target')} but not for "
                                 f"{ARCH_TARGET}: {error}") from None
        stats["rules"] += 1
        return
    except Exception as error:
        raise AssertionError(f"`{jit.__name__}` compiles for {host_kernel.metadata.get('target')} but its PTX does "
                             f"not build for {ARCH_TARGET}: {type(error).__name__}: {error}") from error
    finally:
        _local.no_disk = False
    assert compiled.asm.get("cubin"), f"`{jit.__name__}`: no cubin from ptxas"
    stats["kernels"] += 1


def install() -> None:
    original = jit_module.compile_specialized
    pid = os.getpid()
    disk_cache = compiler_module.disk_cache
    # per thread, not through the environment: the autotuner compiles on several threads at once
    compiler_module.disk_cache = lambda: None if getattr(_local, "no_disk", False) else disk_cache()

    def compile_specialized(jit, signature, constexprs, arg_attrs, target, options):
        kernel = original(jit, signature, constexprs, arg_attrs, target, options)
        # not in the autotuner's forked compile workers, nor for a kernel loaded from the disk cache (checked
        # when it was compiled; reading its stages here would also undo the hit's reading of one stage only)
        if target in HOST_TARGETS and os.getpid() == pid and kernel.origin != "disk":
            _check_ptx(original, jit, signature, constexprs, arg_attrs, options, kernel)
        return kernel

    jit_module.compile_specialized = compile_specialized


def ptxas_available() -> bool:
    from kernellab.backends.cuda.ptxas import find_ptxas

    return find_ptxas() is not None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--no-ptx-check", action="store_true",
                     help="don't also build sm_90a PTX for every kernel the tests compile for a host target")
