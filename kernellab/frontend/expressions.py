"""Expressions: constants, names, operators, attributes, subscripts, tuples, f-strings and
conditional expressions.

Operators dispatch through the tables in ``kernellab.language.core`` (one table for the
frontend and the ``tensor`` class): with a tensor operand they call the active semantics; with
compile-time operands they fold in Python (through ``constexpr``'s operators).
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from ..language.compat import type_of
from ..language.core import BINARY_OPERATORS, COMPARISON_OPERATORS, UNARY_OPERATORS, constexpr, named_number, tensor
from ..language.semantics import SemanticError
from .aggregates import is_aggregate_holder, member
from .base import LoweringBase
from .python_builtins import sequence_items
from .values import holds_tensor, truth, unwrap, wrap

BINARY_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
                ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift", ast.BitOr: "or",
                ast.BitXor: "xor", ast.BitAnd: "and", ast.MatMult: "matmul"}
COMPARISON_NAMES = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
UNARY_NAMES = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}
SANITIZED = ("add", "sub", "mul")  # checked for signed overflow with debug on (Triton's sanitize_overflow)

# Python's operator for each operator name (compile-time folding).
PYTHON_OPERATORS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "lshift": operator.lshift,
    "rshift": operator.rshift, "or": operator.or_, "xor": operator.xor, "and": operator.and_,
    "matmul": operator.matmul, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge, "neg": operator.neg, "pos": operator.pos, "invert": operator.invert,
}


def fold(name: str, *operands: Any) -> Any:
    """Apply a Python operator to compile-time values.  Tuples combine as Python tuples;
    everything else goes through ``constexpr``'s operators (Python's semantics, as Triton's
    constexprs; a named number's as the 0-d tensor it stands for: C division for ``//``, ``%``)."""
    py_op = PYTHON_OPERATORS[name]
    if any(isinstance(v, (tuple, list)) for v in operands):
        return wrap(py_op(*(v if isinstance(v, (tuple, list)) else unwrap(v) for v in operands)))
    return wrap(py_op(*(v if isinstance(v, constexpr) else constexpr(v) for v in operands)))


