"""The ``.param`` list of a PTX kernel entry, to check an edited PTX (``ir_override``) against
the arguments kernellab's launch passes: a kernel declaring other parameters than the launch
packs reads garbage or faults on the GPU, so the mismatch is a compile error instead.

Trailing 64-bit parameters after the launch's are the exception: PTX that Triton wrote ends
with its global (and profile) scratch pointers, which Triton passes as null pointers to a
kernel that needs no scratch memory; kernellab passes null pointers for them too (the
launcher's ``null_params``)."""

from __future__ import annotations

import re

from ...errors import CompilationError

_ENTRY = re.compile(r"\.entry\s+([\w$]+)\s*\((.*?)\)", re.S)
_PARAM = re.compile(r"\.param\s+\.(\w+)(?:\s+\.ptr)?(?:\s+\.\w+)*(?:\s+\.align\s+\d+)?\s+([\w$]+)")


def entry_params(ptx: str) -> dict[str, list[str]]:
    """Each ``.entry``'s parameter types in order (``{"k": ["u64", "u64", "u32", "f32"]}``)."""
    found = {}
    for match in _ENTRY.finditer(ptx):
        found[match.group(1)] = [m.group(1) for m in _PARAM.finditer(match.group(2))]
    return found


def _width(ptx_type: str) -> int:
    digits = re.search(r"\d+", ptx_type)
    return int(digits.group()) if digits else 0


def check_override_params(edited: str, generated: str, kernel: str, path: str, arg_names: list[str]) -> int:
    """Raise a CompilationError when ``edited``'s entry takes other parameters (count or widths)
    than ``generated``'s, the PTX kernellab made for the same launch; returns how many 64-bit
    parameters it declares after those (null pointers at launch: Triton's scratch pointers)."""
    theirs, ours = entry_params(edited), entry_params(generated)
    expected = ours.get(kernel) or next(iter(ours.values()), [])
    if kernel not in theirs:
        names = ", ".join(theirs) or "none"
        raise CompilationError(f"the edited PTX {path} has no .entry named `{kernel}` (its entries: {names}); "
                               "the launch looks the kernel up by that name")
    given = theirs[kernel]
    widths = [_width(t) for t in given]
    extra = widths[len(expected):]
    if widths[:len(expected)] == [_width(t) for t in expected] and all(width == 64 for width in extra):
        return len(extra)
    launch = ", ".join(f"{name}: .{t}" for name, t in zip(arg_names, expected))
    raise CompilationError(f"the edited PTX {path} declares {len(given)} parameter(s) of `{kernel}` "
                           f"({', '.join('.' + t for t in given) or 'none'}), but the launch passes {len(expected)} "
                           f"({launch or 'none'}); edit the .param list to match, or the kernel would read "
                           "arguments that are not there")


__all__ = ["entry_params", "check_override_params"]
