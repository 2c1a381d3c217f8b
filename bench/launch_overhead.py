"""The CPU target's launch path: host cost of a cached launch of a tiny kernel, and vector add
end to end on small to medium sizes (where launching, not the work, used to dominate).

    python bench/launch_overhead.py [--launches N] [--repeats R] [--save]

Rows of the first table (microseconds per launch, the best of R bursts of N launches):
* ``kernel[grid](...), native``: the whole cached launch as a user writes it, through the
  generated native launch function (``runtime/native``);
* ``kernel[grid](...), Python binder``: the same with ``KERNELLAB_NATIVE_LAUNCH=0``;
* ``runtime only (Python binder)``: the binder with the backend's launcher replaced by a no-op;
* ``launcher only``: the backend's Python launcher called directly with prepared arguments;
* ``kernel[grid] alone``: binding the grid, without calling.

The second table: ``add_kernel`` (BLOCK 1024) on 2^10 to 2^20 fp32 elements against numpy's
``np.add(x, y, out=out)``, native and Python paths, on every core the target uses.

Budget (issue 3): <= 20 us per cached launch on the CPU target.  ``--save`` writes the numbers
with the machine, date and versions into bench/results/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from tiny_kernels import fresh_kernel  # noqa: E402

import kernellab as kl  # noqa: E402
from kernellab import config  # noqa: E402

BUDGET_US = 20.0


def per_call_us(fn, calls: int, repeats: int) -> float:
    """The best of ``repeats`` bursts of ``calls`` calls, per call, in microseconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def hot_path(launches: int, repeats: int) -> dict[str, float]:
    n = 64
    x, y = (np.random.default_rng(i).standard_normal(n).astype(np.float32) for i in range(2))
    out = np.full(n, np.nan, np.float32)
    native, python = fresh_kernel(True), fresh_kernel(False)
    for kernel in (native, python):
        for _ in range(3):
            compiled = kernel[(1,)](x, y, out, n, BLOCK=64)
        np.testing.assert_array_equal(out, x + y)
    rows = {"kernel[grid](...), native": per_call_us(lambda: native[(1,)](x, y, out, n, BLOCK=64), launches, repeats),
            "kernel[grid](...), Python binder": per_call_us(lambda: python[(1,)](x, y, out, n, BLOCK=64), launches,
                                                            repeats)}
    compiled = python.cache[next(iter(python.cache))]
    real = compiled.launcher
    args = [compiled._launch_value(name, sig, value) for (name, sig), value in
            zip(compiled.metadata.signature.items(), (x, y, out, n))]
    compiled._launcher = lambda grid, values, stream: None
    rows["runtime only (Python binder)"] = per_call_us(lambda: python[(1,)](x, y, out, n, BLOCK=64), launches, repeats)
    compiled._launcher = real
    rows["launcher only"] = per_call_us(lambda: real((1, 1, 1), args, None), launches, repeats)
    rows["kernel[grid] alone (no call)"] = per_call_us(lambda: native[(1,)], launches, repeats)
    return rows


def small_grids(repeats: int) -> dict[int, dict[str, float]]:
    native, python = fresh_kernel(True), fresh_kernel(False)
    return {1 << e: vector_add_row(native, python, 1 << e, repeats) for e in range(10, 21, 2)}


def vector_add_row(native: kl.JITFunction, python: kl.JITFunction, n: int, repeats: int) -> dict[str, float]:
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    grid = (n // 1024,)
    calls = max(20, min(2000, (1 << 22) // n))
    row = {}
    for name, kernel in (("native", native), ("Python binder", python)):
        for _ in range(3):
            kernel[grid](x, y, out, n, BLOCK=1024)
        out[:] = np.nan
        kernel[grid](x, y, out, n, BLOCK=1024)
        np.testing.assert_array_equal(out, x + y)
        row[name] = per_call_us(lambda kernel=kernel: kernel[grid](x, y, out, n, BLOCK=1024), calls, repeats)
    row["numpy np.add"] = per_call_us(lambda: np.add(x, y, out=out), calls, repeats)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, default=300, help="launches per burst")
    parser.add_argument("--repeats", type=int, default=30, help="bursts (the best one counts)")
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    os.environ["KERNELLAB_TARGET"] = "cpu"
    rows = hot_path(args.launches, args.repeats)
    for name, us in rows.items():
        print(f"{name:40s} {us:8.2f} us")
    verdict = "OK" if rows["kernel[grid](...), native"] <= BUDGET_US else "OVER"
    print(f"{'budget':40s} {BUDGET_US:8.2f} us  -> {verdict}")
    grids = small_grids(max(3, args.repeats // 6))
    print(f"\nvector add per call (us), BLOCK 1024, {config.num_threads()} threads")
    print(f"{'elements':>10s} {'native':>10s} {'Python':>10s} {'numpy':>10s}")
    for n, row in grids.items():
        print(f"{n:>10d} {row['native']:10.1f} {row['Python binder']:10.1f} {row['numpy np.add']:10.1f}")
    if args.save:
        record = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": platform.node(),
                  "processor": platform.processor() or platform.machine(), "threads": config.num_threads(),
                  "python": platform.python_version(), "kernellab": kl.__version__, "numpy": np.__version__,
                  "results_us": rows, "vector_add_us": grids}
        folder = Path(__file__).resolve().parent / "results"
        folder.mkdir(exist_ok=True)
        path = folder / "launch_overhead-cpu.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        print(f"saved {path}")


if __name__ == "__main__":
    main()
