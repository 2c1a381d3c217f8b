"""A Markdown report of one run.sh run: the per-file table, the totals, and each case Triton
passes and kernellab does not, with kernellab's one-line outcome (the -rA summary's message, or
"not reached" for a case the run never ended).

    python3 bench/triton_unit/report.py OUTCOMES_FOLDER TARGET [--title TEXT] > report.md

OUTCOMES_FOLDER is run.sh's $TRITON_UNIT_OUT (it holds ``triton``, ``TARGET``, ``TARGET.log`` and
``table.txt``)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path


def passed(path: Path) -> set[str]:
    return {line.split(" ", 1)[1] for line in path.read_text().splitlines() if line.startswith("PASSED ")}


def reached(path: Path) -> set[str]:
    return {line.split(" ", 1)[1] for line in path.read_text().splitlines() if " " in line}


def messages(log: Path) -> dict[str, str]:
    """Case id -> the message of its FAILED/ERROR summary line."""
    found = {}
    for line in log.read_text(errors="replace").splitlines():
        match = re.match(r"^(FAILED|ERROR) (\S+)(?: - (.*))?$", line)
        if match:
            found.setdefault(match.group(2), (match.group(3) or "").strip())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("target")
    parser.add_argument("--title", default="Triton 3.6 unit tests through kernellab.as_triton")
    args = parser.parse_args()
    reference = passed(args.folder / "triton")
    ours = passed(args.folder / args.target)
    seen = reached(args.folder / args.target)
    why = messages(args.folder / f"{args.target}.log")
    missing = sorted(reference - ours)
    both = len(reference & ours)
    print(f"# {args.title}\n")
    print("```")
    print(f"triton (reference): {len(reference)} passed of {len(reached(args.folder / 'triton'))} cases")
    print(f"kernellab {args.target}: {len(ours)} passed; {both} of triton's {len(reference)} "
          f"({100 * both / max(len(reference), 1):.1f}%; {len(set(missing) - seen)} of the rest not reached)\n")
    print((args.folder / "table.txt").read_text().rstrip())
    print("```\n")
    print(f"## The {len(missing)} cases Triton passes and kernellab does not, with kernellab's outcome\n")
    for case in missing:
        outcome = why.get(case) if case in seen else "not reached (no outcome: timed out or its worker crashed)"
        print(f"- `{case}`: {outcome or ''}".rstrip())


if __name__ == "__main__":
    main()
