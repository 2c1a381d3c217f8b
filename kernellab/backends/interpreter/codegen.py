"""Tile IR -> Python source: the interpreter's one compilation step.

Every op with a reference becomes one line calling its bound reference (``OpDef.bind_value``
for ops with one result or none, ``OpDef.bind`` for several);
``for``/``while``/``if`` become Python loops and branches, functions of the module become
Python functions, and the combine regions of ``reduce``/``scan`` become nested functions
(tagged with a numpy ufunc when the region is one known op).  The kernel's top-level ops that
do not depend on the program id run once per launch, before the program loop.  The generated
module looks like::

    def build(bind, bind_results, np, ctx):
        program_id_0 = bind(0)
        ...
        def launch(grid, v_x_ptr, v_n):
            v_offs0 = arange_2()                  # hoisted: once per launch
            def program():
                v_pid = program_id_0()
                ...
            for z in range(grid[2]):
                for y in range(grid[1]):
                    for x in range(grid[0]):
                        ctx.pid = (x, y, z)
                        program()
        return launch

It is kept as the ``py`` stage; :class:`GeneratedProgram` also maps generated lines back to
ops, for error messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

from ...ir.core import Block, Function, Module, Op, Value
from ...ir.ops import CONTROL
from ...ir.ops.registry import numpy_dtype
from ...ir.printer import Printer
from .combine import combine_ufunc
from .hoisting import free_values, launch_invariant_ops


@dataclass
class GeneratedProgram:
    source: str
    ops: list[Op]  # bind index -> op
    line_ops: dict[int, Op] = field(default_factory=dict)  # 1-based generated line -> op
    kernel: str = ""


def generate(module: Module, header: str = "") -> GeneratedProgram:
    """Python source that builds a launcher for ``module``'s kernel (see the module doc)."""
    return _Generator(module).run(header)


_IDENTIFIER = re.compile(r"[^0-9a-zA-Z_]")


def _identifier(text: str) -> str:
    return _IDENTIFIER.sub("_", text)


class _Generator:
    def __init__(self, module: Module):
        self.module = module
        self.ops: list[Op] = []
        self.op_names: dict[Op, str] = {}
        self.value_names: dict[int, str] = {}
        self.taken: set[str] = set()
        printer = Printer()  # name values as the printed Tile IR does (%pid.1 -> v_pid_1)
        printer.module(module)
        self.ir_names = printer.names
        self.lines: list[tuple[int, str, Op | None]] = []  # (indent, text, op)
        self.binds: list[tuple[int, str, Op | None]] = []
        self.regions: list[tuple[int, str, Op | None]] = []
        self.region_count = 0

    # ---- names ----
    def value(self, value: Value) -> str:
        name = self.value_names.get(id(value))
        if name is None:
            printed = self.ir_names.get(id(value))
            base = "v_" + _identifier(printed[1:] if printed else value.name_hint or "")
            name, n = base, 0
            while name in self.taken or name == "v_":
                n += 1
                name = f"{base}_{n}" if base != "v_" else f"v{n}"
            self.taken.add(name)
            self.value_names[id(value)] = name
        return name

    def values(self, values: list[Value]) -> str:
        return ", ".join(self.value(v) for v in values)

    def bound(self, op: Op, regions: list[str] | None = None, out: list | None = None, indent: int = 1) -> str:
        """The name of ``op``'s bound reference; its ``bind`` line goes to ``out`` (default: the
        build prologue)."""
        name = self.op_names.get(op)
        if name is None:
            name = f"{_identifier(op.name)}_{len(self.ops)}"
            self.op_names[op] = name
            self.ops.append(op)
            target = self.binds if out is None else out
            arguments = str(len(self.ops) - 1) + (f", [{', '.join(regions)}]" if regions else "")
            binder = "bind_results" if len(op.results) > 1 else "bind"
            target.append((indent, f"{name} = {binder}({arguments})", op))
        return name

    # ---- the module ----
    def run(self, header: str) -> GeneratedProgram:
        kernel = self.module.kernel
        functions = []
        for function in self.module.functions.values():
            if function is not kernel:
                functions.extend(self.callee(function))
        functions.extend(self.launch(kernel))
        text: list[str] = [f"# {line}" if line else "#" for line in header.splitlines()]
        text.append("def build(bind, bind_results, np, ctx):")
        line_ops: dict[int, Op] = {}
        for indent, line, op in self.regions + self.binds + functions + [(1, "return launch", None)]:
            text.append("    " * indent + line)
            if op is not None:
                line_ops[len(text)] = op
        return GeneratedProgram("\n".join(text) + "\n", self.ops, line_ops, kernel.name)

    def callee(self, function: Function) -> list:
        self.lines = []
        self.emit(1, f"def fn_{_identifier(function.name)}({self.values(function.args)}):")
        self.block(function.body, 2)
        return self.lines

    def launch(self, kernel: Function) -> list:
        self.lines = []
        args = self.values(kernel.args)
        self.emit(1, f"def launch(grid{', ' if args else ''}{args}):")
        hoisted = launch_invariant_ops(kernel)
        for op in kernel.body.ops:
            if op in hoisted:
                self.op(op, 2)
        self.emit(2, "def program():")
        body = [op for op in kernel.body.ops if op not in hoisted]
        self.ops_of(body, 3, kernel=True)
        self.emit(2, "for z in range(grid[2]):")
        self.emit(3, "for y in range(grid[1]):")
        self.emit(4, "for x in range(grid[0]):")
        self.emit(5, "ctx.pid = (x, y, z)")
        self.emit(5, "program()")
        return self.lines

    # ---- blocks and ops ----
    def emit(self, indent: int, text: str, op: Op | None = None) -> None:
        self.lines.append((indent, text, op))

    def emit_op(self, indent: int, text: str, op: Op) -> None:
        """An op's line, with its source position as a trailing comment."""
        where = f"  # {PurePath(op.loc.file).name}:{op.loc.line}" if op.loc.line > 0 else ""
        self.emit(indent, text + where, op)

    def block(self, block: Block, indent: int) -> None:
        self.ops_of(block.ops, indent)

    def ops_of(self, ops: list[Op], indent: int, kernel: bool = False) -> None:
        start = len(self.lines)
        for op in ops:
            if op.name == "return":
                values = self.values(op.operands)
                self.emit(indent, "return" if kernel else f"return ({values}{',' if op.operands else ''})", op)
            elif op.name not in ("yield", "condition"):
                self.op(op, indent)
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def op(self, op: Op, indent: int) -> None:
        handler = _STRUCTURAL.get(op.name)
        if handler is not None:
            handler(self, op, indent)
            return
        if op.opdef.has(CONTROL):
            raise NotImplementedError(f"the interpreter cannot run control op {op.name}")
        if not op.regions:
            name = self.bound(op)
        elif free_values(op):  # regions that capture values: defined and bound where the op runs
            name = self.bound(op, self.region_functions(op, self.lines, indent), self.lines, indent)
        else:  # defined and bound once, in the build prologue
            name = self.bound(op, self.region_functions(op, self.regions, 1))
        self.emit_op(indent, f"{self.assign(op.results)}{name}({self.values(op.operands)})", op)

    def assign(self, results: list[Value], unpack: bool = False) -> str:
        """``a = `` / ``a, b = `` before a call (``a, = `` for one result of a tuple)."""
        if not results:
            return ""
        return self.values(results) + (", = " if len(results) == 1 and unpack else " = ")

    def region_functions(self, op: Op, out: list, indent: int) -> list[str]:
        """Emit (into ``out``) one Python function per region of a reduce/scan, tagged with a
        ufunc when the region is one known op; returns their names."""
        saved, self.lines = self.lines, out
        names = []
        for region in op.regions:
            name = f"{_identifier(op.name)}_region{self.region_count}"
            self.region_count += 1
            names.append(name)
            self.emit(indent, f"def {name}({self.values(region.args)}):", op)
            self.ops_of(region.ops, indent + 1)
            self.emit(indent + 1, f"return ({self.values(region.terminator.operands)},)", op)
            ufunc = combine_ufunc(region)
            if ufunc is not None:
                self.emit(indent, f"{name}.ufunc = {ufunc}", op)
        self.lines = saved
        return names

    def move(self, indent: int, targets: list[Value], sources: list[Value], op: Op) -> None:
        if targets:
            self.emit(indent, f"{self.values(targets)} = {self.values(sources)}", op)


