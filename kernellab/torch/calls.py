"""A kernel launch as torch sees it: one registered call shape (``CallSpec``) per kernel, argument
kinds, constexprs and launch options; which of its tensors the kernel writes (from its Tile IR).

A call's name (``"add_kernel#3f2a..."``) is a digest of the kernel's identity and source and of
the call shape, so the same launch gets the same name in every process (a graph that names it
means the same thing wherever it runs); the table below maps names to specs in this process.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..errors import KernelArgumentError
from ..runtime.binder import LAUNCH_KEYWORDS
from .writes import written_arguments

# Launch options a traced launch passes on (``stream`` is torch's current stream, ``warmup`` means
# no launch: neither can be part of a graph).
TRACED_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "ir_override")
REFUSED_OPTIONS = tuple(k for k in LAUNCH_KEYWORDS if k not in TRACED_OPTIONS)


@dataclass(frozen=True)
class CallSpec:
    """One call shape of a kernel: per runtime parameter its kind, in parameter order.

    ``kinds``: ``("tensor", name, written)``, ``("int", name)``, ``("bool", name)``,
    ``("float", name)``, ``("const", name, value)``.
    """

    name: str
    kernel: Any  # a JITFunction, or an Autotuner/Heuristics around one
    kinds: tuple
    constexprs: tuple  # ((name, value), ...)
    options: tuple  # ((option, value), ...)
    variants: tuple = ((),)  # per autotune config: ((meta-parameter, value), ...) (wrappers.py)

    @property
    def written(self) -> tuple[str, ...]:
        return tuple(k[1] for k in self.kinds if k[0] == "tensor" and k[2])

    def arguments(self, written: list, read: list, ints: list, floats: list) -> dict[str, Any]:
        """The kernel's arguments by name, from the launch op's lists."""
        sources = {"w": iter(written), "r": iter(read), "int": iter(ints), "float": iter(floats)}
        args: dict[str, Any] = {}
        for kind in self.kinds:
            tag = kind[0]
            if tag == "tensor":
                args[kind[1]] = next(sources["w" if kind[2] else "r"])
            elif tag == "const":
                args[kind[1]] = kind[2]
            elif tag == "bool":
                args[kind[1]] = bool(next(sources["int"]))
            else:
                args[kind[1]] = next(sources[tag])
        args.update(self.constexprs)
        return args

    def launch(self, grid: list, args: dict[str, Any]) -> None:
        """Launch with the launch op's grid list (three numbers per variant)."""
        grids = [tuple(grid[i:i + 3]) for i in range(0, len(grid), 3)]
        if getattr(self.kernel, "__kernellab_jit__", False):
            self.kernel.launch_head()(grids[0], **args, **dict(self.options))
            return
        positional, named = _split_positional(self.kernel, args)
        self.kernel.run(*positional, grid=lambda meta: grids[self._variant_of(meta)], warmup=False, **named,
                        **dict(self.options))

    def _variant_of(self, meta: dict[str, Any]) -> int:
        for index, variant in enumerate(self.variants):
            if all(k in meta and meta[k] == v for k, v in variant):
                return index
        raise RuntimeError(f"`{self.kernel.__name__}`: the autotuner chose meta-parameters "
                           f"{ {k: meta[k] for k, _ in self.variants[0] if k in meta} } that no config traced had")


def _split_positional(kernel: Any, args: dict[str, Any]) -> tuple[list, dict]:
    """The arguments in parameter order up to the first one a wrapper supplies (autotuners read
    tuning keys by position), the rest by name."""
    from .wrappers import base_jit

    positional, named = [], dict(args)
    for name in base_jit(kernel).arg_names:
        if name not in named:
            break
        positional.append(named.pop(name))
    return positional, named


GPU_DEVICE_TYPES = frozenset({"cuda"})  # torch device types whose tensors launch on the CUDA target
# torch device types whose tensors kernels launch on; an op given others (meta...) goes through torch's
# dispatcher, to its fake kernel, never to a launch
LAUNCH_DEVICE_TYPES = GPU_DEVICE_TYPES | {"cpu"}


def device_of(device_types: set[str]) -> str:
    """The device type a launch's tensors put it on: the GPU's if any tensor is there (torch's
    device types "cuda" and "cpu" are also the names of the targets they launch on)."""
    gpu = sorted(set(device_types) & GPU_DEVICE_TYPES)
    return gpu[0] if gpu else "cpu"


