"""Host cost of kernellab's PyTorch integration on CPU tensors, for comparing source trees on a
machine without a GPU (issue 13's performance lines, measured where they can be here).

Rows (vector add on 1024 fp32 CPU elements, ``bench/tiny_kernels.py``):
  eager   bare ``kernel[grid](x, y, out, n)``; the op's body called directly
          (``torch.empty_like`` + launch); the ``kernellab.torch.op`` call; ``torch.empty_like``
  replay  ``torch.compile(f, fullgraph=True)`` with a backend whose graph costs nothing (it returns
          the outputs it computed once, as a CUDA graph replay runs no Python of the graph): what
          is left per call is Dynamo's guards and frame handling, where kernellab's traced Python
          shows.  f = the op, the kernel inline, ``torch.add`` (the baseline); with guard counts.

Each row is timed with the thread's CPU clock (``time.thread_time``: time the process spends
descheduled on a shared machine does not count), in batches of 2000 calls, rows interleaved,
rounds interleaved across trees (each tree a process of its own); min and median over rounds.

    python bench/torch_host_cost.py [--tree PATH ...] [--rounds 5] [--batches 5] [--json FILE]

``--tree`` (default: this tree) names source trees with ``bench/tiny_kernels.py``; kernellab is
imported from each.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from child_process import child_env, run_result

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r'''
import json, sys, time, timeit
sys.path[:0] = [ROOT, ROOT + "/bench"]
import torch
from tiny_kernels import add_kernel
import kernellab.torch as klt

N = BLOCK = 1024


@klt.op("kl_host_cost::add", mutates_args=())
def kl_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=BLOCK)
    return out


def kl_add_body(x, y):
    out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=BLOCK)
    return out


def torch_add(x, y):
    return torch.add(x, y)


def replay_backend(gm, example_inputs):
    outputs = gm(*example_inputs)
    return lambda *args: outputs


x, y = torch.randn(N), torch.randn(N)
out = torch.empty_like(x)
assert torch.equal(kl_add(x, y), x + y) and torch.equal(kl_add_body(x, y), x + y)
replayed = {"op": kl_add, "kernel inline": kl_add_body, "torch.add": torch_add}
guards = {}
for name, fn in replayed.items():
    torch._dynamo.reset()
    guards[name] = len(torch._dynamo.explain(fn)(x, y).out_guards)
torch._dynamo.reset()
rows = {
    "eager: bare kernel[grid]": lambda: add_kernel[(1,)](x, y, out, N, BLOCK=BLOCK),
    "eager: op body called directly": lambda: kl_add_body(x, y),
    "eager: kernellab.torch.op": lambda: kl_add(x, y),
    "eager: torch.empty_like": lambda: torch.empty_like(x),
}
for name, fn in replayed.items():
    compiled = torch.compile(fn, backend=replay_backend, fullgraph=True)
    for _ in range(3):
        compiled(x, y)
    rows[f"replay: {name}"] = lambda compiled=compiled: compiled(x, y)
samples = {name: [] for name in rows}
for _ in range(BATCHES):
    for name, call in rows.items():
        samples[name].append(timeit.Timer(call, timer=time.thread_time).timeit(number=2000) / 2000 * 1e6)
print("RESULT " + json.dumps({"samples": samples, "guards": guards}))
'''


def run(tree: Path, batches: int) -> dict:
    return run_result(f"ROOT = {str(tree)!r}\nBATCHES = {batches}\n" + _CHILD, tree, child_env())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", default=None)
    parser.add_argument("--rounds", type=int, default=5, help="processes per tree, interleaved")
    parser.add_argument("--batches", type=int, default=5, help="timed batches per row in each process")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    samples: dict[str, dict[str, list[float]]] = {str(t): {} for t in trees}
    guards: dict[str, dict[str, int]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            found = run(tree, args.batches)
            guards[str(tree)] = found["guards"]
            for name, values in found["samples"].items():
                samples[str(tree)].setdefault(name, []).extend(values)
    summary = {tree: {name: {"min_us": min(v), "median_us": statistics.median(v)} for name, v in rows.items()}
               for tree, rows in samples.items()}
    for tree in trees:
        print(tree)
        for name, figures in summary[str(tree)].items():
            print(f"  {name:34s} min {figures['min_us']:6.2f}  median {figures['median_us']:6.2f} us")
        print(f"  guards: {guards[str(tree)]}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "guards": guards, "samples": samples}, indent=1) + "\n")


if __name__ == "__main__":
    main()
