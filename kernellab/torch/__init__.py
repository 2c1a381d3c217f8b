"""PyTorch integration (imports torch; kernellab itself never does).

``import kernellab.torch`` makes ``kernel[grid](...)`` traceable by ``torch.compile`` (zero graph
breaks) and ``torch.export``: while torch traces, a launch becomes one ``kernellab::launch`` op
whose mutated tensors are those the kernel's Tile IR writes (``launch.py``, ``calls.py``,
``writes.py``).  ``kernellab.torch.op`` turns a Python function that allocates outputs and
launches kernels into a torch custom op (``ops.py``), the counterpart of
``torch.library.triton_op``.
"""

from __future__ import annotations

from .launch import install as _install

_install()

from .calls import analyse_writes  # noqa: E402
from .ops import KernelOp, op  # noqa: E402


def written_arguments(kernel, *args, **kwargs) -> tuple[str, ...]:
    """Names of the pointer parameters ``kernel`` (a jit kernel, or one under autotune/heuristics:
    any config) writes when launched with these arguments (tensors, ints, floats, constexprs as
    in ``kernel[grid](...)``), read from its Tile IR."""
    from .launch import describe

    kinds, constexprs, device, variants = describe(kernel, args, kwargs)
    written = analyse_writes(kernel, kinds, constexprs, device, variants)
    return tuple(name for name in kernel.arg_names if name in written)


__all__ = ["op", "KernelOp", "written_arguments"]
