"""Which step of a kernellab launch breaks a CUDA-graph capture (tests/pytorch/test_cuda.py's
capture test failed on the H200, 2026-12-03: "operation failed due to a previous error during
capture").  Each case runs in a fresh process: the test's sequence (one launch on a side stream,
then a capture of the next launch, then replays checked against torch), under each capture
error mode of ``torch.cuda.graph`` (global: any thread's unsafe call invalidates; thread_local:
only this thread's; relaxed: none), with the native launch path off, and with more launches
before the capture (so that the fast paths are made outside it).

    python bench/graph_probe.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import sys, threading, torch
sys.path.insert(0, ROOT)
import kernellab as kl
if TORCH:
    import kernellab.torch  # noqa: F401  (the torch intercept, as in tests/pytorch)
from tests.runtime.sample_kernels import add_kernel
n = 4096
x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
out = torch.full_like(x, float("nan"))
def launch():
    add_kernel[(kl.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(WARM):
        launch()
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()
threads = threading.active_count()
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph, capture_error_mode=MODE):
    launch()
fresh = torch.randn(n, device="cuda")
x.copy_(fresh)
graph.replay()
torch.cuda.synchronize()
assert torch.equal(out, fresh + y)
print("ok", "threads", threads, threading.active_count())
'''


def case(mode: str, warm: int, native: bool, use_torch: bool) -> str:
    env = dict(os.environ, KERNELLAB_NATIVE_LAUNCH="1" if native else "0")
    code = (CHILD.replace("ROOT", repr(str(ROOT))).replace("MODE", repr(mode)).replace("WARM", str(warm))
            .replace("TORCH", str(use_torch)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    last = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode == 0:
        return last
    error = [line for line in done.stderr.strip().splitlines() if "Error" in line or "error" in line]
    return "FAILED: " + (error[-1] if error else done.stderr.strip()[-200:])


def main() -> None:
    cases = [("global", 1, True, True), ("thread_local", 1, True, True), ("relaxed", 1, True, True),
             ("global", 1, False, True), ("global", 3, True, True), ("global", 1, True, False)]
    for mode, warm, native, use_torch in cases:
        print(f"capture={mode:12s} launches before={warm} native={native!s:5s} kernellab.torch={use_torch!s:5s}: "
              f"{case(mode, warm, native, use_torch)}", flush=True)


if __name__ == "__main__":
    main()
