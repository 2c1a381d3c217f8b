"""The CPU backend's contract: options, stages and metadata, debug line tables that map host
assembly back to Python lines, loading from object code, launching, errors."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import kernellab as kl
import kernellab.backends as backends
import kernellab.language as tl
from kernellab.errors import CompilationError, LaunchError
from kernellab.ir import Builder, Location
from kernellab.ir import types as T

from .harness import compile_cpu

F = "/kernels/scale.py"


def _scale_module():
    """out[i] = x[i] * k + 1 over a grid, each op at its own source line."""
    b = Builder()
    tile_f, tile_p, tile_i = T.tile(T.f32, (256,)), T.tile(T.pointer(T.f32), (256,)), T.tile(T.i32, (256,))
    fn = b.function("scale", [T.pointer(T.f32), T.pointer(T.f32), T.f32], attrs={"kernel": True},
                    loc=Location(F, 10, 0))
    x, out, k = fn.args
    with b.at_end(fn.body):
        with b.location(Location(F, 11, 4)):
            pid = b.create("program_id", [], [T.i32], {"axis": 0}).result
            start = b.create("splat", [b.create("mul", [pid, b.constant(256, T.i32)], [T.i32]).result], [tile_i])
            offs = b.create("add", [start.result, b.create("arange", [], [tile_i], {"start": 0, "end": 256}).result],
                            [tile_i]).result
        with b.location(Location(F, 12, 8)):
            value = b.create("load", [b.create("addptr", [b.create("splat", [x], [tile_p]).result, offs],
                                               [tile_p]).result, None, None], [tile_f], grouped=True).result
        with b.location(Location(F, 13, 8)):
            scaled = b.create("mul", [value, b.create("splat", [k], [tile_f]).result], [tile_f]).result
            shifted = b.create("add", [scaled, b.create("constant", [], [tile_f], {"value": 1.0}).result],
                               [tile_f]).result
        with b.location(Location(F, 14, 4)):
            ptrs = b.create("addptr", [b.create("splat", [out], [tile_p]).result, offs], [tile_p]).result
            b.create("store", [ptrs, shifted, None], [], grouped=True)
            b.return_()
    return b.module


def test_registered_as_cpu():
    assert backends.get("cpu").name == "cpu"
    assert backends.get("cpu") is backends.get("cpu")


def test_options_validated():
    backend = backends.get("cpu")
    options = backend.options(num_warps=8, debug=True)
    assert options["num_warps"] == 8 and options["debug"] is True and options["opt_level"] == 3
    with pytest.raises(ValueError, match="unknown option"):
        backend.options(warps=4)
    with pytest.raises(ValueError, match="opt_level"):
        backend.options(opt_level=7)


def test_stages_and_metadata():
    launcher, asm, metadata = compile_cpu(_scale_module())
    assert set(asm) == {"llvm", "asm", "obj"}
    assert isinstance(asm["obj"], bytes) and asm["obj"][:4] == b"\x7fELF"
    assert "@\"kernellab_grid\"" in asm["llvm"] and "line: 13" in asm["llvm"]
    assert set(metadata["compile_seconds"]) >= {"llvm", "asm", "obj"}
    assert all(t >= 0 for t in metadata["compile_seconds"].values())
    assert metadata["cpu"]["args"] == ["ptr", "ptr", "f32"]
    assert backends.get("cpu").version_key().startswith("cpu-")


def test_asm_line_table_maps_to_source_lines():
    _, asm, _ = compile_cpu(_scale_module())
    files = dict(re.findall(r'\.file\s+(\d+)\s+"[^"]*"\s+"([^"]+)"', asm["asm"]))
    assert "scale.py" in files.values()
    number = next(k for k, v in files.items() if v == "scale.py")
    lines = {int(m) for m in re.findall(rf"\.loc\s+{number}\s+(\d+)", asm["asm"])}
    assert {12, 13, 14} <= lines  # load, arithmetic and store each left code under their line
    assert lines <= {0, 10, 11, 12, 13, 14}
    # The vector multiply comes right after a .loc of line 13 (not of another line).
    text = asm["asm"].splitlines()
    current = None
    mul_lines = set()
    for line in text:
        found = re.match(rf"\s*\.loc\s+{number}\s+(\d+)", line)
        if found:
            current = int(found.group(1))
        elif re.match(r"\s*vmulps|\s*vfmadd|\s*mulps", line):
            mul_lines.add(current)
    assert mul_lines == {13}


def test_jit_kernel_asm_points_at_python_lines(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    x = np.arange(64, dtype=np.float32)
    compiled = _exp_kernel.warmup(x, x, 64, grid=(1,))
    source, first = inspect.getsourcelines(_exp_kernel.fn)
    exp_line = first + next(i for i, text in enumerate(source) if "tl.exp" in text)
    lines = {int(m) for m in re.findall(r"\.loc\s+\d+\s+(\d+)", compiled.asm["asm"])}
    assert exp_line in lines
    assert lines - {0} <= set(range(first, first + len(source)))


@kl.jit
def _exp_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    y = tl.exp(tl.load(x_ptr + offs))
    tl.store(out_ptr + offs, y)


def test_load_from_object_code_only(rng):
    """A launcher made from the stored stages alone (as after a disk-cache hit) runs."""
    backend = backends.get("cpu")
    metadata: dict = {}
    asm = backend.compile(_scale_module(), backend.options(), metadata)
    stored = {"obj": bytes(asm["obj"])}
    launcher = backend.load(stored, dict(metadata))
    x = rng.standard_normal(1024).astype(np.float32)
    out = np.full(1024, np.nan, np.float32)
    launcher((4, 1, 1), [x.ctypes.data, out.ctypes.data, 2.5])
    np.testing.assert_allclose(out, x * 2.5 + 1, rtol=1e-6)


def test_a_quiet_kernels_status_block_is_zeros_of_the_blocks_size():
    """A kernel that reports nothing gets zeros of the status block's size from its launcher
    (status.py loads with the first kernel that reports)."""
    import ctypes

    from kernellab.backends.cpu import launcher, status

    assert launcher.STATUS_WORDS * 8 == ctypes.sizeof(status._Block)
    backend = backends.get("cpu")
    metadata: dict = {}
    asm = backend.compile(_scale_module(), backend.options(), metadata)
    quiet = backend.load({"obj": bytes(asm["obj"])}, dict(metadata))
    assert not quiet.reports and bytes(quiet._quiet) == bytes(ctypes.sizeof(status._Block))
    assert quiet.quiet_status == quiet._quiet.ctypes.data


@pytest.mark.parametrize("loader", ["objload", "mcjit"])
def test_object_code_loaders(monkeypatch, rng, loader):
    """Object code is mapped by the runtime's own loader (no LLVM import); objects it refuses go
    to LLVM's MCJIT, with the same result."""
    from kernellab.backends.cpu import launcher as cpu_launcher
    from kernellab.backends.cpu import objload

    if loader == "mcjit":
        def refuse(data, resolve=None):
            raise objload.UnsupportedObject("refused by the test")
        monkeypatch.setattr(objload, "load_object", refuse)
    elif not objload.supported_here():
        pytest.skip("objects are loaded on x86-64 Linux only")
    backend = backends.get("cpu")
    metadata: dict = {}
    asm = backend.compile(_scale_module(), backend.options(), metadata)
    launcher = backend.load({"obj": bytes(asm["obj"])}, dict(metadata))
    assert isinstance(launcher.code, objload.LoadedObject if loader == "objload" else cpu_launcher._Engine)
    x = rng.standard_normal(1024).astype(np.float32)
    out = np.full(1024, np.nan, np.float32)
    launcher((4, 1, 1), [x.ctypes.data, out.ctypes.data, -0.75])
    np.testing.assert_allclose(out, x * -0.75 + 1, rtol=1e-6)


