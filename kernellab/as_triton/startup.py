"""The alias in the Python children of an aliased process.

``install()`` sets ``KERNELLAB_AS_TRITON=1`` in the environment, which children inherit; the wheel
puts ``kernellab_as_triton.pth`` into site-packages, whose one line (run by ``site`` at every
start of this environment's Python) imports this module only when that variable is set.  So the
processes an aliased program starts (torch inductor's compile workers, multiprocessing's spawned
workers, pytest-xdist's) compile with kernellab too, instead of importing the real Triton.
"""

from __future__ import annotations

import sys


def start() -> None:
    """Install the alias at this process's start when ``KERNELLAB_AS_TRITON`` says so; a failure
    is reported on stderr in one line and the process goes on without the alias."""
    from .. import config

    if not config.as_triton():
        return
    from . import install

    try:
        install()
    except Exception as error:  # noqa: BLE001 -- a startup hook must never stop the interpreter
        print(f"kernellab.as_triton: KERNELLAB_AS_TRITON is set but the alias could not be installed "
              f"({type(error).__name__}: {error}); import triton is not kernellab in this process", file=sys.stderr)
