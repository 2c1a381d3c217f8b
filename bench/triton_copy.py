"""tests/kernels/tutorials.py compiled by the real Triton: a copy with its imports switched, so
that the bench scripts compare the same kernel text on both compilers.  Needs only Triton (no
torch, no GPU: ``triton.compile`` with a ``GPUTarget`` works on a CPU machine)."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
SWITCHED_IMPORTS = (("import kernellab as triton", "import triton"),
                    ("import kernellab.language as tl", "import triton.language as tl"))


def triton_tutorials() -> ModuleType:
    """The tutorial kernels as Triton's ``@triton.jit`` functions."""
    text = (ROOT / "tests" / "kernels" / "tutorials.py").read_text()
    for old, new in SWITCHED_IMPORTS:
        text = text.replace(old, new)
    path = Path(tempfile.mkdtemp(prefix="kl-bench-")) / "triton_tutorials.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("triton_tutorials", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
