"""The cold path: the first ``kernel[grid](...)`` of a new process, with the kernel found in
the disk cache (and, first, with an empty cache).

Each run is a new Python process that imports numpy (and torch, for torch tensors or Triton),
initialises the device, imports kernellab and the module defining the kernel
(``bench/tiny_kernels.py``), then times its first launch (until the result is ready) and a
second one.  The first run fills an empty cache (a cold compile); the others load from it.
Import times are reported apart: the issue's budgets (CPU <= 20 ms, CUDA <= 5 ms) are for the
first launch, as Triton's figure is measured.

    python bench/cold_start.py [--target cpu|cuda] [--arrays numpy|torch|kl] [--runs 5]
                               [--triton] [--profile [first|second]] [--print-profile] [--json FILE]
                               [--no-check] [--on-host] [--phases] [--gc-shifts] [--root TREE]

``--profile [first|second]`` adds one more warm run under cProfile and keeps where its first (or
second) launch went; ``--print-profile`` prints it.
``--phases`` times the first launch's phases in every warm run (``bench/launch_phases.py``) and
prints their medians; every run also records the launch call apart from the wait for the device.
With ``--phases`` every run also records the garbage collections during its first launch
(generation and time, by ``gc.callbacks``): a collection falls where the process's allocation
count crosses a threshold, so one tree can pay for it in a benchmark's process and another not;
below the table, each run's collections and the first launch less them (min, median).
``--gc-shifts`` spreads the warm runs over a generation-1 cycle (run i first allocates and keeps
i * threshold0 * threshold1 / runs lists: 7,000 at CPython's defaults), so that the mean over runs
is what a process whose allocations fall anywhere pays; with ``--phases`` the table adds the means
of the first launch and of the collections in it.
``--root TREE`` imports kernellab from another checkout (an A/B runs this script, and its
``tiny_kernels`` and ``launch_phases``, for both trees: bench/first_launch_ab.sh).
``--on-host`` (for a stand-in libcuda, whose "device memory" is host memory): numpy arrays or torch
tensors stay on the host and ``KERNELLAB_TARGET=cuda`` sends the launch to the CUDA backend, which
then pays for its own import inside the first launch, as it does with torch CUDA tensors.
Children run with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` unset), as a user's would.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = [Path(__file__).resolve().parents[1]]  # the kernellab tree the children import (--root)
BENCH = Path(__file__).resolve().parent
N = 1024
CHECK = [True]  # off with --no-check (a stand-in driver runs no kernel)
ON_HOST = [False]  # --on-host
PHASES = [False]  # --phases
GC_SHIFTS = [False]  # --gc-shifts
GENERATION_1_CYCLE = gc.get_threshold()[0] * gc.get_threshold()[1]  # allocations from one gen-1 collection to the next

_CHILD = textwrap.dedent("""
    import sys, time
    clock = time.perf_counter
    t0 = clock()
    sys.path[:0] = [{root!r}, {bench!r}]
    import numpy as np
    t_numpy = clock()
    target, arrays, which, profile, check = {target!r}, {arrays!r}, {which!r}, {profile!r}, {check!r}
    on_host, phases = {on_host!r}, {phases!r}
    if on_host:
        import os
        os.environ["KERNELLAB_TARGET"] = target
    torch = None
    if arrays == "torch" or which == "triton":
        import torch
    t_torch = clock()
    n = {n}
    rng = np.random.default_rng(7)
    host = [rng.standard_normal(n).astype(np.float32) for _ in range(2)] + [np.full(n, np.nan, np.float32)]
    if arrays == "torch":
        device = "cuda" if target == "cuda" and not on_host else "cpu"
        x, y, out = (torch.from_numpy(a).to(device) for a in host)
        sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
        sync()
    t_device = clock()
    if which == "triton":
        import tiny_kernels
        kernel = tiny_kernels.triton_add()
    else:
        import kernellab
        t_kernellab = clock()
        if phases:
            import launch_phases
            timings = launch_phases.install()
        import tiny_kernels
        kernel = tiny_kernels.add_kernel
    t_module = clock()
    if arrays == "kl":
        from kernellab.backends.cuda import device_array, driver
        x, y, out = (device_array.to_device(a) for a in host)
        sync = driver.synchronize
    elif arrays == "numpy":
        x, y, out = host
        sync = lambda: None
    t_arrays = clock()
    if profile:
        import cProfile
        profiler = cProfile.Profile()
    if profile == "first":
        profiler.enable()
    collections = []
    ballast = [[] for _ in range({shift})]  # --gc-shifts: this run's place in the collector's cycle
    if phases:
        import gc
        def on_gc(phase, info):
            if phase == "start":
                collections.append([info["generation"], clock()])
            else:
                collections[-1][1] = clock() - collections[-1][1]
        gc.callbacks.append(on_gc)
    start = clock()
    kernel[(1,)](x, y, out, n, BLOCK=n)
    called = clock() - start
    sync()
    first = clock() - start
    first_phases = dict(timings) if phases else None
    if phases:
        gc.callbacks.remove(on_gc)
    if profile == "first":
        profiler.disable()
    if profile == "second":
        profiler.enable()
    start = clock()
    kernel[(1,)](x, y, out, n, BLOCK=n)
    sync()
    second = clock() - start
    if profile == "second":
        profiler.disable()
    result = out.cpu().numpy() if arrays == "torch" else out.numpy() if arrays == "kl" else out
    assert not check or np.array_equal(result, host[0] + host[1]), "wrong result"
    record = {{"numpy_s": t_numpy - t0, "torch_s": t_torch - t_numpy, "device_init_s": t_device - t_torch,
               "module_s": t_module - t_device, "first_launch_s": first, "first_call_s": called,
               "second_launch_s": second}}
    if phases:
        record["phases_s"] = first_phases
        record["gc_in_first_launch"] = collections
    if which != "triton":
        record["kernellab_import_s"] = t_kernellab - t_device
        record["origin"] = getattr(kernel.cache.get(next(iter(kernel.cache))), "origin", "?")
    if profile:
        import io, pstats
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(35)
        record["profile"] = text.getvalue()
    print("RESULT " + __import__("json").dumps(record))
