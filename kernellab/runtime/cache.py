"""The on-disk cache of compiled kernels (``cachedir.root()``: ``KERNELLAB_CACHE_DIR`` once
checked; ``KERNELLAB_CACHE=0`` turns it off).

One folder per key (a sha256 in hex) holding a file per stage (``tile.txt``, ``cubin.bin``...)
and ``metadata.json``::

    {
     "mac": "<MAC of this file's bytes with these 64 hex digits written as zeros>",
     "format": 3,
     "key": "<the folder's name>",
     "stages": [{"name": "tile", "file": "tile.txt", "kind": "text", "size": 1234, "sha256": "..."}, ...],
     "metadata": {...the CompiledKernel's metadata...}
    }

The MAC is ``cachedir.seal_json``'s under the name ``<key>/metadata.json``: keyed by this user's key and by the entry's
key (what produced it), so a record resealed by someone else, or copied from another entry,
fails it, and the sha256 of every stage (the object code a backend loads among them) is as
trustworthy as the record.  It is the first key, at a fixed offset, so checking it hashes the
bytes read (a new process's first launch used to serialise the parsed record again, 0.09 ms).

The cache folder is ``cachedir.root()`` (checked for its owner and mode).  An entry is written
into a temporary folder beside the entries and renamed into place in one step; a writer that
finds the folder already there keeps the other writer's entry (if it is valid) and discards its
own.  Loading checks the record's MAC and shape and every file's size and sha256: anything
missing, truncated, altered or planted is a miss, and the next store replaces it.  (A cache hit
in the launch path checks the record and the stage it launches from, and the other stages when
``kernel.asm`` is first read: ``runtime/compiler.py``.)
Nothing is pickled.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from .. import cachedir
from ..ir.types import Type
from ..language.core import constexpr

FORMAT = 3
METADATA_FILE = "metadata.json"
FINGERPRINT_DIR = "fingerprint"  # compiler_fingerprint's memo, beside the entries
# memos beside the entries (clear removes them): fingerprints, code objects, dependencies, toolchains
HOUSEKEEPING_DIRS = (FINGERPRINT_DIR, "code", "dependencies", "toolchain")
_STAGE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_KEY = re.compile(r"^[0-9a-f]{64}$")


# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------

def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


@functools.cache
def compiler_fingerprint() -> str:
    """kernellab's version and the hash of its own source files (so any change to the compiler
    invalidates what an older compiler cached); remembered in ``<cache>/fingerprint/``."""
    from .. import _VERSION

    root = cachedir.root()
    memo = root / FINGERPRINT_DIR if root is not None else None
    return source_fingerprint(Path(__file__).resolve().parent.parent, _VERSION, memo)

# Triton's name for it (triton.runtime.cache.triton_key: the compiler's version and source hash, a part of
# every cache key; torch.compile's Triton layer imports it)
triton_key = compiler_fingerprint


def source_fingerprint(package: Path, version: str, memo: Path | None) -> str:
    """``version`` + the sha256 of every ``.py`` file under ``package`` (names and contents).

    Reading and hashing every file takes milliseconds, a large part of a cached first launch in
    a new process, so the result is remembered in the folder ``memo`` under the files' names,
    sizes and modification times: a later process lists and stats the files and reads one
    small file."""
    files = _source_files(str(package))
    listing = "\n".join(f"{name}\0{size}\0{mtime}" for name, size, mtime in files)
    stamp = _sha256(f"{version}\0{package}\0{listing}".encode())
    remembered = _read_text(memo / stamp) if memo is not None else None
    if remembered is not None and _is_fingerprint(remembered, version):
        return remembered
    digest = hashlib.sha256(version.encode())
    for relative, _, _ in files:
        digest.update(relative.encode())
        digest.update((package / relative).read_bytes())
    fingerprint = f"{version}+{digest.hexdigest()[:16]}"
    if memo is not None:
        cachedir.write_sealed(memo / stamp, fingerprint.encode(), memo.parent)
    return fingerprint


def warm_fingerprint() -> None:
    """Compute :func:`compiler_fingerprint` now (``import kernellab`` calls this), so that a new
    process's first launch finds it.  On the importing thread, not a background one: the walk
    gives up the GIL at every ``stat`` and a background walker, starved while the main thread
    runs Python, was usually still walking when the first launch needed the value (that launch
    then waited ~1.4 ms for it).  A failure is left for the launch that needs the value, which
    computes it again and reports what is wrong."""
    try:
        compiler_fingerprint()
    except Exception:
        pass


def fingerprint() -> str:
    """:func:`compiler_fingerprint` (the name the cache keys use)."""
    return compiler_fingerprint()


def _source_files(root: str) -> list[tuple[str, int, int]]:
    """``(path relative to root, size, mtime_ns)`` of every ``.py`` file under ``root``, sorted."""
    found = []
    pending = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.endswith(".py"):
                    stat = entry.stat()
                    found.append((prefix + name, stat.st_size, stat.st_mtime_ns))
                elif name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, f"{prefix}{name}/"))
    found.sort()
    return found


def _is_fingerprint(text: str, version: str) -> bool:
    prefix = f"{version}+"
    digits = text[len(prefix):]
    return text.startswith(prefix) and len(digits) == 16 and all(c in "0123456789abcdef" for c in digits)


def _read_text(path: Path) -> str | None:
    data = cachedir.read_sealed(path)
    try:
        return data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None


NOT_SCALAR = object()


def scalar_json(value: Any) -> Any:
    """The JSON of None, a bool, int, str, float (a non-finite one as ``{"float": "inf"}``) or a
    type (``{"type": "f32"}``); :data:`NOT_SCALAR` for anything else."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, Type):
        return {"type": value.ir}
    return NOT_SCALAR


