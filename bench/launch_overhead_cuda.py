"""Host cost of one cached launch of a tiny CUDA kernel: kernellab vs Triton vs bare
``cuLaunchKernel``, all in one process on one GPU.

The kernel is vector add on 1024 fp32 elements (one program).  The host cost of a launch is
measured in batches of launches short enough never to fill the driver's launch queue (the
device is synchronised between batches, outside the timing), so the figure is what the Python
side and the driver's launch call cost, not how fast the GPU drains tiny kernels.

Rows (each the median over batches, then the median over rounds, variants interleaved):
  kernellab ``kernel[grid](...)`` with torch tensors and with kernellab DeviceArrays;
  kernellab's launcher alone (``CudaLauncher(grid, args)``, ctypes ``cuLaunchKernelEx``);
  ctypes ``cuLaunchKernel`` with a prebuilt ``void*[]`` (11 converted arguments);
  cuda-bindings ``cuLaunchKernel`` with a prebuilt ``void*[]`` and with arguments built per call;
  Triton ``kernel[grid](...)``; ``torch.add`` on 1024 elements.
Also: import time of ``cuda.bindings.driver`` and, in new processes, the first launch of a
kernel found in the disk cache (kernellab and Triton).

    python bench/launch_overhead_cuda.py [--rounds 3] [--out FILE.json] [--no-subprocess]
                                         [--profile-first-launch]
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kernellab as kl
import kernellab.language as tl

N = 1024
BLOCK = 1024
BATCH = 200
BATCHES = 40


@kl.jit
def kl_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


try:
    import triton
    import triton.language as ttl

    @triton.jit
    def triton_add(x_ptr, y_ptr, out_ptr, n, BLOCK: ttl.constexpr):
        offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
        mask = offs < n
        ttl.store(out_ptr + offs, ttl.load(x_ptr + offs, mask=mask) + ttl.load(y_ptr + offs, mask=mask), mask=mask)
except ImportError:
    triton_add = None


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------

def host_cost(launch, synchronize) -> float:
    """Median seconds per launch over BATCHES batches of BATCH launches."""
    for _ in range(BATCH):
        launch()
    synchronize()
    per_launch = []
    for _ in range(BATCHES):
        start = time.perf_counter()
        for _ in range(BATCH):
            launch()
        per_launch.append((time.perf_counter() - start) / BATCH)
        synchronize()
    return statistics.median(per_launch)


# ---------------------------------------------------------------------------------------------
# The variants
# ---------------------------------------------------------------------------------------------

def kernellab_variants(torch, rng) -> tuple[dict, dict]:
    """kernellab's launches and (function handle, cubin, block) for the bare ones."""
    from kernellab.backends.cuda import device_array

    x = torch.from_numpy(rng.standard_normal(N).astype(np.float32)).cuda()
    y = torch.from_numpy(rng.standard_normal(N).astype(np.float32)).cuda()
    out = torch.full((N,), float("nan"), device="cuda")
    kernel = kl_add[(1,)](x, y, out, N, BLOCK=BLOCK)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    dx, dy, dout = (device_array.to_device(t.cpu().numpy()) for t in (x, y, out))
    kl_add[(1,)](dx, dy, dout, N, BLOCK=BLOCK)
    np.testing.assert_array_equal(dout.numpy(), (x + y).cpu().numpy())
    launcher = kernel.launcher
    values = (x.data_ptr(), y.data_ptr(), out.data_ptr(), N)
    variants = {
        "kernellab kernel[grid](...), torch tensors": lambda: kl_add[(1,)](x, y, out, N, BLOCK=BLOCK),
        "kernellab kernel[grid](...), kl DeviceArrays": lambda: kl_add[(1,)](dx, dy, dout, N, BLOCK=BLOCK),
        "kernellab launcher alone (ctypes cuLaunchKernelEx)": lambda: launcher((1, 1, 1), values, None),
    }
    bare = {"function": launcher.function, "block": launcher.block, "cubin": kernel.asm.get("cubin"),
            "values": values}
    return variants, bare


