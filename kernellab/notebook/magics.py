"""``%%tile_kernel``: compile the kernel a cell defines and show every stage beside the cell.

``%load_ext kernellab`` registers it; ``%%tile_kernel?`` prints the options.  The cell runs in
the user's namespace (its kernels are defined there), under a stable file name (``cell.py``)
so every stage's line map points at the cell's lines.  A compile error raises (an executed
notebook fails) with the cell line it is on.  Compiled results are cached by the cell's text,
the options, the arguments' specialization and the toolchain.
"""

from __future__ import annotations

import functools
import hashlib
import json
import traceback
from dataclasses import dataclass, field
from typing import Any

from IPython.core import magic_arguments
from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class

from ..errors import CompilationError, KernelLabError, LaunchError
from . import bundle as schema
from . import launch
from .cell import (
    Cell,
    OptionError,
    choose_kernel,
    evaluate,
    joined,
    kernels_in,
    parse_args,
    parse_assignments,
    parse_check,
    parse_signature,
    parse_stages,
    triton_kernels_in,
)
from .compile_report import CompileReport
from .tutorial import target as notebook_target


@dataclass
class Compiled:
    """What the cache keeps for one (cell, options, specialization, toolchain)."""

    compiled: Any
    bundle: dict[str, Any]


@dataclass
class TileKernelResult:
    """What a ``%%tile_kernel`` cell gives back (also ``_tile_kernel`` in the namespace): the
    kernel's name, the CompiledKernel, its report, and the run's measurements."""

    kernel: str
    compiled: Any
    report: CompileReport
    cached: bool
    run: dict[str, Any] = field(default_factory=dict)

    @property
    def ms(self) -> float | None:
        return self.run.get("ms")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.report._repr_mimebundle_(include, exclude)

    def __repr__(self) -> str:
        return f"<%%tile_kernel {self.kernel} for {self.compiled.target}{' (cached)' if self.cached else ''}>"


# ---------------------------------------------------------------------------------------------
# What the options ask for
# ---------------------------------------------------------------------------------------------

@dataclass
class Request:
    """A cell's options, evaluated."""

    name: str
    kernel: Any
    spec: launch.Specialization
    target: str
    options: dict[str, Any]
    named: dict[str, Any] | None
    notes: list[str]


def _request(opts: Any, cell: Cell, namespace: dict[str, Any]) -> Request:
    try:
        return _evaluated_request(opts, cell, namespace)
    except TypeError as error:  # arguments or settings that do not fit the kernel's parameters
        raise OptionError(str(error)) from None


def _evaluated_request(opts: Any, cell: Cell, namespace: dict[str, Any]) -> Request:
    name, kernel = choose_kernel(kernels_in(cell, namespace), opts.kernel, triton_kernels_in(cell, namespace))
    constexprs = parse_assignments(opts.constexprs or "", namespace, "--constexprs")
    params, options = launch.split_options(kernel, parse_assignments(opts.config or "", namespace, "--config"))
    if opts.args and opts.signature:
        raise OptionError("give --signature (types) or --args (example arguments), not both")
    named = None
    if opts.args:
        given = launch.named_arguments(kernel, parse_args(opts.args, namespace))
        named = {**given, **constexprs, **params}
    extra, notes = launch.wrapper_settings(kernel, named, bool(opts.config))
    notes = [note + "; pick one with --config" for note in notes]
    wrapper_params, wrapper_options = launch.split_options(kernel, extra)
    options = {**wrapper_options, **options}
    constexprs = {**wrapper_params, **constexprs, **params}
    if named is not None:
        named.update(constexprs)
        spec = launch.specialize(kernel, named)
        return Request(name, kernel, spec, launch.choose_target(kernel, spec, opts.target), options, named, notes)
    spec = _typed(kernel, parse_signature(opts.signature or ""), constexprs)
    return Request(name, kernel, spec, opts.target or notebook_target(), options, None, notes)


def _typed(kernel: Any, signature: dict[str, str], constexprs: dict[str, Any]) -> launch.Specialization:
    from ..runtime.compiler import split_signature

    try:
        types, values = split_signature(launch.base_kernel(kernel), signature, constexprs)
    except TypeError as error:
        raise OptionError(f"{error}; give the types with --signature \"x_ptr=*fp32, n=i32\" (or example arguments "
                          "with --args) and constexpr values with --constexprs \"BLOCK=1024\"") from None
    return launch.Specialization(signature=types, constexprs=values)


def _check_options(request: Request) -> None:
    """The target and compile options, checked by the backend before anything compiles."""
    from .. import backends
    from ..runtime.compiler import resolve_options

    try:
        resolve_options(request.target, backends.get(request.target), request.options)
    except (ValueError, TypeError, ImportError) as error:
        raise OptionError(f"--target {request.target} / --config: {error}") from None


