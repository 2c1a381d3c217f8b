"""Autotuning the tutorial's grouped matmul over 16 configs: the sweep's wall time with the
configs compiled in parallel (forked cache warmers, and threads) against one by one, in the
same run, each from an empty kernel cache.

Every strategy gets a fresh JITFunction and a fresh ``KERNELLAB_CACHE_DIR``, so each compiles
all 16 configs; the timing phase uses the same short ``do_bench`` (warmup 5 ms, rep 20 ms) for
all.  The strategies run in rotation, ``--rounds`` times, so load from other processes on a
shared machine falls on all alike; medians are reported.

    python bench/autotune_parallel.py [--target cpu] [--size 512] [--rounds 2] [--record [--out DIR]]
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import kernellab as kl  # noqa: E402, I001
from kernels import tutorials as tut  # noqa: E402

STRATEGIES = ("sequential", "processes", "threads")
CONFIGS = [kl.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": g}, num_warps=4)
           for m, n, k, g in itertools.product((32, 64), (32, 64), (32, 64), (4, 8))]


def bench(fn, quantiles):
    return kl.testing.do_bench(fn, warmup=5, rep=20, quantiles=quantiles)


def matmul_arrays(size: int, target: str):
    rng = np.random.default_rng(size)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    c = np.full((size, size), np.nan, np.float16)
    if target == "cuda":
        return a, b, kl.to_device(a), kl.to_device(b), kl.to_device(c)
    return a, b, a, b, c


def one_sweep(strategy: str, size: int, target: str) -> dict:
    os.environ["KERNELLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"kernellab-autotune-{strategy}-")
    tuner = kl.autotune(CONFIGS, key=["M", "N", "K"], do_bench=bench, parallel_compile=strategy)(
        kl.jit(tut.matmul_kernel.fn))
    a, b, da, db, dc = matmul_arrays(size, target)
    grid = lambda meta: (kl.cdiv(size, meta["BLOCK_SIZE_M"]) * kl.cdiv(size, meta["BLOCK_SIZE_N"]),)  # noqa: E731
    start = time.perf_counter()
    tuner[grid](da, db, dc, size, size, size, size, 1, size, 1, size, 1, ACTIVATION="")
    wall = time.perf_counter() - start
    result = dc.numpy() if target == "cuda" else dc
    error = float(np.abs(result.astype(np.float64) - a.astype(np.float64) @ b.astype(np.float64)).max())
    frame = tuner.results
    return {"strategy": tuner.compile_strategy, "wall_s": wall, "compile_phase_s": tuner.phase_seconds["compile"],
            "timing_phase_s": tuner.phase_seconds["timing"], "sum_of_compiles_s": float(frame.compile_s.sum()),
            "failures": int(frame.failure.notna().sum()), "best": str(tuner.best_config),
            "best_ms": float(frame[frame.best].ms.iloc[0]), "max_abs_error": error}


def summarize(runs: list[dict]) -> list[dict]:
    rows = []
    base = None
    for strategy in STRATEGIES:
        mine = [r for r in runs if r["requested"] == strategy]
        row = {"strategy": strategy, "used": mine[0]["strategy"],
               **{k: statistics.median(r[k] for r in mine) for k in
                  ("wall_s", "compile_phase_s", "timing_phase_s", "sum_of_compiles_s")}}
        base = base or row
        row["compile_speedup"] = base["compile_phase_s"] / row["compile_phase_s"]
        row["wall_speedup"] = base["wall_s"] / row["wall_s"]
        rows.append(row)
    return rows


def markdown(rows: list[dict], meta: dict) -> str:
    lines = [f"# Autotuning the grouped matmul: {meta['configs']} configs, {meta['size']}^3 fp16, target "
             f"{meta['target']}", "", f"{meta['date']}, {meta['machine']}, {meta['cores']} cores, "
             f"{meta['rounds']} rounds (medians)", "",
             "| strategy | used | sweep wall (s) | compile phase (s) | timing phase (s) | sum of compiles (s) | "
             "compile speed-up | sweep speed-up |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['strategy']} | {r['used']} | {r['wall_s']:.2f} | {r['compile_phase_s']:.2f} | "
                     f"{r['timing_phase_s']:.2f} | {r['sum_of_compiles_s']:.2f} | {r['compile_speedup']:.2f}x | "
                     f"{r['wall_speedup']:.2f}x |")
    lines += ["", f"best config: {meta['best']} ({meta['best_ms']:.3f} ms)", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--record", action="store_true", help="write bench/results/autotune_parallel-<target>.*")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="where --record writes")
    args = parser.parse_args()
    if args.target == "cpu":
        os.environ["KERNELLAB_TARGET"] = "cpu"
    runs = []
    for round_ in range(args.rounds):
        order = STRATEGIES[round_ % 3:] + STRATEGIES[:round_ % 3]
        for strategy in order:
            run = {"requested": strategy, "round": round_, **one_sweep(strategy, args.size, args.target)}
            print(json.dumps(run), flush=True)
            assert run["max_abs_error"] < 0.5 and run["failures"] == 0, run
            runs.append(run)
    rows = summarize(runs)
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": platform.platform(),
            "cores": len(os.sched_getaffinity(0)), "python": platform.python_version(), "size": args.size,
            "target": args.target, "configs": len(CONFIGS), "rounds": args.rounds, "best": runs[-1]["best"],
            "best_ms": runs[-1]["best_ms"]}
    text = markdown(rows, meta)
    print(text)
    if args.record:
        out = Path(args.out) / f"autotune_parallel-{args.target}"
        out.with_suffix(".json").write_text(json.dumps({"meta": meta, "summary": rows, "runs": runs}, indent=1))
        out.with_suffix(".md").write_text(text)


if __name__ == "__main__":
    main()
