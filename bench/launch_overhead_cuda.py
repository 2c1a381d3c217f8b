"""Host cost of one cached launch of a tiny CUDA kernel: kernellab (native launch path and
Python binder) vs Triton vs bare ``cuLaunchKernel``, all in one process on one GPU.

The kernel is vector add on 1024 fp32 elements (one program, ``bench/tiny_kernels.py``).  The
host cost of a launch is measured in batches of launches short enough never to fill the
driver's launch queue (the device is synchronised between batches, outside the timing), so the
figure is what the Python side and the driver's launch call cost, not how fast the GPU drains
tiny kernels.

Rows (each the median over batches, then the median over rounds, variants interleaved):
  kernellab ``kernel[grid](...)``, native launch path and Python binder
  (``KERNELLAB_NATIVE_LAUNCH=0``), each with torch tensors and with kernellab DeviceArrays
  (a JITFunction of its own per row, so each row is one specialization);
  kernellab's Python launcher alone (``CudaLauncher(grid, args)``, ctypes ``cuLaunchKernelEx``);
  ctypes ``cuLaunchKernel`` with a prebuilt ``void*[]`` (11 converted arguments);
  cuda-bindings ``cuLaunchKernel`` with a prebuilt ``void*[]`` and with arguments built per call;
  Triton ``kernel[grid](...)``; ``torch.add`` on 1024 elements.
Without torch (or without a device torch can use) the torch and Triton rows are skipped, so the
script also runs against a stand-in libcuda (``--no-check``).

    python bench/launch_overhead_cuda.py [--rounds 3] [--out FILE.json] [--no-check]
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from tiny_kernels import fresh_kernel  # noqa: E402

import kernellab as kl  # noqa: E402

N = 1024
BLOCK = 1024
BATCH = 200
BATCHES = 40


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

def is_native(kernel: kl.JITFunction) -> bool:
    return type(kernel._head).__name__ == "builtin_function_or_method"


def kernellab_variants(arrays: dict, check) -> dict:
    """``kernel[grid](...)`` on each kind of array, through the native path and the binder."""
    variants = {}
    for label, (x, y, out) in arrays.items():
        for native in (True, False):
            kernel = fresh_kernel(native)
            for _ in range(2):  # compile or load, the first launch, the native function made
                kernel[(1,)](x, y, out, N, BLOCK=BLOCK)
            poison(out)
            kernel[(1,)](x, y, out, N, BLOCK=BLOCK)  # natively (or not)
            check(out)
            if is_native(kernel) != native:
                print(f"note: the {'native' if native else 'Python'} kernel on {label} is "
                      f"{'native' if is_native(kernel) else 'Python'}: {getattr(kernel._native, 'refused', None)}")
            name = f"kernellab kernel[grid](...), {'native' if native else 'Python binder'}, {label}"
            variants[name] = lambda kernel=kernel, x=x, y=y, out=out: kernel[(1,)](x, y, out, N, BLOCK=BLOCK)
    return variants


def poison(out) -> None:
    """NaN in every element (a launch that writes nothing cannot pass the check)."""
    if hasattr(out, "fill_"):
        out.fill_(float("nan"))
    else:
        out.fill_bytes(0xFF)


def launcher_variant(arrays: dict) -> tuple[dict, dict]:
    """kernellab's Python launcher alone, and what the bare launches need."""
    x, y, out = next(iter(arrays.values()))
    kernel = fresh_kernel(False)
    compiled = kernel[(1,)](x, y, out, N, BLOCK=BLOCK)
    launcher = compiled.launcher
    values = tuple(address_of(a) for a in (x, y, out)) + (N,)
    bare = {"function": launcher.function, "block": launcher.block, "values": values}
    name = "kernellab Python launcher alone (ctypes cuLaunchKernelEx)"
    return {name: lambda: launcher((1, 1, 1), values, None)}, bare


def address_of(array) -> int:
    return array.data_ptr()


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

        handle = cb.CUfunction(function)
        stream = cb.CUstream(0)
        (error,) = cb.cuLaunchKernel(handle, grid, 1, 1, block, 1, 1, 0, stream, address, 0)
        if error != cb.CUresult.CUDA_SUCCESS:
            raise RuntimeError(error)
    except Exception as error:  # not installed, or not usable with this driver
        print(f"cuda-bindings not measured: {type(error).__name__}: {str(error)[:200]}")
        return variants
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