def handwritten_variants(torch, rng) -> tuple[dict, dict]:
    """Without kernellab's compiler: its launcher on a hand-written PTX vector add."""
    from kernellab.backends.cuda import driver, launcher, ptxas
    from tests.backends.cuda.driver_kit import ADD_PTX, ADD_TYPES

    x, y = (torch.from_numpy(rng.standard_normal(N).astype(np.float32)).cuda() for _ in range(2))
    out = torch.full((N,), float("nan"), device="cuda")
    image = ptxas.assemble(ADD_PTX, driver.properties(0).arch).cubin if ptxas.find_ptxas() else ADD_PTX
    metadata = {"name": "add_kernel", "num_warps": 8, "arg_types": ADD_TYPES}
    add = launcher.load(driver.load_module(image, 0), metadata, driver.properties(0))
    values = (x.data_ptr(), y.data_ptr(), out.data_ptr(), N)
    add((4, 1, 1), values, None)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    variants = {"kernellab launcher alone (ctypes cuLaunchKernelEx)": lambda: add((4, 1, 1), values, None)}
    bare = {"function": add.function, "block": add.block, "cubin": image if isinstance(image, bytes) else None,
            "values": values, "grid": 4}
    return variants, bare


def bare_variants(bare: dict) -> dict:
    from kernellab.backends.cuda import driver

    grid = bare.get("grid", 1)
    storage = [ctypes.c_uint64(v) for v in bare["values"][:3]] + [ctypes.c_int32(bare["values"][3])]
    pointers = (ctypes.c_void_p * 4)(*[ctypes.addressof(s) for s in storage])
    address = ctypes.addressof(pointers)
    function, block = bare["function"], bare["block"]
    plain = ctypes.CDLL(driver.library()._name).cuLaunchKernel
    plain.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    plain.restype = ctypes.c_int

    def ctypes_launch(keep=(storage, pointers)):  # keep: the parameters live as long as the launch
        code = plain(function, grid, 1, 1, block, 1, 1, 0, None, address, None)
        if code:
            raise RuntimeError(f"cuLaunchKernel failed: {driver.error_text(code)}")

    variants = {"ctypes cuLaunchKernel, prebuilt void*[]": ctypes_launch}
    try:
        from cuda.bindings import driver as cb
    except ImportError:
        return variants
    handle = cb.CUfunction(function)
    stream = cb.CUstream(0)
    values = bare["values"]
    kinds = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32)

    def bindings_prebuilt(keep=(storage, pointers)):
        (error,) = cb.cuLaunchKernel(handle, grid, 1, 1, block, 1, 1, 0, stream, address, 0)
        if error != cb.CUresult.CUDA_SUCCESS:
            raise RuntimeError(error)

    def bindings_per_call():
        (error,) = cb.cuLaunchKernel(handle, grid, 1, 1, block, 1, 1, 0, stream, (values, kinds), 0)
        if error != cb.CUresult.CUDA_SUCCESS:
            raise RuntimeError(error)

    variants["cuda-bindings cuLaunchKernel, prebuilt void*[]"] = bindings_prebuilt
    variants["cuda-bindings cuLaunchKernel, args built per call"] = bindings_per_call
    return variants


def triton_variants(torch, rng) -> dict:
    if triton_add is None:
        print("Triton not measured: not installed")
        return {}
    x, y = (torch.from_numpy(rng.standard_normal(N).astype(np.float32)).cuda() for _ in range(2))
    out = torch.full((N,), float("nan"), device="cuda")
    triton_add[(1,)](x, y, out, N, BLOCK=BLOCK)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    return {"Triton kernel[grid](...), torch tensors": lambda: triton_add[(1,)](x, y, out, N, BLOCK=BLOCK)}


def torch_variants(torch, rng) -> dict:
    x, y = (torch.from_numpy(rng.standard_normal(N).astype(np.float32)).cuda() for _ in range(2))
    out = torch.empty_like(x)
    return {"torch.add(x, y, out=out), 1024 elements": lambda: torch.add(x, y, out=out)}


# ---------------------------------------------------------------------------------------------
# New processes
# ---------------------------------------------------------------------------------------------

_FIRST_LAUNCH = textwrap.dedent("""
    import cProfile, pstats, sys, time, torch
    sys.path[:0] = [{root!r}, {bench!r}]
    x = torch.rand({n}, device="cuda"); y = torch.rand({n}, device="cuda"); out = torch.empty_like(x)
    torch.cuda.synchronize()
    import launch_overhead_cuda
    kernel = getattr(launch_overhead_cuda, {name!r})
    profiler = cProfile.Profile() if sys.argv[1:] == ["profile"] else None
    if profiler:
        profiler.enable()
    start = time.perf_counter()
    kernel[(1,)](x, y, out, {n}, BLOCK={block})
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    if profiler:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumtime").print_stats(30)
    print(elapsed)
""")