class ExpressionLowering(LoweringBase):
    # ---- leaves ----
    def visit_Constant(self, node: ast.Constant) -> Any:
        return constexpr(node.value)

    def visit_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id)

    def visit_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.elements(node.elts))

    def visit_List(self, node: ast.List) -> list:
        return self.elements(node.elts)

    def elements(self, nodes: list[ast.expr]) -> list:
        """Evaluate a list of expressions, expanding ``*tuple``."""
        values: list = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                values.extend(sequence_items(self.visit(node.value)))
            else:
                values.append(self.visit(node))
        return values

    # ---- operators ----
    def visit_BinOp(self, node: ast.BinOp) -> Any:
        return self.binary(BINARY_NAMES[type(node.op)], self.visit(node.left), self.visit(node.right))

    def binary(self, name: str, lhs: Any, rhs: Any) -> Any:
        if isinstance(lhs, tensor) or isinstance(rhs, tensor):
            if name in SANITIZED:
                return getattr(self.sem, BINARY_OPERATORS[name])(lhs, rhs, sanitize=True)
            return getattr(self.sem, BINARY_OPERATORS[name])(lhs, rhs)
        return fold(name, lhs, rhs)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            if isinstance(operand, tensor):
                return self.sem.logical_not(operand)
            if isinstance(unwrap(operand), (tuple, list)):  # an error in Triton too
                raise SemanticError("`not` of a tuple is not supported in kernels; test its elements, or its length "
                                    "(len(t) == 0)")
            return constexpr(not truth(operand))
        name = UNARY_NAMES[type(node.op)]
        if isinstance(operand, tensor):
            return getattr(self.sem, UNARY_OPERATORS[name])(operand)
        return fold(name, operand)

    def visit_Compare(self, node: ast.Compare) -> Any:
        """``a < b < c`` is ``a < b and b < c`` with ``b`` evaluated once; compile-time
        comparisons short-circuit as in Python."""
        left = self.visit(node.left)
        result: Any = constexpr(True)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.visit(right_node)
            outcome = self.compare(op, left, right)
            result = self.logical(True, result, outcome) if isinstance(result, tensor) else outcome
            if not isinstance(result, tensor) and not truth(result):
                return result
            left = right
        return result

    def compare(self, op: ast.cmpop, lhs: Any, rhs: Any) -> Any:
        if isinstance(op, (ast.Is, ast.IsNot)):
            same = unwrap(lhs) is unwrap(rhs)
            return constexpr(same if isinstance(op, ast.Is) else not same)
        if isinstance(op, (ast.In, ast.NotIn)):
            if holds_tensor(lhs) or holds_tensor(rhs):
                raise SemanticError("`in` works on compile-time values only, not on kernel tensors")
            found = unwrap(lhs) in unwrap(rhs)
            return constexpr(found if isinstance(op, ast.In) else not found)
        name = COMPARISON_NAMES[type(op)]
        if isinstance(lhs, tensor) or isinstance(rhs, tensor):
            return getattr(self.sem, COMPARISON_OPERATORS[name])(lhs, rhs)
        return fold(name, lhs, rhs)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        """``and``/``or`` as Triton's: the values are visited in order; a compile-time value that
        decides the result (falsy in ``and``, truthy in ``or``) is the result, even after tensors
        (``tensor_cond and FLAG`` with FLAG False is a static False); the other compile-time values
        drop out and the tensors are combined elementwise (the last value when none is a tensor)."""
        is_and = isinstance(node.op, ast.And)
        tensors = []
        value = None
        for value_node in node.values:
            value = self.visit(value_node)
            if isinstance(value, tensor):
                tensors.append(value)
            elif truth(value) != is_and:
                return value
        if not tensors:
            return value
        result = tensors[0]
        for right in tensors[1:]:
            result = self.logical(is_and, result, right)
        return result

    def logical(self, is_and: bool, lhs: Any, rhs: Any) -> Any:
        if isinstance(lhs, tensor) or isinstance(rhs, tensor):
            return self.sem.logical_and(lhs, rhs) if is_and else self.sem.logical_or(lhs, rhs)
        return constexpr(truth(lhs) and truth(rhs)) if is_and else constexpr(truth(lhs) or truth(rhs))

    # ---- attributes and subscripts ----
    def visit_Attribute(self, node: ast.Attribute) -> Any:
        base = self.visit(node.value)
        if node.attr == "value" and isinstance(base, constexpr):  # Triton's constexpr.value: what it holds
            return wrap(unwrap(base))
        if isinstance(base, named_number):  # Triton's 0-d tensor: `one = 1; one.dtype` is int32
            base = self.sem.to_tensor(base)
        holder = base if isinstance(base, tensor) else unwrap(base) if isinstance(base, constexpr) else base
        if is_aggregate_holder(holder):
            return wrap(member(holder, node.attr))
        if node.attr == "type" and not isinstance(holder, tensor) and not hasattr(holder, "type"):
            return type_of(base)  # Triton's constexpr_type / tuple_type
        try:
            return wrap(getattr(holder, node.attr))
        except AttributeError:
            if not isinstance(holder, tensor):
                raise
        public = sorted(n for n in dir(type(holder)) if not n.startswith("_"))
        raise SemanticError(f"`{ast.unparse(node.value)}` is a tensor ({holder}), which has no attribute "
                            f"`{node.attr}`; a tensor has: {', '.join(public)}")

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        base = self.visit(node.value)
        if is_aggregate_holder(base):  # its __getitem__, given the index as a kernel value (as Triton's)
            return self.call(member(base, "__getitem__"), [self.visit(node.slice)], {})
        index = self.index(node.slice)
        if isinstance(base, tensor):
            return self.sem.subscript(base, index)
        if isinstance(index, tensor) or holds_tensor(index):
            raise SemanticError("tuples and compile-time values can only be indexed with compile-time integers "
                                "or slices, not with a kernel tensor")
        if isinstance(base, (tuple, list)):
            return self.tuple_item(node, base, index)
        value = unwrap(base)
        if not hasattr(type(value), "__getitem__"):
            raise SemanticError(f"`{ast.unparse(node.value)}` is a {type(value).__name__} ({value!r}), which cannot be "
                                "indexed; kernels index tensors (with None and ':'), tuples and compile-time sequences")
        return wrap(value[index])

    @staticmethod
    def tuple_item(node: ast.Subscript, base: tuple | list, index: Any) -> Any:
        if isinstance(index, slice):
            return base[index]
        if isinstance(index, bool) or not isinstance(index, int):
            raise SemanticError(f"`{ast.unparse(node.value)}` is a tuple: its index must be a compile-time integer "
                                f"or slice, not {index!r}")
        if not -len(base) <= index < len(base):
            raise SemanticError(f"index {index} is out of range: `{ast.unparse(node.value)}` has {len(base)} "
                                f"element{'' if len(base) == 1 else 's'}")
        return base[index]

    def index(self, node: ast.expr) -> Any:
        """A subscript's index as Python sees it: ints, ``None``, slices, tuples of them (and
        tensors, for the semantics to judge)."""
        if isinstance(node, ast.Tuple):
            return tuple(self.index(e) for e in node.elts)
        value = self.visit(node)
        return value if isinstance(value, (tensor, slice)) else unwrap(value)

    def visit_Slice(self, node: ast.Slice) -> slice:
        parts = [None if part is None else self.visit(part) for part in (node.lower, node.upper, node.step)]
        return slice(*(p if isinstance(p, tensor) else unwrap(p) for p in parts))

    # ---- f-strings ----
    def visit_JoinedStr(self, node: ast.JoinedStr) -> constexpr:
        return constexpr("".join(str(unwrap(self.visit(part))) for part in node.values))

    def visit_FormattedValue(self, node: ast.FormattedValue) -> constexpr:
        value = self.visit(node.value)
        if holds_tensor(value):
            raise SemanticError("f-strings in kernels can only format compile-time values; use tl.device_print "
                                "to print tensors")
        raw = unwrap(value)
        converted = {-1: raw, 115: str(raw), 114: repr(raw), 97: ascii(raw)}[node.conversion]
        spec = "" if node.format_spec is None else str(unwrap(self.visit(node.format_spec)))
        return constexpr(format(converted, spec))

    # ---- conditional expression ----
    def visit_IfExp(self, node: ast.IfExp) -> Any:
        cond = self.visit(node.test)
        if not isinstance(cond, tensor):
            return self.visit(node.body if truth(cond) else node.orelse)
        cond = self.scalar_condition(cond, "a conditional expression (x if c else y)")

        def mismatch(a: str, b: str) -> str:  # Triton's words first
            return (f"Ternary expression with dynamic condition has inconsistent types {a} and {b}; convert one "
                    "side with .to(...) so that both have the same type")

        then_block, then_value = self.lower_region(lambda: self.visit(node.body))
        else_block, else_value = self.lower_region(lambda: self.visit(node.orelse))
        return self.finish_if(cond, then_block, else_block, [(then_value, else_value, mismatch)])[0]


__all__ = ["ExpressionLowering", "fold", "BINARY_NAMES", "PYTHON_OPERATORS"]
