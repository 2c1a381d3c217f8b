"""The interpreter on the tutorial vector add, 2^22 fp32 elements, BLOCK 4096 (1024 programs),
against numpy in the same run.

Triton's interpreter (``TRITON_INTERPRET=1``, Triton 3.9 on torch CPU tensors) took 637 ms for
this launch on the reference 2-core machine (``../shared/ANCHORS.md``).  Triton is not installed
here, so that figure is quoted, not re-measured; the interpreter's own time and its ratio to
numpy are measured now.

    python bench/interpreter_vector_add.py [--repeat 15] [--record]

``--record`` writes ``bench/results/interpreter_vector_add.json`` (times, ratios, versions).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kernellab as kl
import kernellab.language as tl

TRITON_INTERPRETER_MS = 637.0  # ../shared/ANCHORS.md, same workload, same machine class
N = 1 << 22
BLOCK = 4096


@kl.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def median_seconds(run, repeat: int, clock=time.perf_counter) -> float:
    """Median of ``repeat`` runs after a warm-up; ``clock=time.process_time`` gives this
    process's CPU time, which other load on the machine disturbs less than wall time."""
    run()  # warm up
    times = []
    for _ in range(repeat):
        start = clock()
        run()
        times.append(clock() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--record", action="store_true", help="write bench/results/interpreter_vector_add.json")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.standard_normal(N, dtype=np.float32)
    y = rng.standard_normal(N, dtype=np.float32)
    out = np.full(N, np.nan, np.float32)
    kernel = kl.compile(add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                        constexprs={"BLOCK": BLOCK}, target="interpret")
    launch = kernel[(N // BLOCK,)]
    launch(x, y, out, N)
    np.testing.assert_array_equal(out, x + y)

    interpreter = median_seconds(lambda: launch(x, y, out, N), args.repeat)
    reference = median_seconds(lambda: np.add(x, y, out=out), args.repeat)
    interpreter_cpu = median_seconds(lambda: launch(x, y, out, N), args.repeat, time.process_time)
    rows = [
        ("kernellab interpreter", interpreter * 1e3, f"measured; CPU time {interpreter_cpu * 1e3:.2f} ms"),
        ("numpy np.add", reference * 1e3, "measured"),
        ("Triton interpreter", TRITON_INTERPRETER_MS, "quoted from ANCHORS.md"),
    ]
    print(f"vector add fp32, {N} elements, BLOCK {BLOCK} ({N // BLOCK} programs), median of {args.repeat}")
    for name, ms, how in rows:
        print(f"  {name:24s} {ms:9.2f} ms   ({how})")
    print(f"  interpreter / numpy      {interpreter / reference:9.1f}x slower")
    print(f"  Triton interp / ours     {TRITON_INTERPRETER_MS / (interpreter * 1e3):9.1f}x faster (goal: >= 5x)")

    if args.record:
        result = {
            "workload": f"vector add fp32 {N} elements, BLOCK {BLOCK}",
            "date": datetime.date.today().isoformat(),
            "machine": platform.platform(), "python": platform.python_version(), "numpy": np.__version__,
            "kernellab": kl.__version__,
            "interpreter_ms": interpreter * 1e3, "interpreter_cpu_ms": interpreter_cpu * 1e3,
            "numpy_ms": reference * 1e3, "load_average": list(os.getloadavg()),
            "triton_interpreter_ms_quoted": TRITON_INTERPRETER_MS,
            "interpreter_over_numpy": interpreter / reference,
            "triton_interpreter_over_interpreter": TRITON_INTERPRETER_MS / (interpreter * 1e3),
        }
        path = Path(__file__).resolve().parent / "results" / "interpreter_vector_add.json"
        path.write_text(json.dumps(result, indent=2) + "\n")
        print(f"recorded {path}")


if __name__ == "__main__":
    main()
