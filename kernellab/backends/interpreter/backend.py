"""The interpreter backend: Tile IR -> generated Python (the ``py`` stage) -> a launcher that
runs the programs of a grid one after another (x fastest, then y, then z)."""

from __future__ import annotations

import hashlib
import linecache
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ... import _VERSION
from ...errors import InterpreterError, LaunchError
from ...ir.core import Module, Op
from ...ir.ops.registry import numpy_dtype
from ...ir.printer import print_module
from ...ir.types import PointerType, ScalarType, TensorDescType
from ..capabilities import DOT_INPUT_PRECISIONS, Capabilities
from .buffers import as_buffer, host_descriptor
from .codegen import GeneratedProgram, generate
from .context import InterpreterContext
from .options import validate
from .pointers import access_sites

_FINGERPRINT = re.compile(r"^# tile ([0-9a-f]+)$", re.MULTILINE)
_LIVE_MODULES = 256


def tile_bytes(module: Module) -> int:
    """Bytes of every tile the kernel's ops make: a program's working set in the interpreter,
    which holds each as an array, and so its ``shared`` figure (Triton's occupancy code divides
    by it)."""
    from ...ir.types import TileType

    total = 0
    for op in module.walk():
        for result in op.results:
            if isinstance(result.type, TileType):
                total += int(np.prod(result.type.shape)) * numpy_dtype(result.type.element_ty).itemsize
    return total


class InterpreterBackend:
    """``backends.get("interpret")``: eager numpy execution, the living spec of every op."""

    name = "interpret"
    capabilities = Capabilities(
        name="interpret", gpu=False, launches_host_arrays=True, array_location="cpu", min_dot_size=(1, 1, 1),
        dot_input_precisions=DOT_INPUT_PRECISIONS, default_dot_input_precision="ieee", debug_by_default=True,
        parallel_compile="sequential", timer="host", native_launch=None, interpreter_errors=True)

    def __init__(self, target: str = "interpret"):
        self.target = target
        self._live: OrderedDict[str, tuple[Module, GeneratedProgram]] = OrderedDict()
        self._lock = threading.Lock()

    def options(self, **user: Any) -> dict:
        return validate(user)

    def version_key(self) -> str:
        return f"interpret-{_VERSION}-numpy{np.__version__}-{_source_digest()}"

    def compile(self, module: Module, options: dict, metadata: dict) -> dict[str, str | bytes]:
        from ...passes.pipeline import record_pass  # the compiler's (not loaded by a cache hit)

        start = time.perf_counter()
        fingerprint = _fingerprint(print_module(module))
        header = f"kernellab interpreter: @{module.kernel.name}\ntile {fingerprint}"
        program = generate(module, header)
        with self._lock:
            self._live[fingerprint] = (module, program)
            self._live.move_to_end(fingerprint)
            while len(self._live) > _LIVE_MODULES:
                self._live.popitem(last=False)
        metadata.setdefault("line_maps", {})["py"] = [[line, op.loc.file, op.loc.line, op.loc.col]
                                                      for line, op in sorted(program.line_ops.items()) if op.loc.line]
        metadata.setdefault("compile_seconds", {})["py"] = time.perf_counter() - start
        record_pass("py", program.source, dialect="py", seconds=metadata["compile_seconds"]["py"])
        metadata["shared"] = tile_bytes(module)
        for resource in ("registers", "spills"):
            metadata.setdefault(resource, 0)
        return {"py": program.source}

    def load(self, asm: dict, metadata: dict) -> InterpreterLauncher:
        """A launcher for compiled stages: the live module when this backend compiled the same
        Tile IR (the ``tile`` stage, else the fingerprint in the ``py`` header), otherwise the
        ``tile`` stage parsed (a kernel from the disk cache, or an edited stage)."""
        if "tile" in asm:
            fingerprint = _fingerprint(str(asm["tile"]))
        else:
            found = _FINGERPRINT.search(str(asm.get("py", "")))
            fingerprint = found.group(1) if found else ""
        with self._lock:
            live = self._live.get(fingerprint)
        if live is not None:
            return InterpreterLauncher(*live)
        if "tile" not in asm:
            raise LaunchError("the interpreter needs the 'tile' stage to load a kernel it did not compile "
                              "in this process")
        from ...ir.parser import parse_module

        module = parse_module(asm["tile"])
        return InterpreterLauncher(module, generate(module))


