"""Line-table debug metadata shared by the LLVM backends (CPU and CUDA).

Every LLVM instruction carries the Python line it came from, so host assembly and PTX get
``.loc <file> <line> <col>`` lines: the notebook's line map between stages.  Built as DESIGN §9
says: a DIFile per source file, one distinct DICompileUnit, a distinct DISubprogram per
function, a DILocation (cached) per op, and a DILexicalBlockFile scope for ops from another file
than their function's (inlined helpers).  The CPU uses ``LineTablesOnly``; the CUDA target
``DebugDirectivesOnly`` (line directives without DWARF sections, so PTX stays plain ``sm_XX``).
"""

from __future__ import annotations

import os

import llvmlite.ir as ll

from ..ir.core import UNKNOWN_LOC, Location


def _i32(value: int) -> ll.Constant:
    return ll.Constant(ll.IntType(32), value)


def debug_info(module: ll.Module, main_file: str, emission: str = "LineTablesOnly", enabled: bool = True
               ) -> DebugInfo | NoDebugInfo:
    """The module's line-table builder: :class:`NoDebugInfo` when line information is off
    (the ``line_info`` option: ``TRITON_DISABLE_LINE_INFO``)."""
    return DebugInfo(module, main_file, emission) if enabled else NoDebugInfo()


class NoDebugInfo:
    """No line information: no subprograms, no locations (the module gets no debug metadata,
    the PTX no ``.loc``, the cubin and host assembly no line table)."""

    def subprogram(self, fn: ll.Function, name: str, loc: Location) -> None:
        return None

    def location(self, loc: Location, scope: ll.DIValue | None) -> None:
        return None


class DebugInfo:
    def __init__(self, module: ll.Module, main_file: str, emission: str = "LineTablesOnly"):
        self.module = module
        self.main_file = main_file
        self.files: dict[str, ll.DIValue] = {}
        self.locations: dict[tuple, ll.DIValue] = {}
        self.subprogram_files: dict[int, str] = {}
        self.file_scopes: dict[tuple, ll.DIValue] = {}
        self.unit = module.add_debug_info("DICompileUnit", {
            "language": ll.DIToken("DW_LANG_Python"),
            "file": self.file(main_file),
            "producer": "kernellab",
            "isOptimized": True,
            "runtimeVersion": 0,
            "emissionKind": ll.DIToken(emission),
        }, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        flags = module.add_named_metadata("llvm.module.flags")
        flags.add(module.add_metadata([_i32(2), "Debug Info Version", _i32(3)]))
        flags.add(module.add_metadata([_i32(2), "Dwarf Version", _i32(4)]))
        self.subroutine_type = module.add_debug_info("DISubroutineType", {"types": module.add_metadata([])})

    def file(self, path: str) -> ll.DIValue:
        found = self.files.get(path)
        if found is None:
            directory, name = os.path.split(path) if path.startswith("/") else ("", path)
            found = self.module.add_debug_info("DIFile", {"filename": name or path, "directory": directory})
            self.files[path] = found
        return found

    def subprogram(self, fn: ll.Function, name: str, loc: Location) -> ll.DIValue:
        """A DISubprogram for ``fn`` defined at ``loc``, attached to it."""
        if loc == UNKNOWN_LOC:
            loc = Location(self.main_file, 0, 0)
        file = self.file(loc.file)
        sub = self.module.add_debug_info("DISubprogram", {
            "name": name,
            "scope": file,
            "file": file,
            "line": max(loc.line, 0),
            "type": self.subroutine_type,
            "scopeLine": max(loc.line, 0),
            "spFlags": ll.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self.unit,
        }, is_distinct=True)
        fn.set_metadata("dbg", sub)
        self.subprogram_files[id(sub)] = loc.file
        return sub

    def location(self, loc: Location, scope: ll.DIValue) -> ll.DIValue:
        """The DILocation of ``loc`` inside the subprogram ``scope``."""
        if loc == UNKNOWN_LOC:
            loc = Location(self.subprogram_files.get(id(scope), self.main_file), 0, 0)
        key = (loc.line, loc.col, id(scope), loc.file)
        found = self.locations.get(key)
        if found is None:
            if self.subprogram_files.get(id(scope), loc.file) != loc.file:
                scope = self._in_file(scope, loc.file)
            found = self.module.add_debug_info("DILocation", {"line": max(loc.line, 0), "column": loc.col + 1,
                                                              "scope": scope})
            self.locations[key] = found
        return found

    def _in_file(self, scope: ll.DIValue, path: str) -> ll.DIValue:
        """``scope`` seen from another file (code inlined from a function defined elsewhere)."""
        key = (id(scope), path)
        found = self.file_scopes.get(key)
        if found is None:
            found = self.module.add_debug_info("DILexicalBlockFile", {"scope": scope, "file": self.file(path),
                                                                      "discriminator": 0})
            self.file_scopes[key] = found
        return found
