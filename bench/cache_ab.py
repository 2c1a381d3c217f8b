"""Before/after of a change to the cache, interleaved in one run on one machine: the cached first
launch in a new process (``bench/cold_start.py``: CPU with numpy arrays; CUDA with kernellab's
DeviceArrays, against the stand-in libcuda here or the real driver on a GPU host) and the hot
cached launch (``bench/launch_overhead.py``, CPU).

    python bench/cache_ab.py BEFORE_TREE AFTER_TREE [--rounds 3] [--runs 7] [--cuda] [--json FILE]
                             [--instructions [--instructions-target cpu|cuda] [--gc-starts]
                              [--phase MODULE:ATTR ...]]

Each round runs every measurement for the old tree, then the new one, so that a change of load
on the machine touches both.  Printed: per tree, the median over rounds of each round's figure
(cold_start: the median and the min of its warm runs; launch_overhead: its best burst).

``--instructions`` (needs valgrind) also counts the instructions of the CPU target's cached first
launch in a new process of each tree (callgrind, collecting only inside the launch; where the
kernel uses AVX-512, which valgrind cannot run, up to the kernel's first instruction): the same
count every run, so it compares trees on a machine whose load makes the times swing.  Counted
with the garbage collector on and off (where a collection falls depends on what the imports
left), and for each ``--phase`` (a function, ``kernellab.runtime.jit:JITFunction._make_binder``,
wrapped where its callers find it: a name imported elsewhere must be named there) in a process
of its own.  ``--rounds 0`` counts only.  ``--instructions-target cuda`` counts the CUDA target's
cached first launch instead, against a stand-in libcuda (``bench/stand_in_libcuda.c`` built as
``libcuda.so.1`` on ``LD_LIBRARY_PATH``): the host's share of it, with no device.
``--gc-starts`` also counts it with the collector's count set before the launch (collected, then
0, 100 ... 600 containers made) and their mean: with the collector on, the figure moves by a
whole young collection (~0.25 M instructions) with where the count stands when the launch starts,
which the imports before it decide, not the launch."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def cold_start(tree: Path, target: str, runs: int) -> dict:
    arrays = "numpy" if target == "cpu" else "kl"
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [sys.executable, str(tree / "bench" / "cold_start.py"), "--target", target, "--arrays", arrays,
                   "--runs", str(runs), "--json", out.name]
        if target == "cuda" and "--no-check" in sys.argv:
            command.append("--no-check")
        subprocess.run(command, check=True, capture_output=True, text=True)
        (row,) = json.loads(Path(out.name).read_text())
    return {f"{target} cached 1st launch median ms": row["cached_first_launch_ms_median"],
            f"{target} cached 1st launch min ms": row["cached_first_launch_ms_min"],
            f"{target} 2nd launch median us": row["second_launch_us_median"]}


def hot_launch(tree: Path) -> dict:
    done = subprocess.run([sys.executable, str(tree / "bench" / "launch_overhead.py"), "--launches", "2000",
                           "--repeats", "5"], check=True, capture_output=True, text=True)
    found = {}
    for label in ("native", "Python binder"):
        match = re.search(rf"kernel\[grid\]\(\.\.\.\), {label}\s*\|?\s*([0-9.]+)", done.stdout)
        if match:
            found[f"cpu hot launch ({label}) us"] = float(match.group(1))
    return found


# The cached first launch (or each call of one function during it) inside functools.reduce, the
# only place callgrind collects (--toggle-collect): nothing else in these processes calls reduce.
_COUNTED = r"""
import functools, gc, importlib, os, sys
sys.path[:0] = [ROOT, ROOT + "/bench"]
if TARGET == "cuda":  # numpy arrays sent to the CUDA backend: a stand-in libcuda's memory is the host's
    os.environ["KERNELLAB_TARGET"] = "cuda"
import numpy as np
import kernellab
import tiny_kernels
n = 1024
rng = np.random.default_rng(7)
x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
out = np.full(n, np.nan, np.float32)
if not GC:
    gc.disable()
def counted(function):
    @functools.wraps(function)
    def inside(*args, **kwargs):
        box = []
        functools.reduce(lambda _a, _b: box.append(function(*args, **kwargs)), [0, 1])
        return box[0]
    return inside
launch = lambda: tiny_kernels.add_kernel[(1,)](x, y, out, n, BLOCK=n)
if PHASE:
    module, _, path = PHASE.partition(":")
    *parents, name = path.split(".")
    try:
        owner = importlib.import_module(module)
        for parent in parents:
            owner = getattr(owner, parent)
        setattr(owner, name, counted(getattr(owner, name)))
    except (ImportError, AttributeError):
        sys.exit(0)  # not in this tree: nothing collected
    launch()
else:
    if START is not None:  # the collector's count when the launch starts
        gc.collect()
        made = [[] for _ in range(START)]
    counted(launch)()
