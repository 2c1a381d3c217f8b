"""The in-memory and on-disk caches of compiled kernels."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kernellab as kl
from kernellab import cachedir
from kernellab.runtime.cache import HOUSEKEEPING_DIRS, METADATA_FILE, DiskCache, source_fingerprint

from . import sample_kernels as sk


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty disk cache; kernels run on the interpreter."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(folder))
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    return folder


def launch(kernel, inputs, n: int = 256, block: int = 64) -> kl.CompiledKernel:
    x, y, out = inputs.normal(n), inputs.normal(n), inputs.poisoned(n)
    compiled = kernel[(kl.cdiv(n, block),)](x, y, out, n, BLOCK=block)
    np.testing.assert_array_equal(out, x + y)
    return compiled


def entries(folder: Path) -> list[Path]:
    return DiskCache(folder).entries()


def test_memory_cache_hits_do_not_recompile(cache_dir, inputs):
    kernel = kl.jit(sk.add_kernel.fn)
    first = launch(kernel, inputs)
    for _ in range(4):
        assert launch(kernel, inputs) is first
    assert kernel.stats == {"compiled": 1, "disk": 0} and len(kernel.cache) == 1
    launch(kernel, inputs, block=128)
    x = inputs.normal(256)
    kernel[(4,)](x, x, inputs.poisoned(256), 256, BLOCK=64, num_warps=8)
    assert kernel.stats["compiled"] == 3 and len(kernel.cache) == 3


def test_new_jit_function_of_the_same_source_hits_the_disk(cache_dir, inputs):
    first = kl.jit(sk.add_kernel.fn)
    compiled = launch(first, inputs)
    assert first.stats == {"compiled": 1, "disk": 0}
    assert [p.name for p in entries(cache_dir)] == [compiled.hash]
    second = kl.jit(sk.add_kernel.fn)
    loaded = launch(second, inputs)
    assert second.stats == {"compiled": 0, "disk": 1} and loaded.origin == "disk"
    assert loaded.asm == compiled.asm and loaded.metadata == compiled.metadata


def test_entry_layout(cache_dir, inputs):
    compiled = launch(kl.jit(sk.add_kernel.fn), inputs)
    folder = cache_dir / compiled.hash
    record = json.loads((folder / METADATA_FILE).read_text())
    files = {stage["name"]: stage for stage in record["stages"]}
    assert set(files) == set(compiled.asm)
    for name, stage in files.items():
        data = (folder / stage["file"]).read_bytes()
        assert len(data) == stage["size"]
        assert data.decode() == compiled.asm[name]
    assert record["metadata"]["signature"] == compiled.metadata.signature
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".")]  # no temporary folders left


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty metadata", "edit metadata",
                                    "edit metadata in place", "delete a file"])
def test_damaged_entry_is_recompiled_and_replaced(damage, cache_dir, inputs):
    compiled = launch(kl.jit(sk.add_kernel.fn), inputs)
    folder = cache_dir / compiled.hash
    tile = folder / "tile.txt"
    if damage == "flip a byte":
        data = bytearray(tile.read_bytes())
        data[len(data) // 2] ^= 0x20
        tile.write_bytes(bytes(data))
    elif damage == "truncate":
        tile.write_bytes(tile.read_bytes()[:100])
    elif damage == "empty metadata":
        (folder / METADATA_FILE).write_text("")
    elif damage == "edit metadata":
        record = json.loads((folder / METADATA_FILE).read_text())
        record["metadata"]["num_warps"] = 64
        (folder / METADATA_FILE).write_text(json.dumps(record))
    elif damage == "edit metadata in place":  # still valid JSON, same length: only the digest tells
        text = (folder / METADATA_FILE).read_text()
        at = text.index('"num_warps": ') + len('"num_warps": ')
        (folder / METADATA_FILE).write_text(text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:])
    else:
        tile.unlink()
    assert DiskCache(cache_dir).load(compiled.hash) is None
    again = kl.jit(sk.add_kernel.fn)
    recompiled = launch(again, inputs)
    assert again.stats == {"compiled": 1, "disk": 0}
    found = DiskCache(cache_dir).load(compiled.hash)
    assert found is not None and found[0] == compiled.asm  # the damaged entry was replaced by a valid one
    third = kl.jit(sk.add_kernel.fn)
    launch(third, inputs)
    assert third.stats == {"compiled": 0, "disk": 1} and recompiled.hash == compiled.hash


def test_disabled_disk_cache_writes_nothing(cache_dir, inputs, monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    kernel = kl.jit(sk.add_kernel.fn)
    launch(kernel, inputs)
    assert not cache_dir.exists()
    other = kl.jit(sk.add_kernel.fn)
    launch(other, inputs)
    assert other.stats == {"compiled": 1, "disk": 0}


def test_key_covers_constexprs_options_and_target(cache_dir, inputs):
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    base = kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret")
    variants = [
        kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 128}, target="interpret"),
        kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret", num_warps=8),
        kl.compile(sk.add_kernel, signature={**signature, "n": "i64"}, constexprs={"BLOCK": 64}, target="interpret"),
        kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret",
                   arg_attrs={"n": {"divisibility": 16}}),
        kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret", debug=False),
    ]
    assert len({base.hash, *(v.hash for v in variants)}) == 6
    same = kl.compile(sk.add_kernel, signature=signature, constexprs={"BLOCK": 64}, target="interpret")
    assert same.hash == base.hash and same.origin == "disk"


def test_store_keeps_the_first_valid_entry(tmp_path):
    cache = DiskCache(tmp_path)
    key = "ab" * 32
    assert cache.store(key, {"tile": "first", "bin": b"\x00\x01"}, {"name": "k"}) is True
    assert cache.store(key, {"tile": "second"}, {"name": "k"}) is False
    assert cache.load(key) == ({"tile": "first", "bin": b"\x00\x01"}, {"name": "k"})
    assert [p.name for p in tmp_path.iterdir()] == [key]
    assert cache.clear() == 1 and list(tmp_path.iterdir()) == []


def test_stage_names_must_be_file_names(tmp_path):
    with pytest.raises(ValueError, match="stage name"):
        DiskCache(tmp_path).store("cd" * 32, {"../evil": "x"}, {})


@pytest.mark.slow
def test_two_processes_compiling_at_once_leave_one_valid_entry(tmp_path):
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    processes = [context.Process(target=sk.compile_in_child, args=(str(tmp_path), barrier, results)) for _ in range(2)]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    keys = {key for _, key in outcomes}
    assert len(keys) == 1
    (key,) = keys
    # one entry (beside the fingerprint's memo), no temporary folders left
    assert [p.name for p in tmp_path.iterdir() if p.name not in HOUSEKEEPING_DIRS] == [key]
    assert DiskCache(tmp_path).load(key) is not None


def test_the_source_fingerprint_follows_every_file_and_is_remembered(tmp_path):
    package, memo = tmp_path / "pkg", tmp_path / "memo"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "b.py").write_text("B = 2\n")
    first = source_fingerprint(package, "9.9", memo)
    assert first.startswith("9.9+") and len(list(memo.iterdir())) == 1
    assert source_fingerprint(package, "9.9", None) == first  # the memo only remembers
    remembered = memo / next(memo.iterdir()).name
    remembered.write_text("9.9+0123456789abcdef")  # not sealed: not this user's, ignored
    assert source_fingerprint(package, "9.9", memo) == first
    remembered.write_bytes(cachedir.seal(cachedir.sealed_name(remembered), b"9.9+0123456789abcdef"))
    assert source_fingerprint(package, "9.9", memo) == "9.9+0123456789abcdef"  # read back, nothing hashed
    (package / "sub" / "b.py").write_text("B = 3\n")  # same size, new content and time
    os.utime(package / "sub" / "b.py", ns=(10**18, 10**18))  # a new time even on a coarse clock
    changed = source_fingerprint(package, "9.9", memo)
    assert changed not in (first, "9.9+0123456789abcdef") and changed == source_fingerprint(package, "9.9", None)
    (package / "c.py").write_text("")
    assert source_fingerprint(package, "9.9", memo) not in (first, changed)


def test_the_fingerprint_is_computed_by_the_import():
    code = ("import kernellab.runtime.cache as cache; "
            "print(cache.compiler_fingerprint.cache_info().currsize, cache.fingerprint())")
    root = str(Path(kl.__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, "PYTHONPATH": root})
    known, value = done.stdout.split()
    from kernellab.runtime import cache

    assert known == "1" and value == cache.compiler_fingerprint() == cache.fingerprint()


@pytest.fixture
def cpu_cache_dir(cache_dir, monkeypatch):
    """The fresh cache, with kernels on the CPU target (its backend names the stage it loads)."""
    from kernellab.runtime.targets import backend_available

    if not backend_available("cpu"):
        pytest.skip("needs the CPU backend")
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    return cache_dir


def test_a_hit_reads_the_stage_it_launches_from_and_the_others_on_use(cpu_cache_dir, inputs):
    compiled = launch(kl.jit(sk.add_kernel.fn), inputs)
    loaded = launch(kl.jit(sk.add_kernel.fn), inputs)
    assert loaded.origin == "disk" and "stages" in repr(loaded) and "tile" in repr(loaded)
    assert loaded.asm == compiled.asm and list(loaded.asm) == list(compiled.asm)


@pytest.mark.parametrize("stage, at_launch", [("obj.bin", True), ("tile.txt", False)])
def test_a_damaged_stage_is_found_when_it_is_read(stage, at_launch, cpu_cache_dir, inputs):
    compiled = launch(kl.jit(sk.add_kernel.fn), inputs)
    damaged = cpu_cache_dir / compiled.hash / stage
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0x20
    damaged.write_bytes(bytes(data))
    second = kl.jit(sk.add_kernel.fn)
    loaded = launch(second, inputs)
    if at_launch:  # the stage launching reads: a miss, compiled again and stored again
        assert second.stats == {"compiled": 1, "disk": 0}
    else:  # found when `asm` is read: a warning naming the entry, compiled again and stored again
        assert second.stats == {"compiled": 0, "disk": 1}
        with pytest.warns(RuntimeWarning, match=f"could not be read back from its cache entry .*{compiled.hash}"):
            assert loaded.asm == compiled.asm
        third = kl.jit(sk.add_kernel.fn)
        launch(third, inputs)
        assert third.stats == {"compiled": 0, "disk": 1}
    assert DiskCache(cpu_cache_dir).load(compiled.hash)[0] == compiled.asm  # a valid entry again


def test_options_read_as_they_read_back_from_the_cache():
    from kernellab.runtime.compiler import _json_normalized

    plain = {"num_warps": 4, "debug": False, "arch": "sm_90a", "maxnreg": None}
    assert _json_normalized(plain) == plain and _json_normalized(plain) is not plain
    assert _json_normalized({"shape": (1, 2), "scale": 0.5}) == {"shape": [1, 2], "scale": 0.5}
    assert _json_normalized({1: "a"}) == {"1": "a"}
    with pytest.raises(ValueError):
        _json_normalized({"x": float("nan")})
