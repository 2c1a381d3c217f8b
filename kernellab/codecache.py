"""Code objects of the Python source kernellab generates (each kernel's binder, the CUDA
launcher's fast path), kept in the disk cache so that a new process does not compile them again.

Compiling a binder takes ~0.3-0.5 ms, a noticeable part of a cached first launch in a new
process; reading its code object back (``marshal``, the format of ``.pyc`` files, not pickle)
takes tens of microseconds.  Entries are named by the sha256 of the source, the file name the
code reports and the interpreter's bytecode magic number and sealed (``cachedir.write_sealed``:
a MAC under this user's key over the entry's name and bytes), so a flipped bit, a truncation, a
file linked in from another entry or planted by another user is never given to
``marshal.loads``: it is compiled again and replaced.

This process's memo holds the last :data:`MEMO_SIZE` code objects used (least recently used
dropped first): one per kernel binder and launcher signature, a few KB each.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import types
from pathlib import Path

from . import cachedir

FOLDER = "code"
MEMO_SIZE = 512

_memo: dict[tuple[str, str], types.CodeType] = {}  # in order of use, the least recent first


def compile_cached(source: str, filename: str) -> types.CodeType:
    """``compile(source, filename, "exec")``, through this process's memo and the disk cache."""
    memo = _memo
    found = memo.pop((source, filename), None)
    if found is not None:
        memo[(source, filename)] = found  # now the most recently used
        return found
    root = cachedir.root()
    path = _entry(root, source, filename) if root is not None else None
    found = _read(path, filename) if path is not None else None
    if found is None:
        found = compile(source, filename, "exec")
        if path is not None:
            cachedir.write_sealed(path, marshal.dumps(found), root)
    memo[(source, filename)] = found
    if len(memo) > MEMO_SIZE:
        del memo[next(iter(memo))]
    return found


def _entry(root: Path, source: str, filename: str) -> str:
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + filename.encode() + b"\0" + source.encode()).hexdigest()
    return os.path.join(root, FOLDER, digest + ".marshal")


def _read(path: str, filename: str) -> types.CodeType | None:
    data = cachedir.read_sealed(path)
    if data is None:
        return None
    try:
        code = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) and code.co_filename == filename else None


__all__ = ["compile_cached", "FOLDER", "MEMO_SIZE"]
