"""Host cost of kernellab kernels called from PyTorch (issue 13), against the same kernel written
for Triton, in one process on one GPU.

The kernel is vector add on 1024 fp32 elements (``bench/tiny_kernels.py`` and its Triton twin).
Each row is the median per-call host time over batches of calls short enough never to fill the
launch queue, the device synchronised between batches outside the timing
(``launch_overhead_cuda.host_cost``); rows are interleaved round by round and the median over
rounds is reported.

Rows:
  eager   kernellab ``kernel[grid](x, y, out, n)`` (out preallocated)       — "bare launch"
  eager   kernellab op body called directly (``torch.empty_like`` + launch)
  eager   kernellab op ``torch.ops.kl_bench.add(x, y)`` (``kernellab.torch.op``)
  eager   kernellab op ``kl_bench.add_out(x, y, out)`` (``mutates_args=("out",)``: the bare launch's
          work, no allocation)
  eager   Triton ``kernel[grid](...)``; Triton ``torch.library.triton_op`` call
  compile ``torch.compile(f, mode="reduce-overhead")`` of ``f = add(x, y)``: with the kernellab op,
          with the kernellab kernel launched inline, with Triton's kernel inline, with the
          Triton op (CUDA graph replays: what is left is the per-call host cost)

Targets (issue 13): reduce-overhead kernellab <= Triton; eager op <= 1.5x the bare launch.

    python bench/torch_overhead.py [--rounds 5] [--out bench/results] [--device cuda|cpu]

``--device cpu`` runs the kernellab rows on CPU tensors (the CPU target; no Triton, no CUDA
graphs) to check the script itself on a machine without a GPU.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import torch  # noqa: E402
from launch_overhead_cuda import BATCH, BATCHES, host_cost  # noqa: E402  (the same timing as the launch rows)
from tiny_kernels import add_kernel  # noqa: E402

import kernellab as kl  # noqa: E402
import kernellab.torch as klt  # noqa: E402

N = 1024
BLOCK = 1024


@klt.op("kl_bench::add", mutates_args=())
def kl_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=BLOCK)
    return out


@klt.op("kl_bench::add_out", mutates_args=("out",))
def kl_add_out(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=BLOCK)


def kl_add_body(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=BLOCK)
    return out


def triton_rows(x, y, out) -> dict:
    """The Triton variants (``None`` where Triton or its torch integration is missing)."""
    try:
        from tiny_kernels_triton import add_kernel as triton_kernel
        from torch.library import triton_op, wrap_triton
    except ImportError as error:
        print(f"Triton rows skipped: {error}")
        return {}

    @triton_op("kl_bench_triton::add", mutates_args=())
    def triton_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        result = torch.empty_like(a)
        wrap_triton(triton_kernel)[(1,)](a, b, result, a.numel(), BLOCK=BLOCK)
        return result

    def triton_inline(a, b):
        result = torch.empty_like(a)
        triton_kernel[(1,)](a, b, result, a.numel(), BLOCK=BLOCK)
        return result

    return {
        "eager: Triton kernel[grid]": lambda: triton_kernel[(1,)](x, y, out, N, BLOCK=BLOCK),
        "eager: Triton triton_op call": lambda: triton_add(x, y),
        "reduce-overhead: Triton kernel inline": _compiled(triton_inline, x, y),
        "reduce-overhead: Triton triton_op": _compiled(triton_add, x, y),
    }


def _compiled(fn, x, y):
    compiled = torch.compile(fn, mode="reduce-overhead", fullgraph=True)
    expected = x + y
    for _ in range(3):  # warm-up, recording, replay
        result = compiled(x, y)
    if not torch.equal(result, expected):
        raise AssertionError(f"{fn.__name__} under reduce-overhead gave a wrong result")
    return lambda: compiled(x, y)


def kernellab_rows(x, y, out, cuda: bool) -> dict:
    rows = {
        "eager: kernellab kernel[grid] (bare launch)": lambda: add_kernel[(1,)](x, y, out, N, BLOCK=BLOCK),
        "eager: kernellab op body, called directly": lambda: kl_add_body(x, y),
        "eager: kernellab op (kernellab.torch.op)": lambda: kl_add(x, y),
        "eager: kernellab op into a preallocated out (mutates_args)": lambda: kl_add_out(x, y, out),
    }
    if cuda:
        rows["reduce-overhead: kernellab op"] = _compiled(kl_add, x, y)
        rows["reduce-overhead: kernellab kernel inline"] = _compiled(kl_add_body, x, y)
    return rows


def check(x, y, out) -> None:
    out.fill_(float("nan"))
    add_kernel[(1,)](x, y, out, N, BLOCK=BLOCK)
    assert torch.equal(out, x + y), "kernellab add gave a wrong result"
    assert torch.equal(kl_add(x, y), x + y), "the kernellab op gave a wrong result"
    out.fill_(float("nan"))
    kl_add_out(x, y, out)
    assert torch.equal(out, x + y), "the kernellab out op gave a wrong result"


def measure(rows: dict, synchronize, rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(rounds):
        for name, call in rows.items():
            samples[name].append(host_cost(call, synchronize) * 1e6)
    return samples


def ratios(us: dict[str, float]) -> dict[str, float]:
    found = {}
    bare = us.get("eager: kernellab kernel[grid] (bare launch)")
    if bare:
        found["eager op / bare launch (target <= 1.5)"] = us["eager: kernellab op (kernellab.torch.op)"] / bare
        found["eager op / op body called directly"] = (us["eager: kernellab op (kernellab.torch.op)"]
                                                       / us["eager: kernellab op body, called directly"])
        found["eager op into a preallocated out / bare launch (the same work)"] = (
            us["eager: kernellab op into a preallocated out (mutates_args)"] / bare)
    triton_bare = us.get("eager: Triton kernel[grid]")
    if triton_bare and "eager: Triton triton_op call" in us:
        found["Triton: triton_op call / its bare launch"] = us["eager: Triton triton_op call"] / triton_bare
    pairs = [("reduce-overhead: kernellab op", "reduce-overhead: Triton triton_op"),
             ("reduce-overhead: kernellab kernel inline", "reduce-overhead: Triton kernel inline")]
    for ours, theirs in pairs:
        if ours in us and theirs in us:
            found[f"{ours} / Triton (target <= 1.0)"] = us[ours] / us[theirs]
    return found


def write(out_dir: Path, device: str, us: dict, spread: dict, found: dict) -> Path:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M")
    out_dir.mkdir(parents=True, exist_ok=True)
    versions = {"torch": torch.__version__, "python": platform.python_version(), "kernellab": kl.__version__}
    try:
        import triton

        versions["triton"] = triton.__version__
    except ImportError:
        pass
    name = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or platform.machine()
    record = {"benchmark": "torch_overhead", "date": stamp, "device": name, "versions": versions,
              "n": N, "batch": BATCH, "batches": BATCHES, "us_per_call": us, "rounds_us": spread,
              "ratios": found}
    path = out_dir / f"torch_overhead-{device}-{stamp}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    lines = [f"# torch_overhead ({name}, {stamp} UTC)", "", f"versions: {versions}", "",
             "| row | us per call |", "|---|---|"]
    lines += [f"| {row} | {value:.2f} |" for row, value in us.items()]
    lines += ["", "| ratio | value |", "|---|---|"] + [f"| {k} | {v:.2f} |" for k, v in found.items()]
    path.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    args = parser.parse_args()
    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        sys.exit("no CUDA device torch can use: run on the GPU machine, or pass --device cpu to check the script")
    x = torch.randn(N, device=args.device)
    y = torch.randn(N, device=args.device)
    out = torch.empty_like(x)
    check(x, y, out)
    synchronize = torch.cuda.synchronize if cuda else (lambda: None)
    rows = kernellab_rows(x, y, out, cuda)
    if cuda:
        rows.update(triton_rows(x, y, out))
    samples = measure(rows, synchronize, args.rounds)
    us = {name: statistics.median(values) for name, values in samples.items()}
    found = ratios(us)
    width = max(len(name) for name in us)
    print(f"{'row':<{width}}  us/call")
    for name, value in us.items():
        print(f"{name:<{width}}  {value:7.2f}")
    for name, value in found.items():
        print(f"{name}: {value:.2f}")
    print("results:", write(args.out, args.device, us, samples, found))


if __name__ == "__main__":
    main()
