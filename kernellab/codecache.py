"""Code objects of the Python source kernellab generates (each kernel's binder, the CUDA
launcher's fast path), kept in the disk cache so that a new process does not compile them again.

Compiling a binder takes ~0.3-0.5 ms, a noticeable part of a cached first launch in a new
process; reading its code object back (``marshal``, the format of ``.pyc`` files, not pickle)
takes tens of microseconds.  Entries are named by the sha256 of the source, the file name the
code reports and the interpreter's bytecode magic number, written atomically, and anything
unreadable is compiled again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import types

from . import config
from .files import write_atomically

FOLDER = "code"

_memo: dict[tuple[str, str], types.CodeType] = {}


def compile_cached(source: str, filename: str) -> types.CodeType:
    """``compile(source, filename, "exec")``, through this process's memo and the disk cache."""
    found = _memo.get((source, filename))
    if found is not None:
        return found
    path = _entry(source, filename) if config.disk_cache_enabled() else None
    found = _read(path) if path is not None else None
    if found is None:
        found = compile(source, filename, "exec")
        if path is not None:
            _write(path, found)
    _memo[(source, filename)] = found
    return found


def _entry(source: str, filename: str) -> str:
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + filename.encode() + b"\0" + source.encode()).hexdigest()
    return os.path.join(config.cache_dir(), FOLDER, digest + ".marshal")


def _read(path: str) -> types.CodeType | None:
    try:
        with open(path, "rb") as file:
            code = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _write(path: str, code: types.CodeType) -> None:
    write_atomically(path, marshal.dumps(code))


__all__ = ["compile_cached", "FOLDER"]
