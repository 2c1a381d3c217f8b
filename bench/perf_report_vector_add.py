"""Triton's vector-add tutorial benchmark (``01-vector-add.py``), reproduced with
``kernellab.testing.perf_report`` on the CPU target: GB/s of the tutorial's ``add_kernel``
against torch's ``x + y`` on the host (numpy's when torch is missing), for 2^12 ... 2^27
float32 elements, as Triton's plot.

Writes ``vector-add-performance.png``, ``vector-add-performance.csv`` and ``results.html``
into ``bench/results/perf_report_vector_add-cpu/`` (or ``--out``).

    python bench/perf_report_vector_add.py [--max-exp 27] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("KERNELLAB_TARGET", "cpu")

import kernellab as triton  # noqa: E402, I001 - the tutorial's spelling
from kernels import tutorials as tut  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - numpy stands in for torch
    torch = None


def add(x, y):
    """The tutorial's host function: allocate the output, launch with a grid function."""
    output = torch.empty_like(x) if torch is not None else x.copy()
    n_elements = output.numel() if torch is not None else output.size
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    tut.add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


def inputs(size: int):
    if torch is not None:
        torch.manual_seed(0)
        return torch.rand(size, dtype=torch.float32), torch.rand(size, dtype=torch.float32)
    import numpy as np

    rng = np.random.default_rng(0)
    return rng.random(size, dtype=np.float32), rng.random(size, dtype=np.float32)


def make_benchmark(max_exp: int):
    @triton.testing.perf_report(
        triton.testing.Benchmark(
            x_names=["size"],
            x_vals=[2**i for i in range(12, max_exp + 1, 1)],
            x_log=True,
            line_arg="provider",
            line_vals=["triton", "torch"],
            line_names=["kernellab (cpu)", "Torch (cpu)" if torch is not None else "numpy"],
            styles=[("blue", "-"), ("green", "-")],
            ylabel="GB/s",
            plot_name="vector-add-performance",
            args={},
        ))
    def benchmark(size, provider):
        x, y = inputs(size)
        quantiles = [0.5, 0.2, 0.8]
        if provider == "torch":
            ms, min_ms, max_ms = triton.testing.do_bench(lambda: x + y, quantiles=quantiles)
        if provider == "triton":
            ms, min_ms, max_ms = triton.testing.do_bench(lambda: add(x, y), quantiles=quantiles)
        gbps = lambda ms: 3 * size * 4 * 1e-9 / (ms * 1e-3)  # noqa: E731
        return gbps(ms), gbps(max_ms), gbps(min_ms)

    return benchmark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-exp", type=int, default=27)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "perf_report_vector_add-cpu"))
    args = parser.parse_args()
    x, y = inputs(98432)  # the tutorial's correctness check first
    assert bool((add(x, y) == x + y).all())
    make_benchmark(args.max_exp).run(print_data=True, show_plots=False, save_path=args.out)


if __name__ == "__main__":
    main()
