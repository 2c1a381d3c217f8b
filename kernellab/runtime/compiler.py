"""The compile pipeline and ``kl.compile``.

``frontend.lower`` -> ``passes.default_pipeline`` -> ``ir.verifier.verify`` -> print "tile"
(``print_with_locations``; its line map goes into the metadata) -> ``backend.compile`` (the
backend's stages).  Each step's seconds go into ``metadata["compile_seconds"]``.

The whole pipeline runs inside ``passes.recording()``: the frontend's output, every pass and
the backend's own steps (``passes.record_pass``) become one trail of records: its summary is
``metadata["passes"]`` (``[{"name", "ms", "changed"}]``), the IR after each step the
``passes`` entry of ``asm`` (JSON, ``passes.trail_text``).  A backend that records no step
of its own gets one record per textual stage it produced.

:func:`compile_specialized` wraps the pipeline in the on-disk cache (``cache.py``); the cache
key covers the source of the kernel and every jit function it calls, the values of the globals
it reads, the signature, specialization and constexprs, the options, the target, the backend's
toolchain and kernellab's own version (its source files' hash).
"""

from __future__ import annotations

import inspect
import json
import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import backends, cachedir, config
from ..errors import CompilationError, interpreted, user_errors, without_frames
from ..frontend.arguments import (
    constant_leaves,
    describe_entry,
    display_name,
    leaf_name,
    runtime_leaves,
    split_leaf_name,
)
from ..frontend.signature import signature_type
from ..ir import types as T
from ..ir.types import Type
from .cache import DiskCache, cache_key, compiler_fingerprint, fingerprint, stable_value
from .compiled import CompiledKernel
from .targets import default_host_target

if TYPE_CHECKING:
    from .ir_override import StageOverride


