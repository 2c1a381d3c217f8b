"""The cache folder: which folder is used, whether it can be trusted, and sealed files in it.

Every cache (compiled kernels, the memos beside them, autotuning results) lives under
:func:`root`, which is the folder ``KERNELLAB_CACHE_DIR`` names (an empty value means the
default, ``~/.cache/kernellab``) once it has passed these checks, made once per process:

* it is a folder, or can be made one (created ``0700``, less where the umask says so);
  anything else -- a file, ``/dev/null``, a fifo, a symlink loop, a path that cannot be
  created -- warns once and the process runs uncached (``root()`` is None);
* it belongs to this user and is not writable by group or others; otherwise it is refused with a
  warning and a private folder is used instead (the default folder when it differs and passes,
  else ``<tempdir>/kernellab-<uid>``), unless ``KERNELLAB_SHARED_CACHE=1`` opts into sharing it.

A read-only folder passes (reads work; a write warns once where it fails).

Nothing read back from the cache is trusted on its own word: every file a reader acts on is
**sealed** with a MAC (keyed BLAKE2b) under this user's key, over the file's name (its folder and
file name, which name what produced it: a cache key, the hash of a generated source) and its
bytes.  Another user who can write a shared folder cannot make a file this user accepts, a file
moved or linked under another name fails its check, and so does any bit flip or truncation.  The
key is 32 random bytes in ``trust/key`` (``0600``) of :func:`private_folder` (a shared folder never
holds it); without one (no private folder can be made) a process uses a key of its own, so it
reads back only what it wrote.

Leftovers of interrupted writes (``.tmp-*``, ``.trash-*``) older than :data:`STALE_SECONDS` are
removed by the first write of each process (:func:`sweep_leftovers`): only writers make them.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
import warnings
from pathlib import Path

from . import config

try:  # hmac.compare_digest itself (hmac imports it from here), without importing hmac (~0.2 ms)
    from _hashlib import compare_digest
except ImportError:  # pragma: no cover - a Python without OpenSSL's hashlib
    from hmac import compare_digest

KEY_FOLDER = "trust"  # in the private folder (``cache clear`` leaves it)
KEY_FILE = "key"
KEY_BYTES = 32
MAC_HEX = 64
STALE_SECONDS = 600
LEFTOVER_PREFIXES = (".tmp-", ".trash-")

_roots: dict[tuple[str, bool, bool], Path | None] = {}  # (folder, enabled, shared) -> the folder to use
_keys: dict[Path | None, bytes] = {}  # the private folder -> the key in it
_hashers: dict[bytes, object] = {}  # a key -> BLAKE2b keyed with it (what mac() copies)
# The last answers, memoized on what they depend on (a cached launch asks several times; each
# answer costs ~5 us from the memos above): root() on the raw values of its three variables (by
# identity, from os.environ's own dict: changes through os.environ are seen), key() on the
# function naming the default folder (fixed per process; tests replace it).
_ROOT_VARIABLES = ("KERNELLAB_CACHE_DIR", "KERNELLAB_CACHE", "KERNELLAB_SHARED_CACHE")
_ENVIRON_DATA = getattr(os.environ, "_data", None)
_ENVIRON_KEYS = tuple(os.environ.encodekey(n) for n in _ROOT_VARIABLES) if _ENVIRON_DATA is not None else ()
_last_root: list = [object(), object(), object(), None]  # the raw values last seen, root()'s answer
_last_key: list = [None, b""]  # config.default_cache_dir when key() last answered, its answer
_private: dict[tuple[str, str], Path | None] = {}  # the default folder -> the private folder chosen
_private_ok: set[str] = set()  # folders found to be this user's alone, this process
_warned: set[str] = set()
_swept: set[str] = set()


def warn_once(topic: str, message: str) -> None:
    """One RuntimeWarning per ``topic`` per process."""
    if topic in _warned:
        return
    _warned.add(topic)
    warnings.warn(message, RuntimeWarning, stacklevel=3)


# ---------------------------------------------------------------------------------------------
# Which folder
# ---------------------------------------------------------------------------------------------

def root() -> Path | None:
    """The cache folder to use, or None: caching is off (``KERNELLAB_CACHE=0``) or no usable
    folder exists (warned once)."""
    memo = _last_root
    if _ENVIRON_DATA is not None:
        get = _ENVIRON_DATA.get
        a, b, c = _ENVIRON_KEYS
        if get(a) is memo[0] and get(b) is memo[1] and get(c) is memo[2]:
            return memo[3]
        raw = get(a), get(b), get(c)
        memo[3] = _root()
        memo[0], memo[1], memo[2] = raw
        return memo[3]
    return _root()  # pragma: no cover - os.environ without its dict


def _root() -> Path | None:
    wanted = config.cache_dir()
    state = (os.fspath(wanted), config.disk_cache_enabled(), config.shared_cache())
    if state in _roots:
        return _roots[state]
    found = _choose(wanted, state[2]) if state[1] else None
    _roots[state] = found
    return found


def _choose(wanted: Path, shared: bool) -> Path | None:
    problem = _unusable(wanted)
    if problem is not None:
        warn_once(f"unusable {wanted}", f"kernellab's cache folder {wanted} {problem}; kernels are compiled again "
                  "in every process (set KERNELLAB_CACHE_DIR to a folder of yours, or KERNELLAB_CACHE=0)")
        return None
    refusal = None if shared else _untrusted(wanted)
    if refusal is None:
        if not shared:
            _private_ok.add(os.path.abspath(wanted))
        return wanted
    fallback = private_folder(exclude=wanted)
    instead = f"using {fallback} instead" if fallback is not None else "running uncached"
    warn_once(f"refused {wanted}", f"kernellab refuses the cache folder {wanted}: {refusal}, so another user could "
              f"plant code in it; {instead} (make it yours with chmod go-w, or set KERNELLAB_SHARED_CACHE=1 to "
              "share it: what runs from it is then checked against your key)")
    return fallback


def _unusable(folder: Path) -> str | None:
    """Why ``folder`` cannot hold a cache (None when it can), after making it if missing."""
    try:
        try:
            info = os.stat(folder)
        except FileNotFoundError:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            info = os.stat(folder)
    except OSError as error:
        return f"cannot be used ({error.strerror or error})"
    except ValueError as error:  # a NUL in the path
        return f"cannot be used ({error})"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    return None


def _untrusted(folder: Path) -> str | None:
    """Why another user could write in ``folder`` (None when only this user can)."""
    info = os.stat(folder)
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"it belongs to uid {info.st_uid}, not to you (uid {os.geteuid()})"
    if info.st_mode & 0o022:
        return f"it is writable by {'group and others' if info.st_mode & 0o002 else 'its group'}"
    return None


def private_folder(exclude: Path | None = None) -> Path | None:
    """A folder only this user can write: the default cache folder, else
    ``<tempdir>/kernellab-<uid>`` (made 0700); None when neither will do.  Checked once per
    process (per default folder)."""
    memo = os.fspath(config.default_cache_dir()), os.fspath(exclude or "")
    if memo not in _private:
        _private[memo] = _find_private(exclude)
    return _private[memo]


def _candidates(uid: int):
    """The default cache folder, then ``<tempdir>/kernellab-<uid>`` (looked for only if needed)."""
    yield config.default_cache_dir()
    import tempfile  # only when the default folder will not do (it imports shutil, random...)

    try:
        yield Path(tempfile.gettempdir()) / f"kernellab-{uid}"
    except OSError:  # no temporary folder can be written (a full disk)
        return


def _find_private(exclude: Path | None) -> Path | None:
    uid = os.geteuid() if hasattr(os, "geteuid") else 0
    for folder in _candidates(uid):
        if exclude is not None and os.path.abspath(folder) == os.path.abspath(exclude):
            continue
        if os.path.abspath(folder) in _private_ok:  # checked as the cache folder already
            return folder
        try:
            if _unusable(folder) is None and _untrusted(folder) is None:
                return folder
        except OSError:
            continue
    return None


# ---------------------------------------------------------------------------------------------
# The user's key and sealed files
# ---------------------------------------------------------------------------------------------

def key() -> bytes:
    """This user's MAC key, one for every cache folder: kept in ``trust/key`` of
    :func:`private_folder` (so a shared folder never holds it), made there on first use; a key
    of this process's own when no private folder can hold one."""
    if _last_key[0] is config.default_cache_dir:
        return _last_key[1]
    holder = private_folder()
    found = _keys.get(holder)
    if found is None:
        folder = holder / KEY_FOLDER if holder is not None else None
        found = (_read_key(folder) or _make_key(folder)) if folder is not None else os.urandom(KEY_BYTES)
        _keys[holder] = found
    _last_key[:] = config.default_cache_dir, found
    return found