def stable_value(value: Any) -> Any:
    """A JSON value that identifies ``value`` across processes (for cache keys and metadata):
    ``1``, ``1.0`` and ``True`` stay distinct; types by their printed form; jit functions and
    other functions by name and source."""
    if isinstance(value, constexpr):
        return stable_value(value.value)
    scalar = scalar_json(value)
    if scalar is not NOT_SCALAR:
        return scalar
    if isinstance(value, (tuple, list)):
        return {type(value).__name__: [stable_value(v) for v in value]}
    if isinstance(value, np.generic):
        return {"numpy": str(value.dtype), "value": stable_value(value.item())}
    if getattr(value, "__kernellab_jit__", False) is True or callable(value):
        return _callable_identity(value)
    return {"repr": repr(value)}


def _callable_identity(fn: Any) -> dict:
    python_fn = getattr(fn, "fn", fn)
    name = f"{getattr(python_fn, '__module__', '?')}.{getattr(python_fn, '__qualname__', repr(python_fn))}"
    code = getattr(python_fn, "__code__", None)
    digest = _sha256(code.co_code + repr(code.co_consts).encode()) if code is not None else None
    return {"callable": name, "code": digest}


def cache_key(parts: dict[str, Any]) -> str:
    """The sha256 (hex) of ``parts`` as canonical JSON."""
    return _sha256(canonical_json(parts).encode())


# ---------------------------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------------------------

class DiskCache:
    """Compiled kernels under ``root``: ``load(key)`` and ``store(key, asm, metadata)``."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._folder = os.fspath(self.root)  # reads join strings (a Path per read cost ~10 us cold)

    def entry(self, key: str) -> Path:
        return self.root / key

    # ---- reading ----
    def load(self, key: str) -> tuple[dict[str, str | bytes], dict[str, Any]] | None:
        """The stages and metadata stored under ``key``; ``None`` when absent or damaged."""
        record = self.record(key)
        asm = self.read_stages(key, record) if record is not None else None
        return None if asm is None else (asm, record["metadata"])

    def record(self, key: str) -> dict[str, Any] | None:
        """The entry's ``metadata.json`` (its stages with their sizes and digests, and the
        kernel's metadata) when its digest, format and key are right; else None."""
        try:
            return _checked_record(_read_bytes(os.path.join(self._folder, key, METADATA_FILE)), key)
        except (OSError, ValueError, UnicodeDecodeError, TypeError, AttributeError):
            return None

    def read_stages(self, key: str, record: dict[str, Any], names: Collection[str] | None = None
                    ) -> dict[str, str | bytes] | None:
        """The stages ``names`` of an entry (all when None), in the entry's order, each checked
        against its size and sha256; None when one is missing or damaged.  A cache hit reads the
        stage it launches from this way, the others when ``kernel.asm`` is first read."""
        try:
            return _read_stages(os.path.join(self._folder, key), record, names)
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            return None

    def discard(self, key: str) -> None:
        """Remove the entry under ``key`` (a damaged one: the next lookup misses and replaces it)."""
        self._discard(self.entry(key))

    # ---- writing ----
    def store(self, key: str, asm: dict[str, str | bytes], metadata: dict[str, Any]) -> bool:
        """Write an entry atomically; ``True`` if this call's copy is the one now stored.  A
        failure to write (read-only or full disk) warns once and is otherwise ignored."""
        try:
            return self._store(key, asm, metadata)
        except OSError as error:
            cachedir.warn_once(f"write {self.root}", f"kernellab could not write its kernel cache in {self.root} "
                               f"({error}); compiled kernels will not be reused across processes (set "
                               "KERNELLAB_CACHE_DIR or KERNELLAB_CACHE=0)")
            return False

    def _store(self, key: str, asm: dict[str, str | bytes], metadata: dict[str, Any]) -> bool:
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        cachedir.sweep_leftovers(self.root)
        temporary = self.root / f".tmp-{key[:16]}-{os.getpid()}-{os.urandom(6).hex()}"
        temporary.mkdir()
        try:
            _write_entry(temporary, key, asm, metadata)
            return self._publish(temporary, key)
        finally:
            if temporary.exists():
                _remove_tree(temporary)

    def _publish(self, temporary: Path, key: str) -> bool:
        final = self.entry(key)
        try:
            os.rename(temporary, final)
            return True
        except OSError:
            if self.load(key) is not None:  # another writer got there first: keep theirs
                return False
        self._discard(final)  # a damaged entry is in the way
        try:
            os.rename(temporary, final)
            return True
        except OSError:
            return False

    def _discard(self, folder: Path) -> None:
        trash = self.root / f".trash-{folder.name[:16]}-{os.getpid()}-{os.urandom(6).hex()}"
        try:
            os.rename(folder, trash)
        except OSError:
            return
        _remove_tree(trash)

    # ---- housekeeping (the `kernellab cache` command) ----
    def entries(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir() if p.is_dir() and _KEY.match(p.name))

    def clear(self) -> int:
        """Remove every entry (and leftovers of interrupted writes); returns how many entries."""
        removed = 0
        if not self.root.is_dir():
            return 0
        for path in self.root.iterdir():
            if path.is_dir() and (_KEY.match(path.name) or path.name.startswith((".tmp-", ".trash-"))
                                  or path.name in HOUSEKEEPING_DIRS):
                _remove_tree(path)
                removed += bool(_KEY.match(path.name))
        return removed


