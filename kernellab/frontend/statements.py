"""Simple statements: assignments (plain, tuple unpacking, annotated, augmented), expression
statements, ``pass``, ``assert`` and ``return``."""

from __future__ import annotations

import ast
from typing import Any

from .. import language
from ..language.core import UnsupportedConstruct, constexpr, tensor
from ..language.semantics import SemanticError
from .base import LoweringBase
from .expressions import BINARY_NAMES
from .python_builtins import sequence_items
from .signature import is_constexpr_annotation
from .values import bound_value, describe, holds_tensor, unwrap


class StatementLowering(LoweringBase):
    # ---- assignment ----
    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.visit(node.value)
        for target in node.targets:
            self.assign_target(target, value)

    def assign_target(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.assign(target.id, bound_value(value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, value)
        elif isinstance(target, ast.Subscript):
            raise SemanticError("assigning to an element or slice (x[i] = ...) is not supported: kernel tensors are "
                                "immutable values; build a new tile with tl.where, or write memory with tl.store")
        elif isinstance(target, ast.Attribute):
            raise SemanticError(f"assigning to an attribute (`.{target.attr} = ...`) is not supported in kernels")
        else:
            raise UnsupportedConstruct(self.unsupported_message(target))

    def unpack(self, target: ast.Tuple | ast.List, value: Any) -> None:
        if any(isinstance(e, ast.Starred) for e in target.elts):
            raise SemanticError("starred assignment (a, *rest = ...) is not supported in kernels; index the tuple")
        if isinstance(value, tensor):
            raise SemanticError(f"cannot unpack a tensor ({value.type.ir}) into {len(target.elts)} names; "
                                "use tl.split or indexing")
        items = sequence_items(value)
        if len(items) != len(target.elts):
            raise SemanticError(f"cannot unpack {len(items)} values into {len(target.elts)} names")
        for element, item in zip(target.elts, items):
            self.assign_target(element, item)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            return
        value = self.visit(node.value)
        # `x: tl.constexpr = value` makes a constexpr of a compile-time value; a tensor stays the
        # tensor (Triton wraps it in a constexpr that every operation unwraps: FlagGems' radix sort
        # computes `CTA_TILE_N: tl.constexpr = TILE_N * tiles_n_per_cta` from a runtime argument)
        if self.is_constexpr_annotation_node(node.annotation) and not holds_tensor(value):
            value = constexpr(unwrap(value)) if not isinstance(value, (tuple, list)) else value
            if isinstance(node.target, ast.Name):  # stays a constexpr: a Python number in promotions
                self.assign(node.target.id, value)
                return
        self.assign_target(node.target, value)

    def is_constexpr_annotation_node(self, annotation: ast.expr) -> bool:
        if isinstance(annotation, ast.Constant):
            return is_constexpr_annotation(annotation.value)
        try:
            return is_constexpr_annotation(unwrap(self.visit(annotation)))
        except Exception:  # noqa: BLE001 - an annotation kernels cannot evaluate is just not tl.constexpr
            return False

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        if not isinstance(target, ast.Name):
            raise SemanticError(f"augmented assignment to `{ast.unparse(target)}` is not supported in kernels: "
                                "kernel tensors are immutable values; assign a new value to a variable instead")
        value = self.binary(BINARY_NAMES[type(node.op)], self.lookup(target.id), self.visit(node.value))
        self.assign(target.id, bound_value(value))

    # ---- other statements ----
    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):  # docstrings and stray literals
            return
        self.check_result_used(node.value)
        self.visit(node.value)

    def check_result_used(self, value: ast.expr) -> None:
        """A call of a function marked ``must_use_result`` may not stand alone as a statement."""
        func = value.func if isinstance(value, ast.Call) else None
        if not (isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return  # only plain names and module attributes: evaluating them twice builds nothing
        marked = getattr(unwrap(self.visit(func)), "_must_use_result", False)
        if marked:  # Triton's words, then the reason the decorator gave
            why = f" {marked}" if isinstance(marked, str) else ""
            raise SemanticError(f"The result of {ast.unparse(func)} is not being used.{why}")

    def visit_Pass(self, node: ast.Pass) -> None:
        return None

    def visit_Assert(self, node: ast.Assert) -> None:
        """``assert cond, msg`` -> ``tl.device_assert(cond, msg)`` (active with debug=True)."""
        device_assert = getattr(language, "device_assert", None)
        if device_assert is None:
            raise SemanticError("`assert` needs tl.device_assert, which this kernellab.language does not provide")
        cond = self.visit(node.test)
        message = self.visit(node.msg) if node.msg is not None else constexpr("")
        if holds_tensor(message):
            raise SemanticError("an assert message must be a compile-time string")
        device_assert(cond, constexpr(str(unwrap(message))))

    def visit_Return(self, node: ast.Return) -> None:
        if self.loop_depth:
            raise SemanticError("Cannot have `return` statements inside `while` or `for` statements in triton "
                                "(nor in kernellab): keep the result in a variable and return after the loop, or "
                                "guard the rest of the body with an `if`")
        value = constexpr(None) if node.value is None else self.visit(node.value)
        if self.is_kernel and unwrap(value) is not None:
            raise SemanticError(f"a kernel cannot return a value (this returns {describe(value)}); kernels write "
                                "their results to memory with tl.store")
        self.returned = value


__all__ = ["StatementLowering"]
