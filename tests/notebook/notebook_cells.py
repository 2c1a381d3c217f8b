"""Cells and helpers the notebook layer's tests share."""

from __future__ import annotations

ADD_CELL = '''@kl.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
'''
ADD_SIGNATURE = '--signature "x_ptr=*fp32, y_ptr=*fp32, out_ptr=*fp32, n=i32" --constexprs "BLOCK=256"'


def magic(shell, line: str, body: str):
    """Run ``%%tile_kernel line`` on ``body`` through IPython."""
    return shell.run_cell_magic("tile_kernel", line, body)


def cell_line(body: str, needle: str) -> int:
    """The notebook line (the %%tile_kernel line is 1) of the first body line containing ``needle``."""
    return next(i for i, line in enumerate(body.splitlines(), start=2) if needle in line)
