"""The backend interface: registry, options, the py stage, loading from printed Tile IR,
argument handling, the static pointer facts, torch tensors and speed."""

from __future__ import annotations

import re
import statistics
import time

import numpy as np
import pytest

from kernellab import backends
from kernellab.backends.interpreter import InterpreterBackend, as_buffer
from kernellab.backends.interpreter.pointers import access_sites
from kernellab.errors import LaunchError
from kernellab.ir import types as T
from kernellab.ir.printer import print_module

from .kit import F32P, Kit, poisoned, vector_add
from .test_kernels import _softmax


@pytest.fixture
def rng():
    return np.random.default_rng(3)


def test_registry_gives_the_interpreter_and_names_known_targets():
    backend = backends.get("interpret")
    assert backend is backends.get("interpret")
    assert backend.name == "interpret"
    assert "interpret" in backends.available()
    with pytest.raises(ValueError, match="unknown target 'tpu'.*interpret"):
        backends.get("tpu")


def test_registry_takes_new_backends():
    made = []

    class Fake:
        name = "fake"

    backends.register("fakeback", lambda target: made.append(target) or Fake())
    assert isinstance(backends.get("fakeback:v2"), Fake)
    assert made == ["fakeback:v2"]
    with pytest.raises(ValueError, match="plain word"):
        backends.register("a:b", lambda target: Fake())


def test_options_are_validated_and_recorded(monkeypatch):
    backend = InterpreterBackend()
    monkeypatch.setenv("KERNELLAB_DEBUG", "0")
    options = backend.options(num_warps=8)
    assert options["num_warps"] == 8 and options["num_stages"] == 3 and options["debug"] is False
    monkeypatch.setenv("KERNELLAB_DEBUG", "1")
    assert backend.options()["debug"] is True
    with pytest.raises(ValueError, match="num_warps must be a positive power of two"):
        backend.options(num_warps=3)
    with pytest.raises(ValueError, match="maxnreg must be an int >= 1"):
        backend.options(maxnreg=0)
    with pytest.raises(ValueError, match="unknown option.*num_wraps.*known: num_warps"):
        backend.options(num_wraps=4)


def test_compile_gives_the_py_stage_with_hoisting_and_ufunc_regions():
    backend = InterpreterBackend()
    metadata: dict = {}
    asm = backend.compile(_softmax(64), backend.options(), metadata)
    source = asm["py"]
    assert set(asm) == {"py"} and metadata["compile_seconds"]["py"] >= 0
    mapped = {line: source_line for line, _, source_line, _ in metadata["line_maps"]["py"]}
    commented = [(number, line) for number, line in enumerate(source.splitlines(), 1) if "  # kernels.py:" in line]
    assert len(commented) > 10
    for number, line in commented:  # each op line maps to the kernel line its comment names
        assert line.endswith(f"# kernels.py:{mapped[number]}")
    program_at = source.index("def program():")
    assert re.search(r"= arange_\d+\(", source).start() < program_at  # runs once per launch
    assert re.search(r"= program_id_\d+\(", source).start() > program_at
    assert "reduce_region0.ufunc = np.fmax" in source and "reduce_region1.ufunc = np.add" in source
    compile(source, "<py stage>", "exec")  # valid Python, as shown to the user
    assert backend.version_key().startswith("interpret-") and backend.version_key() == backend.version_key()


def test_load_from_printed_tile_ir(rng):
    """A kernel loaded from a cache has only its stages: the interpreter parses the tile stage."""
    module = vector_add(64)
    compiled = InterpreterBackend()
    asm = compiled.compile(module, compiled.options(), {})
    asm["tile"] = print_module(module)
    fresh = InterpreterBackend()  # knows no live module
    launcher = fresh.load(asm, {})
    assert launcher.module is not module
    x, y = rng.standard_normal(100, dtype=np.float32), rng.standard_normal(100, dtype=np.float32)
    out = poisoned(100)
    launcher((2,), [x, y, out, 100])
    np.testing.assert_array_equal(out, x + y)
    with pytest.raises(LaunchError, match="needs the 'tile' stage"):
        InterpreterBackend().load({"py": "# nothing"}, {})


def test_an_edited_tile_stage_is_what_runs(rng):
    """Loading stages whose tile text differs from what was compiled runs the text (as
    Triton's ir_override): here the add is edited into a sub."""
    backend = InterpreterBackend()
    module = vector_add(64)
    asm = backend.compile(module, backend.options(), {})
    same = backend.load({**asm, "tile": print_module(module)}, {})
    assert same.module is module  # the live module, nothing parsed
    edited = print_module(module).replace("= add(%8, %11)", "= sub(%8, %11)")
    assert edited != print_module(module)
    launcher = backend.load({**asm, "tile": edited}, {})
    x, y = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(64, dtype=np.float32)
    out = poisoned(64)
    launcher((1,), [x, y, out, 64])
    np.testing.assert_array_equal(out, x - y)


