"""What a kernellab op checks: its tensor inputs (device, dtype, contiguity; errors name the
argument) and the writes of the kernels it launches (an input written without being declared in
``mutates_args`` is an error naming both the op's argument and the kernel's parameter)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from .calls import LAUNCH_DEVICE_TYPES


def _any_autocast() -> bool:
    """Autocast on for CUDA or the CPU (torch without ``torch._C._is_any_autocast_enabled``,
    which is older than ``is_autocast_enabled(device_type)`` too)."""
    return torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled()


# The per-call questions whose answers let a call skip torch's dispatcher: (name, function, the
# answer of a plain call).  ``torch.is_autocast_enabled()`` alone asks about CUDA only: under
# ``torch.autocast("cpu")`` it says False.
DISPATCH_QUESTIONS = (("dispatch_modes", torch._C._len_torch_dispatch_stack, 0),
                      ("function_modes", torch._C._len_torch_function_stack, 0),
                      ("functorch", torch._C._are_functorch_transforms_active, False),
                      ("autocast", getattr(torch._C, "_is_any_autocast_enabled", None) or _any_autocast, False))


class UndeclaredMutation(ValueError):
    """A kernel writes an op input that the op's ``mutates_args`` does not name."""


def undeclared(op_name: str, input_name: str, kernel_name: str, param: str, declared: Any) -> UndeclaredMutation:
    listed = "()" if not declared else repr(tuple(declared))
    return UndeclaredMutation(
        f"op `{op_name}`: kernel `{kernel_name}` writes its argument `{param}`, which is the op's input "
        f"`{input_name}`, but mutates_args={listed} does not name `{input_name}`; add it to mutates_args, "
        "or have the kernel write into a tensor the op allocates")


@dataclass(frozen=True)
class TensorRules:
    """``kernellab.torch.op``'s input rules."""

    device_types: tuple[str, ...] | None
    dtypes: tuple | dict[str, tuple] | None
    contiguous: bool | frozenset[str]

    @staticmethod
    def make(device_types: str | Sequence[str] | None, dtypes: Any, contiguous: bool | Sequence[str]) -> TensorRules:
        if isinstance(device_types, str):
            device_types = (device_types,)
        if isinstance(dtypes, torch.dtype):
            dtypes = (dtypes,)
        if isinstance(dtypes, dict):
            dtypes = {k: (v,) if isinstance(v, torch.dtype) else tuple(v) for k, v in dtypes.items()}
        elif dtypes is not None:
            dtypes = tuple(dtypes)
        if not isinstance(contiguous, bool):
            contiguous = frozenset(contiguous)
        return TensorRules(tuple(device_types) if device_types is not None else None, dtypes, contiguous)

    def allowed_dtypes(self, name: str) -> tuple | None:
        if isinstance(self.dtypes, dict):
            return self.dtypes.get(name)
        return self.dtypes

    def wants_contiguous(self, name: str) -> bool:
        return self.contiguous if isinstance(self.contiguous, bool) else name in self.contiguous


# a schema argument's type -> (is_list, optional) for the tensor ones
_TENSOR_TYPES = {"Tensor": (False, False), "Optional[Tensor]": (False, True), "List[Tensor]": (True, False),
                 "List[Optional[Tensor]]": (True, True)}


@dataclass(frozen=True)
class TensorInput:
    index: int
    name: str
    is_list: bool
    optional: bool
    mutable: bool
    device_types: tuple[str, ...] | None
    dtypes: tuple | None
    contiguous: bool


