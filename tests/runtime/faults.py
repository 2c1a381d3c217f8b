"""Fault injection into the disk cache: a warm cache, damage, and new processes
(``fault_child.py``) that must still launch every kernel correctly -- never a crash, never a
wrong or old result, never foreign code.  A seeded sample runs in the normal test command;
``pytest --long`` runs every case."""

from __future__ import annotations

import inspect
import json
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from . import sample_kernels

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("fault_child.py")

# the kernels' module, written into each test's folder (so that a test can edit it): the runtime
# tests' add_kernel, a scale kernel (``* 2.0``, which the stale-source test edits), an autotuned one
KERNELS = '''
import kernellab as kl
import kernellab.language as tl


''' + inspect.getsource(sample_kernels.add_kernel.fn) + '''

@kl.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


@kl.autotune(configs=[kl.Config({"BLOCK": 64}), kl.Config({"BLOCK": 128})], key=["n"], cache_results=True,
             do_bench=lambda fn, quantiles: kl.testing.do_bench(fn, warmup=1, rep=1, quantiles=quantiles),
             parallel_compile=False)
@kl.jit
def tuned_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) - 1.0, mask=mask)
'''


@dataclass
class Outcome:
    returncode: int
    ok: bool
    steps: int
    warnings: list
    output: str

    def describe(self) -> str:
        return f"rc={self.returncode} ok={self.ok}\n{self.output[-3000:]}"


def kernels_file(folder: Path) -> Path:
    path = folder / "fault_kernels.py"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(KERNELS)
    return path


def child_env(cache: Path | str, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KERNELLAB_", "FAULT_", "TRITON_"))}
    env.update(KERNELLAB_CACHE_DIR=str(cache), KERNELLAB_TARGET="cpu", PYTHONPATH=str(ROOT),
               PYTHONDONTWRITEBYTECODE="1", KERNELLAB_NUM_THREADS="1", **extra)
    return env


def run_child(cache: Path | str, module: Path, mode: str = "launch", factor: float = 2.0, env: dict | None = None,
              preexec=None, timeout: float = 180) -> Outcome:
    """A new process launching the kernels of ``module`` with the cache folder ``cache``."""
    done = subprocess.run([sys.executable, str(CHILD), str(module), mode, str(factor)], capture_output=True, text=True,
                          timeout=timeout, env=env or child_env(cache), preexec_fn=preexec)
    output = done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    try:
        report = json.loads(lines[-1]) if lines else {}
    except ValueError:
        report = {}
    return Outcome(done.returncode, bool(report.get("ok")), int(report.get("steps", 0)), report.get("warnings", []),
                   output)


def assert_good(outcome: Outcome, what: str) -> None:
    assert outcome.returncode == 0 and outcome.ok, f"bad load after {what}: {outcome.describe()}"


def assert_launches(cache: Path, module: Path, what: str, env: dict | None = None) -> list:
    """Both modes in a new process each, twice (what a damaged file left must not persist);
    returns the warnings of the first."""
    warnings = []
    for mode in ("launch", "tune", "launch", "tune"):
        outcome = run_child(cache, module, mode, env=env)
        assert_good(outcome, f"{what} ({mode})")
        warnings = warnings or outcome.warnings
    return warnings


def warm(cache: Path, module: Path) -> Path:
    """Fill ``cache`` by launching every kernel (both modes, twice: the native path's objects)."""
    for mode in ("launch", "tune", "launch"):
        assert_good(run_child(cache, module, mode), f"warming {cache}")
    return cache


def cache_files(cache: Path) -> list[Path]:
    """Every file of a cache folder (not the key, which lives in the private folder)."""
    return sorted(p for p in cache.rglob("*") if p.is_file() and not p.is_symlink())


def kind_of(cache: Path, path: Path) -> str:
    """A file's kind: ``entry:<name>`` for the files of a kernel entry, else its memo folder."""
    relative = path.relative_to(cache).parts
    if len(relative[0]) == 64:
        return f"entry:{relative[-1]}"
    return relative[0]


def copy_cache(pristine: Path, into: Path) -> Path:
    shutil.copytree(pristine, into, symlinks=True)
    return into


def flip_bit(path: Path, rng: random.Random) -> str:
    data = bytearray(path.read_bytes())
    if not data:
        return "empty"
    at = rng.randrange(len(data))
    data[at] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))
    return f"bit flip at {at}"


def truncate(path: Path, rng: random.Random) -> str:
    data = path.read_bytes()
    size = rng.randrange(len(data)) if data else 0
    path.write_bytes(data[:size])
    return f"truncated to {size}"


FAULTS = {"flip": flip_bit, "truncate": truncate}


def sample(cases: list, count: int, long: bool, seed: int) -> list:
    """All ``cases`` with ``--long``, else ``count`` of them chosen by ``seed``."""
    if long or len(cases) <= count:
        return cases
    return random.Random(seed).sample(cases, count)