def _remove_tree(path: Path) -> None:
    import shutil  # writes and housekeeping only: a cache hit never removes anything

    shutil.rmtree(path, ignore_errors=True)


def _read_bytes(path: str) -> bytes:
    data = cachedir.read_file(path)
    if data is None:
        raise OSError(f"{path} cannot be read as a file")
    return data


def _record_name(key: str) -> str:
    """What an entry's metadata.json is sealed under (as ``cachedir.sealed_name`` names it):
    the entry's key (what produced it) and the file's name."""
    return f"{key}/{METADATA_FILE}"


def _checked_record(data: bytes, key: str) -> dict | None:
    """The record of a metadata.json whose MAC, format, key and shape are right; else None."""
    record = cachedir.unseal_json(_record_name(key), data)
    if record is None or record.get("format") != FORMAT or record.get("key") != key \
            or not isinstance(record.get("metadata"), dict) or not _valid_stages(record.get("stages")):
        return None
    return record


_STAGE_FIELDS = ("name", "file", "kind", "size", "sha256")
_STAGE_TYPES = (str, str, str, int, str)


def _valid_stages(stages: Any) -> bool:
    """A record's ``stages``: a list of ``{name, file, kind, size, sha256}``, each file a plain
    name in the entry's folder."""
    if type(stages) is not list:
        return False
    for stage in stages:  # (the types compared in one tuple: a generator per stage cost ~0.02 ms cold)
        if type(stage) is not dict or tuple(map(type, map(stage.get, _STAGE_FIELDS))) != _STAGE_TYPES:
            return False
        if not _STAGE_NAME.match(stage["file"]) or stage["kind"] not in ("text", "bytes") or stage["size"] < 0:
            return False
    return True


def _read_stages(folder: str, record: dict, names: Collection[str] | None) -> dict[str, str | bytes] | None:
    """The files of the stages ``names`` (all when None), each checked against its size and
    sha256; None when one is not."""
    asm: dict[str, str | bytes] = {}
    for stage in record["stages"]:
        if names is not None and stage["name"] not in names:
            continue
        data = _read_bytes(os.path.join(folder, stage["file"]))
        if len(data) != stage["size"] or _sha256(data) != stage["sha256"]:
            return None
        asm[stage["name"]] = data.decode("utf-8") if stage["kind"] == "text" else data
    return asm


def stage_file(stage: str, value: str | bytes) -> str:
    if not _STAGE_NAME.match(stage):
        raise ValueError(f"stage name {stage!r} cannot name a cache file; use letters, digits, '_', '.' and '-'")
    return f"{stage}.{'txt' if isinstance(value, str) else 'bin'}"


def _write_entry(folder: Path, key: str, asm: dict[str, str | bytes], metadata: dict[str, Any]) -> None:
    stages = []
    for name, value in asm.items():
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        file = stage_file(name, value)
        (folder / file).write_bytes(data)
        stages.append({"name": name, "file": file, "kind": "text" if isinstance(value, str) else "bytes",
                       "size": len(data), "sha256": _sha256(data)})
    record = {"format": FORMAT, "key": key, "stages": stages, "metadata": metadata}
    (folder / METADATA_FILE).write_bytes(cachedir.seal_json(_record_name(key), record))


__all__ = ["DiskCache", "cache_key", "compiler_fingerprint", "stable_value", "canonical_json", "stage_file",
           "FORMAT", "METADATA_FILE", "FINGERPRINT_DIR", "HOUSEKEEPING_DIRS", "source_fingerprint",
           "warm_fingerprint", "fingerprint", "triton_key"]
