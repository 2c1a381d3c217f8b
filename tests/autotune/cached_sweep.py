"""One process of the result-cache test: autotune add_kernel over 4 configs with
``cache_results=True`` and print, as JSON, how many configs were timed and how long the tuned
launch took.  ``python -m tests.autotune.cached_sweep [extra BLOCK ...]``."""

from __future__ import annotations

import json
import sys
import time

import numpy as np

import kernellab as kl

from . import kernels as K


def main(extra_blocks: list[int]) -> None:
    timed = []

    def bench(fn, quantiles):
        timed.append(1)
        return kl.testing.do_bench(fn, warmup=1, rep=3, quantiles=quantiles)

    blocks = [32, 64, 128, 256, *extra_blocks]
    tuner = kl.autotune([kl.Config({"BLOCK": b}) for b in blocks], key=["n"], do_bench=bench, cache_results=True)(
        K.add_kernel)
    n = 1000
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    start = time.perf_counter()
    tuner[K.grid_for(n)](x, y, out, n)
    seconds = time.perf_counter() - start
    print(json.dumps({"timed": len(timed), "seconds": seconds, "best": tuner.best_config.kwargs["BLOCK"],
                      "correct": bool(np.array_equal(out, x + y)),
                      "cached": sum(record.cached for records in tuner.sweeps.values() for record in records)}))


if __name__ == "__main__":
    main([int(b) for b in sys.argv[1:]])
