"""The interpreter's execution context (``kernellab.ir.ops.ExecContext``): program ids, the
memory model, ``device_print`` and ``device_assert``."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import InterpreterError
from ...ir.core import Op
from ...ir.types import PointerType, element_of
from .memory import MemoryModel


class InterpreterContext(MemoryModel):
    """State of the running launch: the grid, the current program id (set by the generated
    program loop) and the arguments' memory."""

    def __init__(self, sites, argument_names: list[str]):
        super().__init__(sites, argument_names)
        self.grid: tuple[int, int, int] = (1, 1, 1)

    def program_id(self, axis: int) -> int:
        return self.pid[axis]

    def num_programs(self, axis: int) -> int:
        return self.grid[axis]

    def print(self, prefix: str, values: list, hex: bool, op: Op) -> None:
        pointers = [isinstance(element_of(v.type), PointerType) for v in op.operands]
        sys.stdout.write("".join(print_lines(self.pid, prefix, values, hex, pointers)))

    def check(self, condition: Any, message: str, op: Op) -> None:
        condition = np.asarray(condition)
        if condition.all():
            return
        index = tuple(int(i) for i in np.argwhere(~condition.astype(np.bool_))[0])
        where = f" at index {index}" if condition.ndim else ""
        raise InterpreterError(f"device_assert failed in program {self.pid}{where}: {message or 'assertion'} "
                               f"({op.loc})")


def print_lines(pid: tuple, prefix: str, values: list, hex: bool, pointers: list[bool] | None = None) -> list[str]:
    """``device_print`` lines, formatted as Triton's GPU printf does, with the prefix verbatim
    (the language layer normalises it to ``" name: "``)::

        pid (x, y, z) idx (  3) x: 1.500000         # one line per element of a tile
        pid (x, y, z) idx () x: 7                   # a scalar, once per program
        pid (x, y, z) idx (1, 0) x: (operand 1) 2   # when printing several values
        pid (x, y, z) no arg                        # a prefix alone

    ``pointers[k]`` says that value k holds addresses (printed in hexadecimal).
    """
    if not values:  # Triton's line for a prefix alone: no idx
        return [f"pid ({pid[0]}, {pid[1]}, {pid[2]}){prefix}\n"]
    head = f"pid ({pid[0]}, {pid[1]}, {pid[2]}) idx ("
    lines = []
    for number, value in enumerate(values):
        operand = f"(operand {number}) " if len(values) > 1 else ""
        array = np.asarray(value)
        as_hex = hex or bool(pointers and pointers[number])
        widths = [len(str(max(n - 1, 0))) for n in array.shape]
        for index in np.ndindex(*array.shape):
            position = ", ".join(f"{i:>{w}}" for i, w in zip(index, widths))
            lines.append(f"{head}{position}){prefix}{operand}{format_element(array[index], as_hex)}\n")
    return lines


def format_element(value: Any, hex: bool) -> str:
    """One element as device_print shows it: floats with six decimals, integers in decimal (or
    zero-padded hexadecimal with ``hex``), pointers in hexadecimal."""
    dtype = np.asarray(value).dtype
    if dtype.kind == "O":
        return repr(value)
    if hex:
        bits = np.asarray(value).reshape(1).view(np.dtype(f"u{dtype.itemsize}"))[0]
        return f"0x{int(bits):0{2 * dtype.itemsize}x}"
    if dtype.kind in "biu":
        return str(int(value))
    return f"{float(value):f}"
