"""Writing small files so that a reader never sees half of one: into a temporary file beside
the target, then renamed over it (the caches' memos: fingerprints, code objects, dependencies).
A failure to write (read-only or full disk) is ignored: the value is computed again next time."""

from __future__ import annotations

import os
import uuid


def write_atomically(path: str | os.PathLike, data: bytes) -> bool:
    """Write ``data`` to ``path`` (its folder made if needed); True when it was written."""
    path = os.fspath(path)
    temporary = f"{path}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
        return True
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False


__all__ = ["write_atomically"]
