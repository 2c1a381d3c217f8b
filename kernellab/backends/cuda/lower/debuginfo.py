"""Debug locations: every LLVM instruction carries the Python line it came from, so that the
PTX gets ``.loc <file> <line> <col>`` lines (the notebook's line map between stages).

Built as DESIGN §9 says: a DIFile per source file, one distinct DICompileUnit
(``DebugDirectivesOnly``: line directives without DWARF sections, so the PTX target stays a
plain ``sm_XX``), a distinct DISubprogram per function and a DILocation per op.  Ops from another
file than their function's (inlined helpers) get a DILexicalBlockFile scope for that file.
"""

from __future__ import annotations

import os

import llvmlite.ir as ir

from ....ir.core import UNKNOWN_LOC, Function, Location
from .types import I32


class DebugInfo:
    def __init__(self, module: ir.Module, main_file: str):
        self.module = module
        self.files: dict[str, ir.DIValue] = {}
        self.unit = module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_Python"),
            "file": self.file(main_file),
            "producer": "kernellab",
            "isOptimized": True,
            "runtimeVersion": 0,
            "emissionKind": ir.DIToken("DebugDirectivesOnly"),
        }, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        flags = module.add_named_metadata("llvm.module.flags")
        flags.add(module.add_metadata([I32(2), "Debug Info Version", I32(3)]))
        flags.add(module.add_metadata([I32(2), "Dwarf Version", I32(4)]))
        self.subroutine_type = module.add_debug_info("DISubroutineType", {"types": module.add_metadata([])})
        self.scopes: dict[tuple[int, str], ir.DIValue] = {}
        self.locations: dict[tuple, ir.DIValue] = {}

    def file(self, path: str) -> ir.DIValue:
        found = self.files.get(path)
        if found is None:
            directory, name = os.path.split(path)
            found = self.module.add_debug_info("DIFile", {"filename": name or path, "directory": directory})
            self.files[path] = found
        return found

    def subprogram(self, function: Function, llfn: ir.Function) -> ir.DIValue:
        loc = function.loc if function.loc != UNKNOWN_LOC else Location("<kernel>", 1, 0)
        sub = self.module.add_debug_info("DISubprogram", {
            "name": function.name,
            "file": self.file(loc.file),
            "line": max(loc.line, 0),
            "type": self.subroutine_type,
            "isLocal": False,
            "isDefinition": True,
            "scopeLine": max(loc.line, 0),
            "unit": self.unit,
            "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
        }, is_distinct=True)
        llfn.set_metadata("dbg", sub)
        self.scopes[(id(sub), loc.file)] = sub
        return sub

    def location(self, subprogram: ir.DIValue, main_file: str, loc: Location) -> ir.DIValue:
        """The DILocation of ``loc`` inside ``subprogram`` (whose file is ``main_file``)."""
        if loc == UNKNOWN_LOC:
            loc = Location(main_file, 0, 0)
        key = (id(subprogram), loc.file, loc.line, loc.col)
        found = self.locations.get(key)
        if found is None:
            found = self.module.add_debug_info("DILocation", {"line": max(loc.line, 0), "column": max(loc.col, 0),
                                                              "scope": self._scope(subprogram, loc.file)})
            self.locations[key] = found
        return found

    def _scope(self, subprogram: ir.DIValue, path: str) -> ir.DIValue:
        key = (id(subprogram), path)
        found = self.scopes.get(key)
        if found is None:
            found = self.module.add_debug_info("DILexicalBlockFile", {"scope": subprogram, "file": self.file(path),
                                                                      "discriminator": 0})
            self.scopes[key] = found
        return found
