"""The CPU target against numpy and the kernellab interpreter, in one run.

Workloads (the tutorial kernels of ``tests/kernels/tutorials.py``, unchanged): vector add fp32
2^24, softmax fp32 4096x1024 (one row per program), layer norm forward fp32 4096x1024 (one row
per program), matmul fp32 512^3 and 1024^3 (64x64x32 tiles, grouped ordering).  Also: cold
compile time per kernel, loading from object code, and the host cost of a one-program launch.

Triton's interpreter was not re-measured (it is not installed here): its figures are quoted
from ``../shared/ANCHORS.md`` (2-core machine) and scaled by problem size where our size
differs (vector add 2^22 -> 2^24: x4; matmul 512^3 -> 1024^3: x8), marked as such.

    python bench/cpu_suite.py [--repeat 7] [--no-interpreter] [--record]
"""

from __future__ import annotations

import argparse
import datetime
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
os.environ.setdefault("KERNELLAB_CACHE_DIR", tempfile.mkdtemp(prefix="kernellab-bench-"))

import kernellab as kl  # noqa: I001
import kernellab.language as tl
from kernels import tutorials as tut

# Triton interpreter figures (ms) from ANCHORS.md, scaled to our sizes where noted.
TRITON_INTERPRETER_MS = {"vector add": (637 * 4, "637 ms at 2^22, x4"), "softmax": (5360, "as measured"),
                         "layer norm": (None, "no figure"), "matmul 512": (1316, "as measured"),
                         "matmul 1024": (1316 * 8, "1316 ms at 512^3, x8")}


