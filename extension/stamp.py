"""The prebuilt labextension's stamp: a SHA-256 of the extension's sources, written beside the build.

``extension/labextension/`` is committed, so a fresh clone (and a wheel built without Node.js)
gets the viewer without npm; ``labextension/sources.sha256`` names the sources it was built
from.  ``scripts/build-if-stale.js`` computes the same hash (keep the two in step: a test
compares them), rebuilds when it differs and writes the stamp; ``hatch_build.py`` and ``./dev``
ask this module whether the committed build is fresh; a test fails when it is not.

    python extension/stamp.py check    exit 0 when the build matches the sources, else 1 (why)
    python extension/stamp.py hash     print the sources' hash

Standard library only: the wheel's build hook runs it in an isolated build environment.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# What the build reads (the jest tests under src/__tests__ do not change it).
INPUTS = ("src", "style", "package.json", "package-lock.json", "tsconfig.json")
EXCLUDED = ("src/__tests__",)
STAMP = Path("labextension") / "sources.sha256"


def source_files(root: Path = ROOT) -> list[str]:
    """The build's inputs as sorted POSIX paths relative to ``root``."""
    found = []
    for name in INPUTS:
        path = root / name
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for candidate in candidates:
            relative = candidate.relative_to(root).as_posix()
            if not any(relative == skip or relative.startswith(skip + "/") for skip in EXCLUDED):
                found.append(relative)
    return sorted(found)


def sources_hash(root: Path = ROOT) -> str:
    """SHA-256 over each input's path and bytes (path, NUL, bytes, NUL; in path order)."""
    digest = hashlib.sha256()
    for relative in source_files(root):
        digest.update(relative.encode() + b"\0")
        digest.update((root / relative).read_bytes() + b"\0")
    return digest.hexdigest()


def recorded_hash(root: Path = ROOT) -> str | None:
    stamp = root / STAMP
    return stamp.read_text().strip() if stamp.is_file() else None


def staleness(root: Path = ROOT) -> str | None:
    """Why the build does not match the sources, or None when it does."""
    if not (root / "labextension" / "package.json").is_file():
        return "no build in extension/labextension"
    recorded = recorded_hash(root)
    if recorded is None:
        return f"the build has no stamp ({STAMP})"
    if recorded != sources_hash(root):
        return "the extension's sources changed since it was built"
    return None


def main(argv: list[str]) -> int:
    if argv[:1] == ["hash"]:
        print(sources_hash())
        return 0
    if argv[:1] == ["check"]:
        reason = staleness()
        print(reason or "the prebuilt labextension matches its sources")
        return 0 if reason is None else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