def test_damaged_object_code_is_rejected():
    backend = backends.get("cpu")
    metadata: dict = {}
    backend.compile(_scale_module(), backend.options(), metadata)
    with pytest.raises(LaunchError):
        backend.load({"obj": b""}, metadata)


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_grid_split_over_threads(monkeypatch, rng, threads):
    monkeypatch.setenv("KERNELLAB_NUM_THREADS", threads)
    launcher, _, _ = compile_cpu(_scale_module())
    programs = 37
    x = rng.standard_normal(256 * programs).astype(np.float32)
    out = np.full_like(x, np.nan)
    launcher((programs,), [x, out, -1.5])  # arrays are accepted for pointers too
    np.testing.assert_allclose(out, x * -1.5 + 1, rtol=1e-6)


def test_small_grids_run_on_the_calling_thread(monkeypatch, rng):
    """The first grid of several programs goes to the pool (nothing measured yet); then grids
    expected to take less than the pool costs run on the calling thread, larger ones on the pool."""
    from kernellab.backends.cpu import scheduling

    monkeypatch.setenv("KERNELLAB_NUM_THREADS", "3")
    launcher, _, _ = compile_cpu(_scale_module())
    pooled = []
    run = scheduling.Pool.run
    monkeypatch.setattr(scheduling.Pool, "run", lambda self, *a: (pooled.append(len(pooled)), run(self, *a)))
    programs = 9

    def launch(factor: float) -> None:
        x = rng.standard_normal(256 * programs).astype(np.float32)
        out = np.full_like(x, np.nan)
        launcher((programs,), [x, out, factor])
        np.testing.assert_allclose(out, x * factor + 1, rtol=1e-6)

    launch(1.5)
    assert pooled == [0]
    monkeypatch.setattr(scheduling.pool(), "overhead_ns", 1e12)  # a pool that costs more than any work
    launcher.measured(programs, 10**6)
    for factor in (-2.0, 0.25):
        launch(factor)
    assert pooled == [0] and launcher.inline_programs.value >= programs
    monkeypatch.setattr(scheduling.pool(), "overhead_ns", 0.0)  # a free pool: every grid of several programs
    launcher.measured(programs, 10**6)
    launch(3.0)
    assert pooled == [0, 1]


def test_launch_checks_arguments():
    launcher, _, _ = compile_cpu(_scale_module())
    with pytest.raises(LaunchError, match="takes 3 argument"):
        launcher((1,), [0, 0])
    with pytest.raises(LaunchError, match="grid"):
        launcher((1, -1), [0, 0, 1.0])
    with pytest.raises(LaunchError, match="pointer argument"):
        launcher((1,), ["x", 0, 1.0])


def test_inline_asm_is_rejected_with_a_clear_error():
    b = Builder()
    fn = b.function("k", [T.f32], attrs={"kernel": True}, loc=Location(F, 3, 0))
    with b.at_end(fn.body), b.location(Location(F, 4, 4)):
        b.create("inline_asm", [[fn.args[0]]], [T.f32], {"asm": "mov.b32 $0, $1;", "constraints": "=r,r"},
                 grouped=True)
        b.return_()
    with pytest.raises(CompilationError, match="inline_asm_elementwise cannot run on the CPU target") as error:
        compile_cpu(b.module)
    assert "scale.py:4" in str(error.value)
