"""Before/after of a change to the cache, interleaved in one run on one machine: the cached first
launch in a new process (``bench/cold_start.py``: CPU with numpy arrays; CUDA with kernellab's
DeviceArrays, against the stand-in libcuda here or the real driver on a GPU host) and the hot
cached launch (``bench/launch_overhead.py``, CPU).

    python bench/cache_ab.py BEFORE_TREE AFTER_TREE [--rounds 3] [--runs 7] [--cuda] [--json FILE]

Each round runs every measurement for the old tree, then the new one, so that a change of load
on the machine touches both.  Printed: per tree, the median over rounds of each round's figure
(cold_start: the median and the min of its warm runs; launch_overhead: its best burst)."""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--cuda", action="store_true", help="also the CUDA target's cached first launch")
    parser.add_argument("--no-check", action="store_true", help="(CUDA) a stand-in driver runs no kernel")
    parser.add_argument("--json", type=Path, default=None)
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
    summary = {name: {k: statistics.median(r[k] for r in rows) for k in rows[0]} for name, rows in rounds.items()}
    for key in summary["before"]:
        print(f"{key:40s} before {summary['before'][key]:9.2f}   after {summary['after'][key]:9.2f}")
    if args.json is not None:
        args.json.write_text(json.dumps({"trees": {k: str(v) for k, v in trees.items()}, "rounds": rounds,
                                         "medians": summary}, indent=1))


if __name__ == "__main__":
    main()