def _cache_key(cell: Cell, request: Request, stages: list[str] | None) -> str:
    from .. import backends
    from ..runtime.cache import compiler_fingerprint, stable_value

    parts = {"cell": cell.body, "kernel": request.name, "target": request.target, "spec": request.spec.key(),
             "options": {k: stable_value(v) for k, v in request.options.items()}, "stages": stages,
             "toolchain": backends.get(request.target).version_key(), "kernellab": compiler_fingerprint()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Running and checking
# ---------------------------------------------------------------------------------------------

def _run(opts: Any, request: Request, compiled: Any, namespace: dict[str, Any]) -> dict[str, Any]:
    if request.named is None:
        raise OptionError("--run, --bench and --check launch the kernel: give its arguments with --args")
    _check_launchable(request.target)
    named = request.named
    local = {**named, "meta": {**named, **request.options}}
    grid_value = evaluate(opts.grid, namespace, "--grid", local) if opts.grid else (1,)
    try:
        grid = launch.resolve_grid(grid_value, named, request.spec, request.options)
    except LaunchError as error:
        raise OptionError(f"--grid {opts.grid or '(default)'!r} gives {grid_value!r}: {error}") from None
    found: dict[str, Any] = {"grid": list(grid)}
    with launch.placed(named, request.target) as placed:
        launch.launch(compiled, grid, placed)
        if opts.bench:
            ms, low, high = launch.bench(compiled, grid, placed)
            found.update(ms=ms, ms_p20=low, ms_p80=high)
    if opts.check:
        found["check"] = _check(opts, request, namespace)
    if "ms" in found:
        flops = evaluate(opts.flops, namespace, "--flops", local) if opts.flops else None
        found.update(launch.throughput(found["ms"], launch.array_bytes(named), flops))
    return found


def _check_launchable(target: str) -> None:
    """A GPU target's kernel compiles anywhere but launches only where a device is."""
    from ..runtime.targets import default_host_target, target_available

    if target_available(target):
        return
    raise OptionError(f"--run, --bench and --check launch the kernel, and this machine cannot launch on {target} "
                      f"(no CUDA device here); compile for {target} without --run/--bench/--check to read its "
                      f"stages, or launch on --target {default_host_target()}")


def _check(opts: Any, request: Request, namespace: dict[str, Any]) -> str:
    output, expression = parse_check(opts.check)
    named = request.named or {}
    output = output or launch.last_array(named, launch.base_kernel(request.kernel).arg_names)
    actual = named[output] if output in named else namespace.get(output)
    if actual is None:
        raise OptionError(f"--check: {output!r} is neither an argument of {request.name} nor a variable")
    expected = evaluate(expression, namespace, "--check", named)
    problem = launch.check_close(actual, expected, atol=opts.atol, rtol=opts.rtol)
    if problem is not None:
        raise AssertionError(f"%%tile_kernel --check: {output} of {request.name} differs from {expression}:\n{problem}")
    return f"{output} ok"


def _shown(run: dict[str, Any]) -> dict[str, str]:
    """The run's facts as the report's chips show them."""
    shown = {}
    if "ms" in run:
        shown["time"] = launch.describe_ms(run["ms"])
    for key in ("GB/s", "TFLOP/s"):
        if key in run:
            shown[key] = f"{run[key]:.2f}"
    if "check" in run:
        shown["check"] = run["check"]
    return shown


# Options whose words are name=value items (joined by ", ") and those that are one expression.
_ITEM_OPTIONS = ("signature", "constexprs", "config")
_EXPRESSION_OPTIONS = ("grid", "check", "flops")


def _words_joined(opts: Any) -> Any:
    """The parsed options with each option's words as one text (--args keeps its words)."""
    for name in _ITEM_OPTIONS:
        setattr(opts, name, joined(getattr(opts, name), ", "))
    for name in _EXPRESSION_OPTIONS:
        setattr(opts, name, joined(getattr(opts, name), " "))
    return opts


_RED, _CYAN, _GREEN, _PLAIN = "\x1b[31m", "\x1b[36m", "\x1b[32m", "\x1b[0m"


def _frame(cell: Cell, file: str, line: int, function: str | None, source_line: str | None,
           col: int | None) -> str:
    """One frame as the magic's tracebacks show it: where (the cell, or a file), the line, and
    the source line with a caret under column ``col`` (1-based) when there is one."""
    where = "%%tile_kernel cell" if file == cell.filename else file
    named = f", in {_GREEN}{function}{_PLAIN}" if function and function != "<module>" else ""
    frame = f"{_CYAN}{where}{_PLAIN}, line {line}{named}"
    if source_line is not None and source_line.strip():
        stripped = source_line.strip()
        frame += f"\n{line:>5}     {stripped}"
        if col is not None:
            caret = " " * max(0, col - (len(source_line) - len(source_line.lstrip())))
            frame += f"\n          {caret}{_RED}^{_PLAIN}"
    return frame


def _message(error: BaseException, text: str) -> str:
    notes = [note for note in getattr(error, "__notes__", []) if "of the %%tile_kernel cell)" not in note]
    return "\n".join([f"{_RED}{type(error).__name__}{_PLAIN}: {text}", *notes])


def _cell_traceback(error: CompilationError, cell: Cell) -> list[str]:
    """What IPython shows for a compile error of a cell: the kernel's frame (file, line,
    function, the line with a caret) and the message; not the magic's own frames nor the
    ``run_cell_magic(...)`` call that holds the whole cell."""
    loc = error.loc
    shown = [f"{_RED}{type(error).__name__}{_PLAIN}"]
    if loc is not None and loc.line > 0:
        shown.append(_frame(cell, loc.file, loc.line, error.function, error.source_line, loc.col))
    shown.append(_message(error, error.message))
    return shown


def _cell_code_traceback(error: BaseException, cell: Cell) -> list[str]:
    """What IPython shows for an error raised by the cell's own Python (a name it does not
    define...): the frames from the cell's on, as for any cell.  (IPython shows a SyntaxError
    its own way, with every frame, whatever the exception says.)"""
    shown = [f"{_RED}{type(error).__name__}{_PLAIN}"]
    frames = traceback.extract_tb(error.__traceback__)
    first = next((i for i, frame in enumerate(frames) if frame.filename == cell.filename), 0)
    shown += [_frame(cell, frame.filename, frame.lineno or 0, frame.name, frame.line, None) for frame in frames[first:]]
    shown.append(_message(error, str(error)))
    return shown


def _message_only(error: BaseException, cell: Cell) -> list[str]:
    """What IPython shows for a failed --check or a launch the runtime refused: the message (the
    frames would be the magic's own), a location in the cell named as the cell."""
    return [_message(error, str(error).replace(f"{cell.filename}:", "%%tile_kernel cell:"))]


# ---------------------------------------------------------------------------------------------
# The magic
# ---------------------------------------------------------------------------------------------

@magics_class
class TileKernelMagics(Magics):
    """The ``%%tile_kernel`` cell magic (its cache lives as long as the extension is loaded)."""

    def __init__(self, shell: Any = None):
        super().__init__(shell)
        self.cache: dict[str, Compiled] = {}
        self.stats = {"compiled": 0, "cached": 0}

    @magic_arguments.magic_arguments()
    @magic_arguments.argument("--target", default=None,
                              help="cpu, cuda, cuda:sm_XX or interpret (default: where --args live, else cuda when "
                                   "a GPU is present, else cpu)")
    @magic_arguments.argument("--signature", default=None, nargs="+",
                              help='types of the runtime parameters: x_ptr=*fp32 n=i32 (or "x_ptr=*fp32, n=i32")')
    @magic_arguments.argument("--args", default=None, nargs="+",
                              help="example arguments: name=value words, a value being a Python expression or a new "
                                   "array dtype[shape] (x=f32[4096] y=f32[4096] out=f32[4096] n=4096), or one "
                                   'Python expression (in the notebook\'s namespace): "(x, y, out, n)" or a dict')
    @magic_arguments.argument("--constexprs", default=None, nargs="+",
                              help='constexpr values: BLOCK=1024 (several: BLOCK_M=64 BLOCK_N=64)')
    @magic_arguments.argument("--config", default=None, nargs="+",
                              help="compile options and meta-parameters: num_warps=8 num_stages=2")
    @magic_arguments.argument("--kernel", default=None, help="which kernel of the cell (default: the last one)")
    @magic_arguments.argument("--stages", default=None, help="stages to show: tile,llvm,ptx (default: all)")
    @magic_arguments.argument("--grid", default=None, nargs="+",
                              help="launch grid, a Python expression that may use the arguments by name, e.g. "
                                   "kl.cdiv(n,BLOCK) or \"(kl.cdiv(n, BLOCK),)\", or a function of meta (default: 1)")
    @magic_arguments.argument("--run", action="store_true", help="launch the kernel once on --args")
    @magic_arguments.argument("--bench", action="store_true", help="time the kernel (do_bench) on --args")
    @magic_arguments.argument("--check", default=None, nargs="+",
                              help="compare an output with a reference after the run: out=x+y, or just a "
                                   "reference expression (compared with the last array argument)")
    @magic_arguments.argument("--atol", type=float, default=None, help="absolute tolerance of --check (1e-2)")
    @magic_arguments.argument("--rtol", type=float, default=None, help="relative tolerance of --check (0)")
    @magic_arguments.argument("--flops", default=None, nargs="+",
                              help="floating-point operations of one launch (an expression), for TFLOP/s")
    @cell_magic
    def tile_kernel(self, line: str, cell: str) -> TileKernelResult:
        """Compile the kernel this cell defines and show every compiler stage beside the cell.

        The cell runs in the notebook's namespace.  Its last @jit kernel (or --kernel NAME) is
        compiled for --signature types or --args example arguments, on --target; the report
        links each line of each stage (Tile IR, LLVM IR, PTX, SASS or host assembly) to the cell
        line it came from.  --run / --bench / --check launch it on --args.
        """
        opts = _words_joined(magic_arguments.parse_argstring(self.tile_kernel, line))
        try:
            return self.compile_cell(opts, cell)
        except OptionError as error:
            raise UsageError(f"%%tile_kernel: {error}") from None

    def compile_cell(self, opts: Any, body: str) -> TileKernelResult:
        namespace = self.shell.user_ns
        cell = Cell.of(body)
        try:
            cell.run(namespace, self.shell.transform_cell)
        except Exception as error:
            if isinstance(error, ModuleNotFoundError) and error.name == "triton":
                error.add_note("kernellab stands in for Triton: %as_triton makes `import triton` give kernellab "
                               "(or write `import kernellab as triton`)")
            error._render_traceback_ = functools.partial(_cell_code_traceback, error, cell)
            raise
        request = _request(opts, cell, namespace)
        _check_options(request)
        stages = parse_stages(opts.stages)
        key = _cache_key(cell, request, stages)
        entry = self.cache.get(key)
        cached = entry is not None
        if entry is None:
            entry = self.cache[key] = self._compile(cell, request, stages)
        self.stats["cached" if cached else "compiled"] += 1
        try:
            run = _run(opts, request, entry.compiled, namespace) if (opts.run or opts.bench or opts.check) else {}
        except (AssertionError, KernelLabError) as error:
            error._render_traceback_ = functools.partial(_message_only, error, cell)
            raise
        data = {**entry.bundle, "metadata": {**entry.bundle["metadata"], "run": _shown(run)} if run else
                entry.bundle["metadata"]}
        data["diagnostics"] = [*data["diagnostics"], *({"severity": "info", "message": note, "stage": None}
                                                        for note in request.notes)]
        result = TileKernelResult(request.name, entry.compiled, CompileReport(data, entry.compiled), cached, run)
        namespace["_tile_kernel"] = result
        return result

    def _compile(self, cell: Cell, request: Request, stages: list[str] | None) -> Compiled:
        try:
            compiled = launch.compile_for(request.kernel, request.spec, request.target, request.options)
        except CompilationError as error:
            if error.loc is not None and error.loc.file == cell.filename:
                error.add_note(f"(line {error.loc.line} of the %%tile_kernel cell)")
            # IPython asks an exception for its own traceback first (_render_traceback_)
            error._render_traceback_ = functools.partial(_cell_traceback, error, cell)
            raise error.with_traceback(None) from None
        source = schema.SourceRegion(cell.filename, Cell.FIRST_LINE, cell.body)
        try:
            data = schema.build(compiled, stages, source)
        except ValueError as error:  # --stages names a stage this target does not have
            raise OptionError(str(error)) from None
        return Compiled(compiled, data)


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext kernellab``: register ``%%tile_kernel`` and ``%as_triton`` (the alias that makes
    ``import triton`` give kernellab: ``kernellab.as_triton``).  Where Triton is not installed, a
    first ``import triton`` installs the alias, so that Triton code pasted into the notebook runs
    unchanged (``%as_triton off`` removes it); where it is, ``import triton`` stays Triton's."""
    from .. import as_triton

    shell.register_magics(TileKernelMagics)
    shell.register_magic_function(as_triton.as_triton_magic, "line", "as_triton")
    as_triton.install_where_absent()


def unload_ipython_extension(shell: Any) -> None:
    """``%unload_ext kernellab``: remove ``%%tile_kernel`` (an alias installed stays)."""
    from .. import as_triton

    as_triton.remove_where_absent()
    magics = shell.magics_manager.registry.pop(TileKernelMagics.__name__, None)
    cells = shell.magics_manager.magics.get("cell", {})
    if cells.get("tile_kernel") is not None and (magics is None or getattr(cells["tile_kernel"], "__self__", None)
                                                 is magics):
        del cells["tile_kernel"]


__all__ = ["TileKernelMagics", "TileKernelResult", "load_ipython_extension", "unload_ipython_extension"]
