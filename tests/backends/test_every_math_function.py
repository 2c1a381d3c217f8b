"""Every math function of ``ir/mathfns/`` has its lowering declared for the LLVM targets and a
name in ``tl.extra.libdevice``.  Running every function in every signature on the CPU target
against its reference, and assembling each for sm_90a (a libdevice symbol that does not exist,
or a C name the host's libm lacks, fails there), is ``tests/language/test_libdevice_all.py``:
every math function is a libdevice function (checked here)."""

from __future__ import annotations

from kernellab.backends.llvm.math import EXPANSIONS
from kernellab.ir.mathfns import MATH, in_module
from kernellab.language.extra import libdevice


def test_every_function_has_its_lowering_declared() -> None:
    for fn in MATH.values():
        assert not fn.expand or fn.name in EXPANSIONS, f"{fn.name} is expand=True but backends/llvm/math.py " \
                                                       "has no expansion for it"
        assert hasattr(libdevice, fn.name), fn.name


def test_every_math_function_is_run_by_the_libdevice_test() -> None:
    assert {fn.name for fn in in_module("libdevice")} == set(MATH)
