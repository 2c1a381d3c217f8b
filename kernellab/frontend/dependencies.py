"""What a kernel's compiled code depends on besides its arguments, found without running it:
the jit functions it may call, the compile-time globals it reads and the hash of every source
involved.  The runtime puts these in the cache key and checks at launch that the globals have
not changed (:meth:`Dependencies.changed_globals`).

The syntactic part -- a function's source text and the names and attribute chains it reads, in
the order its AST lists them -- depends on the source file only, so it is remembered in the disk
cache (``<cache>/dependencies/``) under the file's size and modification time: a new process
whose files are unchanged looks the names up again (their values may differ) without parsing.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import os
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import config
from ..files import write_atomically
from ..ir.types import Type
from ..language.core import constexpr, is_constexpr_function
from .analysis import names_assigned
from .names import MISSING, OuterNames, is_plain_constant
from .signature import parameters
from .source import is_jit, jit_name, load_source, parsed_source, python_function
from .values import same_constant


@dataclass
class Dependencies:
    """``callees``: the jit functions the kernel may call (directly or not), in the order
    found; ``globals``: name -> value of every compile-time global read (a callee's globals
    from another module or its closure are named ``module.name``); ``source_hash``: sha256 of
    the sources of the kernel, its callees and the constexpr_functions they call."""

    callees: list[Any]
    globals: dict[str, Any]
    source_hash: str
    readers: dict[str, Callable[[], Any]] = field(default_factory=dict, repr=False, compare=False)

    def changed_globals(self) -> list[str]:
        """The globals whose current value differs from the recorded one."""
        return [name for name, read in self.readers.items() if not _same(read(), self.globals[name])]


def _same(current: Any, recorded: Any) -> bool:
    if current is MISSING:
        return False
    return same_constant(current, recorded)


def is_dependency_value(value: Any) -> bool:
    """Values whose change changes the compiled code: constexprs, dtypes, plain constants."""
    return isinstance(value, (constexpr, Type)) or is_plain_constant(value)


def dependencies(fn: Any) -> Dependencies:
    """Walk ``fn``'s AST (and its jit callees', recursively) for the names it reads."""
    finder = _Finder(fn)
    finder.visit_jit(fn)
    digest = hashlib.sha256()
    for chunk in finder.chunks:
        digest.update(chunk.encode())
        digest.update(b"\0")
    return Dependencies(finder.callees, finder.globals, digest.hexdigest(), finder.readers)


class _Finder:
    def __init__(self, root: Any):
        self.root_globals = python_function(root).__globals__
        self.root = root
        self.seen: set[int] = set()
        self.callees: list[Any] = []
        self.globals: dict[str, Any] = {}
        self.readers: dict[str, Callable[[], Any]] = {}
        self.chunks: list[str] = []

    def visit_jit(self, jit: Any) -> None:
        if id(jit) in self.seen:
            return
        self.seen.add(id(jit))
        if jit is not self.root:
            self.callees.append(jit)
        fn = python_function(jit)
        text, reads = syntax_of(jit)
        self.chunks.append(f"jit {fn.__module__}.{fn.__qualname__} noinline={bool(getattr(jit, 'noinline', False))}")
        self.chunks.append(text)
        outer = OuterNames(fn)
        for kind, *chain in reads:
            if kind == "name":
                self.visit_name(jit, outer, chain[0])
            else:
                self.visit_attribute(jit, outer, chain)

    def visit_name(self, jit: Any, outer: OuterNames, name: str) -> None:
        value = outer.lookup(name)
        if value is MISSING or outer.where(name) == "builtin":
            return
        key = self.key(jit, outer, name)
        self.record(key, value, lambda: outer.lookup(name))

    def visit_attribute(self, jit: Any, outer: OuterNames, chain: list[str]) -> None:
        root = outer.lookup(chain[0])
        if not isinstance(root, types.ModuleType) or _is_kernellab_module(root):
            return

        def read() -> Any:
            value = outer.lookup(chain[0])
            for attr in chain[1:]:
                value = getattr(value, attr, MISSING)
                if value is MISSING:
                    break
            return value

        value = read()
        if value is not MISSING:
            self.record(self.key(jit, outer, ".".join(chain)), value, read)

    def record(self, key: str, value: Any, read: Callable[[], Any]) -> None:
        if is_jit(value):
            self.visit_jit(value)
        elif is_constexpr_function(value):
            self.chunks.append(f"constexpr_function {key}")
            self.chunks.append(_source_or_name(value))
        elif is_dependency_value(value):
            self.globals[key] = value
            self.readers[key] = read

    def key(self, jit: Any, outer: OuterNames, name: str) -> str:
        """``name`` for the kernel's own globals and closure; ``module.name`` (globals) or
        ``function.name`` (closure) for a callee's names from elsewhere."""
        if jit is self.root:
            return name
        root = name.split(".")[0]
        if outer.where(root) == "global":
            return name if outer.globals is self.root_globals else f"{python_function(jit).__module__}.{name}"
        return f"{jit_name(jit)}.{name}"


