"""Loading host object code into this process without LLVM.

LLVM's in-process loader (llvmlite's MCJIT) needs ``llvmlite.binding``, whose import alone
costs ~20 ms: most of a cached first launch on the CPU target.  The object files kernellab
emits for the host are small ELF relocatable objects (x86-64 Linux) that use a handful of
relocation kinds, so this module maps them itself: the loaded sections are copied into
anonymous memory, relocated (a GOT and call stubs are built for external symbols, which are
looked up in the process with ``dlsym``), and the code pages are then made read-only and
executable (writable data gets pages of its own).

Anything it does not know (another machine or object format, an unknown relocation, TLS,
common or unresolved symbols, constructors) raises :class:`UnsupportedObject` before any code
could run; callers then use LLVM's loader.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
import weakref
from collections.abc import Callable

_ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_SYMBOL = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")

_SHT_PROGBITS, _SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS = 1, 2, 4, 8
_SHT_INIT_ARRAY, _SHT_FINI_ARRAY, _SHT_PREINIT_ARRAY = 14, 15, 16
_SHF_WRITE, _SHF_ALLOC, _SHF_EXECINSTR, _SHF_TLS = 0x1, 0x2, 0x4, 0x400
_SHN_UNDEF, _SHN_LORESERVE, _SHN_ABS, _SHN_COMMON = 0, 0xFF00, 0xFFF1, 0xFFF2
_STT_SECTION, _STT_TLS = 3, 6
_GOT_SYMBOL = "_GLOBAL_OFFSET_TABLE_"
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096  # as mmap.PAGESIZE
# mmap(2)'s flags on Linux x86-64 (the only place objects are loaded; a test compares them with the
# mmap module's): that module is a C extension whose import cost a cached first launch ~0.5 M instructions
_PROT_READ, _PROT_WRITE, _PROT_EXEC = 0x1, 0x2, 0x4
_MAP_PRIVATE, _MAP_ANONYMOUS = 0x02, 0x20

# x86-64 relocation types (System V psABI) and the computation each needs.
_R_64, _R_PC32, _R_PLT32, _R_GOTPCREL, _R_32, _R_32S = 1, 2, 4, 9, 10, 11
_R_PC64, _R_GOTOFF64, _R_GOTPC32, _R_GOT64, _R_GOTPC64, _R_GOTPLT64, _R_PLTOFF64 = 24, 25, 26, 27, 29, 30, 31
_R_GOTPCRELX, _R_REX_GOTPCRELX = 41, 42
_GOT_KINDS = {_R_GOTPCREL, _R_GOT64, _R_GOTPLT64, _R_GOTPCRELX, _R_REX_GOTPCRELX}
_STUB_KINDS = {_R_PLT32, _R_PLTOFF64}
_STUB = bytes.fromhex("ff2500000000")  # jmp *0(%rip), followed by the 8-byte target
_STUB_SIZE = 16


class UnsupportedObject(Exception):
    """The object cannot be loaded here (the caller falls back to LLVM's loader)."""


def supported_here() -> bool:
    """Whether this process can load objects at all (Linux on x86-64, 64-bit)."""
    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64") \
        and struct.calcsize("P") == 8


# ---------------------------------------------------------------------------------------------
# Reading the object
# ---------------------------------------------------------------------------------------------

class _Section:
    __slots__ = ("index", "name", "type", "flags", "offset", "size", "link", "info", "align", "address")

    def __init__(self, index: int, name: str, kind: int, flags: int, offset: int, size: int, link: int, info: int,
                 align: int):
        self.index, self.name, self.type, self.flags = index, name, kind, flags
        self.offset, self.size, self.link, self.info, self.align = offset, size, link, info, align
        self.address = 0  # where it is loaded (0: not loaded)


class _Symbol:
    __slots__ = ("name", "type", "section", "value")

    def __init__(self, name: str, kind: int, section: int, value: int):
        self.name, self.type, self.section, self.value = name, kind, section, value


def _read_sections(data: bytes) -> list[_Section]:
    if len(data) < _ELF_HEADER.size or data[:4] != b"\x7fELF":
        raise UnsupportedObject("not an ELF object")
    ident, kind, machine, _, _, _, shoff, _, _, _, _, shentsize, shnum, shstrndx = _ELF_HEADER.unpack_from(data)
    if ident[4] != 2 or ident[5] != 1 or kind != 1 or machine != 62:
        raise UnsupportedObject("not a 64-bit little-endian x86-64 relocatable object")
    if shentsize != _SECTION.size or shoff + shnum * shentsize > len(data):
        raise UnsupportedObject("malformed section table")
    raw = [_SECTION.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    names = raw[shstrndx][4]  # the offset of the section names' string table
    return [_Section(i, _string(data, names + name), kind, flags, offset, size, link, info, align)
            for i, (name, kind, flags, _, offset, size, link, info, align, _) in enumerate(raw)]


def _string(data: bytes, offset: int) -> str:
    end = data.index(b"\0", offset)
    return data[offset:end].decode("utf-8", "replace")


def _read_symbols(data: bytes, sections: list[_Section]) -> list[_Symbol]:
    tables = [s for s in sections if s.type == _SHT_SYMTAB]
    if len(tables) != 1:
        raise UnsupportedObject("expected one symbol table")
    table = tables[0]
    strings = sections[table.link]
    symbols = []
    for offset in range(table.offset, table.offset + table.size, _SYMBOL.size):
        name, info, _, section, value, _ = _SYMBOL.unpack_from(data, offset)
        symbols.append(_Symbol(_string(data, strings.offset + name), info & 0xF, section, value))
    return symbols


# ---------------------------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------------------------

_libc = None


def _libc_functions() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_long)
        libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
        _libc = libc
    return _libc


def _map(size: int) -> int:
    address = _libc_functions().mmap(None, size, _PROT_READ | _PROT_WRITE, _MAP_PRIVATE | _MAP_ANONYMOUS, -1, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise UnsupportedObject(f"mmap of {size} bytes failed (errno {ctypes.get_errno()})")
    return address


def _unmap(address: int, size: int) -> None:
    _libc_functions().munmap(address, size)


def _round(value: int, to: int) -> int:
    return -(-value // to) * to


# ---------------------------------------------------------------------------------------------
# Symbols outside the object
# ---------------------------------------------------------------------------------------------

def process_symbol(name: str) -> int | None:
    """The address of ``name`` among the symbols this process has loaded (libc, libm, Python):
    looked up through the handle ``_libc_functions`` made (each ``CDLL`` makes a class of its own,
    ~0.1 M instructions of a cached first launch)."""
    try:
        return ctypes.cast(getattr(_libc_functions(), name), ctypes.c_void_p).value
    except AttributeError:
        return None


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

class LoadedObject:
    """An object's code and data mapped into this process; unmapped when collected."""

    def __init__(self, base: int, size: int, symbols: dict[str, int]):
        self.base = base
        self.size = size
        self.symbols = symbols
        self._finalizer = weakref.finalize(self, _unmap, base, size)

    def address(self, name: str) -> int:
        """The address of the defined global symbol ``name``."""
        try:
            return self.symbols[name]
        except KeyError:
            raise UnsupportedObject(f"the object defines no symbol {name!r}") from None


def load_object(data: bytes, resolve: Callable[[str], int | None] = process_symbol) -> LoadedObject:
    """Map an ELF x86-64 relocatable object; ``resolve`` finds its undefined symbols."""
    if not supported_here():
        raise UnsupportedObject(f"objects are loaded on x86-64 Linux only, not {sys.platform} {platform.machine()}")
    sections = _read_sections(data)
    symbols = _read_symbols(data, sections)
    loaded = _loaded_sections(sections)
    relocations = _read_relocations(data, sections, symbols, {s.index for s in loaded})
    externals = _external_symbols(symbols, relocations, resolve)
    got_slots = sorted({r.symbol for r in relocations if r.kind in _GOT_KINDS})
    stub_slots = sorted({r.symbol for r in relocations if r.kind in _STUB_KINDS and r.symbol in externals})
    layout = _Layout(loaded, len(got_slots), len(stub_slots))
    base = _map(layout.size)
    try:
        for section in loaded:
            section.address = base + layout.offsets[section.index]
            if section.type != _SHT_NOBITS:
                ctypes.memmove(section.address, data[section.offset:section.offset + section.size], section.size)
        got = base + layout.got
        resolved = _resolved_symbols(symbols, sections, externals, got)
        got_entry = {symbol: got + 8 * i for i, symbol in enumerate(got_slots)}
        for symbol, entry in got_entry.items():
            ctypes.c_uint64.from_address(entry).value = resolved[symbol]
        stub = {}
        for i, symbol in enumerate(stub_slots):
            address = base + layout.stubs + _STUB_SIZE * i
            ctypes.memmove(address, _STUB + struct.pack("<Q", resolved[symbol]), len(_STUB) + 8)
            stub[symbol] = address
        for relocation in relocations:
            _apply(relocation, sections, resolved, got, got_entry, stub)
        _protect(base, layout)
    except BaseException:
        _unmap(base, layout.size)
        raise
    defined = {s.name: resolved[i] for i, s in enumerate(symbols)
               if s.name and s.type != _STT_SECTION and _SHN_UNDEF < s.section < _SHN_LORESERVE}
    return LoadedObject(base, layout.size, defined)


class _Relocation:
    __slots__ = ("section", "offset", "kind", "symbol", "addend")

    def __init__(self, section: int, offset: int, kind: int, symbol: int, addend: int):
        self.section = section  # the section patched
        self.offset, self.kind, self.symbol, self.addend = offset, kind, symbol, addend


def _read_relocations(data: bytes, sections: list[_Section], symbols: list[_Symbol],
                      loaded: set[int]) -> list[_Relocation]:
    found = []
    for table in sections:
        if table.type != _SHT_RELA or table.info not in loaded:
            continue  # relocations of debug information and unwind tables: not loaded
        for offset in range(table.offset, table.offset + table.size, _RELA.size):
            where, info, addend = _RELA.unpack_from(data, offset)
            symbol, kind = info >> 32, info & 0xFFFFFFFF
            if symbol >= len(symbols):
                raise UnsupportedObject("a relocation names a symbol outside the table")
            found.append(_Relocation(table.info, where, kind, symbol, addend))
    return found


def _loaded_sections(sections: list[_Section]) -> list[_Section]:
    loaded = []
    for section in sections:
        if section.type in (_SHT_INIT_ARRAY, _SHT_FINI_ARRAY, _SHT_PREINIT_ARRAY):
            raise UnsupportedObject(f"section {section.name} runs code at load time")
        if not section.flags & _SHF_ALLOC or section.size == 0:
            continue
        if section.flags & _SHF_TLS:
            raise UnsupportedObject(f"thread-local section {section.name}")
        if section.type not in (_SHT_PROGBITS, _SHT_NOBITS):
            continue  # unwind tables and notes: not needed to run
        loaded.append(section)
    return loaded


def _external_symbols(symbols: list[_Symbol], relocations: list[_Relocation],
                      resolve: Callable[[str], int | None]) -> dict[int, int]:
    found = {}
    for index in sorted({r.symbol for r in relocations}):
        symbol = symbols[index]
        if symbol.section == _SHN_COMMON:
            raise UnsupportedObject(f"common symbol {symbol.name}")
        if symbol.type == _STT_TLS:
            raise UnsupportedObject(f"thread-local symbol {symbol.name}")
        if symbol.section != _SHN_UNDEF or symbol.name == _GOT_SYMBOL or index == 0:
            continue
        address = resolve(symbol.name)
        if not address:
            raise UnsupportedObject(f"undefined symbol {symbol.name}")
        found[index] = address
    return found


class _Layout:
    """Offsets in one mapping: read-only pages (code, constants, GOT, call stubs), then the
    writable sections on pages of their own."""

    def __init__(self, loaded: list[_Section], got_slots: int, stub_slots: int):
        self.offsets: dict[int, int] = {}
        position = 0
        for section in [s for s in loaded if not s.flags & _SHF_WRITE]:
            position = _round(position, max(section.align, 1))
            self.offsets[section.index] = position
            position += section.size
        self.got = _round(position, 16)
        self.stubs = _round(self.got + 8 * got_slots, 16)
        self.readonly = _round(self.stubs + _STUB_SIZE * stub_slots, _PAGE)
        position = self.readonly
        for section in [s for s in loaded if s.flags & _SHF_WRITE]:
            position = _round(position, max(section.align, 1))
            self.offsets[section.index] = position
            position += section.size
        self.size = max(_round(position, _PAGE), _PAGE)


def _resolved_symbols(symbols: list[_Symbol], sections: list[_Section], externals: dict[int, int],
                      got: int) -> list[int]:
    resolved = []
    for index, symbol in enumerate(symbols):
        if index in externals:
            resolved.append(externals[index])
        elif symbol.name == _GOT_SYMBOL and symbol.section == _SHN_UNDEF:
            resolved.append(got)
        elif symbol.section == _SHN_ABS:
            resolved.append(symbol.value)
        elif _SHN_UNDEF < symbol.section < _SHN_LORESERVE and sections[symbol.section].address:
            resolved.append(sections[symbol.section].address + symbol.value)
        else:
            resolved.append(0)  # never the target of a relocation (checked where used)
    return resolved


def _apply(relocation: _Relocation, sections: list[_Section], resolved: list[int], got: int,
           got_entry: dict[int, int], stub: dict[int, int]) -> None:
    target = sections[relocation.section]
    if not target.address:
        raise UnsupportedObject(f"relocation in section {target.name}, which was not loaded")
    place = target.address + relocation.offset
    if relocation.offset + _width(relocation.kind) > target.size:
        raise UnsupportedObject(f"relocation at {relocation.offset:#x} outside section {target.name}")
    symbol, addend, kind = resolved[relocation.symbol], relocation.addend, relocation.kind
    if not symbol and kind not in _GOT_KINDS:
        raise UnsupportedObject(f"relocation {kind} against a symbol that was not loaded")
    if kind == _R_64:
        _store(place, symbol + addend, 64, signed=False)
    elif kind == _R_PC32:
        _store(place, symbol + addend - place, 32, signed=True)
    elif kind == _R_PLT32:  # a call: through a stub when the function is out of reach
        _store(place, stub.get(relocation.symbol, symbol) + addend - place, 32, signed=True)
    elif kind == _R_32:
        _store(place, symbol + addend, 32, signed=False)
    elif kind == _R_32S:
        _store(place, symbol + addend, 32, signed=True)
    elif kind == _R_PC64:
        _store(place, symbol + addend - place, 64, signed=True)
    elif kind == _R_GOTOFF64:
        _store(place, symbol + addend - got, 64, signed=True)
    elif kind == _R_GOTPC32:
        _store(place, got + addend - place, 32, signed=True)
    elif kind == _R_GOTPC64:
        _store(place, got + addend - place, 64, signed=True)
    elif kind in (_R_GOT64, _R_GOTPLT64):
        _store(place, got_entry[relocation.symbol] - got + addend, 64, signed=True)
    elif kind in (_R_GOTPCREL, _R_GOTPCRELX, _R_REX_GOTPCRELX):
        _store(place, got_entry[relocation.symbol] + addend - place, 32, signed=True)
    elif kind == _R_PLTOFF64:
        _store(place, stub.get(relocation.symbol, symbol) - got + addend, 64, signed=True)
    else:
        raise UnsupportedObject(f"relocation type {kind}")


def _width(kind: int) -> int:
    return 8 if kind in (_R_64, _R_PC64, _R_GOTOFF64, _R_GOTPC64, _R_GOT64, _R_GOTPLT64, _R_PLTOFF64) else 4


def _store(place: int, value: int, bits: int, signed: bool) -> None:
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if bits == 64 and not signed:
        value &= (1 << 64) - 1
    if not low <= value <= high:
        raise UnsupportedObject(f"a {bits}-bit relocation cannot reach {value:#x}")
    cell = ctypes.c_int64 if bits == 64 and signed else ctypes.c_uint64 if bits == 64 else \
        ctypes.c_int32 if signed else ctypes.c_uint32
    cell.from_address(place).value = value


def _protect(base: int, layout: _Layout) -> None:
    libc = _libc_functions()
    if libc.mprotect(base, layout.readonly, _PROT_READ | _PROT_EXEC) != 0:
        raise UnsupportedObject(f"mprotect failed (errno {ctypes.get_errno()}): executable memory is refused")


__all__ = ["load_object", "LoadedObject", "UnsupportedObject", "supported_here", "process_symbol"]
