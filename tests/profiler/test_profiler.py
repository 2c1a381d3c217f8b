"""``kernellab.profiler`` (Triton's proton, through the alias ``triton.profiler``): the tree a
session records (scopes, kernel launches with their launch_metadata), the .hatchet file, and the
viewer's metrics computed from it."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import knobs
from kernellab import profiler as proton
from kernellab.profiler import viewer


def add_metadata(grid, metadata, args):
    return {"name": f"add [n={args['n']}]", "flops32": args["n"], "bytes": 12 * args["n"]}


@kl.jit(launch_metadata=add_metadata)
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def _frames(node: dict, path: str = "") -> dict[str, dict]:
    here = f"{path}/{node['frame']['name']}"
    found = {here: node["metrics"]}
    for child in node["children"]:
        found.update(_frames(child, here))
    return found


@pytest.fixture
def arrays():
    rng = np.random.default_rng(5)
    n = 5000
    return n, rng.random(n, np.float32), rng.random(n, np.float32), np.zeros(n, np.float32)


def test_a_session_records_scopes_and_launches(host_target, arrays, tmp_path):
    n, x, y, out = arrays
    grid = (kl.cdiv(n, 1024),)
    add[grid](x, y, out, n, BLOCK=1024)  # compiled before the session
    session = proton.start(str(tmp_path / "run"), hook="triton")
    proton.deactivate()
    add[grid](x, y, out, n, BLOCK=1024)  # not recorded: inactive
    with proton.scope("hidden"):
        pass
    proton.activate(session)
    with proton.scope("host work", {"flops32": 7}):
        time.sleep(0.002)
    with proton.scope("ours"):
        for _ in range(3):
            add[grid](x, y, out, n, BLOCK=1024)
    proton.deactivate(session)
    proton.finalize()
    assert not knobs.runtime.launch_enter_hook  # the hooks go with the last session
    root, devices = json.loads((tmp_path / "run.hatchet").read_text())
    frames = _frames(root)
    assert set(frames) == {"/ROOT", "/ROOT/host work", "/ROOT/ours", f"/ROOT/ours/add [n={n}]"}
    kernel = frames[f"/ROOT/ours/add [n={n}]"]
    assert kernel["count"] == 3 and kernel["flops32"] == 3 * n and kernel["bytes"] == 36 * n
    assert kernel["time (ns)"] > 0
    assert frames["/ROOT/host work"]["count"] == 1 and frames["/ROOT/host work"]["time (ns)"] >= 2e6
    assert "time (ns)" not in frames["/ROOT/ours"]  # a scope with kernels is their sum
    np.testing.assert_array_equal(out, x + y)


def test_the_viewer_derives_rates_and_shares(host_target, arrays, tmp_path):
    n, x, y, out = arrays
    proton.start(str(tmp_path / "view"), hook="triton")
    with proton.scope("outer"):
        add[(kl.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        proton.enter_scope("numpy")
        np.add(x, y)
        proton.exit_scope("numpy", metrics={"bytes": 12 * n})
    proton.finalize()
    path = str(tmp_path / "view.hatchet")
    tree, metrics = viewer.parse(["time/us", "gbyte/s", "time/%", "count"], path)
    by_name = {node.name: node for node in tree.walk()}
    kernel, outer = by_name[f"add [n={n}]"], by_name["outer"]
    time_ns = kernel.exclusive["time (ns)"]
    assert kernel.shown["time/us"] == pytest.approx(time_ns / 1e3)
    assert kernel.shown["gbyte/s"] == pytest.approx(12 * n / time_ns)  # bytes per ns = GB/s
    assert outer.shown["time/us"] == pytest.approx(kernel.shown["time/us"] + by_name["numpy"].shown["time/us"])
    assert tree.shown["time/%"] == pytest.approx(100.0) and outer.shown["count"] == 2
    only = viewer.parse(["time/us"], path, include="add")[0]
    assert [node.name for node in only.walk()] == ["ROOT", "outer", f"add [n={n}]"]


def test_the_viewer_prints_a_tree(host_target, arrays, tmp_path, capsys):
    n, x, y, out = arrays
    proton.start(str(tmp_path / "tree"), hook="triton")
    with proton.scope("outer"):
        add[(kl.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    proton.finalize()
    viewer.main(["-m", "time/ms,gflop32/s", str(tmp_path / "tree.hatchet")])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(" ROOT") and lines[1].startswith("└─ ") and lines[1].endswith(" outer")
    assert lines[2].startswith("   └─ ") and lines[2].endswith(f" add [n={n}]")


def test_what_is_not_supported_says_so(tmp_path):
    with pytest.raises(ValueError, match="backend"):
        proton.start(str(tmp_path / "x"), backend="instrumentation")
    with pytest.raises(ValueError, match="no profiling session 7"):
        proton.activate(7)
    proton.start(str(tmp_path / "y"))
    proton.enter_scope("a")
    with pytest.raises(ValueError, match="Scope name mismatch"):
        proton.exit_scope("b")
    with proton.scope("b", {"bytes": 1}):
        pass
    proton.finalize()
    with pytest.raises(ValueError, match="util"):
        viewer.parse(["util"], str(tmp_path / "y.hatchet"))


@pytest.mark.gpu
def test_kernel_times_on_the_gpu_are_the_kernels(tmp_path):
    """CUDA events around each launch: the recorded time of a bandwidth-bound kernel is close to
    do_bench's (both are GPU time, not launch overhead)."""
    torch = pytest.importorskip("torch")
    n = 1 << 26
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    grid = (kl.cdiv(n, 1024),)
    add[grid](x, y, out, n, BLOCK=1024)
    bench_ms = kl.testing.do_bench(lambda: add[grid](x, y, out, n, BLOCK=1024))
    proton.start(str(tmp_path / "gpu"), hook="triton")
    for _ in range(20):
        add[grid](x, y, out, n, BLOCK=1024)
    proton.finalize()
    root, devices = json.loads((tmp_path / "gpu.hatchet").read_text())
    kernel = _frames(root)[f"/ROOT/add [n={n}]"]
    assert kernel["count"] == 20 and kernel["device_type"] == "CUDA" and devices["CUDA"]["0"]["num_sms"] > 0
    assert kernel["time (ns)"] / 20 / 1e6 == pytest.approx(bench_ms, rel=0.25)
    assert torch.equal(out, x + y)


def test_triton_profiler_is_this_through_the_alias(tmp_path):
    """Triton's tutorials 09 and 10 ``import triton.profiler as proton`` and read the profile with
    ``triton.profiler.viewer``."""
    import os
    import subprocess
    import sys

    script = tmp_path / "script.py"
    script.write_text("import triton.profiler as proton\nimport triton.profiler.viewer as proton_viewer\n"
                      "import kernellab.profiler, kernellab.profiler.viewer\n"
                      "assert proton is kernellab.profiler and proton_viewer is kernellab.profiler.viewer\n"
                      "print('ok')\n")
    done = subprocess.run([sys.executable, "-m", "kernellab.as_triton", str(script)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "KERNELLAB_TARGET": "cpu"})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
