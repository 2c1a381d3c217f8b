"""The differential run: generate programs from consecutive seeds, run each on the targets,
shrink every failing one and describe it (the seed to reproduce it, the mismatches, the minimal
kernel's source)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .generator import generate
from .program import Program
from .runner import Mismatch, Runner
from .shrinker import shrink


@dataclass
class Finding:
    seed: int
    mismatches: list[Mismatch]
    shrunk: Program
    shrunk_mismatches: list[Mismatch]
    checks: int
    parts: int = 4

    def describe(self) -> str:
        lines = [f"seed {self.seed}: {len(self.mismatches)} mismatch(es)"]
        lines += [f"  {m}" for m in self.mismatches[:6]]
        lines.append(f"shrunk in {self.checks} checks to ({len(self.shrunk.body)} statements; "
                     f"launch grid=({self.shrunk.grid},), M={self.shrunk.m}, N={self.shrunk.n}):")
        lines += [f"  {m}" for m in self.shrunk_mismatches[:6]]
        lines.append(self.shrunk.source())
        lines.append(f"reproduce: python -m kernellab.fuzz --seed {self.seed} --n 1 --parts {self.parts}")
        return "\n".join(lines)


@dataclass
class Summary:
    programs: int = 0  # independent programs (parts) checked
    kernels: int = 0
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)


def _fails_like(runner: Runner, categories: set[tuple[str, str]]) -> Callable[[Program], bool]:
    def fails(candidate: Program) -> bool:
        try:
            found = runner.check(candidate)
        except Exception:  # a candidate the reference cannot evaluate is not the same failure
            return False
        return any(m.category in categories for m in found)
    return fails


def run(count: int, seed: int, targets: list[str], parts: int = 4, do_shrink: bool = True,
        options: dict | None = None, progress: Callable[[int, int], None] | None = None,
        folder: str | None = None) -> Summary:
    """Check ``count`` kernels (seeds ``seed .. seed + count - 1``) of ``parts`` programs each;
    ``options`` maps a target to its compile options."""
    runner = Runner(targets, folder, options)
    summary = Summary()
    started = time.perf_counter()
    for k in range(count):
        program = generate(seed + k, parts)
        found = runner.check(program)
        summary.kernels += 1
        summary.programs += parts
        if found:
            summary.findings.append(_finding(runner, program, found, do_shrink, parts))
        if k % 20 == 19:
            runner.forget()
        if progress is not None:
            progress(k + 1, len(summary.findings))
    runner.forget()
    summary.seconds = time.perf_counter() - started
    return summary


def _finding(runner: Runner, program: Program, found: list[Mismatch], do_shrink: bool, parts: int) -> Finding:
    if not do_shrink:
        return Finding(program.seed, found, program, found, 0, parts)
    shrunk, checks = shrink(program, _fails_like(runner, {m.category for m in found}))
    return Finding(program.seed, found, shrunk, runner.check(shrunk), checks, parts)
