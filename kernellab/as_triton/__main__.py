"""``python -m kernellab.as_triton script.py [args]`` or ``python -m kernellab.as_triton -m
module [args]``: run a script or module with ``import triton`` giving kernellab."""

from __future__ import annotations

import os
import runpy
import sys

from . import install

USAGE = "usage: python -m kernellab.as_triton script.py [args...]  |  python -m kernellab.as_triton -m module [args...]"


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if not argv or argv == ["-m"]:
        print(USAGE, file=sys.stderr)
        return 2
    install()
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))  # as `python script.py` does
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
