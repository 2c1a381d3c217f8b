"""The static dependency walk: jit callees (also through other modules and closures),
compile-time globals read, and the hash of every source involved."""

from __future__ import annotations

import math

import pytest

import kernellab.language as tl
from kernellab.frontend import dependencies
from tests.frontend import callee_module
from tests.frontend.callee_module import add_offset
from tests.frontend.support import jit

BLOCK_SIZE = 128
MODE = tl.constexpr("fast")
DTYPE = tl.float16
UNUSED_GLOBAL = 99


@tl.constexpr_function
def double(x):
    return 2 * x


@jit
def leaf(x):
    return x * BLOCK_SIZE


@jit
def middle(x):
    return leaf(x) + add_offset(x)


@jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    local_value = n + double(BLOCK)
    x = tl.load(x_ptr).to(DTYPE)
    if MODE == "fast":
        x = middle(x)
    tl.store(x_ptr, x + callee_module.OFFSET + math.pi + local_value)


def test_callees_are_found_recursively_and_once():
    deps = dependencies(kernel)
    assert deps.callees == [middle, leaf, add_offset]


def test_globals_read_by_the_kernel_and_its_callees():
    deps = dependencies(kernel)
    assert deps.globals["MODE"] is MODE
    assert deps.globals["DTYPE"] is tl.float16
    assert deps.globals["BLOCK_SIZE"] == 128  # read by `leaf`, which shares the kernel's module
    assert deps.globals["tests.frontend.callee_module.OFFSET"] is callee_module.OFFSET
    assert deps.globals["callee_module.OFFSET"] is callee_module.OFFSET
    assert deps.globals["math.pi"] == math.pi
    # locals, parameters, modules, functions and unread globals are not dependencies
    for name in ("local_value", "n", "BLOCK", "tl", "math", "double", "UNUSED_GLOBAL", "leaf"):
        assert name not in deps.globals


def test_changed_globals_are_reported():
    global BLOCK_SIZE
    deps = dependencies(kernel)
    assert deps.changed_globals() == []
    saved = BLOCK_SIZE
    try:
        BLOCK_SIZE = 256
        assert deps.changed_globals() == ["BLOCK_SIZE"]
        assert dependencies(kernel).globals["BLOCK_SIZE"] == 256
    finally:
        BLOCK_SIZE = saved
    assert deps.changed_globals() == []


def test_the_source_hash_covers_callees_and_constexpr_functions(monkeypatch):
    from kernellab.frontend import source as source_module

    first = dependencies(kernel).source_hash
    assert first == dependencies(kernel).source_hash and len(first) == 64
    original = source_module.load_source(leaf)
    edited = type(original)(original.file, original.first_line, original.indent, original.text + "\n# edited",
                            original.tree, original.body)
    monkeypatch.setitem(source_module._SOURCES, leaf.fn.__code__, edited)
    assert dependencies(kernel).source_hash != first
    monkeypatch.undo()
    assert dependencies(kernel).source_hash == first
    # a kernel that calls nothing hashes differently from one that does
    assert dependencies(leaf).source_hash != first


def test_noinline_changes_the_hash():
    plain = jit(leaf.fn)
    kept = jit(leaf.fn, noinline=True)
    assert dependencies(plain).source_hash != dependencies(kept).source_hash


def test_closure_values_and_closure_callees():
    scale = 3

    @jit
    def inner(x):
        return x * scale

    @jit
    def outer(x_ptr):
        tl.store(x_ptr, inner(tl.load(x_ptr)))

    deps = dependencies(outer)
    assert deps.callees == [inner]
    assert deps.globals == {"inner.scale": 3}


