"""Fixtures of the notebook layer's tests: an IPython shell with ``%load_ext kernellab`` and a
namespace with vector-addition inputs.

(No ``__init__.py`` here: with ``tests/`` on ``sys.path`` a package called ``notebook`` would
shadow Jupyter's.)
"""

from __future__ import annotations

import numpy as np
import pytest
from IPython.testing.globalipapp import start_ipython

import kernellab as kl
import kernellab.language as tl


@pytest.fixture(scope="session")
def ipython():
    """The test IPython shell, with kernellab's extension loaded once."""
    shell = start_ipython()
    shell.run_line_magic("load_ext", "kernellab")
    return shell


@pytest.fixture
def shell(ipython, rng):
    """The shell with a namespace holding kl, tl, np and fresh vector-addition inputs."""
    ipython.user_ns.update(kl=kl, tl=tl, np=np)
    n = 1000 + int(rng.integers(1, 200))
    ipython.user_ns.update(n=n, x=rng.standard_normal(n).astype(np.float32),
                           y=rng.standard_normal(n).astype(np.float32), out=np.full(n, np.nan, np.float32))
    yield ipython
    for name in ("add", "x", "y", "out", "n", "_tile_kernel"):
        ipython.user_ns.pop(name, None)