class OpInputs:
    """The tensor parameters of an op's schema, with their rules."""

    def __init__(self, op_name: str, tensors: list[TensorInput], names: list[str], positional: int):
        self.op_name = op_name
        self.tensors = tensors
        self.names = names
        self.positional = positional  # how many leading parameters can be passed by position
        self.mutable = tuple(t.name for t in tensors if t.mutable)
        # the rules as plain tuples, for the per-call pass (attribute reads cost)
        self._rules = tuple((t.index, t.name, t.is_list, t.contiguous,
                             t.dtypes is not None or t.device_types is not None) for t in tensors)

    @staticmethod
    def from_schema(schema: Any, rules: TensorRules, op_name: str) -> OpInputs:
        tensors, names = [], []
        positional = next((i for i, arg in enumerate(schema.arguments) if arg.kwarg_only), len(schema.arguments))
        for i, arg in enumerate(schema.arguments):
            names.append(arg.name)
            kind = _TENSOR_TYPES.get(str(arg.type))
            if kind is None:
                continue
            mutable = arg.alias_info is not None and arg.alias_info.is_write
            tensors.append(TensorInput(i, arg.name, *kind, mutable, rules.device_types,
                                       rules.allowed_dtypes(arg.name), rules.wants_contiguous(arg.name)))
        for name in (rules.dtypes or {}) if isinstance(rules.dtypes, dict) else ():
            if name not in {t.name for t in tensors}:
                raise ValueError(f"op `{op_name}`: dtypes names `{name}`, which is not a tensor parameter "
                                 f"(they are {', '.join(t.name for t in tensors) or 'none'})")
        return OpInputs(op_name, tensors, names, positional)

    def values(self, args: tuple, kwargs: dict) -> list[tuple[TensorInput, Any]]:
        found = []
        count = len(args)
        for spec in self.tensors:
            value = args[spec.index] if spec.index < count else kwargs.get(spec.name)
            if value is None:
                continue
            if spec.is_list:
                found.extend((spec, item) for item in value if item is not None)
            else:
                found.append((spec, value))
        return found

    def check_plain(self, args: tuple, kwargs: dict, grad: bool) -> bool:
        """:meth:`check`, and in the same pass whether every tensor is a plain ``torch.Tensor``
        that needs no gradient (``grad``: grad mode is on) on a device kernels launch on.  The
        eager op's general path."""
        plain, device, count, tensor_type = True, None, len(args), torch.Tensor
        for index, name, is_list, contiguous, other_rules in self._rules:
            value = args[index] if index < count else kwargs.get(name)
            if value is None or is_list or other_rules:
                if value is not None:
                    self.check(args, kwargs)  # the general pass (lists, dtype and device rules)
                    return plain and self._all_plain(args, kwargs, grad)
                continue
            if contiguous and not value.is_contiguous():
                self.check(args, kwargs)
            if type(value) is not tensor_type or (grad and value.requires_grad):
                plain = False
            where = value.device  # not get_device(): -1 for cpu, meta and others alike
            if where.type not in LAUNCH_DEVICE_TYPES:
                plain = False
            if device is None:
                device = where
            elif where != device:
                self._mixed_devices(args, kwargs)
        return plain

    def _all_plain(self, args: tuple, kwargs: dict, grad: bool) -> bool:
        return all(type(t) is torch.Tensor and not (grad and t.requires_grad) and t.device.type in LAUNCH_DEVICE_TYPES
                   for _, t in self.values(args, kwargs))

    def check(self, args: tuple, kwargs: dict) -> None:
        """Every rule, on every call."""
        device = None
        for spec, tensor in self.values(args, kwargs):
            if spec.contiguous and not tensor.is_contiguous():
                raise ValueError(f"op `{self.op_name}`: argument `{spec.name}` is not contiguous (shape "
                                 f"{tuple(tensor.shape)}, strides {tensor.stride()}); pass `{spec.name}.contiguous()`")
            if spec.dtypes is not None and tensor.dtype not in spec.dtypes:
                allowed = ", ".join(str(d) for d in spec.dtypes)
                raise TypeError(f"op `{self.op_name}`: argument `{spec.name}` has dtype {tensor.dtype}; "
                                f"allowed: {allowed}")
            if spec.device_types is not None and tensor.device.type not in spec.device_types:
                raise ValueError(f"op `{self.op_name}`: argument `{spec.name}` is a {tensor.device.type} tensor; "
                                 f"this op takes {' or '.join(spec.device_types)} tensors")
            if device is None:
                device = tensor.device
            elif tensor.device != device:
                self._mixed_devices(args, kwargs)

    def _mixed_devices(self, args: tuple, kwargs: dict) -> None:
        first: tuple[str, Any] | None = None
        for spec, tensor in self.values(args, kwargs):
            if first is None:
                first = (spec.name, tensor.device)
            elif tensor.device != first[1]:
                raise ValueError(f"op `{self.op_name}`: argument `{spec.name}` is on {tensor.device} but "
                                 f"`{first[0]}` is on {first[1]}; kernels take tensors of one device")

    def protected(self, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
        """``(name, tensor)`` of the inputs no kernel may write."""
        if self.mutable == ("unknown",):
            return []
        return [(spec.name, t) for spec, t in self.values(args, kwargs) if not spec.mutable]


@dataclass
class Watch:
    op_name: str
    declared: tuple
    protected: list[tuple[str, Any]]


WATCHES: list[Watch] = []  # innermost last: the op whose body is running with its writes checked


@contextmanager
def watching_writes(inputs: OpInputs, args: tuple, kwargs: dict) -> Iterator[None]:
    WATCHES.append(Watch(inputs.op_name, inputs.mutable, inputs.protected(args, kwargs)))
    try:
        yield
    finally:
        WATCHES.pop()


def _root(tensor: Any) -> Any:
    base = tensor._base
    return tensor if base is None else base


def verify_writes(kernel: Any, written: list[tuple[str, Any]]) -> None:
    """Raise if ``kernel`` writes (``(param, tensor)`` pairs) an input of the innermost op that
    the op did not declare mutated."""
    if not WATCHES:
        return
    watch = WATCHES[-1]
    for param, tensor in written:
        root = _root(tensor)
        for name, protected in watch.protected:
            if _root(protected) is root:
                raise undeclared(watch.op_name, name, kernel.__name__, param, watch.declared)


__all__ = ["DISPATCH_QUESTIONS", "TensorRules", "OpInputs", "UndeclaredMutation", "watching_writes", "verify_writes",
           "WATCHES"]
