"""What a backend's cache-key part says about its toolchain (llvmlite's version, which ptxas),
remembered across processes.

Finding it cost a new process's first launch ~0.4 ms: importing llvmlite for its version (a
sys.path search and two modules) and searching sys.path's wheel folders and PATH for ptxas.
What such a search finds changes only when a folder it searches changes -- installing, removing
or upgrading a package rewrites its site-packages folder, putting a program into a PATH folder
rewrites that folder -- or when a variable that steers it changes.  So the answer is kept in
``<cache>/toolchain/`` under a stamp of those folders (inode and modification time) and
variables, and each file the answer names (ptxas) is checked against its own size and times
before the answer is used.  Not caught: a package edited in place inside a source checkout on
sys.path (a kernel compiled by the other version is then reused, still a correct program).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import cachedir

FOLDER = "toolchain"
_FORMAT = 1

Finder = Callable[[], tuple[dict[str, Any], list[str]]]  # -> (answer, files it names)

_known: dict[str, dict[str, Any]] = {}  # this process's answers, by stamp


def remembered(name: str, variables: Sequence[str], find: Finder, programs: bool = True) -> dict[str, Any]:
    """``find()``'s answer (a JSON-able dict) while nothing it depends on has changed: from this
    process, from the disk memo, or found now and remembered.  ``programs``: ``find`` searches
    PATH too (a Python package's finder does not: PATH's folders are then left out of the stamp)."""
    stamp = _stamp(name, variables, programs)
    found = _known.get(stamp)
    if found is not None and _files_unchanged(found["files"]):
        return found["answer"]
    root = cachedir.root()
    path = os.path.join(root, FOLDER, stamp + ".json") if root is not None else None
    found = _read(path) if path is not None else None
    if found is None:
        answer, files = find()
        found = {"format": _FORMAT, "answer": answer, "files": {file: _file_state(file) for file in files}}
        if path is not None:  # a failure to write is ignored: the next process finds it again
            cachedir.write_sealed_json(path, found, root)
    _known[stamp] = found
    return found["answer"]


def _stamp(name: str, variables: Sequence[str], programs: bool) -> str:
    """The digest of what a search depends on: sys.path's folders (and PATH's with
    ``programs``), each by name and (device, inode, modification time), and the variables.
    The folders' states are packed, not written as JSON: the decimal digits of ~60 large ints,
    and the JSON of their names, cost a new process's first CUDA launch 0.06 M instructions."""
    search = os.environ.get("PATH", "").split(os.pathsep) if programs else []
    names, states, stated = [], [], bytearray()
    for folders in (sys.path, search):
        names.append(str(len(folders)))
        for folder in folders:  # sys.path may hold anything: a Path is named by its repr
            names.append(folder if type(folder) is str else repr(folder))
            try:
                stat = os.stat(folder or ".")  # "" on sys.path: the working folder
            except (OSError, ValueError, TypeError):
                stated.append(0)
                continue
            stated.append(1)
            states += (stat.st_dev, stat.st_ino, stat.st_mtime_ns)
    digest = hashlib.sha256(json.dumps([name, sys.executable, {v: os.environ.get(v) for v in variables}]).encode())
    # names joined by NUL, which no folder's name holds (os.stat refuses it: such an entry is unstated)
    digest.update("\0".join(names).encode("utf-8", "surrogateescape"))
    digest.update(stated)
    digest.update(struct.pack("<" + "QQq" * (len(states) // 3), *states))
    return digest.hexdigest()


def _file_state(path: str) -> list[int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_mode]


def _files_unchanged(files: dict[str, Any]) -> bool:
    return all(_file_state(path) == state for path, state in files.items())


def _read(path: str) -> dict[str, Any] | None:
    """The sealed memo at ``path`` when its shape is right and the files it names are unchanged."""
    record = cachedir.read_sealed_json(path)
    if (record is None or record.get("format") != _FORMAT or not _plain_answer(record.get("answer"))
            or not _valid_files(record.get("files")) or not _files_unchanged(record["files"])):
        return None
    return record


def _plain_answer(answer: Any) -> bool:
    """A finder's answer as it writes them: a dict of strings to strings, numbers, booleans, None."""
    return isinstance(answer, dict) and all(isinstance(v, (str, int, float, bool, type(None))) for v in answer.values())


def _valid_files(files: Any) -> bool:
    """``{path: [size, mtime, ctime, mode] | None}``."""
    return isinstance(files, dict) and all(
        state is None or (isinstance(state, list) and len(state) == 4 and all(type(n) is int for n in state))
        for state in files.values())


def llvmlite_version() -> dict[str, Any]:
    """``{"llvmlite": version}``, llvmlite's version without importing it when remembered."""
    return remembered("llvmlite", (), _find_llvmlite, programs=False)  # an import: sys.path's folders only


def _find_llvmlite() -> tuple[dict[str, Any], list[str]]:
    import llvmlite  # the package's version only: llvmlite.binding is not imported

    return {"llvmlite": llvmlite.__version__}, []


__all__ = ["remembered", "llvmlite_version", "FOLDER"]
