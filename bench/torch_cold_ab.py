"""``import kernellab`` and the cached first launch with torch tensors in a new process, for
source trees compared in one run (interleaved), timed by wall clock and by the process's CPU
clock (``time.process_time``: on a shared machine, time spent descheduled does not count).

Each process imports numpy and torch, then kernellab (timed), makes three 1024-element torch CPU
tensors, and times the first ``add_kernel[(1,)](...)`` (``bench/tiny_kernels.py``) and a second
one.  Each tree has its own cache folder, filled by a first process that is not counted; bytecode
caching is on, as a user's would be.  ``--cuda gpu`` uses CUDA tensors (a GPU host);
``--cuda stand-in`` sends CPU tensors to the CUDA backend (``KERNELLAB_TARGET=cuda``) for a
stand-in libcuda on ``LD_LIBRARY_PATH`` (``bench/stand_in_libcuda.c``), whose "device memory" is
host memory (the result is not checked then).

    python bench/torch_cold_ab.py TREE [TREE ...] [--runs 10] [--cuda stand-in|gpu] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from child_process import child_env, run_result

_CHILD = r'''
import json, os, sys, time
sys.path[:0] = [ROOT, ROOT + "/bench"]
import numpy as np, torch
wall, cpu = time.perf_counter, time.process_time
w0, c0 = wall(), cpu()
import kernellab
w1, c1 = wall(), cpu()
import tiny_kernels
kernel = tiny_kernels.add_kernel
n = 1024
x, y, out = (t.to(DEVICE) for t in (torch.randn(n), torch.randn(n), torch.empty(n)))
sync = torch.cuda.synchronize if DEVICE == "cuda" else (lambda: None)
sync()
w2, c2 = wall(), cpu()
kernel[(1,)](x, y, out, n, BLOCK=n)
sync()
w3, c3 = wall(), cpu()
kernel[(1,)](x, y, out, n, BLOCK=n)
sync()
w4, c4 = wall(), cpu()
assert STAND_IN or torch.equal(out, x + y), "wrong result"
print("RESULT " + json.dumps({"import_wall": w1 - w0, "import_cpu": c1 - c0, "first_wall": w3 - w2,
                              "first_cpu": c3 - c2, "second_wall": w4 - w3, "second_cpu": c4 - c3}))
'''


def run(tree: Path, cache: str, mode: str) -> dict:
    env = child_env(KERNELLAB_CACHE_DIR=cache, **({"KERNELLAB_TARGET": "cuda"} if mode == "stand-in" else {}))
    head = f"ROOT = {str(tree)!r}\nDEVICE = {'cuda' if mode == 'gpu' else 'cpu'!r}\nSTAND_IN = {mode == 'stand-in'}\n"
    return run_result(head + _CHILD, tree, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--cuda", choices=("stand-in", "gpu"), default=None,
                        help="stand-in: CPU tensors sent to the CUDA backend (a stand-in libcuda); gpu: CUDA tensors")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees]
    found: dict[str, list[dict]] = {str(t): [] for t in trees}
    with tempfile.TemporaryDirectory(prefix="kl-torch-cold-") as folder:
        caches = {str(t): os.path.join(folder, str(i)) for i, t in enumerate(trees)}
        for round_ in range(args.runs + 1):  # round 0 fills each cache (and __pycache__)
            for tree in trees:
                record = run(tree, caches[str(tree)], args.cuda or "cpu")
                if round_:
                    found[str(tree)].append(record)
    summary = {tree: {key: {"min_ms": min(r[key] for r in runs) * 1e3,
                            "median_ms": statistics.median(r[key] for r in runs) * 1e3} for key in runs[0]}
               for tree, runs in found.items()}
    for tree, rows in summary.items():
        print(tree)
        for key, figures in rows.items():
            print(f"  {key:12s} min {figures['min_ms']:7.2f}  median {figures['median_ms']:7.2f} ms")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "runs": found}, indent=1) + "\n")


if __name__ == "__main__":
    main()