def first_launch_in_new_process(name: str, env: dict, profile: bool = False) -> tuple[list[float], str]:
    """Seconds of the first launch in a new process (torch and CUDA already initialised), the
    first run filling the disk cache, the next two loading from it; with ``profile``, a fourth
    (cached) run under cProfile, whose report is returned."""
    code = _FIRST_LAUNCH.format(root=str(ROOT), bench=str(ROOT / "bench"), n=N, block=BLOCK, name=name)
    times, report = [], ""
    for run in range(4 if profile else 3):
        command = [sys.executable, "-c", code] + (["profile"] if run == 3 else [])
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            print(f"{name} in a new process failed:\n{done.stderr[-2000:]}")
            break
        if run == 3:
            report = done.stderr
        else:
            times.append(float(done.stdout.strip().splitlines()[-1]))
    return times, report


def import_seconds(module: str) -> float | None:
    code = f"import time; s = time.perf_counter(); import {module}; print(time.perf_counter() - s)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return float(done.stdout.strip()) if done.returncode == 0 else None


# ---------------------------------------------------------------------------------------------

def versions(torch) -> dict:
    found = {"python": platform.python_version(), "torch": torch.__version__}
    for name in ("triton", "cuda.bindings", "llvmlite", "numpy"):
        try:
            module = __import__(name, fromlist=["__version__"])
            found[name] = getattr(module, "__version__", "?")
        except ImportError:
            found[name] = None
    from kernellab.backends.cuda import driver

    found["cuda_driver"] = ".".join(map(str, driver.driver_version()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    parser.add_argument("--no-subprocess", action="store_true", help="skip the new-process measurements")
    parser.add_argument("--profile-first-launch", action="store_true",
                        help="profile kernellab's first cached launch in a new process (cProfile, in the JSON)")
    args = parser.parse_args()

    import torch

    rng = np.random.default_rng(20261129)
    torch.cuda.init()
    notes = []
    try:
        variants, bare = kernellab_variants(torch, rng)
    except Exception as error:  # the compiler may be unfinished: measure the driver side alone
        notes.append(f"kernellab kernel[grid] not measured: {type(error).__name__}: {str(error)[:300]}")
        print(notes[-1])
        variants, bare = handwritten_variants(torch, rng)
    variants.update(bare_variants(bare))
    variants.update(triton_variants(torch, rng))
    variants.update(torch_variants(torch, rng))

    rounds: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, launch in variants.items():
            rounds[name].append(host_cost(launch, torch.cuda.synchronize))
    micros = {name: statistics.median(values) * 1e6 for name, values in rounds.items()}

    extra: dict = {"import cuda.bindings.driver (s)": import_seconds("cuda.bindings.driver")}
    if not args.no_subprocess:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "KERNELLAB_CACHE_DIR": cache}
            if "kernellab kernel[grid](...), torch tensors" in micros:
                times, report = first_launch_in_new_process("kl_add", env, args.profile_first_launch)
                extra["kernellab first launch in a new process (s): cold, cached, cached"] = times
                if report:
                    extra["kernellab first cached launch in a new process, cProfile"] = report
            if "Triton kernel[grid](...), torch tensors" in micros:
                extra["Triton first launch in a new process (s): cold?, cached, cached"] = \
                    first_launch_in_new_process("triton_add", env)[0]

    device = torch.cuda.get_device_name(0)
    triton = micros.get("Triton kernel[grid](...), torch tensors")
    print(f"\nhost cost of one launch, vector add {N} fp32 (1 program), {device}; median of "
          f"{args.rounds} rounds x {BATCHES} batches x {BATCH} launches")
    print(f"{'variant':58s} {'us':>7s} {'vs Triton':>10s}")
    for name, value in micros.items():
        ratio = f"{triton / value:9.2f}x" if triton else ""
        print(f"{name:58s} {value:7.2f} {ratio:>10s}")
    for name, value in extra.items():
        if "cProfile" not in name:
            print(f"{name}: {value}")
    for note in notes:
        print("note:", note)
    if args.out:
        record = {"benchmark": "launch_overhead_cuda", "date": datetime.date.today().isoformat(), "device": device,
                  "versions": versions(torch), "n": N, "block": BLOCK, "batch": BATCH, "batches": BATCHES,
                  "rounds": args.rounds, "host_cost_us": micros, "rounds_us": {k: [v * 1e6 for v in vs]
                                                                              for k, vs in rounds.items()},
                  "extra": extra, "notes": notes}
        args.out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
