"""Printing Tile IR.  The printed form is parseable (``kernellab.ir.parser``): print -> parse ->
print is the identity, so a user can edit a stage and run it (``Config(ir_override=...)``).

Grammar (one generic form for every op)::

    module    := file* [ "module attributes" attrdict ] function*
    file      := "#f" N " = " string
    function  := "func @" name "(" [arg ("," arg)*] ")" [ "->" "(" types ")" ]
                 [ "attributes" attrdict ] " {" block "}" [loc]
    arg       := value ":" type [attrdict]
    op        := [ value ("," value)* " = " ] opname [ "(" operands ")" ] [attrdict]
                 [ ":" type ("," type)* ] [ region ("," region)* ] [loc]
    operands  := operand ("," operand)*      # declaration order; optional ones as name=%v,
                                             # variadic ones as name=[%a, %b]
    region    := " {" NEWLINE [ "^(" arg ("," arg)* "):" NEWLINE ] op* "}"
    attrdict  := "{" name " = " literal ("," name " = " literal)* "}"   # defaults omitted
    literal   := int | float | "true" | "false" | string | type | "[" literal,* "]"
    loc       := "loc(#f" N ":" line ":" col ")"
    value     := "%" [A-Za-z0-9_.]+

Floats always show a '.', an exponent, ``inf`` or ``nan`` so that they never read as ints.
Values print under their name hint (the Python variable they came from) when they have one,
made unique with ``.1``, ``.2``...; the others get numbers in order of definition.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .core import UNKNOWN_LOC, Block, Function, Location, Module, Op, Value
from .ops import Arity, AttrKind, lookup
from .types import Type


def format_literal(value: Any) -> str:
    """One attribute value in its printed form."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = repr(value)
        return text if any(c in text for c in ".e") else text + ".0"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Type):
        return value.ir
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(format_literal(v) for v in value) + "]"
    raise TypeError(f"cannot print attribute value {value!r}")


