"""Writing small files so that a reader never sees half of one: into a temporary file beside
the target (``.tmp-<name>-<pid>-<random>``, which ``cachedir.sweep_leftovers`` removes when a
killed writer leaves it), then renamed over it (the caches' memos: fingerprints, code objects,
dependencies).  A failure to write (read-only or full disk, a file where a folder should be) is
reported as False: the caller computes the value again next time."""

from __future__ import annotations

import os
import uuid


def write_atomically(path: str | os.PathLike, data: bytes) -> bool:
    """Write ``data`` to ``path`` (its folder made if needed, 0700); True when it was written."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".tmp-{name[:40]}-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        os.makedirs(folder or ".", mode=0o700, exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
        return True
    except (OSError, ValueError):
        try:
            os.unlink(temporary)
        except (OSError, ValueError):
            pass
        return False


__all__ = ["write_atomically"]