class InterpreterLauncher:
    """Runs a compiled module: ``launcher(grid, args)``; ``args`` are the kernel's arguments in
    order (buffers or arrays for pointers, numbers for scalars)."""

    def __init__(self, module: Module, program: GeneratedProgram):
        kernel = module.kernel
        self.module = module
        self.program = program
        self.arg_types = list(kernel.arg_types)
        self.arg_names = [_argument_name(i, kernel) for i in range(len(kernel.args))]
        self.context = InterpreterContext(access_sites(module), self.arg_names)
        digest = hashlib.sha256(program.source.encode()).hexdigest()[:12]
        self.filename = f"<kernellab-interpret @{kernel.name} {digest}>"
        linecache.cache[self.filename] = (len(program.source), None, program.source.splitlines(True), self.filename)
        namespace: dict[str, Any] = {}
        exec(compile(program.source, self.filename, "exec"), namespace)
        self._launch = namespace["build"](self._bind, self._bind_results, np, self.context)
        self._lock = threading.Lock()

    @property
    def source(self) -> str:
        return self.program.source

    def _bind(self, index: int, regions: list | None = None):
        op = self.program.ops[index]
        return op.opdef.bind_value(op, self.context, regions)

    def _bind_results(self, index: int, regions: list | None = None):
        op = self.program.ops[index]
        return op.opdef.bind(op, self.context, regions)

    def __call__(self, grid: Sequence[int] | int, args: Sequence[Any], stream: Any = None) -> None:
        grid = _grid(grid)
        values, buffers = self._arguments(args)
        context = self.context
        with self._lock, np.errstate(all="ignore"):
            context.grid = grid
            context.pid = (0, 0, 0)
            context.bind_buffers(buffers)
            try:
                self._launch(grid, *values)
            except InterpreterError:
                raise
            except Exception as error:
                raise self._located(error) from error
            finally:
                context.release()

    def _arguments(self, args: Sequence[Any]) -> tuple[list, dict[int, Any]]:
        if len(args) != len(self.arg_types):
            raise LaunchError(f"kernel takes {len(self.arg_types)} argument(s) ({', '.join(self.arg_names)}), "
                              f"got {len(args)}")
        values: list[Any] = []
        buffers: dict[int, Any] = {}
        for index, (ty, arg) in enumerate(zip(self.arg_types, args)):
            name = self.arg_names[index]
            if isinstance(ty, PointerType) and not ty.is_block_ptr():
                buffer = None if arg is None else as_buffer(arg, name)
                buffers[index] = buffer
                values.append(np.int64(0 if buffer is None else buffer.address))
            elif isinstance(ty, ScalarType):
                values.append(_scalar(ty, arg, name))
            elif isinstance(ty, TensorDescType):
                value, buffer = host_descriptor(arg, ty, name)
                if buffer is not None:
                    buffers[index] = buffer
                values.append(value)
            else:
                values.append(arg)
        return values, buffers

    def _located(self, error: Exception) -> InterpreterError:
        """``error`` (raised by a reference) as an InterpreterError naming the op, its source
        location and the program."""
        op = self._failing_op(error)
        where = f"{op.name} at {op.loc}" if op is not None else "the kernel"
        return InterpreterError(f"{type(error).__name__} in {where}, program {self.context.pid}: {error}")

    def _failing_op(self, error: Exception) -> Op | None:
        op = None
        tb = error.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                op = self.program.line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        return op


def _fingerprint(tile_text: str) -> str:
    return hashlib.sha256(tile_text.encode()).hexdigest()[:24]


def _argument_name(index: int, kernel) -> str:
    hint = kernel.args[index].name_hint
    return hint or str(kernel.arg_attrs[index].get("name", "")) or f"arg{index}"


def _grid(grid: Sequence[int] | int) -> tuple[int, int, int]:
    dims = (grid,) if isinstance(grid, (int, np.integer)) else tuple(grid)
    if not 1 <= len(dims) <= 3 or any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0
                                      for d in dims):
        raise LaunchError(f"a grid is 1 to 3 non-negative integers, got {grid!r}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))


def _scalar(ty: ScalarType, value: Any, name: str) -> Any:
    try:
        if ty.is_int() and not ty.is_bool():
            if int(value) != value:
                raise ValueError("not an integer")
            value = int(value)
        return numpy_dtype(ty).type(value)
    except (OverflowError, ValueError, TypeError) as error:
        raise LaunchError(f"argument {name} is {ty.name}; {value!r} does not fit ({error})") from None


_DIGEST: list[str] = []


def _source_digest() -> str:
    """A digest of the interpreter and of the op references it executes."""
    if not _DIGEST:
        root = Path(__file__).resolve().parents[2]
        digest = hashlib.sha256()
        for path in sorted([*Path(__file__).parent.glob("*.py"), *(root / "ir" / "ops").glob("*.py")]):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        _DIGEST.append(digest.hexdigest()[:16])
    return _DIGEST[0]
