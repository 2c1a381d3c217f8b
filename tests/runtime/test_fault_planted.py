"""Fault injection, another user: entries planted in a cache folder another user can write
(code memos replaced by code that records who ran it, another kernel's object code put in an
entry with its record resealed as sha256 alone, records copied between entries, autotune results
edited) never run: the folder is refused (a private one is used), and in a shared cache
(``KERNELLAB_SHARED_CACHE=1``) nothing fails its MAC silently -- it is rebuilt.

Run as root, the test creates a second user (``useradd``) and plants as that user; otherwise it
is skipped (a second uid needs root)."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from . import faults

pytestmark = pytest.mark.slow

PLANTER = "klplanter"


@pytest.fixture(scope="module")
def planter() -> tuple[int, int]:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("planting as a second user needs root (useradd, setuid)")
    try:
        entry = pwd.getpwnam(PLANTER)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", PLANTER], check=True,
                       capture_output=True)
        entry = pwd.getpwnam(PLANTER)
    return entry.pw_uid, entry.pw_gid


@pytest.fixture
def arena():
    """A folder under the temporary folder that the second user can reach."""
    folder = Path(tempfile.mkdtemp(prefix="kl-planted-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def as_user(ids: tuple[int, int], action) -> None:
    """Run ``action()`` in a forked process as the user ``ids`` (uid, gid)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.setgroups([])
            os.setgid(ids[1])
            os.setuid(ids[0])
            action()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the planting process failed"


def _plant(cache: Path, marker: Path) -> None:
    """What the other user does to a cache it can write."""
    payload = compile(f"open({str(marker)!r}, 'w').write(str(__import__('os').getuid()))", "<planted>", "exec")
    for path in (cache / "code").iterdir():
        raw = marshal.dumps(payload)
        path.write_bytes(raw if hash(path.name) % 2 else b"0" * 64 + b"\n" + raw)
    entries = sorted(p for p in cache.iterdir() if len(p.name) == 64)
    objects = [p / "obj.bin" for p in entries if (p / "obj.bin").exists()]
    for folder, foreign in zip(entries, objects[1:] + objects[:1]):
        _swap_object(folder, foreign)
    for path in cache.glob("autotune/*/*.json"):
        text = path.read_text()
        path.write_text(text.replace('"timings": [', '"timings": [0.0, '))


def _swap_object(folder: Path, foreign: Path) -> None:
    """Put another entry's object code in ``folder`` and reseal its record as sha256 alone."""
    record_path = folder / "metadata.json"
    record = json.loads(record_path.read_text())
    data = foreign.read_bytes()
    for stage in record["stages"]:
        if stage["file"] == "obj.bin":
            (folder / "obj.bin").write_bytes(data)
            stage["size"], stage["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    record_path.write_text(json.dumps(record, indent=1))


def _open_up(cache: Path) -> None:
    for path in [cache, *cache.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)


def test_entries_planted_by_another_user_never_run(planter, arena, tmp_path):
    module = faults.kernels_file(arena / "src")
    cache, marker = arena / "cache", arena / "ran-planted-code"
    shared = faults.child_env(cache, HOME=str(tmp_path / "home"), KERNELLAB_SHARED_CACHE="1")
    for mode in ("launch", "tune", "launch"):
        faults.assert_good(faults.run_child(cache, module, mode, env=shared), "warming the shared cache")
    _open_up(cache)
    arena.chmod(0o777)
    before = {p: p.read_bytes() for p in faults.cache_files(cache)}
    as_user(planter, lambda: _plant(cache, marker))
    changed = {faults.kind_of(cache, p) for p, data in before.items() if p.read_bytes() != data}
    assert {"code", "entry:obj.bin", "entry:metadata.json", "autotune"} <= changed, changed
    faults.assert_launches(cache, module, "planted entries in a shared cache", env=shared)
    assert not marker.exists(), f"planted code ran as uid {marker.read_text()}"

    theirs = arena / "theirs"
    as_user(planter, lambda: (shutil.copytree(cache, theirs), _plant(theirs, marker)))
    private = faults.child_env(theirs, HOME=str(tmp_path / "home"))
    outcome = faults.run_child(theirs, module, env=private)
    faults.assert_good(outcome, "another user's cache folder")
    assert any(f"belongs to uid {planter[0]}" in w for w in outcome.warnings), outcome.warnings
    faults.assert_launches(theirs, module, "another user's cache folder", env=private)
    assert not marker.exists(), f"planted code ran as uid {marker.read_text()}"
