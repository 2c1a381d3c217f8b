"""Instructions per hot launch of the tiny kernel, counted by callgrind: a figure without timing
noise, for comparing two trees of kernellab on a machine with no GPU (the CUDA target against the
stand-in libcuda, ``bench/stand_in_libcuda.c`` built as ``libcuda.so.1`` on ``LD_LIBRARY_PATH``;
or the CPU target).

For each tree, part and count N, a new process warms the kernel up and then makes N launches
inside ``functools.reduce`` (the only place callgrind collects); the figure is the difference
between N = 300 and N = 100, over 200.

Parts: ``full`` (``kernel[grid](...)``), ``getitem`` (``kernel[grid]`` alone), ``run`` (the
compiled kernel's ``_run`` with converted values), ``launcher`` (the backend's launcher alone).
The Python binder is measured (``KERNELLAB_NATIVE_LAUNCH=0`` for the measured kernel); another
kernel is launched natively first, as in ``launch_overhead_cuda.py``'s process, so that
``kernel[grid]`` is the native subscript where the tree has one.

    LD_LIBRARY_PATH=/tmp/fakecuda KERNELLAB_TARGET=cuda python bench/hot_instructions.py TREE [TREE...] \\
        [--parts full,getitem,run,launcher]
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

COUNTS = (100, 300)


def child(tree: str, part: str, count: int) -> None:
    """Runs in the measured process."""
    sys.path[:0] = [tree, os.path.join(tree, "bench")]
    import numpy as np
    from tiny_kernels import fresh_kernel

    import kernellab as kl

    kernel = fresh_kernel(False)
    warm = kl.to_device(np.ones(1024, np.float32))
    native = fresh_kernel(True)
    for _ in range(3):
        native[(1,)](warm, warm, warm, 1024, BLOCK=1024)
    x, y, out = (kl.to_device(np.ones(1024, np.float32)) for _ in range(3))
    grid = (1,)
    for _ in range(50):
        compiled = kernel[grid](x, y, out, 1024, BLOCK=1024)
    values = tuple(a.__kernellab_buffer__().address for a in (x, y, out)) + (1024,)
    steps = {
        "full": lambda: kernel[grid](x, y, out, 1024, BLOCK=1024),
        "getitem": lambda: kernel[grid],
        "run": lambda: compiled._run(grid, values, (x, y, out, 1024), None),
        "launcher": lambda: compiled._launcher((1, 1, 1), values, None),
    }
    step = steps[part]
    functools.reduce(lambda acc, _: step() and acc, range(count), 0)


def instructions(tree: str, part: str, count: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        done = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                               "--toggle-collect=functools_reduce", f"--callgrind-out-file={out}", sys.executable,
                               __file__, "--child", tree, part, str(count)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{tree} {part}: exit {done.returncode}\n{done.stderr[-3000:]}")
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        return int(totals[0].split()[1])


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--parts", default="full,getitem,run,launcher")
    args = parser.parse_args()
    print(f"{'part':10s}" + "".join(f"{Path(t).resolve().name:>14s}" for t in args.trees))
    for part in args.parts.split(","):
        row = []
        for tree in args.trees:
            low, high = (instructions(str(Path(tree).resolve()), part, n) for n in COUNTS)
            row.append((high - low) // (COUNTS[1] - COUNTS[0]))
        print(f"{part:10s}" + "".join(f"{n:14,d}" for n in row), flush=True)


if __name__ == "__main__":
    main()
