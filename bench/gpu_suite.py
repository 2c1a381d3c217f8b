"""kernellab vs Triton vs torch on a CUDA GPU, side by side, in one process.

The kernels are Triton's tutorial kernels of ``tests/kernels/tutorials.py``, unchanged: once as
written (``import kernellab as triton``) and once through real Triton (the same file, its two
import lines switched).  Every implementation is first checked against torch on fresh random
data (outputs start as NaN), then timed with ``triton.testing.do_bench`` (median).

    python bench/gpu_suite.py [--out DIR] [--quick]

A/B of code-generator changes in the same process: ``--dump-ptx DIR`` writes the PTX of every
kernellab launch (one file per workload and config; with ``--kernellab-path`` another copy of
the package compiles them, e.g. a worktree of the commit before a change), and each
``--variant NAME=DIR`` (those files), ``--variant NAME=drop:REGEX`` (this run's own PTX
without the text matching REGEX) or ``--variant NAME=sub:REGEX=>REPLACEMENT`` (``re.sub``, escapes such as ``\\n`` and
groups such as ``\\1`` as re.sub reads them; several rules joined by `` && ``) adds an
implementation ``kernellab-NAME`` that launches the same kernels with ``ir_override`` set to that
PTX.

Workloads (ANCHORS.md has the reference figures): vector add fp32 2^28 (GB/s, 3 arrays), softmax
fp32 32768x4096 one row per program (GB/s, read + write), layer norm forward fp32 16384x4096
(GB/s, read + write), matmul fp16 and bf16 4096^3 (TFLOP/s).  Results (with date, device and
versions) go to ``bench/results/gpu_suite-<date>.{json,md}`` and to ``--out``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import torch
import triton
import triton.testing

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from triton_copy import triton_tutorials  # noqa: E402  (bench/ is the script's folder)


def _kernellab_path() -> None:
    """``--kernellab-path DIR``: import the kernellab package from DIR (before argparse runs)."""
    if "--kernellab-path" in sys.argv:
        sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--kernellab-path") + 1]).resolve()))


_kernellab_path()
import kernellab  # noqa: E402
from tests.kernels import tutorials as kl_tut  # noqa: E402


def slug(workload: str, config: str) -> str:
    """A file name for one measured case."""
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{workload}-{config}").strip("_")


class Variant:
    """kernellab's tutorial kernels launched with ``ir_override``: the PTX file of the case being
    measured (``Suite.case``), from a folder or this run's own PTX with some lines dropped."""

    def __init__(self, suite: Suite, source: str):
        self.suite, self.source = suite, source
        self.folder = Path(tempfile.mkdtemp(prefix="kl-variant-"))

    def path(self) -> str:
        case = self.suite.case
        if not self.source.startswith(("drop:", "sub:")):
            return str(Path(self.source) / f"{case}.ptx")
        file = self.folder / f"{case}.ptx"
        if not file.exists():
            kind, _, rules = self.source.partition(":")
            text = self.suite.own_ptx[case]
            for rule in rules.split(" && "):
                pattern, _, replacement = rule.partition("=>") if kind == "sub" else (rule, "", "")
                text = re.sub(pattern, replacement, text)
            file.write_text(text)
        return str(file)

    def __getattr__(self, name: str):
        kernel = getattr(kl_tut, name)
        variant = self

        class Launch:
            def __getitem__(self, grid):
                launch = kernel[grid]
                return lambda *args, **kwargs: launch(*args, ir_override=variant.path(), **kwargs)

        return Launch()