def paired_ms(first, second, repeat: int) -> tuple[float, float]:
    """Median milliseconds of two functions, measured in alternating blocks of runs: load from
    other processes falls on both alike, and neither runs while the other's worker threads are
    still busy (OpenBLAS's threads spin for a while after a call returns, which slowed the tiled
    matmul measured right after numpy's 2x: 30 ms against 15 ms alone, 1024^3 on 2 cores)."""
    first()
    second()
    times: tuple[list, list] = ([], [])
    for _ in range(2):
        for fn, out in ((first, times[0]), (second, times[1])):
            time.sleep(0.3)  # OpenBLAS's idle threads spin for ~0.1 s after a call
            fn()
            for _ in range(max(1, repeat // 2)):
                start = time.perf_counter()
                fn()
                out.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times[0]), statistics.median(times[1])


def numpy_softmax(x, out):
    z = np.exp(x - x.max(axis=1, keepdims=True))
    np.divide(z, z.sum(axis=1, keepdims=True), out=out)


def numpy_layer_norm(x, w, b, y, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    centered = x - mean
    rstd = 1.0 / np.sqrt((centered * centered).mean(axis=1, keepdims=True) + eps)
    np.multiply(centered * rstd, w, out=y)
    y += b


def workloads(rng):
    n = 1 << 24
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    yield ("vector add", lambda: tut.run_add(x, y, out), lambda: np.add(x, y, out=out),
           lambda: np.testing.assert_array_equal(out, x + y))
    s = rng.standard_normal((4096, 1024), dtype=np.float32)
    s_out = np.full_like(s, np.nan)
    yield ("softmax", lambda: tut.run_softmax(s, s_out, programs=4096), lambda: numpy_softmax(s, s_out),
           lambda: np.testing.assert_allclose(s_out, tut.ref_softmax(s), rtol=1e-5, atol=1e-7))
    w, bias = rng.standard_normal(1024, dtype=np.float32), rng.standard_normal(1024, dtype=np.float32)
    ln_out = np.full_like(s, np.nan)
    mean, rstd = np.empty(4096, np.float32), np.empty(4096, np.float32)
    yield ("layer norm", lambda: tut.run_layer_norm(s, w, bias, ln_out, mean, rstd),
           lambda: numpy_layer_norm(s, w, bias, ln_out),
           lambda: np.testing.assert_allclose(ln_out, tut.ref_layer_norm(s, w, bias)[0], rtol=1e-4, atol=1e-4))
    for size in (512, 1024):
        a = rng.standard_normal((size, size), dtype=np.float32)
        b = rng.standard_normal((size, size), dtype=np.float32)
        c = np.full((size, size), np.nan, np.float32)
        yield (f"matmul {size}", lambda a=a, b=b, c=c: tut.run_matmul(a, b, c), lambda a=a, b=b, c=c: np.matmul(
            a, b, out=c), lambda a=a, b=b, c=c: np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-3))


def cold_compile_s(run) -> float:
    """Seconds of the first call in a fresh cache minus a warm call: compile + load."""
    os.environ["KERNELLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="kernellab-bench-cold-")
    for kernel in (tut.add_kernel, tut.softmax_kernel, tut._layer_norm_fwd_fused, tut.matmul_kernel):
        kernel.cache.clear() if hasattr(kernel, "cache") and hasattr(kernel.cache, "clear") else None
    start = time.perf_counter()
    run()
    first = time.perf_counter() - start
    start = time.perf_counter()
    run()
    return first - (time.perf_counter() - start)


@kl.jit
def tiny_kernel(x_ptr, n):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


def launch_cost_us(repeat: int = 2000) -> dict:
    """Host cost of launching a one-program kernel: through ``kernel[grid](...)`` and the bare
    CPU launcher."""
    os.environ["KERNELLAB_TARGET"] = "cpu"
    x = np.zeros(16, np.float32)
    tiny_kernel[(1,)](x, 16)
    start = time.perf_counter()
    for _ in range(repeat):
        tiny_kernel[(1,)](x, 16)
    jit_us = (time.perf_counter() - start) / repeat * 1e6
    compiled = tiny_kernel.warmup(x, 16, grid=(1,))
    bare_us = None
    backend_launcher = getattr(compiled, "launcher", None)
    if callable(backend_launcher):
        args = [x.ctypes.data, 16]
        start = time.perf_counter()
        for _ in range(repeat):
            backend_launcher((1, 1, 1), args)
        bare_us = (time.perf_counter() - start) / repeat * 1e6
    return {"jit_launch_us": jit_us, "bare_launcher_us": bare_us}


def load_ms() -> float:
    """Milliseconds to load a compiled kernel's object code (what a disk-cache hit costs the
    backend): the matmul kernel, median of 5."""
    import kernellab.backends as backends

    args, constexprs = _matmul_args()
    compiled = tut.matmul_kernel.warmup(*args, grid=(1,), **constexprs)
    backend = backends.get("cpu")
    asm = dict(compiled.asm)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        backend.load(asm, dict(compiled.metadata))
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def _matmul_args():
    a = np.zeros((64, 64), np.float32)
    return (a, a, a, 64, 64, 64, 64, 1, 64, 1, 64, 1), dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
                                                            GROUP_SIZE_M=8, ACTIVATION="")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-interpreter", action="store_true")
    parser.add_argument("--record", action="store_true")
    options = parser.parse_args()
    rng = np.random.default_rng(2026)
    rows = []
    for name, run, reference, check in workloads(rng):
        os.environ["KERNELLAB_TARGET"] = "cpu"
        compile_s = cold_compile_s(run)
        check()
        cpu_ms, numpy_ms = paired_ms(run, reference, options.repeat)
        interp_ms = None
        if not options.no_interpreter:
            os.environ["KERNELLAB_TARGET"] = "interpret"
            start = time.perf_counter()
            run()
            interp_ms = (time.perf_counter() - start) * 1e3
            os.environ["KERNELLAB_TARGET"] = "cpu"
        triton_ms, triton_note = TRITON_INTERPRETER_MS[name]
        rows.append({"workload": name, "cpu_ms": cpu_ms, "numpy_ms": numpy_ms, "interpreter_ms": interp_ms,
                     "triton_interpreter_ms": triton_ms, "triton_note": triton_note, "cold_compile_s": compile_s,
                     "numpy_over_cpu": numpy_ms / cpu_ms,
                     "interpreter_over_cpu": interp_ms / cpu_ms if interp_ms else None,
                     "triton_interpreter_over_cpu": triton_ms / cpu_ms if triton_ms else None})
        print_row(rows[-1])
    launch = launch_cost_us()
    loading = load_ms()
    print(f"launch of a 1-program kernel: kernel[grid](...) {launch['jit_launch_us']:.1f} us; "
          f"bare launcher {launch['bare_launcher_us'] or float('nan'):.1f} us; load from object {loading:.2f} ms")
    if options.record:
        record(rows, launch, loading)


def print_row(row: dict) -> None:
    def fmt(value, spec=".1f"):
        return "n/a" if value is None else format(value, spec)
    print(f"{row['workload']:<12} cpu {fmt(row['cpu_ms'], '.2f'):>8} ms | numpy {fmt(row['numpy_ms'], '.2f'):>8} ms "
          f"(numpy/cpu {fmt(row['numpy_over_cpu'], '.2f')}x) | interpreter {fmt(row['interpreter_ms'], '.0f')} ms "
          f"({fmt(row['interpreter_over_cpu'], '.0f')}x) | Triton interp {fmt(row['triton_interpreter_ms'], '.0f')} ms "
          f"({fmt(row['triton_interpreter_over_cpu'], '.0f')}x, {row['triton_note']}) | cold compile "
          f"{row['cold_compile_s']:.3f} s", flush=True)


def record(rows, launch, loading) -> None:
    import llvmlite

    from kernellab.backends.cpu.compiler import host_cpu

    stamp = datetime.datetime.now(datetime.UTC)
    result = {"date": stamp.isoformat(timespec="seconds"), "machine": platform.node(),
              "processor": host_cpu()[0], "cores": os.cpu_count(), "python": platform.python_version(),
              "numpy": np.__version__, "llvmlite": llvmlite.__version__, "kernellab": kl.__version__,
              "rows": rows, "launch": launch, "load_object_ms": loading}
    folder = ROOT / "bench" / "results"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"cpu_suite-{stamp:%Y%m%d-%H%M}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    table = path.with_suffix(".md")
    table.write_text(markdown_table(result))
    print(f"recorded {path.relative_to(ROOT)} and {table.relative_to(ROOT)}")


def markdown_table(result: dict) -> str:
    def fmt(value, spec):
        return "n/a" if value is None else format(value, spec)
    lines = [f"# CPU suite, {result['date']}", "",
             f"Machine {result['machine']} ({result['processor']}, {result['cores']} cores); python "
             f"{result['python']}, numpy {result['numpy']}, llvmlite {result['llvmlite']}, kernellab "
             f"{result['kernellab']}. Medians; kernellab and numpy timed in alternation.", "",
             "| workload | kernellab cpu ms | numpy ms | numpy/cpu | interpreter ms | interpreter/cpu | "
             "Triton interpreter ms | Triton interp/cpu | cold compile s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        lines.append(f"| {row['workload']} | {row['cpu_ms']:.2f} | {row['numpy_ms']:.2f} | "
                     f"{row['numpy_over_cpu']:.2f}x | {fmt(row['interpreter_ms'], '.0f')} | "
                     f"{fmt(row['interpreter_over_cpu'], '.0f')}x | {fmt(row['triton_interpreter_ms'], '.0f')} "
                     f"({row['triton_note']}) | {fmt(row['triton_interpreter_over_cpu'], '.0f')}x | "
                     f"{row['cold_compile_s']:.3f} |")
    launch = result["launch"]
    lines += ["", f"One-program launch: `kernel[grid](...)` {launch['jit_launch_us']:.1f} us, bare CPU launcher "
              f"{fmt(launch['bare_launcher_us'], '.1f')} us. Loading a kernel from object code: "
              f"{result['load_object_ms']:.2f} ms.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
