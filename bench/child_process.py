"""A measurement in a new Python process: ``python -c CODE`` whose last ``RESULT {json}`` line
is the answer (the bench scripts that compare source trees run one per tree and round)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment with bytecode caching on, as a user's would be (the sandbox
    sets PYTHONDONTWRITEBYTECODE, which makes every import compile from source), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env


def run_result(code: str, cwd: Path, env: dict[str, str]) -> dict:
    """Run ``code`` in ``cwd``; its last ``RESULT`` line, parsed (a failure raises with its stderr)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{cwd}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])