def _for(gen: _Generator, op: Op, indent: int) -> None:
    lower, upper, step = (gen.value(v) for v in op.operands[:3])
    body = op.regions[0]
    iv, carried = body.args[0], body.args[1:]
    gen.move(indent, carried, op.operand_group("init"), op)
    dtype = numpy_dtype(iv.type).name
    gen.emit_op(indent, f"for _i in range({lower}, {upper}, {step}):", op)
    gen.emit(indent + 1, f"{gen.value(iv)} = np.{dtype}(_i)", op)
    gen.block(body, indent + 1)
    gen.move(indent + 1, carried, body.terminator.operands, body.terminator)
    gen.move(indent, op.results, carried, op)


def _if(gen: _Generator, op: Op, indent: int) -> None:
    then, otherwise = op.regions
    gen.emit_op(indent, f"if {gen.value(op.operands[0])}:", op)
    gen.block(then, indent + 1)
    gen.move(indent + 1, op.results, then.terminator.operands, then.terminator)
    if otherwise.ops[:-1] or op.results:
        gen.emit(indent, "else:", op)
        gen.block(otherwise, indent + 1)
        gen.move(indent + 1, op.results, otherwise.terminator.operands, otherwise.terminator)


def _while(gen: _Generator, op: Op, indent: int) -> None:
    before, after = op.regions
    condition = before.terminator
    gen.move(indent, before.args, op.operand_group("init"), op)
    gen.emit_op(indent, "while True:", op)
    gen.block(before, indent + 1)
    gen.emit(indent + 1, f"if not {gen.value(condition.operands[0])}:", condition)
    gen.move(indent + 2, op.results, condition.operands[1:], condition)
    gen.emit(indent + 2, "break", condition)
    gen.move(indent + 1, after.args, condition.operands[1:], condition)
    gen.block(after, indent + 1)
    gen.move(indent + 1, before.args, after.terminator.operands, after.terminator)


def _call(gen: _Generator, op: Op, indent: int) -> None:
    callee = op.attrs["callee"]
    if callee not in gen.module.functions:
        raise NotImplementedError(f"call to @{callee}, which is not a function of this module")
    gen.emit_op(indent, f"{gen.assign(op.results, unpack=True)}fn_{_identifier(callee)}({gen.values(op.operands)})", op)


_STRUCTURAL = {"for": _for, "if": _if, "while": _while, "call": _call}
