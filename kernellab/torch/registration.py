"""The write check at registration: each ``kernel[grid](...)`` call in a kernellab op's source
whose arguments can be read there is lowered to Tile IR, and a written kernel parameter fed by
one of the op's tensor inputs not declared in ``mutates_args`` raises ``UndeclaredMutation``.

What the source alone leaves open is skipped here (the launch-time check covers it): a kernel
not found by name, a constexpr that is not a literal or a module constant, an argument whose
kind cannot be told.  Tensors whose dtype is unknown at registration are lowered as fp32; a
kernel that does not lower that way is left to the launch-time check too.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

import torch

from ..errors import KernelLabError
from .calls import analyse_writes
from .checks import undeclared

_INT_ATTRS = {"numel", "shape", "stride", "size", "dim", "ndim", "element_size", "nelement"}


def _resolve(fn: Any, name: str) -> Any:
    closure = inspect.getclosurevars(fn)
    for space in (closure.nonlocals, closure.globals, fn.__globals__):
        if name in space:
            return space[name]
    return None


def _root_name(node: ast.AST) -> str | None:
    """``x`` for ``x``, ``x.view(-1)``, ``x[0]``, ``x.t().contiguous()``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        else:
            return None


class _Locals:
    """What the op's body assigns to plain names: "tensor" (``torch.empty_like(x)``,
    ``x.new_empty(...)``, ``x.view(...)``) or "int" (``x.numel()``, ``x.shape[0]``)."""

    def __init__(self, tree: ast.AST, tensor_params: set[str]):
        self.kinds: dict[str, str] = {}
        self.tensor_params = tensor_params
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assign(target, node.value)

    def _assign(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Attribute) and value.attr == "shape":
            for element in target.elts:
                if isinstance(element, ast.Name):
                    self.kinds[element.id] = "int"
        elif isinstance(target, ast.Name):
            kind = self.kind_of(value)
            if kind is not None:
                self.kinds[target.id] = kind

    def kind_of(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return "tensor" if node.id in self.tensor_params else self.kinds.get(node.id)
        attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        if attrs & _INT_ATTRS:
            return "int"
        root = _root_name(node)
        if isinstance(node, ast.Call) and (root == "torch" or self.kind_of(ast.Name(root or "")) == "tensor"):
            return "tensor"
        return None


def _constant(fn: Any, node: ast.AST) -> tuple[bool, Any]:
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.Name):
        value = _resolve(fn, node.id)
        if isinstance(value, (int, float, str, bool)) or value is None:
            return True, value
    return False, None


def _launches(tree: ast.AST) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)
            and isinstance(node.func.value, ast.Name)]


def _call_kinds(fn: Any, kernel: Any, call: ast.Call, locals_: _Locals) -> tuple[tuple, tuple, dict] | None:
    """``(kinds, constexprs, tensor sources)`` of one launch, or ``None`` if the source leaves it open."""
    given = dict(zip(kernel.arg_names, call.args))
    given.update({k.arg: k.value for k in call.keywords if k.arg in kernel.arg_names})
    kinds, constexprs, sources = [], [], {}
    for param in kernel.params:
        node = given.get(param.name)
        if node is None:
            if not param.has_default:
                return None
            node = ast.Constant(param.default)
        if param.is_constexpr:
            known, value = _constant(fn, node)
            if not known:
                return None
            constexprs.append((param.name, value))
            continue
        kind = locals_.kind_of(node) if not isinstance(node, ast.Constant) else None
        if kind == "tensor":
            kinds.append(("tensor", param.name, torch.float32, "cpu"))
            sources[param.name] = _root_name(node)
        elif kind == "int" or (isinstance(node, ast.Constant) and type(node.value) is int):
            kinds.append(("int", param.name))
        elif isinstance(node, ast.Constant) and isinstance(node.value, float):
            kinds.append(("float", param.name))
        elif isinstance(node, ast.Constant) and node.value is None:
            kinds.append(("const", param.name, None))
        else:
            return None
    return tuple(kinds), tuple(constexprs), sources


def check_static_writes(op: Any) -> None:
    """Raise ``UndeclaredMutation`` for writes the op's source shows and ``mutates_args`` misses."""
    if op.mutates_args == "unknown":
        return
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(op.fn)))
    except (OSError, TypeError, SyntaxError):
        return
    signature = inspect.signature(op.fn)
    tensor_params = {name for name, p in signature.parameters.items() if "Tensor" in str(p.annotation)}
    protected = tensor_params - set(op.mutates_args)
    locals_ = _Locals(tree, tensor_params)
    for call in _launches(tree):
        kernel = _resolve(op.fn, call.func.value.id)
        if not getattr(kernel, "__kernellab_jit__", False):
            continue
        found = _call_kinds(op.fn, kernel, call, locals_)
        if found is None:
            continue
        kinds, constexprs, sources = found
        try:
            written = analyse_writes(kernel, kinds, constexprs, "cpu")
        except (KernelLabError, TypeError, ValueError):
            continue  # not lowerable with guessed dtypes: the launch-time check decides
        for param in kernel.arg_names:
            if param in written and sources.get(param) in protected:
                raise undeclared(op.name, sources[param], kernel.__name__, param, op.mutates_args)


__all__ = ["check_static_writes"]
