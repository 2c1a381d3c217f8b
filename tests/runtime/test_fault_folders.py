"""Fault injection, the cache folder: not a folder, a symlink loop, ``/dev/null``, a fifo, a
subfolder that is a file, read-only, a full disk, another user's folder or one others can write
-- each warns (once) and the kernels run, uncached or from a private folder."""

from __future__ import annotations

import os
import re
import resource
import time
from pathlib import Path

import pytest

from kernellab import cachedir, config

from . import faults

pytestmark = pytest.mark.slow


@pytest.fixture
def module(tmp_path):
    return faults.kernels_file(tmp_path / "src")


def _env(tmp_path, cache, **extra):
    """The child's environment, with a home of its own (the private fallback lives there)."""
    return faults.child_env(cache, HOME=str(tmp_path / "home"), **extra)


def _bad_root(tmp_path, state: str) -> str:
    path = tmp_path / "bad"
    if state == "file":
        path.write_text("not a folder")
    elif state == "symlink loop":
        os.symlink(tmp_path / "loop-b", tmp_path / "loop-a")
        os.symlink(tmp_path / "loop-a", tmp_path / "loop-b")
        return str(tmp_path / "loop-a" / "cache")
    elif state == "fifo":
        os.mkfifo(path)
    elif state == "/dev/null":
        return "/dev/null"
    elif state == "under a file":
        path.write_text("x")
        return str(path / "cache")
    return str(path)


@pytest.mark.parametrize("state", ["file", "symlink loop", "fifo", "/dev/null", "under a file"])
def test_a_cache_folder_that_is_not_a_folder_runs_uncached(tmp_path, module, state):
    cache = _bad_root(tmp_path, state)
    for mode in ("launch", "tune"):
        outcome = faults.run_child(cache, module, mode, env=_env(tmp_path, cache))
        faults.assert_good(outcome, f"KERNELLAB_CACHE_DIR {state}")
        assert any("cache folder" in w for w in outcome.warnings), outcome.warnings
    assert not (tmp_path / "home" / ".cache" / "kernellab").exists()  # uncached, not elsewhere


_MEMO_FOLDERS = ["autotune", "code", "dependencies", "toolchain", "fingerprint"]


@pytest.mark.parametrize("state", ["file", "fifo"])
def test_memo_folders_that_are_files_or_fifos_are_tolerated(tmp_path, module, state):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    for sub in _MEMO_FOLDERS:
        if state == "file":
            (cache / sub).write_text("in the way")
        else:
            os.mkfifo(cache / sub)
    faults.assert_launches(cache, module, f"memo folders as {state}s", env=_env(tmp_path, cache))


def _no_writes() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))  # every write fails: EFBIG


def test_a_full_disk_runs_uncached_and_warns_once(tmp_path, module):
    cache = tmp_path / "cache"
    for mode in ("launch", "tune"):
        outcome = faults.run_child(cache, module, mode, env=_env(tmp_path, cache), preexec=_no_writes)
        faults.assert_good(outcome, "a full disk")
        written = [w for w in outcome.warnings if "could not write" in w]
        assert len(written) == 1, outcome.warnings  # once per process
    assert not [p for p in cache.rglob("*") if p.is_file() and p.stat().st_size]


def test_a_read_only_cache_is_read(tmp_path, module):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders; the full-disk test covers failing writes")
    cache = faults.warm(tmp_path / "cache", module)
    for path in [cache, *cache.rglob("*")]:
        if path.is_dir():
            path.chmod(0o500)
    try:
        faults.assert_launches(cache, module, "a read-only cache", env=_env(tmp_path, cache))
    finally:
        for path in [cache, *cache.rglob("*")]:
            if path.is_dir():
                path.chmod(0o700)


def test_a_folder_others_can_write_is_refused_for_a_private_one(tmp_path, module):
    cache = tmp_path / "open"
    cache.mkdir()
    cache.chmod(0o777)
    outcome = faults.run_child(cache, module, env=_env(tmp_path, cache))
    faults.assert_good(outcome, "a world-writable cache folder")
    assert any("refuses the cache folder" in w and "KERNELLAB_SHARED_CACHE" in w for w in outcome.warnings)
    assert list(cache.iterdir()) == []
    assert any(p.name == "metadata.json" for p in (tmp_path / "home" / ".cache" / "kernellab").rglob("*"))
    shared = faults.run_child(cache, module, env=_env(tmp_path, cache, KERNELLAB_SHARED_CACHE="1"))
    faults.assert_good(shared, "an opted-in shared folder")
    assert not any("refuses" in w for w in shared.warnings) and any(cache.iterdir())


def test_an_empty_cache_dir_means_the_default(tmp_path, module, monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", "")
    assert config.cache_dir() == config.default_cache_dir()
    monkeypatch.chdir(tmp_path)
    env = _env(tmp_path, "")
    faults.assert_good(faults.run_child("", module, env=env), "KERNELLAB_CACHE_DIR=")
    assert (tmp_path / "home" / ".cache" / "kernellab").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "src"]  # nothing in the working folder


def test_stale_leftovers_are_swept_by_the_first_write(tmp_path, module):
    cache = tmp_path / "cache"
    (cache / "code").mkdir(parents=True, mode=0o700)
    cache.chmod(0o700)
    old = time.time() - 2 * cachedir.STALE_SECONDS
    stale = [cache / ".tmp-0123-1-dead", cache / ".trash-0123-1-dead", cache / "code" / ".tmp-x.marshal-1-dead"]
    stale[0].mkdir()
    (stale[0] / "obj.bin").write_bytes(b"half")
    for path in stale[1:]:
        path.write_bytes(b"half")
    young = cache / ".tmp-4567-2-alive"
    young.mkdir()
    for path in stale:
        os.utime(path, (old, old))
    faults.assert_good(faults.run_child(cache, module, env=_env(tmp_path, cache)), "leftovers")
    assert not any(path.exists() for path in stale) and young.exists()


def test_dump_dir_names_stay_inside_it(tmp_path, monkeypatch):
    import numpy as np

    import kernellab as kl
    import kernellab.language as tl

    def kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
    kernel.__name__ = kernel.__qualname__ = "../../escaped"
    jitted = kl.jit(kernel)
    dump = tmp_path / "a" / "b" / "dump"
    monkeypatch.setenv("KERNELLAB_DUMP_DIR", str(dump))
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "cache"))
    x = np.arange(8, dtype=np.float32)
    jitted[(1,)](x, 8, BLOCK=8, )
    assert np.array_equal(x, np.arange(8, dtype=np.float32) + 1)
    folders = list(dump.iterdir())
    assert folders and all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*escaped-[0-9a-f]{12}", f.name) for f in folders)
    assert all(any(f.rglob("metadata.json")) for f in folders), [f.name for f in folders]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "cache"]
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["b"]


def test_the_code_memo_of_this_process_is_bounded(monkeypatch):
    from kernellab import codecache

    monkeypatch.setattr(codecache, "_memo", {})
    monkeypatch.setattr(codecache, "MEMO_SIZE", 4)
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    codes = [codecache.compile_cached(f"x = {i}\n", "<bounded>") for i in range(10)]
    assert len(codecache._memo) == 4 and codecache.compile_cached("x = 9\n", "<bounded>") is codes[9]


def test_private_fallback_folder_is_made_private(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(config, "default_cache_dir", lambda: tmp_path / "home" / "kl")
    monkeypatch.setattr(cachedir, "_private", {})
    folder = cachedir.private_folder()
    assert folder == Path(tmp_path / "home" / "kl") and folder.stat().st_mode & 0o077 == 0
