"""``CompiledKernel.run``: Triton's launcher call, made once per kernel as a Python function.

Triton's compiled kernels are launched by callers of ``triton.compile`` (torch inductor's
generated wrappers, for one) as::

    kernel.run(grid_0, grid_1, grid_2, stream, function, kernel_metadata, launch_metadata,
               launch_enter_hook, launch_exit_hook, *args)     # args: every parameter, in order

The function made here takes exactly that.  Its common case is written out for the kernel: the
runtime arguments picked from ``args`` by position, a torch tensor on the kernel's side of the
device boundary read as ``data_ptr()``, an address (an int) for a pointer, an int that fits
its type and a float passed as they are.  Anything else (a numpy array, another array type, a
tensor on the wrong device, a number out of range, another argument count) takes the general
conversion of ``CompiledKernel.launch``, which accepts it or explains why not.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .. import backends
from ..frontend.arguments import split_leaf_name
from ..ir import types as T
from .compiled import grid3

SIGNATURE = ("grid_0", "grid_1", "grid_2", "stream", "function", "kernel_metadata", "launch_metadata",
             "enter_hook", "exit_hook")


def make_runner(kernel: Any) -> Callable[..., None]:
    """The ``run`` function of ``kernel`` (a loaded ``CompiledKernel``)."""
    launcher = kernel.launcher
    everything, runtime = list(kernel.metadata["arg_names"]), kernel.runtime_args
    general = _general(kernel, launcher)
    if kernel._wants_buffers or any(split_leaf_name(leaf)[1] for leaf in runtime):
        return general  # buffers wanted, or tuple parameters' elements
    signature = kernel.metadata["signature"]
    on_device = backends.capabilities(kernel.target).gpu  # its tensors live in device memory
    tensor = getattr(sys.modules.get("torch"), "Tensor", None)
    values = [_value_code(index, everything.index(leaf), signature[leaf], tensor, on_device)
              for index, leaf in enumerate(runtime)]
    params = [f"a{k}" for k in range(len(everything))]
    lines = [
        f"def run({', '.join(SIGNATURE)}, *args):",
        f"    if len(args) != {len(params)}:",
        f"        return general({', '.join(SIGNATURE)}, *args)",
        f"    {', '.join(params)}{',' if len(params) == 1 else ''} = args" if params else "    pass",
        "    if enter_hook is not None:",
        "        enter_hook(launch_metadata)",
        "    grid = grid3((grid_0, grid_1, grid_2))",
        "    if grid is not None:",
        f"        launcher(grid, ({''.join(v + ', ' for v in values)}), stream)",
        "    if exit_hook is not None:",
        "        exit_hook(launch_metadata)",
    ]
    names = {"launcher": launcher, "grid3": grid3, "Tensor": tensor, "general": general,
             "value": _converter(kernel, runtime, signature)}
    exec(compile("\n".join(lines), f"<kernellab run of {kernel.name}>", "exec"), names)  # noqa: S102 (our text)
    return names["run"]


def _value_code(index: int, position: int, signature: str, tensor: Any, on_device: bool) -> str:
    """The expression of runtime argument ``index`` (parameter ``position``): its fast case, else
    ``value(index, argument)``."""
    arg, general = f"a{position}", f"value({index}, a{position})"
    if signature.startswith("*"):  # a tensor on the kernel's side, or an address (as Triton's launcher takes)
        address = f"{arg} if type({arg}) is int and {arg} >= 0 else {general}"
        if tensor is None:
            return f"({address})"
        return f"({arg}.data_ptr() if type({arg}) is Tensor and {arg}.is_cuda is {on_device} else {address})"
    ty = T.from_signature(signature)
    if ty.is_floating():
        return f"({arg} if type({arg}) is float else {general})"
    if ty.is_bool() or not ty.is_int():
        return general
    low, high = ty.get_int_min_value(), ty.get_int_max_value()
    return f"({arg} if type({arg}) is int and {low} <= {arg} <= {high} else {general})"


def _converter(kernel: Any, runtime: list[str], signature: dict[str, str]) -> Callable[[int, Any], Any]:
    def value(index: int, argument: Any) -> Any:
        name = runtime[index]
        return kernel._launch_value(name, signature[name], argument)

    return value


def _general(kernel: Any, launcher: Any) -> Callable[..., None]:
    """``run`` for every case: ``CompiledKernel.launch``'s conversion of each argument."""

    def run(grid_0: int, grid_1: int, grid_2: int, stream: Any, function: Any, kernel_metadata: Any,
            launch_metadata: Any, enter_hook: Callable | None, exit_hook: Callable | None, *args: Any) -> None:
        if enter_hook is not None:
            enter_hook(launch_metadata)
        grid = grid3((grid_0, grid_1, grid_2))
        if grid is not None:
            launcher(grid, kernel._launch_values(kernel._runtime_arguments(args)), stream)
        if exit_hook is not None:
            exit_hook(launch_metadata)

    return run


__all__ = ["make_runner"]
