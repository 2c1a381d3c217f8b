"""torch.compile's own Triton kernels, compiled by Triton and by kernellab (through the alias), on
the same models: inductor writes the kernels (fused elementwise ops, reductions, scans), so this
is a sample of Triton code neither project wrote for itself.

Each backend runs in its own process (one process cannot hold the real Triton and the alias):
``--backend triton`` imports the real Triton, ``--backend kernellab`` runs under
``kernellab.as_triton``.  Every model is checked against eager PyTorch in float64 on fresh random
inputs before it is timed; the time is the median of ``--reps`` CUDA-event timings of the compiled
model (inputs fixed, after warm-up), per round; rounds alternate the backends' processes.

    python bench/inductor_ab.py [--rounds 3] [--device cuda|cpu] [--out bench/results]

``--device cpu`` (no GPU): inductor's Triton CPU backend, kernellab only (the real Triton has no
CPU backend), to check the script on a machine without a GPU.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name -> (parameters, model source, input shapes, dtype): small models of the kind inductor fuses;
# the shape "targets" is class indices for the first input's rows
MODELS = {
    "layer_norm_gelu": ("x, w", "F.gelu(F.layer_norm(x, x.shape[-1:], w))", [(8192, 1024), (1024,)], "float16"),
    "softmax": ("x", "torch.softmax(x.float(), -1).to(x.dtype)", [(8192, 2048)], "float16"),
    "rms_norm_silu_mul": ("x, w, y", "(x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6))"
                          ".to(x.dtype) * w * F.silu(y)", [(8192, 2048), (2048,), (8192, 2048)], "bfloat16"),
    "cross_entropy": ("x, t", "F.cross_entropy(x.float(), t)", [(4096, 32000), "targets"], "bfloat16"),
    "cumsum_argmax": ("x", "(x.cumsum(-1), x.argmax(-1))", [(4096, 1024)], "float32"),
    "tiny_softmax_host_bound": ("x", "torch.softmax(x * 2, -1) + 1", [(32, 64)], "float32"),  # launch cost shows
    "adam_step": ("p, m, v, g", "(p - 1e-3 * (0.9 * m + 0.1 * g) / ((0.999 * v.abs() + 0.001 * g * g).sqrt() + 1e-8))",
                  [(16 * 1024 * 1024,)] * 4, "float32"),
}


def _child(device: str, reps: int) -> dict:
    import torch
    import torch._inductor.config as inductor_config
    import torch.nn.functional as F

    if device == "cpu":
        inductor_config.cpu_backend = "triton"
    torch.manual_seed(0)
    rows = {}
    for name, (parameters, source, shapes, dtype_name) in MODELS.items():
        args = _inputs(shapes, getattr(torch, dtype_name), device)
        fn = eval(f"lambda {parameters}: {source}", {"torch": torch, "F": F})  # noqa: S307 (our table)
        compiled = torch.compile(fn)
        _check(name, compiled(*args), fn(*[a.double() if a.is_floating_point() else a for a in args]))
        rows[name] = _time(compiled, args, reps, device)
    return rows


def _inputs(shapes: list, dtype, device: str) -> list:
    import torch

    args = []
    for shape in shapes:
        if shape == "targets":
            args.append(torch.randint(0, args[0].shape[-1], (args[0].shape[0],), device=device))
        else:  # the CPU check runs sixteen times smaller sizes
            args.append(torch.randn(*(max(s // 16, 1) if device == "cpu" else s for s in shape), device=device,
                                    dtype=dtype))
    return args


def _check(name: str, got, want) -> None:
    """The compiled model's outputs against eager PyTorch's in float64."""
    import torch

    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        if g.is_floating_point():
            torch.testing.assert_close(g.double(), w.double(), rtol=2e-2, atol=2e-2, msg=lambda m: f"{name}: {m}")
        else:
            assert torch.equal(g, w), name


def _time(fn, args, reps: int, device: str) -> float:
    import time

    import torch

    for _ in range(3):
        fn(*args)
    if device == "cpu":
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            fn(*args)
            times.append((time.perf_counter() - start) * 1e6)
        return statistics.median(times)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def _run_backend(backend: str, device: str, reps: int, cache: Path) -> dict:
    prefix = ["-m", "kernellab.as_triton"] if backend == "kernellab" else []
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TORCHINDUCTOR_CACHE_DIR": str(cache / backend),
           "TORCHINDUCTOR_FX_GRAPH_CACHE": "0"}
    done = subprocess.run([sys.executable, *prefix, str(Path(__file__).resolve()), "--child", backend,
                           "--device", device, "--reps", str(reps)], env=env, capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"{backend} failed:\n{done.stdout}\n{done.stderr[-6000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--child", default="")
    options = parser.parse_args()
    if options.child:
        print(json.dumps(_child(options.device, options.reps)))
        return
    import tempfile

    backends = ["kernellab"] if options.device == "cpu" else ["triton", "kernellab"]
    rounds: list[dict] = []
    with tempfile.TemporaryDirectory() as cache:
        for number in range(options.rounds):
            order = backends if number % 2 == 0 else backends[::-1]
            rounds.append({backend: _run_backend(backend, options.device, options.reps, Path(cache))
                           for backend in order})
    print(f"{'model':22s} " + " ".join(f"{b + ' us':>14s}" for b in backends) + ("  kernellab/triton per round"
                                                                                  if len(backends) == 2 else ""))
    table = {}
    for name in MODELS:
        medians = {b: statistics.median(r[b][name] for r in rounds) for b in backends}
        ratios = [r["kernellab"][name] / r["triton"][name] for r in rounds] if len(backends) == 2 else []
        table[name] = {"median_us": medians, "ratios": ratios}
        print(f"{name:22s} " + " ".join(f"{medians[b]:14.1f}" for b in backends) + "  "
              + " ".join(f"{x:.2f}" for x in ratios))
    import torch

    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H%MZ")
    device_name = torch.cuda.get_device_name() if options.device == "cuda" else platform.processor() or "cpu"
    record = {"date": stamp, "device": device_name, "torch": torch.__version__, "rounds": rounds, "table": table}
    out = Path(options.out) / f"inductor_ab-{options.device}-{stamp}.json"
    out.write_text(json.dumps(record, indent=1))
    print(f"written {out}")


if __name__ == "__main__":
    main()