def triton_variants(arrays: dict, check) -> dict:
    if "torch tensors" not in arrays:
        return {}
    try:
        from tiny_kernels import triton_add

        triton_kernel = triton_add()
    except ImportError:
        print("Triton not measured: not installed")
        return {}
    x, y, out = arrays["torch tensors"]
    triton_kernel[(1,)](x, y, out, N, BLOCK=BLOCK)
    check(out)
    return {"Triton kernel[grid](...), torch tensors": lambda: triton_kernel[(1,)](x, y, out, N, BLOCK=BLOCK)}


def torch_variants(torch, arrays: dict) -> dict:
    if torch is None:
        return {}
    x, y, out = arrays["torch tensors"]
    return {"torch.add(x, y, out=out), 1024 elements": lambda: torch.add(x, y, out=out)}


def make_arrays(torch, rng) -> tuple[dict, np.ndarray]:
    from kernellab.backends.cuda import device_array

    host = [rng.standard_normal(N).astype(np.float32) for _ in range(2)] + [np.full(N, np.nan, np.float32)]
    arrays = {"kl DeviceArrays": tuple(device_array.to_device(a) for a in host)}
    if torch is not None:
        arrays["torch tensors"] = tuple(torch.from_numpy(a).cuda() for a in host)
    return arrays, host[0] + host[1]


def import_seconds(module: str) -> float | None:
    code = f"import time; s = time.perf_counter(); import {module}; print(time.perf_counter() - s)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return float(done.stdout.strip()) if done.returncode == 0 else None


# ---------------------------------------------------------------------------------------------

def versions(torch) -> dict:
    found = {"python": platform.python_version(), "torch": getattr(torch, "__version__", None)}
    for name in ("triton", "cuda.bindings", "llvmlite", "numpy"):
        try:
            module = __import__(name, fromlist=["__version__"])
            found[name] = getattr(module, "__version__", "?")
        except ImportError:
            found[name] = None
    from kernellab.backends.cuda import driver

    found["cuda_driver"] = ".".join(map(str, driver.driver_version()))
    found["kernellab"] = kl.__version__
    return found


def cuda_torch():
    """torch, when it is installed and sees a CUDA device; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    parser.add_argument("--no-check", action="store_true", help="skip result checks (a stand-in driver)")
    args = parser.parse_args()

    from kernellab.backends.cuda import driver

    torch = cuda_torch()
    if torch is not None:
        torch.cuda.init()
        synchronize = torch.cuda.synchronize
    else:
        synchronize = driver.synchronize
    rng = np.random.default_rng(20261129)
    arrays, expected = make_arrays(torch, rng)

    def check(out) -> None:
        synchronize()
        if not args.no_check:
            result = out.cpu().numpy() if hasattr(out, "cpu") else out.numpy()
            np.testing.assert_array_equal(result, expected)

    print("kernellab variants ...", flush=True)
    variants = kernellab_variants(arrays, check)
    launcher, bare = launcher_variant(arrays)
    variants.update(launcher)
    variants.update(bare_variants(bare))
    variants.update(triton_variants(arrays, check))
    variants.update(torch_variants(torch, arrays))

    print(f"{len(variants)} variants ready: {', '.join(variants)}", flush=True)
    rounds: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, launch in variants.items():
            rounds[name].append(host_cost(launch, synchronize))
    for name, launch in variants.items():  # each kernellab launch still computes the sum
        if name.startswith("kernellab kernel[grid]"):
            out = arrays["torch tensors" if name.endswith("torch tensors") else "kl DeviceArrays"][2]
            poison(out)
            launch()
            check(out)
    micros = {name: statistics.median(values) * 1e6 for name, values in rounds.items()}
    extra = {"import cuda.bindings.driver (s)": import_seconds("cuda.bindings.driver")}

    device = torch.cuda.get_device_name(0) if torch is not None else driver.properties(0).name
    triton = micros.get("Triton kernel[grid](...), torch tensors")
    print(f"\nhost cost of one launch, vector add {N} fp32 (1 program), {device}; median of "
          f"{args.rounds} rounds x {BATCHES} batches x {BATCH} launches")
    print(f"{'variant':66s} {'us':>7s} {'vs Triton':>10s}")
    for name, value in micros.items():
        ratio = f"{triton / value:9.2f}x" if triton else ""
        print(f"{name:66s} {value:7.2f} {ratio:>10s}")
    for name, value in extra.items():
        print(f"{name}: {value}")
    if args.out:
        record = {"benchmark": "launch_overhead_cuda", "date": datetime.date.today().isoformat(), "device": device,
                  "versions": versions(torch), "n": N, "block": BLOCK, "batch": BATCH, "batches": BATCHES,
                  "rounds": args.rounds, "host_cost_us": micros,
                  "rounds_us": {k: [v * 1e6 for v in vs] for k, vs in rounds.items()}, "extra": extra}
        args.out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