# ---------------------------------------------------------------------------------------------
# The syntactic part, remembered per source file
# ---------------------------------------------------------------------------------------------

SYNTAX_FORMAT = 1
MEMO_FOLDER = "dependencies"


def syntax_of(jit: Any) -> tuple[str, list[list[str]]]:
    """(source text, reads) of a jit function: each read ``["name", n]`` (a free name loaded) or
    ``["attr", a, b, ...]`` (an attribute chain ``a.b...`` rooted at a free name), in the order
    ``ast.walk`` meets them."""
    fn = python_function(jit)
    parsed = parsed_source(fn)
    if parsed is not None:  # parsed in this process already (the source the frontend lowers)
        return parsed.text, _reads(jit, parsed)
    memo = _memo_path(fn)
    stat = _file_stat(fn.__code__.co_filename) if memo is not None else None
    if stat is not None:
        found = _read_memo(memo, stat)
        if found is not None:
            return found
    source = load_source(jit)
    reads = _reads(jit, source)
    if stat is not None:
        _write_memo(memo, {"format": SYNTAX_FORMAT, "stat": stat, "text": source.text, "reads": reads})
    return source.text, reads


def _reads(jit: Any, source: Any) -> list[list[str]]:
    local = {p.name for p in parameters(jit)} | set(names_assigned(source.tree.body))
    reads: list[list[str]] = []
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            reads.append(["name", node.id])
        elif isinstance(node, ast.Attribute):
            chain = _attribute_chain(node)
            if chain is not None and chain[0] not in local:
                reads.append(["attr", *chain])
    return reads


def _memo_path(fn: Any) -> str | None:
    code = fn.__code__
    if not config.disk_cache_enabled() or code.co_filename.startswith("<"):
        return None  # notebook cells and exec'd code: parsed every time
    name = f"{code.co_filename}\0{fn.__qualname__}\0{code.co_firstlineno}"
    return os.path.join(config.cache_dir(), MEMO_FOLDER, hashlib.sha256(name.encode()).hexdigest() + ".json")


def _file_stat(path: str) -> list[int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _read_memo(path: str, stat: list[int]) -> tuple[str, list[list[str]]] | None:
    try:
        with open(path, encoding="utf-8") as file:
            record = json.load(file)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != SYNTAX_FORMAT or record.get("stat") != stat:
        return None
    text, reads = record.get("text"), record.get("reads")
    if not isinstance(text, str) or not isinstance(reads, list):
        return None
    return text, reads


def _write_memo(path: str, record: dict) -> None:
    write_atomically(path, json.dumps(record).encode())


def _attribute_chain(node: ast.Attribute) -> list[str] | None:
    """``a.b.c`` -> ['a', 'b', 'c']; None when the chain does not start at a name."""
    parts: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    if not isinstance(current, ast.Name):
        return None
    return [current.id] + parts[::-1]


def _is_kernellab_module(module: types.ModuleType) -> bool:
    name = module.__name__
    return name == "kernellab" or name.startswith("kernellab.")


def _source_or_name(fn: Any) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}"


__all__ = ["Dependencies", "dependencies", "is_dependency_value", "syntax_of", "MEMO_FOLDER"]
