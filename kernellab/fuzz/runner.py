"""Run a program on each target and compare every output with the reference.

A program's source is written to a file of its own (named after its content, so a shrunk variant
is a new kernel) and imported, so kernellab's errors can point at its lines.  Each target gets
fresh copies of the arrays; CUDA runs on device copies that are read back.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..backends import capabilities
from .data import Arrays, expected, make_arrays
from .program import Program
from .reference import agrees

SHOWN = 3


@dataclass(frozen=True)
class Mismatch:
    """A target's wrong output (``output`` names it) or its exception (``output`` None)."""

    target: str
    output: str | None
    message: str

    @property
    def category(self) -> tuple[str, str]:
        """What a shrunk variant must keep: the target and the kind of failure."""
        if self.output is None:
            return self.target, self.message.split(":", 1)[0]
        return self.target, "wrong value"

    def __str__(self) -> str:
        return f"[{self.target}] {self.message}"


@contextlib.contextmanager
def forced_target(target: str):
    saved = os.environ.get("KERNELLAB_TARGET")
    os.environ["KERNELLAB_TARGET"] = target
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("KERNELLAB_TARGET", None)
        else:
            os.environ["KERNELLAB_TARGET"] = saved


class Runner:
    """Writes, imports and runs programs on ``targets``; keeps its files in ``folder``."""

    def __init__(self, targets: list[str], folder: str | None = None, options: dict | None = None):
        self.targets = list(targets)
        # per target, compile options (``{"cpu": {"opt_level": 1}}``): such targets compile with kl.compile
        self.options = dict(options or {})
        self.folder = Path(folder or tempfile.mkdtemp(prefix="kernellab-fuzz-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.loaded: list[str] = []

    def kernel(self, program: Program) -> Any:
        source = program.source()
        module_name = f"{program.name}_{hashlib.sha1(source.encode()).hexdigest()[:12]}"
        path = self.folder / f"{module_name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        self.loaded.append(module_name)
        spec.loader.exec_module(module)
        return getattr(module, program.name)

    def forget(self) -> None:
        """Drop the imported program modules (a long run would keep every kernel alive)."""
        for name in self.loaded:
            sys.modules.pop(name, None)
        self.loaded.clear()

    def check(self, program: Program) -> list[Mismatch]:
        """Every mismatch of ``program`` on the targets (empty: all agree with the reference)."""
        kernel = self.kernel(program)
        arrays = make_arrays(program)
        want = expected(program, arrays)
        found: list[Mismatch] = []
        for target in self.targets:
            got = {name: array.copy() for name, array in arrays.items()}
            try:
                if target.startswith(COMPILE_ONLY):
                    compile_only(kernel, program, arrays, target[len(COMPILE_ONLY):], self.options.get(target))
                    continue
                launch(kernel, program, got, target, self.options.get(target))
            except Exception as error:  # every exception on a well-typed program is a finding
                text = " ".join(str(error).split())
                found.append(Mismatch(target, None, f"{type(error).__name__}: {text[:600]}"))
                continue
            found.extend(compare(program, target, got, want))
        return found


COMPILE_ONLY = "compile:"  # a target "compile:cuda:sm_90a" only compiles (machines without a GPU)


def signature_of(program: Program, arrays: Arrays) -> dict[str, str]:
    names = program.parameters()[:-2]
    signature = {name: "*" + SIGNATURE_NAMES[str(arrays[name].dtype)] for name in names}
    signature.update(M="i32", N="i32")
    return signature


def compile_only(kernel: Any, program: Program, arrays: Arrays, target: str, options: dict | None) -> None:
    """Compile ``program`` for ``target`` down to its last stage (CUDA: PTX assembled by ptxas
    into a cubin); a compiler error is the finding."""
    import kernellab as kl

    compiled = kl.compile(kernel, signature=signature_of(program, arrays), constexprs=program.constexprs(),
                          target=target, **(options or {}))
    if capabilities(target).gpu and not compiled.asm.get("cubin"):
        raise RuntimeError(f"no cubin for {target}")


SIGNATURE_NAMES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16",
                   "uint32": "u32", "uint64": "u64", "float16": "fp16", "bfloat16": "bf16", "float32": "fp32",
                   "float64": "fp64", "float8_e5m2": "fp8e5", "float8_e4m3fn": "fp8e4nv"}
FP8_BITS = {"float8_e5m2": "float8e5", "float8_e4m3fn": "float8e4nv"}  # passed as uint8 bits, reinterpreted


def _bits(array: np.ndarray) -> np.ndarray:
    """What goes to a kernel (or a device) for ``array``: fp8 as its uint8 bits (the same memory)."""
    return array.view(np.uint8) if str(array.dtype) in FP8_BITS else array


def _argument(original: np.ndarray, value: Any) -> Any:
    """``value`` (``_bits(original)``, or its device copy) as the kernel argument: fp8 bits as fp8."""
    import kernellab as kl
    import kernellab.language as tl

    fp8 = FP8_BITS.get(str(original.dtype))
    return value if fp8 is None else kl.reinterpret(value, getattr(tl, fp8))


def launch(kernel: Any, program: Program, arrays: Arrays, target: str, options: dict | None = None) -> None:
    """Run ``program``'s kernel on ``target``: through ``kernel[grid]`` (the binder, the native
    launch path), or compiled by ``kl.compile`` with ``options`` when there are any.  On CUDA
    the arrays go through device copies."""
    import kernellab as kl

    originals = [arrays[name] for name in program.parameters()[:-2]]
    grid = (program.grid,)
    if options:
        compiled = kl.compile(kernel, signature=signature_of(program, arrays), constexprs=program.constexprs(),
                              target=target, **options)
        def call(values: list) -> None:
            compiled[grid](*values, program.m, program.n)
    else:
        def call(values: list) -> None:
            kernel[grid](*values, program.m, program.n, **program.constexprs())
    with forced_target(target):
        if not capabilities(target).gpu:
            call([_argument(a, _bits(a)) for a in originals])
            return
        moved = [kl.to_device(_bits(a)) for a in originals]
        call([_argument(a, copy) for a, copy in zip(originals, moved)])
        for original, copy in zip(originals, moved):
            _bits(original)[...] = copy.numpy()


def compare(program: Program, target: str, got: Arrays, want: dict) -> list[Mismatch]:
    found = []
    for store in program.stores:
        value, err = want[store.name]
        result = got[store.name]
        ok = agrees(result, value, err, store.dtype)
        if ok.all():
            continue
        bad = np.argwhere(~ok)
        shown = "; ".join(f"{tuple(int(i) for i in index)}: got {result[tuple(index)]!r}, expected "
                          f"{value[tuple(index)]!r} (error bound {err[tuple(index)]:.3g})" for index in bad[:SHOWN])
        found.append(Mismatch(target, store.name, f"{store.name} ({store.dtype}, {store.kind}"
                              f"{', atomic ' + store.atomic if store.atomic else ''}): {len(bad)} of {ok.size} "
                              f"elements differ: {shown}"))
    return found