def test_a_module_read_by_name_is_not_asked_for_jit_markers():
    """A module a kernel names (``tl``, ``mod`` in ``mod.X``) is no dependency itself: what the
    kernel reads of it is the attribute chain.  It is not asked whether it is a jit function or
    a constexpr_function (a lazy package answers by raising AttributeError: ~0.04 ms per read of
    ``tl`` in a new process's first launch)."""
    import types

    asked: list[str] = []

    class Recording(types.ModuleType):
        def __getattr__(self, name):
            asked.append(name)
            raise AttributeError(name)

    recorded = Recording("recorded")
    recorded.LIMIT = 7

    @jit
    def reads(x_ptr):
        tl.store(x_ptr, tl.load(x_ptr) + recorded.LIMIT)

    deps = dependencies(reads)
    assert asked == []
    assert deps.globals == {"recorded.LIMIT": 7}


def test_a_function_without_source_is_a_clear_error():
    namespace: dict = {}
    exec("def made_up(x):\n    return x\n", namespace)
    with pytest.raises(TypeError, match="cannot read the source of `made_up`"):
        dependencies(jit(namespace["made_up"]))


def test_a_new_process_reuses_the_syntax_of_unchanged_files(tmp_path, monkeypatch):
    """Source text and names read are remembered under the file's size and time: a process that
    has not parsed the kernel finds the same dependencies without parsing; an edited file is
    parsed again."""
    import importlib
    import os
    import sys

    from kernellab.frontend import source as source_module

    module = sys.modules["kernellab.frontend.dependencies"]  # the package exports a function of that name

    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELLAB_CACHE", "1")
    folder = tmp_path / "src"
    folder.mkdir()
    text = ("import kernellab.language as tl\nfrom tests.frontend.support import jit\nSCALE = tl.constexpr(3)\n\n"
            "@jit\ndef helper(x):\n    return x * SCALE\n\n@jit\ndef top(x_ptr):\n"
            "    tl.store(x_ptr, helper(tl.load(x_ptr)))\n")
    (folder / "memo_kernels.py").write_text(text)
    monkeypatch.syspath_prepend(str(folder))
    kernels = importlib.import_module("memo_kernels")
    first = dependencies(kernels.top)
    assert [c.fn.__name__ for c in first.callees] == ["helper"] and first.globals["SCALE"].value == 3
    assert len(list((tmp_path / "cache" / module.MEMO_FOLDER).iterdir())) == 2

    monkeypatch.setattr(source_module, "_SOURCES", type(source_module._SOURCES)())  # as in a new process
    monkeypatch.setattr(module, "load_source", lambda jit: pytest.fail("parsed again"))
    again = dependencies(kernels.top)
    assert again.source_hash == first.source_hash and again.globals == first.globals
    monkeypatch.undo()

    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(folder))
    (folder / "memo_kernels.py").write_text(text.replace("x * SCALE", "x + SCALE"))
    os.utime(folder / "memo_kernels.py", ns=(10**18, 10**18))
    sys.modules.pop("memo_kernels")
    kernels = importlib.import_module("memo_kernels")
    monkeypatch.setattr(source_module, "_SOURCES", type(source_module._SOURCES)())
    assert dependencies(kernels.top).source_hash != first.source_hash
    sys.modules.pop("memo_kernels")


def test_memo_reads_shape_and_file_digest(tmp_path):
    import hashlib

    from kernellab.cachedir import file_digest as _file_digest
    from kernellab.frontend.dependencies import _valid_reads

    assert _valid_reads([]) and _valid_reads([["name", "x"], ["attr", "np", "pi"], ["attr", "a", "b", "c"]])
    for bad in (None, {}, [None], [[]], [["name"]], [["name", "x", "y"]], [["attr", "a"]], [["other", "a"]],
                [["name", 1]], [["attr", "a", 2]], [[["name"], "x"]], ("name", "x")):
        assert not _valid_reads(bad), bad
    path = tmp_path / "f.py"
    path.write_bytes(b"x = 1\n" * 20000)  # more than one read
    assert _file_digest(str(path)) == hashlib.sha256(path.read_bytes()).hexdigest()
    assert _file_digest(str(tmp_path / "missing.py")) is None
    assert _file_digest(str(tmp_path)) is None  # a folder cannot be read