@contextmanager
def _timed(seconds: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        seconds[stage] = time.perf_counter() - start


_PLAIN_JSON = frozenset((str, int, bool, type(None)))  # values JSON gives back as they are


def _json_normalized(metadata: dict[str, Any]) -> dict[str, Any]:
    """Metadata as it reads back from the disk cache (tuples become lists...).  A flat dict of
    strings, integers, booleans and None (a backend's options) is copied as it is (the JSON
    round trip cost a cached first launch ~0.03 ms)."""
    if type(metadata) is dict and _PLAIN_JSON.issuperset(map(type, metadata.values())) \
            and all(type(name) is str for name in metadata):
        return dict(metadata)
    return json.loads(json.dumps(metadata, allow_nan=False))


_disk_caches: dict[Path, DiskCache] = {}  # cachedir.root() -> its DiskCache (which holds no state)


def disk_cache() -> DiskCache | None:
    """The on-disk cache, or ``None`` when ``KERNELLAB_CACHE=0`` or no cache folder can be used."""
    root = cachedir.root()
    if root is None:
        return None
    found = _disk_caches.get(root)
    if found is None:
        found = _disk_caches[root] = DiskCache(root)
    return found


def default_target() -> str:
    return config.forced_target() or default_host_target()


# ---------------------------------------------------------------------------------------------
# The pipeline
# ---------------------------------------------------------------------------------------------

def source_text(jit: Any, callees: list[Any]) -> str:
    """The ``source`` stage: the kernel's Python source, then each jit function it calls."""
    parts = [jit.src]
    for callee in callees:
        fn = getattr(callee, "fn", callee)
        text = getattr(callee, "src", None) or inspect.getsource(fn)
        try:
            where = f"{inspect.getsourcefile(fn)}:{fn.__code__.co_firstlineno}"
        except (TypeError, AttributeError):
            where = "?"
        parts.append(f"# ---- {fn.__qualname__} ({where}) ----\n{text}")
    return "\n".join(part if part.endswith("\n") else part + "\n" for part in parts)


def _first_metadata(jit: Any, target: str, signature: dict[str, Type], constexprs: dict[str, Any],
                    arg_attrs: dict[str, dict], options: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": jit.__name__,
        "target": target,
        "num_warps": options.get("num_warps"),
        "num_stages": options.get("num_stages"),
        "num_ctas": options.get("num_ctas"),
        "maxnreg": options.get("maxnreg"),
        "debug": bool(options.get("debug", False)),
        "options": options,
        "arg_names": list(jit.arg_names),
        "constexpr_params": [p.name for p in jit.params if p.is_constexpr],
        "signature": {name: T.to_signature(ty) for name, ty in runtime_leaves(signature).items()},
        "constexprs": {name: stable_value(value)
                       for name, value in {**constexprs, **constant_leaves(signature)}.items()},
        "specialization": arg_attrs,
        "source_location": {"file": jit.source_file, "first_line": jit.first_line},
        "compile_seconds": {},
        "line_maps": {},
        "shared": 0,  # bytes of shared memory; GPU backends set it (with registers and spills)
        "kernellab_version": compiler_fingerprint(),
    }


def build(jit: Any, callees: list[Any], signature: dict[str, Type], constexprs: dict[str, Any],
          arg_attrs: dict[str, dict], target: str, backend: Any, options: dict[str, Any],
          override: StageOverride | None = None) -> tuple[dict[str, str | bytes], dict[str, Any]]:
    """Run the pipeline: returns ``(asm, metadata)``.  With ``override`` (``ir_override``) the
    pipeline starts from that stage's edited text."""
    from ..frontend import lower
    from ..ir.effects import written_arguments
    from ..ir.parser import parse_module
    from ..ir.printer import print_module, print_with_locations
    from ..ir.verifier import verify
    from ..passes import DEFAULT_PIPELINE, pipeline, record_pass, recording, trail_text

    metadata = _first_metadata(jit, target, signature, constexprs, arg_attrs, options)
    seconds = metadata["compile_seconds"]
    start = time.perf_counter()
    passes = pipeline(DEFAULT_PIPELINE)
    with recording() as trail:
        if override is not None and override.stage == "tile":
            with _timed(seconds, "parse"):
                module = parse_module(override.text)
            record_pass("ir_override", print_module(module), dialect="tile", seconds=seconds["parse"])
        else:
            with _timed(seconds, "lower"):
                module = lower(jit, signature, constexprs, arg_attrs, semantic_options(target, options))
            lowered = record_pass("lower", print_module(module), dialect="tile", seconds=seconds["lower"])
            with _timed(seconds, "passes"):
                module = passes.run(module, before=lowered.ir)
        with _timed(seconds, "verify"):
            verify(module)
        metadata["name"] = module.kernel.name  # the jit function's repr= may have named it
        runtime = list(runtime_leaves(signature))
        metadata["written_args"] = [runtime[i] for i in sorted(written_arguments(module.kernel))]
        with _timed(seconds, "tile"):  # the last pass printed it (verify changes nothing)
            printed = passes.printed
            text, line_map = printed[1:] if printed and printed[0] is module else print_with_locations(module)
        asm: dict[str, str | bytes] = {"source": source_text(jit, callees), "tile": text}
        metadata["line_maps"]["tile"] = [[line, loc.file, loc.line, loc.col] for line, loc in line_map]
        if override is not None:
            metadata["ir_override"] = {"path": override.path, "stage": override.stage}
        before_backend = len(trail.records)
        if override is not None and override.stage != "tile":
            from .ir_override import compile_from

            produced = compile_from(backend, override, module, options, metadata)
        else:
            produced = backend.compile(module, options, metadata)
        if len(trail.records) == before_backend:
            record_stages(produced, seconds)
    asm.update(produced)
    metadata["passes"] = trail.summaries()
    asm["passes"] = trail_text(trail.records, asm)
    seconds["total"] = time.perf_counter() - start
    return asm, _json_normalized(metadata)


def semantic_options(target: str, options: dict[str, Any]) -> Any:
    """What the frontend's semantics need of a compilation: ``debug``, ``sanitize_overflow``
    (Triton's default, on; never in the interpreter, as Triton's) and the target's facts."""
    from ..backends.capabilities import FP8_NAMES
    from ..language.semantics import SemanticOptions

    facts = backends.capabilities(target)
    arch = options.get("arch")
    sanitize = bool(options.get("sanitize_overflow", True)) and not facts.debug_by_default
    fp8_types = facts.supported_fp8_types(arch)
    return SemanticOptions(debug=bool(options.get("debug", False)), sanitize_overflow=sanitize,
                           target=target, extra=dict(options), min_dot_size=facts.min_dot_size,
                           min_dot_size_8bit=facts.min_dot_size_8bit,
                           dot_input_precisions=facts.dot_input_precisions,
                           default_dot_input_precision=facts.default_dot_input_precision,
                           gpu=facts.gpu, triton_backend=facts.triton_backend, warp_size=facts.warp_size,
                           descriptor_reduce_types=facts.descriptor_reduce_types(arch),
                           fp8_types=None if set(fp8_types) == set(FP8_NAMES) else fp8_types,
                           deprecated_fp8_dot_types=facts.deprecated_fp8_dot_types(arch))


def record_stages(produced: dict[str, str | bytes], seconds: dict[str, float]) -> None:
    """One pass record per textual stage a backend produced (for a backend that records no step
    of its own with ``passes.record_pass``); its time is the stage's compile seconds."""
    from ..passes import record_pass

    for name, value in produced.items():
        if isinstance(value, str):
            record_pass(name, value, dialect=name, seconds=seconds.get(name, 0.0))


# ---------------------------------------------------------------------------------------------
# With the cache
# ---------------------------------------------------------------------------------------------

def resolve_options(target: str, backend: Any, user: dict[str, Any]) -> dict[str, Any]:
    """The backend's validated options; ``debug`` is on with ``KERNELLAB_DEBUG`` (or
    ``TRITON_DEBUG``) whatever the kernel says, as in Triton, and defaults to true where the
    backend says so (the interpreter: device_assert active); ``line_info`` is off with
    ``TRITON_DISABLE_LINE_INFO``, and ``enable_fp_fusion`` defaults to ``TRITON_DEFAULT_FP_FUSION``."""
    given = {name: value for name, value in user.items() if value is not None}
    if not config.line_info():
        given["line_info"] = False
    if "enable_fp_fusion" not in given and not config.default_fp_fusion():
        given["enable_fp_fusion"] = False
    if config.debug():
        given["debug"] = True
    elif "debug" not in given:
        given["debug"] = backends.capabilities(target).debug_by_default
    return backend.options(**given)


def key_parts(jit: Any, dependencies: Any, signature: dict[str, Type], constexprs: dict[str, Any],
              arg_attrs: dict[str, dict], target: str, backend: Any, options: dict[str, Any]) -> dict[str, Any]:
    return {
        "kernellab": fingerprint(),
        "kernel": f"{jit.fn.__module__}.{jit.fn.__qualname__}",
        "source": dependencies.source_hash,
        "globals": {name: stable_value(value) for name, value in sorted(jit.global_values().items())},
        "signature": {name: describe_entry(entry, stable_value) for name, entry in signature.items()},
        "constexprs": {name: stable_value(value) for name, value in constexprs.items()},
        "specialization": arg_attrs,
        "options": options,
        "target": target,
        "backend": backend.version_key(),
        "jit": {"version": stable_value(jit.version), "noinline": bool(jit.noinline)},
        # the stages carry source locations (line maps, .loc): the same text at another place
        # (lines added above it, another notebook cell) is another entry
        "locations": [_location(f) for f in [jit, *dependencies.callees]],
    }


def _location(jit: Any) -> list:
    code = getattr(getattr(jit, "fn", None), "__code__", None)
    return [code.co_filename, code.co_firstlineno] if code is not None else []


def _override(path: Any) -> StageOverride | None:
    """The edited stage ``ir_override`` names (its module loads only then: ~0.6 ms of import)."""
    if path is None:
        return None
    from .ir_override import read_override

    return read_override(path)


def compile_specialized(jit: Any, signature: dict[str, Type], constexprs: dict[str, Any],
                        arg_attrs: dict[str, dict], target: str, user_options: dict[str, Any]) -> CompiledKernel:
    """Compile one specialization of ``jit`` for ``target`` (through the disk cache)."""
    backend = backends.get(target)
    user_options = dict(user_options)
    override = _override(user_options.pop("ir_override", None))
    options = _json_normalized(resolve_options(target, backend, user_options))
    dependencies = jit.dependencies()
    parts = key_parts(jit, dependencies, signature, constexprs, arg_attrs, target, backend, options)
    if override is not None:
        parts["ir_override"] = override.key()
    key = cache_key(parts)
    cache = disk_cache()

    def build_it() -> tuple[dict[str, str | bytes], dict[str, Any]]:
        try:
            asm, metadata = build(jit, list(dependencies.callees), signature, constexprs, arg_attrs, target, backend,
                                  options, override)
        except Exception as error:
            error.add_note(f"(while compiling `{jit.__name__}` for target {target})")
            if backend.capabilities.interpreter_errors and isinstance(error, CompilationError):
                interpreted(error)
            raise
        metadata["cache_key"] = key
        if cache is not None:
            cache.store(key, asm, metadata)
        return asm, metadata

    kernel = _from_cache(cache, key, backend, lambda: build_it()[0]) if cache is not None else None
    if kernel is not None:
        return kernel
    asm, metadata = build_it()
    kernel = CompiledKernel(asm, metadata)
    _dump(key, kernel)
    return kernel


def _from_cache(cache: DiskCache, key: str, backend: Any, rebuild: Callable[[], dict[str, str | bytes]]
                ) -> CompiledKernel | None:
    """The kernel stored under ``key``, with the stage its backend launches from read and
    checked (the first of ``backend.load_stages`` the entry has; every stage when the backend
    names none) and the others read when ``kernel.asm`` is first used (``rebuild()`` compiles
    them again if they are found damaged then); None on a miss."""
    record = cache.record(key)
    if record is None:
        return None
    names = [stage["name"] for stage in record["stages"]]
    launching = next((name for name in getattr(backend, "load_stages", ()) if name in names), None)
    first = cache.read_stages(key, record, None if launching is None else (launching,))
    if first is None:
        return None
    others = _EntryStages(cache, key, record, names, first, rebuild) if launching is not None else None
    kernel = CompiledKernel(first, record["metadata"], other_stages=others)
    kernel.origin = "disk"
    return kernel


class _EntryStages:
    """Every stage of a cache entry, read when a kernel loaded from it is asked for its ``asm``
    (its launch read one).  A stage found damaged then (changed or removed since) warns,
    discards the entry and compiles the kernel again (which stores a new entry); the stages
    this kernel was launched from are kept."""

    def __init__(self, cache: DiskCache, key: str, record: dict[str, Any], names: list[str],
                 read: dict[str, str | bytes], rebuild: Callable[[], dict[str, str | bytes]]):
        self.cache, self.key, self.record, self.names, self.read = cache, key, record, names, read
        self.rebuild = rebuild

    def __call__(self) -> dict[str, str | bytes]:
        rest = self.cache.read_stages(self.key, self.record, [name for name in self.names if name not in self.read])
        if rest is None:
            warnings.warn(f"a stage of `{self.record['metadata'].get('name')}` could not be read back from its cache "
                          f"entry {self.cache.entry(self.key)} (changed or removed after the kernel was loaded from "
                          "it); the entry is discarded and the kernel compiled again", RuntimeWarning, stacklevel=4)
            self.cache.discard(self.key)
            rest = self.rebuild()
        found = {**rest, **self.read}
        return {name: found[name] for name in self.names if name in found}


def _dump(key: str, kernel: CompiledKernel) -> None:
    """``KERNELLAB_DUMP_DIR``: every stage of every compilation, in a folder per kernel, and
    the IR after each pass (``dump_passes``)."""
    folder = config.dump_dir()
    if folder is None:
        return
    entry = folder / f"{safe_file_name(str(kernel.metadata['name']))}-{key[:12]}"
    DiskCache(entry).store(key, dict(kernel.asm), dict(kernel.metadata))
    dump_passes(entry / "passes", kernel)


def safe_file_name(name: str) -> str:
    """``name`` as one plain file name: only letters, digits, ``_``, ``-`` and ``.`` (others
    become ``_``), not starting with a dot, at most 100 characters."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_-.") else "_" for c in name)[:100]
    return ("_" + cleaned[1:] if cleaned.startswith(".") else cleaned) or "_"


PASS_FILE_SUFFIX = {"tile": "tile", "tile.gpu": "tile", "llvm": "ll", "asm": "s", "ptx": "ptx", "py": "py"}


def dump_passes(folder: Path, compiled: CompiledKernel) -> None:
    """One file per pass record of ``compiled``: ``NN-name.suffix`` (the suffix by the record's
    dialect: ``.tile``, ``.ll``, ``.s``, ``.ptx``, ``.py``), the IR after that pass, each
    written atomically."""
    from ..files import write_atomically
    from ..passes import kernel_passes

    for index, record in enumerate(kernel_passes(compiled)):
        name = safe_file_name(record.name)
        suffix = PASS_FILE_SUFFIX.get(record.dialect, "txt")
        write_atomically(folder / f"{index:02d}-{name}.{suffix}", record.ir.encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# kl.compile
# ---------------------------------------------------------------------------------------------

def _key_name(jit: Any, key: Any, what: str) -> str:
    """A parameter's name, or a tuple element's leaf name (``"P.1"``), from a mapping's key: a
    name, a leaf name, an index, or Triton's path of indices (``(2,)``, ``(2, 1)``)."""
    path = key if isinstance(key, tuple) else (key,)
    first, rest = path[0] if path else None, tuple(path[1:])
    if isinstance(first, str) and not rest and display_name(first) != first:  # a leaf name, "P.1"
        first, rest = split_leaf_name(first)
    name = jit.arg_names[first] if isinstance(first, int) and -len(jit.arg_names) <= first < len(jit.arg_names) \
        else first
    if name not in jit.arg_names or not all(isinstance(i, int) for i in rest):
        raise TypeError(f"{what} names {key!r}, which is not a parameter of `{jit.__name__}` "
                        f"({', '.join(jit.arg_names)}) or an element of one (`name.0`, or a path of indices)")
    return leaf_name(name, rest)


def _by_name(jit: Any, mapping: dict[Any, Any] | None, what: str) -> dict[str, Any]:
    """``mapping`` keyed by parameter names (ints and 1-tuples name parameters by index) or,
    for tuple elements, leaf names (longer paths of indices: Triton's form)."""
    return {_key_name(jit, key, what): value for key, value in (mapping or {}).items()}


def split_signature(jit: Any, signature: dict[Any, Any] | None, constexprs: dict[Any, Any] | None
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Check that every parameter is typed or given a constexpr value; returns
    ``(runtime types in parameter order, constexprs)``.  A tuple parameter's type is a tuple of
    types (``("*fp32", "i32")``), its ``"constexpr"`` elements valued in ``constexprs`` by leaf
    name (``"P.1"``) or path (``(index, 1)``)."""
    given = _by_name(jit, signature, "signature")
    values = _by_name(jit, constexprs, "constexprs")
    elements = {leaf: values.pop(leaf) for leaf in [n for n in values if n not in jit.arg_names]}
    types: dict[str, Any] = {}
    for param in jit.params:
        name = param.name
        if name in values:
            continue
        if param.is_constexpr or given.get(name) == "constexpr":
            raise TypeError(f"`{name}` of `{jit.__name__}` is a constexpr: give its value in constexprs={{...}}")
        if name not in given:
            raise TypeError(f"`{jit.__name__}` needs a type or a constexpr value for every parameter; `{name}` has "
                            f"neither (signature={{'{name}': '*fp32' or 'i32'...}} or constexprs={{'{name}': ...}})")
        types[name] = signature_type(name, given[name], _element_values(name, elements))
    unused = sorted(set(elements) - set(constant_leaves(types)))
    if unused:
        raise TypeError(f"constexprs gives {', '.join(f'`{display_name(n)}`' for n in unused)}, which the signature of "
                        f"`{jit.__name__}` does not mark 'constexpr'")
    return types, values


def _element_values(name: str, elements: dict[str, Any]) -> Callable[[tuple[int, ...]], Any]:
    def value(path: tuple[int, ...]) -> Any:
        leaf = leaf_name(name, path)
        if leaf not in elements:
            raise TypeError(f"the signature marks `{display_name(leaf)}` 'constexpr' but constexprs gives it no "
                            f"value (constexprs={{'{leaf}': ...}})")
        return elements[leaf]

    return value


def compile(fn: Any, signature: dict[Any, Any] | None = None, constexprs: dict[Any, Any] | None = None,
            target: str | None = None, arg_attrs: dict[str, dict] | None = None, **options: Any) -> CompiledKernel:
    """Compile ``fn`` (a ``@jit`` function) for one signature, without launching it.

    ``signature`` maps parameter names to Triton's type strings (``"*fp32"``, ``"i32"``) or
    kernellab types, a tuple parameter to a tuple of them (``("*fp32", ("i32", "constexpr"))``);
    ``constexprs`` gives the value of every constexpr parameter, and of a tuple's ``"constexpr"``
    elements by name (``"P.1.1"``) or Triton's path (``(index, 1, 1)``); ``target``
    is ``"cpu"``, ``"interpret"``, ``"cuda"`` or ``"cuda:sm_XX"`` (no device needed);
    ``arg_attrs`` optional facts per parameter (``{"x_ptr": {"divisibility": 16}}``); the
    remaining keywords are compile options (``num_warps``, ``num_stages``, ``debug``...).
    Triton's form ``compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget(...),
    options={...})`` is accepted too.
    """
    from . import jit as jit_module
    from .ast_source import ASTSource, target_name
    from .specialize import Specialization

    source = fn if isinstance(fn, ASTSource) else None
    if source is not None:
        fn, signature, constexprs, arg_attrs = fn.fn, fn.runtime_signature(), fn.constexprs, fn.arg_attrs()
    if isinstance(fn, str | os.PathLike):
        raise TypeError(f"compile({str(fn)!r}): kernellab compiles @jit functions (or an ASTSource), not IR files; "
                        "Triton's .ttir/.ttgir files are MLIR, which kernellab's compiler does not read (its IR "
                        "is its own). To start from an edited stage, compile the kernel with ir_override=path "
                        "(a .tile, .ll or .ptx file)")
    if isinstance(options.get("options"), dict):
        options = {**options.pop("options"), **options}
    target = target_name(target)
    kernel = fn if isinstance(fn, jit_module.JITFunction) else jit_module.jit(fn)
    types, values = split_signature(kernel, signature, constexprs)
    spec = Specialization(types, values, _by_name(kernel, arg_attrs, "arg_attrs"))
    try:
        compiled = jit_module.compile_specialization(kernel, spec, target or default_target(), options)
    except user_errors(config.full_tracebacks()) as error:  # the message points at the kernel: no kernellab frames
        raise without_frames(error) from error.__cause__
    compiled.src = source if source is not None else ASTSource(kernel, dict(signature or {}), constexprs)
    return compiled


__all__ = ["compile", "compile_specialized", "build", "semantic_options", "split_signature", "disk_cache",
           "default_target", "resolve_options", "key_parts", "source_text"]
