"""Helpers for pass tests: run a pass on printed IR, checking the IR before and after."""

from __future__ import annotations

from collections.abc import Callable

from kernellab.ir import Module
from kernellab.ir.parser import parse_module
from kernellab.ir.printer import print_module
from kernellab.ir.verifier import verify


def run_pass(pass_: Callable[[Module], Module], text: str) -> str:
    """Parse and verify ``text``, run ``pass_``, verify and return the printed result (which
    must parse back to itself)."""
    module = parse_module(text)
    verify(module)
    module = pass_(module)
    verify(module)
    printed = print_module(module)
    assert print_module(parse_module(printed)) == printed
    return printed
