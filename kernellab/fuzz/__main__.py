"""``python -m kernellab.fuzz``: long fuzzing runs.

    python -m kernellab.fuzz --n 10000 [--seed S] [--targets interpret,cpu,cuda] [--parts 4]
    python -m kernellab.fuzz --n 100 --targets interpret,cpu,compile:cuda:sm_90a   # no GPU: PTX only
    python -m kernellab.fuzz --malformed --n 500 [--seed S] [--targets interpret,cpu]

The differential run checks ``--n`` kernels of ``--parts`` independent programs each, on every
target against the generator's numpy reference, shrinks each failing kernel and prints it with
its seed.  ``--malformed`` runs mutated kernels and bad launches in child processes (batches
with a timeout, so a crash or a hang is reported instead of ending the run) and prints every
case that did not end in a user-facing error naming the kernel's file and line.  The exit status
is 1 when anything was found.
"""

from __future__ import annotations

import argparse
import sys

from ..runtime.targets import available_targets


def _progress(total: int, what: str):
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency; a plain counter otherwise
        def show(done: int, found: int) -> None:
            print(f"\r{done}/{total} {what}, {found} found", end="" if done < total else "\n", file=sys.stderr)
        return show, lambda: None
    bar = tqdm(total=total, unit=what, file=sys.stderr)

    def update(done: int, found: int) -> None:
        bar.n = done
        bar.set_postfix(found=found, refresh=False)
        bar.refresh()
    return update, bar.close


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernellab.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100, help="kernels (differential) or cases (--malformed)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--targets", default=None,
                        help="comma-separated targets (default: every target this machine has); "
                             "compile:cuda:sm_90a only compiles (PTX assembled by ptxas), for machines without a GPU")
    parser.add_argument("--parts", type=int, default=4, help="independent programs per kernel")
    parser.add_argument("--no-shrink", action="store_true", help="report failing kernels as generated")
    parser.add_argument("--opt-level", type=int, default=None, help="the CPU target's LLVM optimization level")
    parser.add_argument("--malformed", action="store_true", help="malformed kernels and launches instead")
    parser.add_argument("--batch", type=int, default=25, help="--malformed: cases per child process")
    parser.add_argument("--timeout", type=float, default=120.0, help="--malformed: seconds per batch")
    args = parser.parse_args(argv)
    targets = args.targets.split(",") if args.targets else available_targets()
    if args.malformed:
        return _malformed(args, targets)
    return _differential(args, targets)


def _differential(args: argparse.Namespace, targets: list[str]) -> int:
    from . import differential

    show, close = _progress(args.n, "kernels")
    options = {"cpu": {"opt_level": args.opt_level}} if args.opt_level is not None else None
    summary = differential.run(args.n, args.seed, targets, args.parts, not args.no_shrink, options, show)
    close()
    for finding in summary.findings:
        print(finding.describe())
        print()
    print(f"{summary.programs} programs in {summary.kernels} kernels (seeds {args.seed}..{args.seed + args.n - 1}) "
          f"on {', '.join(targets)} in {summary.seconds:.0f} s: {len(summary.findings)} kernel(s) with mismatches")
    return 1 if summary.findings else 0


def _malformed(args: argparse.Namespace, targets: list[str]) -> int:
    from . import malformed

    show, close = _progress(args.n, "cases")
    summary = malformed.run(args.n, args.seed, targets, batch=args.batch, timeout=args.timeout, progress=show)
    close()
    for problem in summary.problems:
        print(problem)
        print()
    print(f"{summary.cases} malformed cases on {', '.join(targets)} in {summary.seconds:.0f} s: "
          f"{summary.ended_well} ran or raised a user-facing error, {len(summary.problems)} problems")
    return 1 if summary.problems else 0


if __name__ == "__main__":
    sys.exit(main())