def timed(fn) -> float:
    """Median milliseconds."""
    return float(triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median"))


class Suite:
    def __init__(self, quick: bool, stages: int = 3, rounds: int = 1, variants: dict[str, str] | None = None,
                 dump_ptx: Path | None = None, no_time: bool = False):
        self.quick = quick
        self.case = ""
        self.own_ptx: dict[str, str] = {}
        self.dump_ptx, self.no_time = dump_ptx, no_time
        self.stages = stages
        self.rounds = rounds
        self.pending: list = []
        self.rows: list[dict] = []
        self.tut = {"kernellab": kl_tut}
        for name, source in (variants or {}).items():
            self.tut[f"kernellab-{name}"] = Variant(self, source)
        if not no_time:
            self.tut["triton"] = triton_tutorials()
        self.generator = torch.Generator(device="cuda")
        self.generator.manual_seed(20261129)

    def randn(self, *shape, dtype=torch.float32):
        return torch.randn(*shape, device="cuda", dtype=torch.float32, generator=self.generator).to(dtype)

    def record(self, workload: str, impl: str, config: str, ms: float | None, amount: float, unit: str,
               error: str | None = None) -> None:
        rate = amount / (ms * 1e-3) if ms else None
        self.rows.append({"workload": workload, "impl": impl, "config": config, "ms": ms, "rate": rate,
                          "unit": unit, "error": error})
        shown = f"{rate:9.1f} {unit}" if rate else f"FAILED: {error}"
        print(f"  {workload:28s} {impl:10s} {config:24s} {shown}", flush=True)

    def measure(self, workload: str, impl: str, config: str, run, check, amount: float, unit: str) -> None:
        """Run once and check, then time (with ``rounds`` > 1, again in :meth:`finish`)."""
        case = slug(workload, config)
        bare = run

        def run():
            self.case = case
            return bare()

        try:
            compiled = run()
            torch.cuda.synchronize()
            check()
            if impl == "kernellab" and hasattr(compiled, "asm"):
                self.own_ptx[case] = compiled.asm["ptx"]
                if self.dump_ptx is not None:
                    self.dump_ptx.mkdir(parents=True, exist_ok=True)
                    (self.dump_ptx / f"{case}.ptx").write_text(compiled.asm["ptx"])
            if self.no_time:
                self.record(workload, impl, config, None, amount, unit, "checked, not timed")
                return
            if self.rounds > 1:
                self.pending.append(([timed(run)], workload, impl, config, run, amount, unit))
                return
            self.record(workload, impl, config, timed(run), amount, unit)
        except Exception as error:  # a failing implementation must not stop the others
            detail = "".join(traceback.format_exception_only(error)).strip().splitlines()[-1][:300]
            traceback.print_exc()
            self.record(workload, impl, config, None, amount, unit, detail)

    def finish(self) -> None:
        """Time every pending measurement ``rounds - 1`` more times, the order reversed each round
        (so no implementation always runs on a cooler or warmer GPU), and record the medians."""
        for r in range(self.rounds - 1):
            for times, *_, run, _amount, _unit in (self.pending if r % 2 else reversed(self.pending)):
                times.append(timed(run))
        for times, workload, impl, config, _run, amount, unit in self.pending:
            self.record(workload, impl, config, float(statistics.median(times)), amount, unit)
        self.pending = []

    # ---- workloads ----
    def vector_add(self) -> None:
        n = 2**24 if self.quick else 2**28
        x, y = self.randn(n), self.randn(n)
        ref = x + y
        name = f"vector add fp32 2^{n.bit_length() - 1}"
        for impl, tut in self.tut.items():
            out = torch.full_like(x, float("nan"))

            def run(tut=tut, out=out):
                return tut.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)

            self.measure(name, impl, "BLOCK 1024, 4 warps", run, lambda out=out: _same(out, ref), 12 * n / 1e9,
                         "GB/s")
        out = torch.empty_like(x)
        self.measure(name, "torch", "torch.add", lambda: torch.add(x, y, out=out), lambda: _same(out, ref),
                     12 * n / 1e9, "GB/s")

    def softmax(self, rows: int = 32768, cols: int = 4096, warps_list=(4, 8, 16)) -> None:
        rows = 4096 if self.quick else rows
        x = self.randn(rows, cols)
        ref = torch.softmax(x, dim=1)
        name = f"softmax fp32 {rows}x{cols}"
        for warps in warps_list:
            for impl, tut in self.tut.items():
                out = torch.full_like(x, float("nan"))

                def run(tut=tut, out=out, warps=warps):
                    return tut.softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), rows, cols, BLOCK_SIZE=cols,
                                                num_stages=2, num_warps=warps)

                self.measure(name, impl, f"row/program, {warps} warps", run,
                             lambda out=out: _close(out, ref, 1e-5, 1e-6), 8 * rows * cols / 1e9, "GB/s")
        self.measure(name, "torch", "torch.softmax", lambda: torch.softmax(x, dim=1), lambda: None,
                     8 * rows * cols / 1e9, "GB/s")

    def layer_norm(self) -> None:
        rows, cols = (2048, 4096) if self.quick else (16384, 4096)
        x = self.randn(rows, cols)
        w, b = self.randn(cols), self.randn(cols)
        ref = torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5)
        name = f"layer norm fwd fp32 {rows}x{cols}"
        for impl, tut in self.tut.items():
            y = torch.full_like(x, float("nan"))
            mean = torch.full((rows,), float("nan"), device="cuda")
            rstd = torch.full((rows,), float("nan"), device="cuda")

            def run(tut=tut, y=y, mean=mean, rstd=rstd):
                return tut._layer_norm_fwd_fused[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5,
                                                   BLOCK_SIZE=cols, num_warps=8)

            self.measure(name, impl, "row/program, 8 warps", run, lambda y=y: _close(y, ref, 1e-4, 1e-4),
                         8 * rows * cols / 1e9, "GB/s")
        self.measure(name, "torch", "F.layer_norm", lambda: torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5),
                     lambda: None, 8 * rows * cols / 1e9, "GB/s")

    def matmul(self, dtype) -> None:
        size = 1024 if self.quick else 4096
        a, b = self.randn(size, size, dtype=dtype), self.randn(size, size, dtype=dtype)
        label = "fp16" if dtype == torch.float16 else "bf16"
        configs = [(128, 128, 32, 4), (128, 128, 64, 4), (128, 256, 32, 8), (64, 128, 32, 4), (128, 128, 32, 8),
                   (128, 128, 64, 8)]
        name = self.matmul_rows(f"matmul {label} {size}^3", a, b, dtype, configs,
                                lambda c, ref: _close(c.float(), ref, 2e-2, 2e-1))
        self.measure(name, "torch", "torch.matmul", lambda: torch.matmul(a, b), lambda: None, 2 * size**3 / 1e12,
                     "TFLOP/s")

    def matmul_fp8(self) -> None:
        """fp8 e4m3 inputs, B K-major (a view of an N x K tensor), fp16 out (Triton's tutorial 03 case)."""
        size = 1024 if self.quick else 4096
        a = self.randn(size, size).to(torch.float8_e4m3fn)
        b = self.randn(size, size).to(torch.float8_e4m3fn).t()
        self.matmul_rows(f"matmul fp8e4m3 {size}^3", a, b, torch.float16,
                         [(128, 256, 128, 8), (128, 128, 128, 4), (128, 256, 64, 8)],
                         lambda c, ref: _relative(c.float(), ref, 1e-2))

    def matmul_rows(self, name: str, a, b, out_dtype, configs, check) -> str:
        """The tutorial matmul of ``a @ b`` for each config, kernellab and Triton."""
        size = a.shape[0]
        ref = a.float() @ b.float()
        for bm, bn, bk, warps in configs:
            for impl, tut in self.tut.items():
                c = torch.full((size, size), float("nan"), device="cuda", dtype=out_dtype)

                def run(tut=tut, c=c, bm=bm, bn=bn, bk=bk, warps=warps):
                    grid = (triton.cdiv(size, bm) * triton.cdiv(size, bn),)
                    return tut.matmul_kernel[grid](a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0),
                                            b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                            BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACTIVATION="", num_warps=warps,
                                            num_stages=self.stages)

                self.measure(name, impl, f"{bm}x{bn}x{bk}, {warps} warps", run, lambda c=c: check(c, ref),
                             2 * size**3 / 1e12, "TFLOP/s")
        return name

    def matmul_persistent(self, descriptors: bool = False) -> None:
        """Tutorial 09's persistent matmuls, one program per SM walking the tiles: pointer loads,
        or (``descriptors``) tensor descriptors made in the kernel (TMA on both compilers)."""
        size = 1024 if self.quick else 4096
        a, b = self.randn(size, size, dtype=torch.float16), self.randn(size, size, dtype=torch.float16)
        b_t = b.t().contiguous()
        ref = a.float() @ b.float()
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        if descriptors:  # Triton's descriptors made in a kernel need scratch memory
            triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
        name = f"matmul {'descriptor ' if descriptors else ''}persistent fp16 {size}^3"
        for bm, bn, bk, warps in ((128, 128, 64, 4), (128, 128, 64, 8), (128, 256, 64, 8)):
            for impl, tut in self.tut.items():
                c = torch.full((size, size), float("nan"), device="cuda", dtype=torch.float16)

                def run(tut=tut, c=c, bm=bm, bn=bn, bk=bk, warps=warps):
                    grid = (min(sms, triton.cdiv(size, bm) * triton.cdiv(size, bn)),)
                    meta = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, NUM_SMS=sms,
                                num_warps=warps, num_stages=self.stages)
                    if descriptors:
                        return tut.matmul_descriptor_persistent_kernel[grid](a, b_t, c, size, size, size, **meta)
                    return tut.matmul_persistent_kernel[grid](a, b, c, size, size, size, a.stride(0), a.stride(1),
                                                              b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                                              **meta)

                self.measure(name, impl, f"{bm}x{bn}x{bk}, {warps} warps", run,
                             lambda c=c: _close(c.float(), ref, 2e-2, 2e-1), 2 * size**3 / 1e12, "TFLOP/s")

    def matmul_host_descriptors(self) -> None:
        """Tutorial 09's matmul through host tensor descriptors (each compiler's TensorDescriptor),
        one block of C per program: TMA on both compilers."""
        from triton.tools.tensor_descriptor import TensorDescriptor as TritonDescriptor

        from kernellab.tools.tensor_descriptor import TensorDescriptor as KernellabDescriptor

        size = 1024 if self.quick else 4096
        a, b = self.randn(size, size, dtype=torch.float16), self.randn(size, size, dtype=torch.float16)
        b_t = b.t().contiguous()
        ref = a.float() @ b.float()
        name = f"matmul host descriptors fp16 {size}^3"
        for bm, bn, bk, warps in ((128, 128, 64, 4), (128, 128, 64, 8), (128, 256, 64, 8)):
            for impl, tut in self.tut.items():
                c = torch.full((size, size), float("nan"), device="cuda", dtype=torch.float16)
                make = TritonDescriptor if impl == "triton" else KernellabDescriptor
                descs = (make.from_tensor(a, [bm, bk]), make.from_tensor(b_t, [bn, bk]), make.from_tensor(c, [bm, bn]))

                def run(tut=tut, descs=descs, bm=bm, bn=bn, bk=bk, warps=warps):
                    return tut.matmul_host_descriptor_kernel[(triton.cdiv(size, bm), triton.cdiv(size, bn))](
                        *descs, size, size, size, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                        num_warps=warps, num_stages=self.stages)

                self.measure(name, impl, f"{bm}x{bn}x{bk}, {warps} warps", run,
                             lambda c=c: _close(c.float(), ref, 2e-2, 2e-1), 2 * size**3 / 1e12, "TFLOP/s")

    def attention(self, causal: bool, d: int = 64) -> None:
        z, h, n = (1, 8, 1024) if self.quick else (4, 16, 4096)
        q, k, v = (self.randn(z, h, n, d, dtype=torch.float16) for _ in range(3))
        scale = 0.5
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
        name = f"attention fwd fp16 {z}x{h}x{n}x{d}{' causal' if causal else ''}"
        flops = 4 * z * h * n * n * d / 1e12 / (2 if causal else 1)
        for block_m, block_n, warps in ((128, 64, 8), (64, 64, 4)):
            for impl, tut in self.tut.items():
                o = torch.full_like(q, float("nan"))
                m = torch.full((z, h, n), float("nan"), device="cuda")

                def run(tut=tut, o=o, m=m, block_m=block_m, block_n=block_n, warps=warps):
                    grid = (triton.cdiv(n, block_m), z * h, 1)
                    return tut._attn_fwd[grid](q, k, v, scale, m, o, *q.stride(), *k.stride(), *v.stride(),
                                               *o.stride(), z, h, N_CTX=n, HEAD_DIM=d, BLOCK_M=block_m,
                                               BLOCK_N=block_n, STAGE=3 if causal else 1, num_warps=warps,
                                               num_stages=self.stages)

                self.measure(name, impl, f"{block_m}x{block_n}, {warps} warps", run,
                             lambda o=o: _close(o.float(), ref.float(), 1e-2, 1e-2), flops, "TFLOP/s")
        self.measure(name, "torch", "SDPA", lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal, scale=scale), lambda: None, flops, "TFLOP/s")

    # ---- report ----
    def summary(self) -> list[dict]:
        out = []
        workloads = list(dict.fromkeys(r["workload"] for r in self.rows))
        for w in workloads:
            best = {}
            for impl in [*self.tut, "torch"]:
                found = [r for r in self.rows if r["workload"] == w and r["impl"] == impl and r["rate"]]
                best[impl] = max(found, key=lambda r: r["rate"]) if found else None
            kl_rate = best["kernellab"]["rate"] if best["kernellab"] else None
            tr_rate = best["triton"]["rate"] if best["triton"] else None
            variants = {impl: best[impl]["rate"] if best[impl] else None
                        for impl in self.tut if impl.startswith("kernellab-")}
            out.append({"workload": w, "unit": self.rows[[r["workload"] for r in self.rows].index(w)]["unit"],
                        "variants": variants,
                        "kernellab": kl_rate, "kernellab_config": best["kernellab"]["config"] if best["kernellab"]
                        else None, "triton": tr_rate, "triton_config": best["triton"]["config"] if best["triton"]
                        else None, "torch": best["torch"]["rate"] if best["torch"] else None,
                        "kernellab/triton": kl_rate / tr_rate if kl_rate and tr_rate else None})
        return out


