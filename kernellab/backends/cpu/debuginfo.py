"""Line-table debug metadata, so that host assembly carries ``.loc`` lines for Python lines.

A DICompileUnit (LineTablesOnly) per module, a DIFile per Python source file, a DISubprogram
per LLVM function and a DILocation (cached per line, column and scope) on every instruction.
"""

from __future__ import annotations

import os

import llvmlite.ir as ll

from ...ir.core import Location


class DebugInfo:
    def __init__(self, module: ll.Module, main_file: str):
        self.module = module
        self.files: dict[str, ll.DIValue] = {}
        self.locations: dict[tuple, ll.DIValue] = {}
        self.scope_files: dict[int, str] = {}
        self.file_scopes: dict[tuple, ll.DIValue] = {}
        self.unit = module.add_debug_info("DICompileUnit", {
            "language": ll.DIToken("DW_LANG_Python"),
            "file": self.file(main_file),
            "producer": "kernellab",
            "isOptimized": True,
            "runtimeVersion": 0,
            "emissionKind": ll.DIToken("LineTablesOnly"),
        }, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        flags = module.add_named_metadata("llvm.module.flags")
        flags.add(module.add_metadata([ll.Constant(ll.IntType(32), 2), "Debug Info Version",
                                       ll.Constant(ll.IntType(32), 3)]))
        flags.add(module.add_metadata([ll.Constant(ll.IntType(32), 2), "Dwarf Version",
                                       ll.Constant(ll.IntType(32), 4)]))
        self.subroutine_type = module.add_debug_info("DISubroutineType", {"types": module.add_metadata([])})

    def file(self, path: str) -> ll.DIValue:
        found = self.files.get(path)
        if found is None:
            directory, name = os.path.split(path) if path.startswith("/") else ("", path)
            found = self.module.add_debug_info("DIFile", {"filename": name or path, "directory": directory})
            self.files[path] = found
        return found

    def subprogram(self, fn: ll.Function, name: str, loc: Location) -> ll.DIValue:
        file = self.file(loc.file)
        sub = self.module.add_debug_info("DISubprogram", {
            "name": name,
            "scope": file,
            "file": file,
            "line": loc.line,
            "type": self.subroutine_type,
            "scopeLine": loc.line,
            "spFlags": ll.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self.unit,
        }, is_distinct=True)
        fn.set_metadata("dbg", sub)
        self.scope_files[id(sub)] = loc.file
        return sub

    def location(self, loc: Location, scope: ll.DIValue) -> ll.DIValue:
        key = (loc.line, loc.col, id(scope), loc.file)
        found = self.locations.get(key)
        if found is None:
            if self.scope_files.get(id(scope), loc.file) != loc.file:
                scope = self._in_file(scope, loc.file)
            found = self.module.add_debug_info("DILocation", {"line": loc.line, "column": loc.col + 1,
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
