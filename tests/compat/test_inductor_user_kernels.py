"""A user's Triton kernels inside ``torch.compile`` through the alias: dynamo traces the launches
(an autotuned kernel, a grid function), inductor copies each kernel's source and what it calls (a
jit helper, a ``@triton.constexpr_function``: Triton's ``src`` from the ``def`` line,
``runtime.jit.ConstexprFunction``) into its module and launches them on kernellab's CPU target."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
    import torch, triton, triton.language as tl
    import torch._inductor.config as cfg
    cfg.cpu_backend = "triton"
    cfg.compile_threads = 1  # in this process: the test needs no installed start-up hook

    @triton.constexpr_function
    def doubled(n):
        return n * 2

    @triton.jit
    def combine(a, b):
        return a * 2 + b

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        total = combine(tl.load(x_ptr + offs, mask=m), tl.load(y_ptr + offs, mask=m)) + doubled(BLOCK)
        tl.store(out_ptr + offs, total, mask=m)

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
    @triton.jit
    def mul_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 3, mask=m)

    def f(x, y):
        out = torch.empty_like(x)
        n = x.numel()
        add_kernel[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32)
        out2 = torch.empty_like(x)
        mul_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](out.relu(), out2, n)
        return out2.sin()

    x, y = torch.randn(1000), torch.randn(1000)
    want = f(x, y)
    torch.testing.assert_close(want, ((2 * x + y + 64).relu() * 3).sin())
    got = torch.compile(f, fullgraph=True)(x, y)
    torch.testing.assert_close(got, want)
    print("ok")
"""


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_user_kernels_run_inside_torch_compile(tmp_path):
    (tmp_path / "script.py").write_text(textwrap.dedent(SCRIPT))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor"),
           "KERNELLAB_TARGET": ""}
    done = subprocess.run([sys.executable, "-m", "kernellab.as_triton", "script.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    assert done.stdout.strip().splitlines()[-1] == "ok"
