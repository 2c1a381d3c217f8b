"""Generated Python code kept compiled on disk (``kernellab.codecache``)."""

from __future__ import annotations

import builtins

import pytest

from kernellab import codecache

SOURCE = "def triple(x):\n    return 3 * x\n"


def run(code) -> int:
    scope: dict = {}
    exec(code, scope)  # noqa: S102 - the test's own source
    return scope["triple"](14)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KERNELLAB_CACHE", "1")
    monkeypatch.setattr(codecache, "_memo", {})
    return tmp_path / codecache.FOLDER


def test_a_new_process_reads_the_code_back_without_compiling(cache, monkeypatch):
    assert run(codecache.compile_cached(SOURCE, "<test triple>")) == 42
    (entry,) = cache.iterdir()
    monkeypatch.setattr(codecache, "_memo", {})  # as in a new process

    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")
    monkeypatch.setattr(builtins, "compile", refuse)
    code = codecache.compile_cached(SOURCE, "<test triple>")
    monkeypatch.undo()
    assert run(code) == 42 and code.co_filename == "<test triple>"


def test_other_sources_and_names_are_other_entries(cache):
    codecache.compile_cached(SOURCE, "<a>")
    codecache.compile_cached(SOURCE, "<b>")
    codecache.compile_cached(SOURCE.replace("3", "4"), "<a>")
    assert len(list(cache.iterdir())) == 3


def test_damaged_entries_are_compiled_again(cache, monkeypatch):
    codecache.compile_cached(SOURCE, "<test triple>")
    (entry,) = cache.iterdir()
    entry.write_bytes(b"\x00garbage")
    monkeypatch.setattr(codecache, "_memo", {})
    assert run(codecache.compile_cached(SOURCE, "<test triple>")) == 42


def test_without_the_disk_cache_nothing_is_written(cache, monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    assert run(codecache.compile_cached(SOURCE, "<test triple>")) == 42
    assert not cache.exists()