assert TARGET == "cuda" or np.array_equal(out, x + y), "wrong result"  # a stand-in runs no kernel
"""


def counted_code(tree: Path, phase: str, gc_on: bool, target: str, start: int | None = None) -> str:
    return (f"ROOT = {str(tree)!r}\nPHASE = {phase!r}\nGC = {gc_on}\nTARGET = {target!r}\nSTART = {start!r}\n"
            + _COUNTED)


def instructions(tree: Path, cache: str, phase: str, gc_on: bool, work: str, target: str,
                 start: int | None = None) -> int | None:
    """Instructions of ``phase`` (the whole first launch when empty) in a new process of ``tree``
    whose cache folder ``cache`` holds the kernel, working in the empty folder ``work``; None when
    ``phase`` never ran."""
    code = counted_code(tree, phase, gc_on, target, start)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(KERNELLAB_CACHE_DIR=cache, PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=functools_reduce",
                           "--callgrind-out-file=/dev/null", sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=False, cwd=work)
    found = re.search(r"Collected : (\d+)", done.stderr)
    # A kernel compiled for this host's AVX-512 stops valgrind at its first instruction (SIGILL):
    # the count is then the launch's host work up to the kernel, the same place in both trees.
    if found is None or (done.returncode != 0 and "Unrecognised instruction" not in done.stderr):
        raise RuntimeError(f"{tree}: callgrind failed (exit {done.returncode})\n{done.stderr[-3000:]}")
    return int(found.group(1)) or None


GC_STARTS = range(0, 700, 100)


def count_instructions(trees: dict[str, Path], phases: list[str], target: str, gc_starts: bool = False
                       ) -> dict[str, dict[str, int | None]]:
    counts: dict[str, dict[str, int | None]] = {name: {} for name in trees}
    with tempfile.TemporaryDirectory(prefix="kl-ab-instructions-") as folder:
        for name, tree in trees.items():
            cache = os.path.join(folder, name)
            # An empty working folder of its own: ``python -c`` puts the working folder on sys.path,
            # whose folders' times stamp the toolchain memo (backends/toolchain.py), so a file made
            # meanwhile in a shared one (the repository) made the memo miss in the counted runs.
            work = os.path.join(folder, f"{name}-work")
            os.mkdir(work)
            for _ in range(2):  # fill the cache, then run from it once (__pycache__ too)
                env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
                env.update(KERNELLAB_CACHE_DIR=cache)
                code = counted_code(tree, "", True, target)
                subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, cwd=work)
            rows = [("first launch", "", True, None), ("first launch, no GC", "", False, None)]
            if gc_starts:
                rows += [(f"first launch, GC count {start}", "", True, start) for start in GC_STARTS]
            rows += [(phase, phase, False, None) for phase in phases]
            for label, phase, gc_on, start in rows:
                counts[name][label] = instructions(tree, cache, phase, gc_on, work, target, start)
            if gc_starts:
                found = [counts[name][f"first launch, GC count {start}"] for start in GC_STARTS]
                counts[name]["first launch, GC on, mean over counts"] = round(statistics.mean(found))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--cuda", action="store_true", help="also the CUDA target's cached first launch")
    parser.add_argument("--no-check", action="store_true", help="(CUDA) a stand-in driver runs no kernel")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--instructions", action="store_true",
                        help="also count the cached first launch's instructions (valgrind's callgrind)")
    parser.add_argument("--instructions-target", choices=("cpu", "cuda"), default="cpu",
                        help="with --instructions: the target counted (cuda: against a stand-in libcuda on "
                             "LD_LIBRARY_PATH, numpy arrays on the host, no result check)")
    parser.add_argument("--gc-starts", action="store_true",
                        help="with --instructions: also count the first launch with the collector's count at "
                             "0, 100 ... 600 when it starts, and their mean")
    parser.add_argument("--phase", action="append", default=[], metavar="MODULE:ATTR",
                        help="with --instructions: also count this function's instructions (no GC), repeatable")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    rounds: dict[str, list[dict]] = {name: [] for name in trees}
    for round_ in range(args.rounds):
        for name, tree in trees.items():
            figures = {**cold_start(tree, "cpu", args.runs), **hot_launch(tree)}
            if args.cuda:
                figures.update(cold_start(tree, "cuda", args.runs))
            rounds[name].append(figures)
            print(f"round {round_ + 1} {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in figures.items()), flush=True)
    summary = {name: {k: statistics.median(r[k] for r in rows) for k in rows[0]} for name, rows in rounds.items()
               if rows}
    for key in summary.get("before", {}):
        print(f"{key:40s} before {summary['before'][key]:9.2f}   after {summary['after'][key]:9.2f}")
    found = {"trees": {k: str(v) for k, v in trees.items()}, "rounds": rounds, "medians": summary}
    if args.instructions:
        counts = count_instructions(trees, args.phase, args.instructions_target, args.gc_starts)
        found["instructions"] = counts
        print(f"instructions (callgrind), {args.instructions_target} target")
        for label in counts["before"]:
            before, after = counts["before"][label], counts["after"][label]
            change = f"{(after - before) / before:+.1%}" if before and after else ""
            print(f"  {label:60s} before {before or '-':>11}   after {after or '-':>11}   {change}")
    if args.json is not None:
        args.json.write_text(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