def _same(got, want) -> None:
    torch.testing.assert_close(got, want, rtol=0, atol=0)


def _relative(got, want, limit: float) -> None:
    """||got - want|| / ||want|| under ``limit`` (elementwise tolerances fail on fp8's cancellations)."""
    error = float((got - want).norm() / want.norm())
    if not error < limit:
        raise AssertionError(f"relative error {error:.3g} over {limit}")


def _close(got, want, rtol, atol) -> None:
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


def versions() -> dict:
    import llvmlite

    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout
        rev = rev.strip() + ("+changes" if rev.strip() and dirty.strip() else "")  # a copied tree may not be HEAD
    except OSError:
        rev = ""
    return {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
            "kernellab": kernellab.__version__, "kernellab_git": rev.strip(), "llvmlite": llvmlite.__version__,
            "cuda": torch.version.cuda, "python": platform.python_version()}


def markdown(meta: dict, summary: list[dict]) -> str:
    def fmt(v):
        return f"{v:.1f}" if isinstance(v, float) else "—"

    versions_line = ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
    lines = [f"# GPU suite {meta['date']} {meta['label']}", "",
             f"{versions_line}, cuda_pipeline {meta['cuda_pipeline']}", "",
             "| workload | unit | kernellab | Triton | torch | kernellab/Triton | kernellab config | Triton config |",
             "|---|---|---|---|---|---|---|---|"]
    for s in summary:
        ratio = f"{s['kernellab/triton']:.2f}x" if s["kernellab/triton"] else "—"
        lines.append(f"| {s['workload']} | {s['unit']} | {fmt(s['kernellab'])} | {fmt(s['triton'])} | "
                     f"{fmt(s['torch'])} | {ratio} | {s['kernellab_config']} | {s['triton_config']} |")
    names = sorted({name for s in summary for name in s.get("variants", {})})
    if names:
        lines += ["", "Variants (best config each; ratio to Triton):", "",
                  "| workload | kernellab | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
        for s in summary:
            def cell(rate, triton_rate=s["triton"]):
                return f"{rate:.1f} ({rate / triton_rate:.2f}x)" if rate and triton_rate else fmt(rate)
            lines.append(f"| {s['workload']} | {cell(s['kernellab'])} | "
                         + " | ".join(cell(s["variants"].get(n)) for n in names) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="also write the results here")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--label", default="", help="added to the result file names (e.g. a variant)")
    parser.add_argument("--only", nargs="*", default=None,
                        help="workloads: add softmax layernorm matmul softmax_wide attention fp8 persistent tma "
                             "hostdesc")
    parser.add_argument("--stages", type=int, default=3, help="num_stages of the matmul and attention launches")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time each measurement this many times, interleaved, and keep the median")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=DIR|NAME=drop:REGEX",
                        help="also launch kernellab's kernels with ir_override from DIR or from this run's PTX "
                             "without the text matching REGEX")
    parser.add_argument("--dump-ptx", type=Path, default=None, help="write the PTX of every kernellab launch here")
    parser.add_argument("--kernellab-path", default=None, help="import kernellab from this folder")
    parser.add_argument("--no-time", action="store_true", help="run and check only (with --dump-ptx)")
    args = parser.parse_args()
    variants = dict(v.split("=", 1) for v in args.variant)
    suite = Suite(args.quick, args.stages, args.rounds, variants, args.dump_ptx, args.no_time)
    steps = {"add": suite.vector_add, "softmax": suite.softmax, "layernorm": suite.layer_norm,
             "matmul": lambda: (suite.matmul(torch.float16), suite.matmul(torch.bfloat16)),
             "softmax_wide": lambda: suite.softmax(8192, 16384, (16, 32)),
             "attention": lambda: [suite.attention(causal, d) for d in (64, 128) for causal in (False, True)],
             "fp8": suite.matmul_fp8, "persistent": suite.matmul_persistent,
             "tma": lambda: suite.matmul_persistent(descriptors=True), "hostdesc": suite.matmul_host_descriptors}
    for name in args.only or steps:
        print(f"== {name}", flush=True)
        steps[name]()
        suite.finish()
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H%M%SZ")
    meta = {"date": date, "versions": versions(), "quick": args.quick, "label": args.label,
            "cuda_pipeline": kernellab.config.cuda_pipeline_mode(), "rounds": args.rounds, "stages": args.stages}
    if args.no_time:
        return
    summary = suite.summary()
    report = {"meta": meta, "summary": summary, "rows": suite.rows}
    text = markdown(meta, summary)
    for folder in filter(None, [ROOT / "bench" / "results", args.out]):
        folder.mkdir(parents=True, exist_ok=True)
        name = f"gpu_suite-{date}{'-' + args.label if args.label else ''}"
        (folder / f"{name}.json").write_text(json.dumps(report, indent=1))
        (folder / f"{name}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
