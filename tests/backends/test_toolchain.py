"""The toolchain's identity remembered across processes (``kernellab.backends.toolchain``): found
once, then read back while the folders searched, the steering variables and the files named are
unchanged; found again as soon as one of them changes."""

from __future__ import annotations

import os
import sys

import pytest

from kernellab.backends import toolchain


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A cache, one folder on PATH and one on sys.path, a tool in the PATH folder, and a finder
    that counts its searches."""
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELLAB_CACHE", "1")
    bin_folder, site = tmp_path / "bin", tmp_path / "site"
    bin_folder.mkdir()
    site.mkdir()
    tool = bin_folder / "tool"
    tool.write_text("v1")
    monkeypatch.setenv("PATH", str(bin_folder))
    monkeypatch.setattr(sys, "path", [str(site)])
    monkeypatch.setattr(toolchain, "_known", {})
    searches = []

    def find():
        searches.append(1)
        return {"tool": tool.read_text(), "variable": os.environ.get("MY_TOOL", "")}, [str(tool)]

    def ask():
        return toolchain.remembered("test", ("MY_TOOL",), find)

    return ask, searches, tool, bin_folder, site


def new_process(monkeypatch):
    monkeypatch.setattr(toolchain, "_known", {})


def test_an_answer_is_found_once_and_read_back(world, monkeypatch, tmp_path):
    ask, searches, *_ = world
    assert ask() == {"tool": "v1", "variable": ""} and len(searches) == 1
    assert ask() == {"tool": "v1", "variable": ""} and len(searches) == 1  # this process
    new_process(monkeypatch)
    assert ask() == {"tool": "v1", "variable": ""} and len(searches) == 1  # the disk memo
    assert len(list((tmp_path / "cache" / toolchain.FOLDER).iterdir())) == 1


def test_a_changed_file_folder_or_variable_is_searched_again(world, monkeypatch):
    ask, searches, tool, bin_folder, site = world
    ask()
    tool.write_text("v2")  # the program named by the answer, replaced in place
    os.utime(tool, ns=(10**18, 10**18))
    new_process(monkeypatch)
    assert ask()["tool"] == "v2" and len(searches) == 2
    (bin_folder / "another").write_text("")  # a program added to a PATH folder
    new_process(monkeypatch)
    ask()
    assert len(searches) == 3
    (site / "package").mkdir()  # a package installed on sys.path
    new_process(monkeypatch)
    ask()
    assert len(searches) == 4
    monkeypatch.setenv("MY_TOOL", "mine")
    assert ask()["variable"] == "mine" and len(searches) == 5


def test_without_the_disk_cache_nothing_is_written(world, monkeypatch, tmp_path):
    ask, searches, *_ = world
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    ask()
    new_process(monkeypatch)
    ask()
    assert len(searches) == 2 and not (tmp_path / "cache").exists()


def test_a_damaged_memo_is_searched_again(world, monkeypatch, tmp_path):
    ask, searches, *_ = world
    ask()
    (memo,) = (tmp_path / "cache" / toolchain.FOLDER).iterdir()
    memo.write_text("{not json")
    new_process(monkeypatch)
    assert ask()["tool"] == "v1" and len(searches) == 2


def test_llvmlite_version_is_the_package_version():
    import llvmlite

    assert toolchain.llvmlite_version() == {"llvmlite": llvmlite.__version__}


@pytest.mark.parametrize("changed", ["PATH", "sys.path"])
def test_a_package_finder_is_stamped_by_sys_path_only(world, monkeypatch, changed):
    _, searches, _, bin_folder, site = world

    def ask_package():
        return toolchain.remembered("package", (), lambda: (searches.append(1) or {"version": "1"}, []), programs=False)

    ask_package()
    if changed == "PATH":
        (bin_folder / "another").write_text("")  # a program added to a PATH folder: no import looks there
    else:
        (site / "package").mkdir()  # a package installed on sys.path
    new_process(monkeypatch)
    ask_package()
    assert len(searches) == (1 if changed == "PATH" else 2)


def test_a_path_object_on_sys_path_is_stamped_too(world, monkeypatch, tmp_path):
    """sys.path may hold anything (imports skip what is not a string; a pathlib.Path put there by
    hand is common): the stamp names it by its repr and still sees its folder change."""
    ask, searches, *_ = world
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, other, b"/no/such/folder", None])
    assert ask()["tool"] == "v1" and len(searches) == 1
    new_process(monkeypatch)
    ask()
    assert len(searches) == 1
    (other / "module.py").write_text("")
    new_process(monkeypatch)
    ask()
    assert len(searches) == 2


def test_a_folder_moved_between_sys_path_and_path_changes_the_stamp(world, monkeypatch):
    _, _, _, bin_folder, site = world
    monkeypatch.setenv("PATH", os.pathsep.join([str(site), str(bin_folder)]))
    monkeypatch.setattr(sys, "path", [])
    first = toolchain._stamp("test", (), True)
    monkeypatch.setenv("PATH", str(bin_folder))
    monkeypatch.setattr(sys, "path", [str(site)])
    assert toolchain._stamp("test", (), True) != first
