"""Host cost of a cached launch of a tiny kernel, in microseconds per launch.

    python bench/launch_overhead.py [--launches N] [--repeats R] [--save]

Rows:
* ``runtime only``: kernellab's own launch path (binder, specialization key, cache lookup,
  grid) with the backend's launcher replaced by a no-op: what the runtime adds;
* ``launcher only (<target>)``: the backend's launcher called directly with prepared arguments;
* ``kernel[grid](...) (<target>)``: the whole cached launch, as a user writes it.

Budgets: <= 20 us per launch on the CPU target, <= 5 us on CUDA (including cuLaunchKernel).
``--save`` writes the numbers with the machine, date and versions into bench/results/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import kernellab as kl  # noqa: E402
import kernellab.language as tl  # noqa: E402
from kernellab.runtime.targets import available_targets  # noqa: E402

BUDGET_US = {"cpu": 20.0, "cuda": 5.0}


@kl.jit
def tiny(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


_SYNC = [lambda: None]  # waits for the device between bursts (so a full launch queue never stalls a burst)


def per_launch_us(fn, launches: int, repeats: int) -> float:
    """The best of ``repeats`` bursts of ``launches`` calls, per call, in microseconds.  Bursts
    are short (a few hundred launches) and start on an idle device: a tiny kernel may take
    longer on the GPU than its launch takes on the host, and once the device's launch queue is
    full every launch waits for the GPU, which would time the GPU instead of the host."""
    best = float("inf")
    for _ in range(repeats):
        _SYNC[0]()
        start = time.perf_counter()
        for _ in range(launches):
            fn()
        best = min(best, (time.perf_counter() - start) / launches)
    _SYNC[0]()
    return best * 1e6


def arrays_for(target: str, n: int):
    host = [np.random.default_rng(0).standard_normal(n).astype(np.float32) for _ in range(3)]
    if target == "cuda":
        return [kl.to_device(a) for a in host]
    return host


def measure(target: str, launches: int, repeats: int) -> dict[str, float]:
    import os

    os.environ["KERNELLAB_TARGET"] = target
    n = 64
    x, y, out = arrays_for(target, n)
    if target == "cuda":
        from kernellab.backends.cuda import driver

        _SYNC[0] = driver.synchronize
    kernel = kl.jit(tiny.fn)
    compiled = kernel[(1,)](x, y, out, n, BLOCK=64)
    assert compiled.launcher is not None  # loaded before timing
    launch = kernel[(1,)]
    rows = {f"kernel[grid](...) ({target})": per_launch_us(lambda: kernel[(1,)](x, y, out, n, BLOCK=64),
                                                          launches, repeats),
            f"prebound kernel[grid] ({target})": per_launch_us(lambda: launch(x, y, out, n, BLOCK=64),
                                                              launches, repeats)}
    args = [compiled._launch_value(name, sig, value) for (name, sig), value in
            zip(compiled.metadata.signature.items(), (x, y, out, n))]
    real = compiled.launcher
    rows[f"launcher only ({target})"] = per_launch_us(lambda: real((1, 1, 1), args, None), launches, repeats)
    rows["kernel[grid] alone (no call)"] = per_launch_us(lambda: kernel[(1,)], launches, repeats)
    compiled._launcher = lambda grid, values, stream: None
    rows["runtime only"] = per_launch_us(lambda: kernel[(1,)](x, y, out, n, BLOCK=64), launches, repeats)
    compiled._launcher = real
    return rows


def measure_torch_cuda(launches: int, repeats: int) -> dict[str, float]:
    """The same launch with torch CUDA tensors, and Triton's own launch of the same kernel when
    Triton is installed (side by side, in the same process)."""
    import os

    import torch

    os.environ["KERNELLAB_TARGET"] = "cuda"
    n = 64
    x, y, out = (torch.randn(n, device="cuda") for _ in range(3))
    kernel = kl.jit(tiny.fn)
    kernel[(1,)](x, y, out, n, BLOCK=64)
    torch.cuda.synchronize()
    rows = {"kernel[grid](...) (cuda, torch tensors)": per_launch_us(lambda: kernel[(1,)](x, y, out, n, BLOCK=64),
                                                                     launches, repeats)}
    triton_add = _triton_kernel()
    if triton_add is not None:
        triton_add[(1,)](x, y, out, n, BLOCK=64)
        torch.cuda.synchronize()
        rows["Triton kernel[grid](...) (torch tensors)"] = per_launch_us(
            lambda: triton_add[(1,)](x, y, out, n, BLOCK=64), launches, repeats)
    torch.cuda.synchronize()
    return rows


def _triton_kernel():
    try:
        import triton
        import triton.language as ttl
    except ImportError:
        return None

    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: ttl.constexpr):
        offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
        mask = offs < n
        ttl.store(out_ptr + offs, ttl.load(x_ptr + offs, mask=mask) + ttl.load(y_ptr + offs, mask=mask), mask=mask)

    return triton.jit(add)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, default=300, help="launches per burst")
    parser.add_argument("--repeats", type=int, default=30, help="bursts (the best one counts)")
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    results = {}
    for target in [t for t in available_targets() if t in BUDGET_US]:
        rows = measure(target, args.launches, args.repeats)
        results[target] = rows
        for name, us in rows.items():
            print(f"{name:40s} {us:8.2f} us")
        total = rows[f"kernel[grid](...) ({target})"]
        if target == "cuda":
            extra = measure_torch_cuda(args.launches, args.repeats)
            rows.update(extra)
            for name, us in extra.items():
                print(f"{name:40s} {us:8.2f} us")
        verdict = "OK" if total <= BUDGET_US[target] else "OVER"
        print(f"{'budget (' + target + ')':40s} {BUDGET_US[target]:8.2f} us  -> {verdict}")
    if args.save:
        record = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": platform.node(),
                  "processor": platform.processor() or platform.machine(), "python": platform.python_version(),
                  "kernellab": kl.__version__, "numpy": np.__version__, "results_us": results}
        folder = Path(__file__).resolve().parent / "results"
        folder.mkdir(exist_ok=True)
        path = folder / f"launch_overhead-{'cuda' if 'cuda' in results else 'cpu'}.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        print(f"saved {path}")


if __name__ == "__main__":
    main()
