"""``python -m kernellab`` / ``kernellab``: information, the lab, the cache.

    kernellab info            targets available here, versions, the cache folder
    kernellab lab [args]      JupyterLab on the tutorials: a checkout's notebooks/, or (an installed
                              wheel) a working copy of them in ./kernellab-tutorials
    kernellab cache clear     remove every compiled kernel (and autotuning result) from the disk cache
    kernellab cache info      how many kernels the disk cache holds, and where
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from . import __version__, config


def _versions() -> dict[str, str]:
    """Versions of kernellab's toolchain, read from package metadata (nothing is imported)."""
    from importlib import metadata

    found = {"kernellab": __version__, "python": platform.python_version()}
    for name in ("numpy", "llvmlite", "cuda-bindings", "torch"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def info() -> int:
    from .runtime.targets import available_targets, cuda_device_count, default_host_target

    print(f"kernellab {__version__}")
    print(f"targets:      {', '.join(available_targets())} (host arrays run on {default_host_target()})")
    print(f"cuda devices: {cuda_device_count()}")
    forced = config.forced_target()
    if forced:
        print(f"forced:       {forced} (from the environment)")
    from . import cachedir

    used = cachedir.root() if config.disk_cache_enabled() else None
    state = "on" if used else "off (KERNELLAB_CACHE=0)" if not config.disk_cache_enabled() else "off (see above)"
    shown = used if used is not None else config.cache_dir()
    print(f"cache:        {shown} ({state})")
    print("versions:     " + ", ".join(f"{k} {v}" for k, v in _versions().items()))
    return 0


TUTORIALS_FOLDER = "kernellab-tutorials"  # where an installed wheel's tutorials are copied (under the cwd)


def notebooks_folder() -> Path:
    """The repository's notebooks/ (beside the package), else ./notebooks."""
    beside = Path(__file__).resolve().parent.parent / "notebooks"
    return beside if beside.is_dir() else Path.cwd() / "notebooks"


def packaged_tutorials() -> Path:
    """The tutorials a wheel ships inside the package (``kernellab/notebooks``)."""
    return Path(__file__).resolve().parent / "notebooks"


def copy_tutorials(source: Path, folder: Path) -> list[str]:
    """Copy the tutorials into ``folder``, keeping any the user already has there (their edits
    stay); returns the names copied."""
    folder.mkdir(parents=True, exist_ok=True)
    copied = []
    for notebook in sorted(source.glob("*.ipynb")):
        target = folder / notebook.name
        if not target.exists():
            shutil.copyfile(notebook, target)
            copied.append(notebook.name)
    return copied


def lab_folder() -> Path | None:
    """The folder JupyterLab opens: a checkout's notebooks/, else (an installed wheel) a working
    copy of the packaged tutorials in ./kernellab-tutorials."""
    folder = notebooks_folder()
    if folder.is_dir():
        return folder
    if not packaged_tutorials().is_dir():
        return None
    working = Path.cwd() / TUTORIALS_FOLDER
    copied = copy_tutorials(packaged_tutorials(), working)
    kept = "" if not copied else f" (copied {len(copied)} tutorial notebook(s))"
    print(f"Tutorials in {working}{kept}; your edits there are kept across runs.")
    return working


def lab(extra: list[str]) -> int:
    folder = lab_folder()
    if folder is None:
        print(f"no notebooks folder at {notebooks_folder()} and no tutorials in the installed package; run "
              "`kernellab lab` from the repository", file=sys.stderr)
        return 2
    if not _has_module("jupyterlab"):
        print("JupyterLab is not installed: pip install jupyterlab (or run ./dev lab)", file=sys.stderr)
        return 2
    print(f"Starting JupyterLab on {folder}.")
    print("Open the http://localhost:8888/lab?token=... address it prints below in a browser; on a remote "
          "machine, forward the port first (ssh -L 8888:localhost:8888 <host>) or pass --ip 0.0.0.0.")
    command = [sys.executable, "-m", "jupyterlab", f"--notebook-dir={folder}", *extra]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        command.append("--allow-root")  # containers, CI and binder-like machines run as root
    sys.stdout.flush()
    if os.name == "posix":  # become the server: a signal to `kernellab lab` reaches JupyterLab itself
        os.execv(sys.executable, command)
    return subprocess.call(command, env=dict(os.environ))


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def cache(action: str) -> int:
    from . import cachedir
    from .runtime.cache import DiskCache

    root = cachedir.root()
    if root is None:
        print(f"no usable cache folder (KERNELLAB_CACHE_DIR={config.cache_dir()}, "
              f"KERNELLAB_CACHE={config.text('KERNELLAB_CACHE')})", file=sys.stderr)
        return 1
    disk = DiskCache(root)
    if action == "clear":
        removed = disk.clear()
        print(f"removed {removed} compiled kernel(s) from {disk.root}")
        tuning = disk.root / "autotune"
        if tuning.is_dir():
            shutil.rmtree(tuning, ignore_errors=True)
            print(f"removed the autotuning results in {tuning}")
        return 0
    entries = disk.entries()
    size = sum(f.stat().st_size for entry in entries for f in entry.iterdir() if f.is_file())
    print(f"{len(entries)} compiled kernel(s), {size / 1e6:.1f} MB in {disk.root}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kernellab", description="kernellab: a Triton-compatible kernel lab")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("info", help="targets available here, versions, the cache folder")
    commands.add_parser("lab", help="start JupyterLab on the tutorials (extra arguments go to jupyter)")
    cache_parser = commands.add_parser("cache", help="the disk cache of compiled kernels")
    cache_parser.add_argument("action", choices=["clear", "info"])
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "lab":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "info":
        return info()
    if args.command == "lab":
        return lab(extra)
    return cache(args.action)


if __name__ == "__main__":
    sys.exit(main())