class Printer:
    """Prints a module (or one function) and records which printed line came from which
    source location."""

    def __init__(self, locations: bool = True) -> None:
        self.locations = locations  # print ``loc(...)`` suffixes (and the file table)
        self.lines: list[str] = []
        self.locs: list[Location | None] = []
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.counter = 0
        self.files: dict[str, int] = {}

    # ---- names and locations ----
    def name(self, value: Value) -> str:
        key = id(value)
        if key not in self.names:
            self.names[key] = self._fresh(value.name_hint)
        return self.names[key]

    def _fresh(self, hint: str | None) -> str:
        if hint:
            candidate, n = hint, 0
            while candidate in self.used:
                n += 1
                candidate = f"{hint}.{n}"
        else:
            candidate = str(self.counter)
            while candidate in self.used:
                self.counter += 1
                candidate = str(self.counter)
            self.counter += 1
        self.used.add(candidate)
        return "%" + candidate

    def ref(self, value: Value) -> str:
        if id(value) not in self.names:
            return "%<undefined>"
        return self.names[id(value)]

    def loc(self, loc: Location) -> str:
        if loc is None or loc == UNKNOWN_LOC or not self.locations:
            return ""
        index = self.files.setdefault(loc.file, len(self.files))
        return f" loc(#f{index}:{loc.line}:{loc.col})"

    def emit(self, indent: int, text: str, loc: Location | None = None) -> None:
        self.lines.append("  " * indent + text)
        self.locs.append(loc if loc is not None and loc != UNKNOWN_LOC else None)

    # ---- structure ----
    def module(self, module: Module) -> None:
        if module.attrs:
            self.emit(0, "module attributes " + attr_dict(module.attrs))
        for function in module.functions.values():
            self.function(function)

    def function(self, function: Function) -> None:
        args = []
        for value, attrs in zip(function.args, function.arg_attrs):
            text = f"{self.name(value)}: {value.type.ir}"
            if attrs:
                text += " " + attr_dict(attrs)
            args.append(text)
        header = f"func @{function.name}({', '.join(args)})"
        if function.result_types:
            header += " -> (" + ", ".join(t.ir for t in function.result_types) + ")"
        if function.attrs:
            header += " attributes " + attr_dict(function.attrs)
        self.emit(0, header + " {", function.loc)
        self.block_ops(function.body, 1)
        self.emit(0, "}" + self.loc(function.loc), function.loc)

    def block_ops(self, block: Block, indent: int) -> None:
        for op in block.ops:
            self.op(op, indent)

    def op(self, op: Op, indent: int) -> None:
        opdef = lookup(op.name)
        text = ""
        if op.results:
            text = ", ".join(self.name(r) for r in op.results) + " = "
        text += op.name
        operands = self.operands(op, opdef)
        if operands:
            text += "(" + operands + ")"
        shown = {k: v for k, v in op.attrs.items() if not _is_default(opdef, k, v)}
        if shown:
            text += " " + attr_dict(shown)
        if op.results:
            text += " : " + ", ".join(r.type.ir for r in op.results)
        if not op.regions:
            self.emit(indent, text + self.loc(op.loc), op.loc)
            return
        self.emit(indent, text + " {", op.loc)
        for i, region in enumerate(op.regions):
            if region.args:
                args = ", ".join(f"{self.name(a)}: {a.type.ir}" for a in region.args)
                self.emit(indent + 1, f"^({args}):", op.loc)
            self.block_ops(region, indent + 1)
            closing = "}" + self.loc(op.loc) if i == len(op.regions) - 1 else "}, {"
            self.emit(indent, closing, op.loc)

    def operands(self, op: Op, opdef) -> str:
        """Operands in declaration order.  An op whose only group is variadic prints it bare;
        otherwise optional operands print as ``name=%v`` and variadic groups as
        ``name=[...]``, and absent or empty ones are left out."""
        if len(opdef.operands) == 1 and opdef.operands[0].arity is Arity.VARIADIC:
            return ", ".join(self.ref(v) for v in op.operands)
        parts = []
        start = 0
        for spec, count in zip(opdef.operands, op.segments):
            group = op.operands[start:start + count]
            start += count
            if spec.arity is Arity.ONE:
                parts.append(self.ref(group[0]))
            elif spec.arity is Arity.OPTIONAL and group:
                parts.append(f"{spec.name}={self.ref(group[0])}")
            elif spec.arity is Arity.VARIADIC and group:
                parts.append(f"{spec.name}=[" + ", ".join(self.ref(v) for v in group) + "]")
        return ", ".join(parts)

    def text(self) -> str:
        header = [f"#f{i} = {json.dumps(path)}" for path, i in sorted(self.files.items(), key=lambda kv: kv[1])]
        return "\n".join(header + self.lines) + "\n"


def _is_default(opdef, name: str, value: Any) -> bool:
    spec = opdef.attr_spec(name)
    if spec is None or spec.required:
        return False
    default = spec.default
    if spec.kind in (AttrKind.INTS, AttrKind.STRS):
        return tuple(value) == tuple(default)
    return type(value) is type(default) and value == default


def attr_dict(attrs: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k} = {format_literal(v)}" for k, v in attrs.items()) + "}"


def print_module(module: Module, locations: bool = True) -> str:
    """The module's printed form (without ``loc(...)`` suffixes if not ``locations``: what
    Triton's ``str_nodebug`` gives, for checks on the ops alone; that text does not parse)."""
    if not locations:
        printer = Printer(locations=False)
        printer.module(module)
        return printer.text()
    return print_with_locations(module)[0]


def print_with_locations(module: Module | Function) -> tuple[str, list[tuple[int, Location]]]:
    """The printed form, and ``(line, location)`` pairs (1-based line of the printed text) for
    every line that came from a known source location."""
    printer = Printer()
    if isinstance(module, Function):
        printer.function(module)
    else:
        printer.module(module)
    text = printer.text()
    offset = len(printer.files)
    line_map = [(offset + i + 1, loc) for i, loc in enumerate(printer.locs) if loc is not None]
    return text, line_map