CALLS: dict[str, CallSpec] = {}
_ANALYSED: dict[tuple, CallSpec] = {}


def _digest(kernel: Any, kinds: tuple, constexprs: tuple, options: tuple) -> str:
    from .wrappers import base_jit

    jit = base_jit(kernel)
    identity = repr((type(kernel).__name__, jit.__module__, jit.__qualname__, jit.src, kinds, constexprs, options))
    return f"{jit.__name__}#{hashlib.sha256(identity.encode()).hexdigest()[:16]}"


def _analysis_signature(kinds: tuple) -> tuple[dict[str, Any], dict[str, Any]]:
    from ..ir import types as T
    from ..runtime.interop import dtype_of_torch

    scalar = {"int": T.i32, "bool": T.i1, "float": T.f32}
    signature: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    for kind in kinds:
        if kind[0] == "tensor":
            signature[kind[1]] = T.pointer(dtype_of_torch(kind[2]))
        elif kind[0] == "const":
            constants[kind[1]] = kind[2]
        else:
            signature[kind[1]] = scalar[kind[0]]
    return signature, constants


def analyse_writes(kernel: Any, kinds: tuple, constexprs: tuple, device_type: str,
                   variants: tuple = ((),)) -> frozenset[str]:
    """Names of the pointer parameters ``kernel`` (or the kernel under its autotune/heuristics
    wrappers) writes for this call shape, in any variant (kinds carry tensors as ``("tensor",
    name, dtype, device type)``)."""
    from .wrappers import base_jit

    jit = base_jit(kernel)
    written: frozenset[str] = frozenset()
    for variant in variants:
        written |= _writes(jit, kinds, (*constexprs, *variant), device_type)
    return written


def _writes(kernel: Any, kinds: tuple, constexprs: tuple, device_type: str) -> frozenset[str]:
    from ..frontend import lower
    from ..language.semantics import SemanticOptions

    signature, constants = _analysis_signature(kinds)
    constants.update(dict(constexprs))
    module = lower(kernel, signature, constants, None, SemanticOptions(target=device_of({device_type})))
    runtime = [k[1] for k in kinds if k[0] != "const"]
    return frozenset(runtime[i] for i in written_arguments(module))


def register_call(kernel: Any, kinds: tuple, constexprs: tuple, options: tuple,
                  variants: tuple = ((),)) -> tuple[str, tuple[bool, ...]]:
    """The call's name and, per tensor argument in order, whether the kernel writes it.
    ``kinds`` carry tensors as ``("tensor", name, dtype, device_type)``."""
    key = (kernel, kinds, constexprs, options, variants)
    spec = _ANALYSED.get(key)
    if spec is None:
        devices = {k[3] for k in kinds if k[0] == "tensor"}
        written = analyse_writes(kernel, kinds, constexprs, device_of(devices), variants)
        final = tuple(("tensor", k[1], k[1] in written) if k[0] == "tensor" else k for k in kinds)
        spec = CallSpec(_digest(kernel, kinds, constexprs, (options, variants)), kernel, final, constexprs, options,
                        variants)
        CALLS[spec.name] = spec
        _ANALYSED[key] = spec
    return spec.name, tuple(k[2] for k in spec.kinds if k[0] == "tensor")


def lookup(name: str) -> CallSpec:
    try:
        return CALLS[name]
    except KeyError:
        raise RuntimeError(f"kernellab launch {name!r} is not known in this process: the graph that calls it was "
                           "traced elsewhere; trace it again here (torch.compile / torch.export in this process)") \
            from None


def check_options(kernel: Any, options: dict[str, Any]) -> None:
    for option in REFUSED_OPTIONS:
        value = options.get(option)
        if value is not None and value is not False:
            raise KernelArgumentError(
                f"`{kernel.__name__}[grid](..., {option}=...)` cannot be traced by torch.compile/torch.export: "
                + ("launches go on torch's current stream; use `with torch.cuda.stream(s):`" if option == "stream"
                   else "warmup compiles without launching; call kernel.warmup(...) outside the compiled function"))


def missing_argument(kernel: Any, name: str) -> KernelArgumentError:
    params = ", ".join(kernel.arg_names)
    return KernelArgumentError(f"`{kernel.__name__}` takes arguments ({params}); missing `{name}`")


__all__ = ["CallSpec", "CALLS", "register_call", "analyse_writes", "lookup", "check_options", "TRACED_OPTIONS"]