def test_arguments_and_grid_are_checked(rng):
    backend = InterpreterBackend()
    launcher = backend.load(backend.compile(vector_add(32), backend.options(), {}), {})
    x = rng.standard_normal(32, dtype=np.float32)
    with pytest.raises(LaunchError, match=r"takes 4 argument\(s\) \(x_ptr, y_ptr, out_ptr, n\), got 3"):
        launcher((1,), [x, x, x])
    with pytest.raises(LaunchError, match="argument n is int32; 4294967296 does not fit"):
        launcher((1,), [x, x, poisoned(32), 2**32])
    with pytest.raises(LaunchError, match="pointer parameter"):
        launcher((1,), [x, "x", poisoned(32), 32])
    with pytest.raises(LaunchError, match="1 to 3 non-negative integers"):
        launcher((1, -1), [x, x, poisoned(32), 32])
    out = poisoned(32)
    launcher(1, [x, x, out, 32])  # a bare int grid
    np.testing.assert_array_equal(out, 2 * x)


def test_numpy_buffers_describe_the_whole_allocation():
    whole = np.zeros((8, 6), np.float32)
    view = whole[2:5, 1:3]
    buffer = as_buffer(view, "v")
    assert buffer.address == whole.ctypes.data + (2 * 6 + 1) * 4
    assert buffer.base == whole.ctypes.data and buffer.extent == whole.nbytes
    assert buffer.nbytes == ((5 - 1 - 2) * 6 + 2) * 4


def _select_between_arguments():
    k = Kit()
    fn = k.kernel("pick", [("a_ptr", F32P), ("b_ptr", F32P), ("out_ptr", F32P), ("flag", T.i1)])
    a_ptr, b_ptr, out_ptr, flag = fn.args
    with k.body(fn.body):
        chosen = k.one("select", [flag, a_ptr, b_ptr], F32P)
        rows = k.one("broadcast", [k.one("expand_dims", [k.arange(4)], T.tile(T.i32, (4, 1)), {"axis": 1})],
                     T.tile(T.i32, (4, 4)))
        k.store(k.addptr(out_ptr, k.arange(4)), k.load(k.addptr(chosen, k.arange(4))))
        second_half = k.addptr(out_ptr, k.const(4, T.i32))
        k.store(k.addptr(second_half, rows), k.load(k.addptr(a_ptr, rows)))  # out[4 + i] = a[i], 4 times
        k.ret()
    return k.module


def test_access_sites_trace_provenance_and_contiguity():
    sites = access_sites(vector_add(64))
    assert sorted((s.argument, s.contiguous) for s in sites.values()) == [(0, True), (1, True), (2, True)]
    picked = access_sites(_select_between_arguments())
    assert {(op.name, s.argument, s.contiguous) for op, s in picked.items()} == {
        ("load", None, True), ("store", 2, True), ("load", 0, False), ("store", 2, False)}


def test_select_between_arguments_runs(rng):
    a, b = rng.standard_normal(4, dtype=np.float32), rng.standard_normal(4, dtype=np.float32)
    backend = InterpreterBackend()
    launcher = backend.load(backend.compile(_select_between_arguments(), backend.options(), {}), {})
    for flag, source in [(True, a), (False, b)]:
        out = poisoned(8)
        launcher((1,), [a, b, out, flag])
        np.testing.assert_array_equal(out[:4], source)
        np.testing.assert_array_equal(out[4:], a)


def test_torch_cpu_tensors(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(rng.standard_normal(200, dtype=np.float32))
    y = torch.from_numpy(rng.standard_normal(200, dtype=np.float32))
    out = torch.full((300,), float("nan"))[50:250]  # a view into a larger storage
    backend = InterpreterBackend()
    backend.load(backend.compile(vector_add(64), backend.options(), {}), {})((4,), [x, y, out, 200])
    assert torch.equal(out, x + y)
    buffer = as_buffer(out, "out")
    assert buffer.address - buffer.base == 50 * 4 and buffer.extent == 300 * 4


def test_vector_add_speed(rng):
    """2^22 fp32 elements, BLOCK 4096 (1024 programs): Triton's interpreter takes 637 ms on the
    reference 2-core machine; ours must stay well under it (CI bound: 150 ms).  The bound is on
    the median CPU time of this process, which the other work of a shared machine disturbs
    less than the wall time (both are printed)."""
    n, block = 1 << 22, 4096
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = poisoned(n)
    backend = InterpreterBackend()
    launcher = backend.load(backend.compile(vector_add(block), backend.options(), {}), {})
    launcher((n // block,), [x, y, out, n])
    np.testing.assert_array_equal(out, x + y)
    wall, cpu = [], []
    for _ in range(5):
        start, start_cpu = time.perf_counter(), time.process_time()
        launcher((n // block,), [x, y, out, n])
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(f"interpreter vector add 2^22 / BLOCK 4096: {statistics.median(wall) * 1e3:.1f} ms median wall, "
          f"{statistics.median(cpu) * 1e3:.1f} ms CPU (Triton interpreter: 637 ms)")
    assert statistics.median(cpu) < 0.150


def test_every_op_of_the_registry_compiles_and_binds():
    """The IR catalog uses every op: each gets a generated line and a bound reference (or a
    structural translation), and the generated module builds a launcher."""
    from kernellab.ir.ops.registry import kernel_ops
    from tests.ir.catalog import build_catalog

    module, used = build_catalog()
    assert used == kernel_ops()
    backend = InterpreterBackend()
    launcher = backend.load(backend.compile(module, backend.options(), {}), {})
    structural = {"for", "if", "while", "call", "yield", "condition", "return"}
    assert {op.name for op in launcher.program.ops} == kernel_ops() - structural