def _read_key(folder: Path) -> bytes | None:
    try:
        fd = os.open(os.path.join(folder, KEY_FILE), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        mine = not hasattr(os, "geteuid") or info.st_uid == os.geteuid()
        if not stat.S_ISREG(info.st_mode) or not mine or info.st_mode & 0o077 or info.st_size != KEY_BYTES:
            return None
        data = os.read(fd, KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == KEY_BYTES else None


def _make_key(folder: Path) -> bytes:
    """A new key, published atomically (0600); a concurrent maker's key wins if it got there
    first.  A key that cannot be written serves this process only."""
    data = os.urandom(KEY_BYTES)
    final = os.path.join(folder, KEY_FILE)
    temporary = os.path.join(folder, f".tmp-key-{os.getpid()}-{os.urandom(6).hex()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        try:
            os.link(temporary, final)  # fails when a key is there: read that one
        except FileExistsError:
            theirs = _read_key(folder)
            if theirs is not None:
                return theirs
            os.replace(temporary, final)  # the key there is damaged or not ours: replace it
    except OSError:
        return data
    finally:
        _unlink(temporary)
    return data


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def mac(name: str, data: bytes) -> str:
    """The hex MAC of ``data`` stored under ``name`` (a path inside a cache folder)."""
    return _mac(name, data)


def _mac(name: str, *parts: bytes | memoryview) -> str:
    """The hex MAC of the concatenation of ``parts`` stored under ``name`` (no copy is made):
    keyed BLAKE2b (32 bytes) of ``name``, a NUL and the data."""
    secret = key()
    keyed = _hashers.get(secret)
    if keyed is None:
        keyed = _hashers[secret] = hashlib.blake2b(key=secret, digest_size=32, person=b"kernellab-cache")
    digest = keyed.copy()  # the key's block is hashed once per process, not once per MAC
    digest.update(name.encode("utf-8", "surrogateescape"))
    digest.update(b"\0")
    for part in parts:
        digest.update(part)
    return digest.hexdigest()


def seal(name: str, data: bytes) -> bytes:
    """``data`` as a sealed file's bytes: its MAC's hex digits, a newline, ``data``."""
    return mac(name, data).encode() + b"\n" + data


def unseal(name: str, sealed: bytes) -> bytes | None:
    """The data of a sealed file's bytes when its MAC is right for ``name``; else None."""
    if len(sealed) <= MAC_HEX or sealed[MAC_HEX:MAC_HEX + 1] != b"\n":
        return None
    data = sealed[MAC_HEX + 1:]
    return data if compare_digest(sealed[:MAC_HEX], _mac(name, data).encode()) else None


_JSON_PREFIX = b'{\n "mac": "'  # how a sealed JSON file begins: its MAC is the first key
_JSON_MAC_END = len(_JSON_PREFIX) + MAC_HEX
_ZEROS = b"0" * MAC_HEX


def seal_json(name: str, record: dict) -> bytes:
    """``record`` as a sealed JSON file's bytes: ``{"mac": "<MAC>", ...record}`` (indented), the
    MAC over the bytes with its own digits as zeros (so checking it hashes the bytes read)."""
    data = json.dumps({"mac": _ZEROS.decode(), **record}, indent=1, allow_nan=False).encode()  # ASCII
    return data[:len(_JSON_PREFIX)] + _mac(name, data).encode() + data[_JSON_MAC_END:]


def unseal_json(name: str, sealed: bytes) -> dict | None:
    """The record (without its ``mac``) of a sealed JSON file's bytes when its MAC is right for
    ``name`` and it is a JSON object; else None."""
    if not sealed.startswith(_JSON_PREFIX) or len(sealed) < _JSON_MAC_END:
        return None
    expected = _mac(name, _JSON_PREFIX, _ZEROS, memoryview(sealed)[_JSON_MAC_END:])  # the bytes with zeros
    if not compare_digest(sealed[len(_JSON_PREFIX):_JSON_MAC_END], expected.encode()):
        return None
    try:
        record = json.loads(sealed)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    record.pop("mac", None)
    return record


def sealed_name(path: str | os.PathLike) -> str:
    """What a sealed file's MAC covers besides its bytes: its folder's name and its own."""
    path = os.fspath(path)
    return f"{os.path.basename(os.path.dirname(path))}/{os.path.basename(path)}"


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def read_file(path: str | os.PathLike) -> bytes | None:
    """A file's bytes; None when it cannot be read (absent, a folder, a fifo is not opened)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        data = os.read(fd, info.st_size + 1)  # all of it in one read (a short read of a file is its end)
        if len(data) <= info.st_size:
            return data
        parts = [data]  # it grew since fstat: read on to its end
        while data:
            data = os.read(fd, 1 << 16)
            parts.append(data)
        return b"".join(parts)
    except OSError:
        return None
    finally:
        os.close(fd)


def file_digest(path: str | os.PathLike) -> str | None:
    """The sha256 (hex) of a file's content; None when it cannot be read (:func:`read_file`)."""
    data = read_file(path)
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_sealed(path: str | os.PathLike) -> bytes | None:
    """The data of the sealed file at ``path``; None when absent, unreadable or not sealed
    under this name by this user."""
    sealed = read_file(path)
    return unseal(sealed_name(path), sealed) if sealed is not None else None


def read_sealed_json(path: str | os.PathLike) -> dict | None:
    """The record of the sealed JSON file at ``path`` (as :func:`read_sealed`)."""
    sealed = read_file(path)
    return unseal_json(sealed_name(path), sealed) if sealed is not None else None


def write_sealed(path: str | os.PathLike, data: bytes, folder: Path) -> bool:
    """Write ``data`` sealed to ``path`` in the cache folder ``folder`` atomically (the first
    write of a process sweeps the folder's leftovers first); False when it could not."""
    return _write(path, seal(sealed_name(path), data), folder)


def write_sealed_json(path: str | os.PathLike, record: dict, folder: Path) -> bool:
    """Write ``record`` as a sealed JSON file (as :func:`write_sealed`)."""
    return _write(path, seal_json(sealed_name(path), record), folder)


def _write(path: str | os.PathLike, sealed: bytes, folder: Path) -> bool:
    from .files import write_atomically  # writers only (it imports uuid: ~0.6 ms of import kernellab)

    sweep_leftovers(folder)
    written = write_atomically(path, sealed)
    if not written:  # one warning per cache folder (DiskCache.store shares the topic)
        warn_once(f"write {folder}", f"kernellab could not write in its cache folder {folder} (at "
                  f"{os.path.dirname(os.fspath(path))}); what it would remember there is computed again next time")
    return written


# ---------------------------------------------------------------------------------------------
# Leftovers of interrupted writes
# ---------------------------------------------------------------------------------------------

def sweep_leftovers(folder: Path, age: float = STALE_SECONDS) -> int:
    """Remove ``.tmp-*``/``.trash-*`` older than ``age`` seconds in ``folder`` and the folders
    one level below it (memos) and two below ``autotune/``, once per process and folder; returns
    how many were removed."""
    name = os.fspath(folder)
    if name in _swept:
        return 0
    _swept.add(name)
    return _sweep(name, time.time() - age, depth=2)


def _sweep(folder: str, before: float, depth: int) -> int:
    """Leftovers in ``folder`` and ``depth`` levels below it (not inside the kernel entries
    at the top: they are written whole into a leftover folder and renamed)."""
    removed = 0
    try:
        with os.scandir(folder) as entries:
            listed = list(entries)
    except OSError:
        return 0
    for entry in listed:
        if entry.name.startswith(LEFTOVER_PREFIXES):
            removed += _remove_if_older(entry, before)
        elif depth > 0 and not (depth == 2 and len(entry.name) == 64) and _is_folder(entry):
            removed += _sweep(entry.path, before, depth - 1)
    return removed


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _remove_if_older(entry: os.DirEntry, before: float) -> int:
    import shutil  # writes only

    try:
        if entry.stat(follow_symlinks=False).st_mtime >= before:
            return 0
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            os.unlink(entry.path)
    except OSError:
        return 0
    return 1


__all__ = ["root", "key", "mac", "seal", "unseal", "seal_json", "unseal_json", "read_file", "read_sealed",
           "read_sealed_json", "write_sealed", "write_sealed_json", "sealed_name", "private_folder",
           "sweep_leftovers", "warn_once", "KEY_FOLDER", "KEY_FILE", "STALE_SECONDS"]