""")


def run_child(target: str, arrays: str, which: str, env: dict, profile: str = "", shift: int = 0) -> dict:
    code = _CHILD.format(shift=shift, root=str(ROOT[0]), bench=str(BENCH), target=target, arrays=arrays, which=which,
                         profile=profile, n=N, check=CHECK[0], on_host=ON_HOST[0],
                         phases=PHASES[0] and which != "triton")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{which} ({target}, {arrays}) failed in a new process (exit {done.returncode}):\n"
                           f"{done.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def child_env(cache: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(KERNELLAB_CACHE_DIR=cache, TRITON_CACHE_DIR=os.path.join(cache, "triton"))
    return env


def measure(target: str, arrays: str, which: str, runs: int, profile: str) -> dict:
    """The cold run, then ``runs`` warm ones (and a profiled one)."""
    with tempfile.TemporaryDirectory(prefix="kl-cold-") as cache:
        env = child_env(cache)
        cold = run_child(target, arrays, which, env)
        # --gc-shifts: run i first allocates i * GENERATION_1_CYCLE / runs lists (kept), so that the
        # runs' first launches start at evenly spread places of a generation-1 cycle
        shifts = [i * GENERATION_1_CYCLE // runs if GC_SHIFTS[0] else 0 for i in range(runs)]
        warm = [run_child(target, arrays, which, env, shift=shift) for shift in shifts]
        profiled = run_child(target, arrays, which, env, profile=profile) if profile else None
    first = [w["first_launch_s"] for w in warm]
    summary = {
        "variant": f"{which} {target} {arrays}",
        "cold_first_launch_ms": cold["first_launch_s"] * 1e3,
        "cached_first_launch_ms_min": min(first) * 1e3,
        "cached_first_launch_ms_median": statistics.median(first) * 1e3,
        "second_launch_us_median": statistics.median(w["second_launch_s"] for w in warm) * 1e6,
        "module_import_ms_median": statistics.median(w["module_s"] for w in warm) * 1e3,
        "runs": warm,
    }
    if which != "triton":
        summary["kernellab_import_ms_median"] = statistics.median(w["kernellab_import_s"] for w in warm) * 1e3
        summary["origins"] = [cold.get("origin")] + [w.get("origin") for w in warm]
    summary["first_call_ms_median"] = statistics.median(w["first_call_s"] for w in warm) * 1e3
    if all("phases_s" in w for w in warm):
        labels = dict.fromkeys(label for w in warm for label in w["phases_s"])
        summary["phases_ms_median"] = {label: statistics.median(w["phases_s"].get(label, 0.0) for w in warm) * 1e3
                                       for label in labels}
    if all("gc_in_first_launch" in w for w in warm):
        summary["gc_in_first_launch"] = [w["gc_in_first_launch"] for w in warm]
        without = [w["first_launch_s"] - sum(s for _, s in w["gc_in_first_launch"]) for w in warm]
        summary["cached_first_launch_no_gc_ms_min"] = min(without) * 1e3
        summary["cached_first_launch_no_gc_ms_median"] = statistics.median(without) * 1e3
        summary["cached_first_launch_ms_mean"] = statistics.fmean(first) * 1e3
        summary["gc_in_first_launch_ms_mean"] = statistics.fmean(
            sum(s for _, s in w["gc_in_first_launch"]) for w in warm) * 1e3
    if profiled is not None:
        summary["profile"] = profiled["profile"]
    return summary


def print_table(rows: list[dict], header: bool = True) -> None:
    if header:
        print(f"{'variant':28s} {'cold':>9s} {'cached min':>11s} {'median':>9s} {'2nd launch':>11s} "
              f"{'import kl':>10s}")
    for row in rows:
        imported = row.get("kernellab_import_ms_median")
        print(f"{row['variant']:28s} {row['cold_first_launch_ms']:7.1f}ms {row['cached_first_launch_ms_min']:9.2f}ms "
              f"{row['cached_first_launch_ms_median']:7.2f}ms {row['second_launch_us_median']:9.1f}us "
              + (f"{imported:8.1f}ms" if imported is not None else f"{'-':>10s}"))


def print_collections(row: dict) -> None:
    """Each run's collections during its first launch, and the first launch less them."""
    runs = " ".join(",".join(f"g{generation}:{seconds * 1e3:.2f}" for generation, seconds in run) or "-"
                    for run in row["gc_in_first_launch"])
    print(f"    {'gc in the first launch (gen:ms, per run)':44s} {runs}")
    print(f"    {'first launch less gc: min, median':44s} {row['cached_first_launch_no_gc_ms_min']:7.3f}, "
          f"{row['cached_first_launch_no_gc_ms_median']:.3f} ms")
    print(f"    {'means: first launch, gc in it':44s} {row['cached_first_launch_ms_mean']:7.3f}, "
          f"{row['gc_in_first_launch_ms_mean']:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--arrays", choices=("numpy", "torch", "kl"), default=None,
                        help="numpy (cpu), kl DeviceArrays or torch tensors (cuda); default numpy on cpu, kl on cuda")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--triton", action="store_true", help="also Triton's first launch (torch tensors)")
    parser.add_argument("--profile", nargs="?", const="first", choices=("first", "second"), default="",
                        help="profile one more warm run's first (default) or second launch (kept in the JSON)")
    parser.add_argument("--print-profile", action="store_true", help="and print it")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--no-check", action="store_true", help="skip the result check (for a stand-in driver)")
    parser.add_argument("--phases", action="store_true", help="time the first launch's phases (medians printed)")
    parser.add_argument("--on-host", action="store_true",
                        help="arrays on the host, the target forced (cuda with a stand-in driver)")
    parser.add_argument("--gc-shifts", action="store_true",
                        help="spread the runs' first launches over the collector's cycle (with --phases: mean columns)")
    parser.add_argument("--root", type=Path, default=None,
                        help="the kernellab tree to import (default: this script's)")
    args = parser.parse_args()
    if args.root is not None:
        ROOT[0] = args.root.resolve()
    CHECK[0] = not args.no_check
    ON_HOST[0] = args.on_host
    PHASES[0] = args.phases
    GC_SHIFTS[0] = args.gc_shifts
    arrays = args.arrays or ("numpy" if args.target == "cpu" else "kl")
    wanted = [(arrays, "kernellab")] + ([("torch", "triton")] if args.triton else [])
    rows = []
    for kind, which in wanted:  # each row printed and saved as soon as it is measured
        profile = (args.profile or ("first" if args.print_profile else "")) if which == "kernellab" else ""
        rows.append(measure(args.target, kind, which, args.runs, profile))
        print_table(rows[-1:], header=len(rows) == 1)
        if "phases_ms_median" in rows[-1]:
            print(f"    {'the call (before waiting for the device)':44s} {rows[-1]['first_call_ms_median']:7.3f} ms")
        for label, ms in rows[-1].get("phases_ms_median", {}).items():
            print(f"    {label:44s} {ms:7.3f} ms")
        if "gc_in_first_launch" in rows[-1]:
            print_collections(rows[-1])
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1) + "\n")
    for row in rows:
        if "profile" in row and args.print_profile:
            print(row["profile"])

if __name__ == "__main__":
    main()
