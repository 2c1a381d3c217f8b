"""The eager call of a ``kernellab.torch.op`` with plain tensors, as one generated function per op.

A plain eager call (no torch mode, transform, autocast or profiler; every tensor a plain
``torch.Tensor`` needing no gradient, on a device kernels launch on) skips torch's dispatcher
and calls the op's function directly, which is what the dispatcher would end up doing.
Deciding that costs a few tensor attribute reads per argument; written as a loop over the op's
rules it cost more than the reads themselves (bench/NOTES.md, "kernellab.torch host cost, CPU
side").  So for an op whose tensor parameters are all
plain ``Tensor`` (no lists, no optionals) the decision is generated as straight-line code over
its positional arguments: one ``if`` per rule, each failing over to the general path
(``KernelOp.general_call``), which checks again and raises the error naming the argument, or
goes through the dispatcher.  The general path also takes keyword arguments, a different
argument count, the op's first call (its writes are checked then) and calls while torch traces.

Like the launch binder (``runtime/binder.py``), the function is generated once, from the op's
schema and rules, when the op is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.autograd.profiler as _profiler

from .calls import LAUNCH_DEVICE_TYPES
from .checks import DISPATCH_QUESTIONS, OpInputs, TensorInput

# the per-call questions (C functions but for the profiler flag, read from its module each call)
_NAMESPACE = {
    "Tensor": torch.Tensor,
    "is_compiling": torch.compiler.is_compiling,
    **{name: function for name, function, _ in DISPATCH_QUESTIONS},
    "profiler": _profiler,
    "grad": torch.is_grad_enabled,
}


def plain_signature(inputs: OpInputs) -> bool:
    """Whether the fast path can be generated: every tensor parameter a plain ``Tensor``."""
    return all(not (t.is_list or t.optional) for t in inputs.tensors)


def _any(terms: list[str]) -> str:
    return " or ".join(terms)


def _tensor_rules(tensors: list[TensorInput], name_of: Callable[[TensorInput], str]) -> list[str]:
    """One condition per rule, true where the general path must decide (or raise)."""
    found = [_any(f"type({name_of(t)}) is not Tensor" for t in tensors),
             f"grad() and ({_any(f'{name_of(t)}.requires_grad' for t in tensors)})"]
    contiguous = [t for t in tensors if t.contiguous]
    if contiguous:
        found.append(_any(f"not {name_of(t)}.is_contiguous()" for t in contiguous))
    found += [f"{name_of(t)}.dtype not in dtypes_{t.index}" for t in tensors if t.dtypes is not None]
    found += [f"{name_of(t)}.device.type not in device_types_{t.index}" for t in tensors if t.device_types is not None]
    # devices: one kernels launch on (meta tensors go to the op's fake kernel, through torch), the
    # same for all (compared whole: get_device() is -1 for cpu and meta tensors alike).  The
    # ``is_cpu``/``is_cuda`` flags, not ``device.type``, which builds a string (~0.3 us)
    first = name_of(tensors[0])
    launchable = " or ".join(f"{first}.is_{kind}" for kind in sorted(LAUNCH_DEVICE_TYPES))
    found.append(_any([f"not ({launchable})"] + [f"{name_of(t)}.device != {first}.device" for t in tensors[1:]]))
    return found


def source(inputs: OpInputs) -> str:
    """The text of ``__call__(self, *args, **kwargs)`` for this op."""
    count = inputs.positional
    params = [f"a{i}" for i in range(count)]

    def name_of(t: TensorInput) -> str:
        return params[t.index]

    lines = [
        "def __call__(self, *args, **kwargs):",
        "    if is_compiling():  # first, and nothing of self read: Dynamo guards on what it reads",
        "        return default(*args, **kwargs)",
        f"    if (kwargs or len(args) != {count} or not self.checked_eagerly or dispatch_modes() or function_modes()",
        "            or functorch() or autocast() or profiler._is_profiler_enabled):",
        "        return self.general_call(args, kwargs)",
    ]
    if params:
        lines.append(f"    {', '.join(params)}{',' if count == 1 else ''} = args")
    for condition in _tensor_rules(inputs.tensors, name_of) if inputs.tensors else []:
        lines += [f"    if {condition}:", "        return self.general_call(args, kwargs)"]
    lines.append(f"    return fn({', '.join(params)})")
    return "\n".join(lines) + "\n"


def make(inputs: OpInputs, fn: Callable, default: Any) -> Callable | None:
    """The generated ``__call__`` of the op whose function is ``fn`` and whose OpOverload is
    ``default`` (``None`` where the op's parameters need the general path: list or optional
    tensors, or tensor parameters that can only be passed by keyword)."""
    if not plain_signature(inputs) or any(t.index >= inputs.positional for t in inputs.tensors):
        return None
    namespace: dict[str, Any] = dict(_NAMESPACE, fn=fn, default=default)
    for t in inputs.tensors:
        namespace[f"dtypes_{t.index}"] = t.dtypes
        namespace[f"device_types_{t.index}"] = t.device_types
    text = source(inputs)
    exec(compile(text, f"<kernellab op {inputs.op_name}>", "exec"), namespace)  # noqa: S102 (our own text)
    call = namespace["__call__"]
    call.__kernellab_source__ = text
    return call


__all__ = ["make", "source", "plain_signature"]
