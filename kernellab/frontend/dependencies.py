"""What a kernel's compiled code depends on besides its arguments, found without running it:
the jit functions it may call, the compile-time globals it reads and the hash of every source
involved.  The runtime puts these in the cache key and checks at launch that the globals have
not changed (:meth:`Dependencies.changed_globals`).

The syntactic part -- a function's source text and the names and attribute chains it reads, in
the order its AST lists them -- depends on the source file only, so it is remembered in the disk
cache (``<cache>/dependencies/``, sealed: ``cachedir``) under the sha256 of the file's content
(not its size and modification time, which ``cp -p``, ``rsync -a``, ``tar`` and ``git checkout``
keep across an edit): a new process whose files are unchanged reads the file, hashes it, and looks
the names up again (their values may differ) without parsing.  A memo of the wrong shape is
ignored and written again.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import os
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import cachedir
from ..ir.types import Type
from ..language.aggregate import is_aggregate_class
from ..language.core import constexpr, is_constexpr_function
from .analysis import names_assigned
from .arguments import is_namedtuple_class
from .names import MISSING, OuterNames, is_plain_constant
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
        self.seen: dict[int, Any] = {}  # id -> the object, kept: a freed one's id may come back
        self.callees: list[Any] = []
        self.globals: dict[str, Any] = {}
        self.readers: dict[str, Callable[[], Any]] = {}
        self.chunks: list[str] = []

    def visit_jit(self, jit: Any) -> None:
        if id(jit) in self.seen:
            return
        self.seen[id(jit)] = jit
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
        if isinstance(value, types.ModuleType):  # what a kernel reads of a module is an attribute chain
            return  # (visit_attribute); asking a lazy package below for jit markers raised AttributeErrors
        if is_jit(value):
            self.visit_jit(value)
        elif is_constexpr_function(value):
            self.chunks.append(f"constexpr_function {key}")
            self.chunks.append(_source_or_name(value))
        elif is_aggregate_class(value):
            self.visit_aggregate(key, value)
        elif isinstance(value, type) and is_namedtuple_class(value):  # its fields decide what a kernel builds
            defaults = getattr(value, "_field_defaults", {})
            self.chunks.append(f"namedtuple {key} {value.__module__}.{value.__qualname__} {value._fields!r} "
                               f"{sorted((k, repr(v)) for k, v in defaults.items())!r}")
        elif is_dependency_value(value):
            self.globals[key] = value
            self.readers[key] = read

    def visit_aggregate(self, key: str, cls: type) -> None:
        """An aggregate class: its source (fields, constructor, compile-time methods) decides what a
        kernel builds; its jit methods are callees; the jit functions, aggregates and
        constexpr_functions its compile-time methods name are read too."""
        if id(cls) in self.seen:
            return
        self.seen[id(cls)] = cls
        self.chunks.append(f"aggregate {key} {cls.__module__}.{cls.__qualname__}")
        self.chunks.append(_source_or_name(cls))
        for attribute in vars(cls).values():
            fn = attribute.__func__ if isinstance(attribute, (staticmethod, classmethod)) else attribute
            if is_jit(fn):
                self.visit_jit(fn)
            elif inspect.isfunction(fn):
                for name in fn.__code__.co_names:
                    value = fn.__globals__.get(name, MISSING)
                    if is_jit(value) or is_aggregate_class(value) or is_constexpr_function(value):
                        self.record(f"{fn.__module__}.{name}", value, lambda found=value: found)

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

SYNTAX_FORMAT = 2
MEMO_FOLDER = "dependencies"


def syntax_of(jit: Any) -> tuple[str, list[list[str]]]:
    """(source text, reads) of a jit function: each read ``["name", n]`` (a free name loaded) or
    ``["attr", a, b, ...]`` (an attribute chain ``a.b...`` rooted at a free name), in the order
    ``ast.walk`` meets them."""
    fn = python_function(jit)
    parsed = parsed_source(fn)
    if parsed is not None:  # parsed in this process already (the source the frontend lowers)
        return parsed.text, _reads(jit, parsed)
    root = cachedir.root()
    memo = _memo_path(fn, root) if root is not None else None
    content = cachedir.file_digest(fn.__code__.co_filename) if memo is not None else None
    if content is not None:
        found = _read_memo(memo, content)
        if found is not None:
            return found
    source = load_source(jit)
    reads = _reads(jit, source)
    if content is not None and content == cachedir.file_digest(fn.__code__.co_filename):  # not edited meanwhile
        record = {"format": SYNTAX_FORMAT, "sha256": content, "text": source.text, "reads": reads}
        cachedir.write_sealed_json(memo, record, root)
    return source.text, reads


def _reads(jit: Any, source: Any) -> list[list[str]]:
    # every parameter's name, *args too (such a function fails where it is called, with its location)
    local = set(inspect.signature(python_function(jit)).parameters) | set(names_assigned(source.tree.body))
    reads: list[list[str]] = []
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            reads.append(["name", node.id])
        elif isinstance(node, ast.Attribute):
            chain = _attribute_chain(node)
            if chain is not None and chain[0] not in local:
                reads.append(["attr", *chain])
    return reads


def _memo_path(fn: Any, root: Any) -> str | None:
    code = fn.__code__
    if code.co_filename.startswith("<"):
        return None  # notebook cells and exec'd code: parsed every time
    name = f"{code.co_filename}\0{fn.__qualname__}\0{code.co_firstlineno}"
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(root, MEMO_FOLDER, digest + ".json")


def _read_memo(path: str, content: str) -> tuple[str, list[list[str]]] | None:
    """The memo's (text, reads) when it is sealed, of the right shape and made from a file of
    the sha256 ``content``."""
    record = cachedir.read_sealed_json(path)
    if record is None or record.get("format") != SYNTAX_FORMAT or record.get("sha256") != content:
        return None
    text, reads = record.get("text"), record.get("reads")
    if not isinstance(text, str) or not _valid_reads(reads):
        return None
    return text, reads


def _valid_reads(reads: Any) -> bool:
    """``[["name", n] | ["attr", a, b, ...], ...]`` with every item a string."""
    if type(reads) is not list:  # JSON gives plain lists and strings: no subclass to allow for
        return False
    for read in reads:  # plain loops: no generator per read on the cached launch's path
        if type(read) is not list:
            return False
        count = len(read)
        if count == 2:  # ["name", n]
            if read[0] != "name":
                return False
        elif count < 3 or read[0] != "attr":  # ["attr", a, b, ...]: a chain of two names or more
            return False
        for part in read:
            if type(part) is not str:
                return False
    return True


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
