"""``CompiledKernel``: a kernel compiled for one specialization, its stages and its launcher.

``.asm`` maps stage names to text or bytes (``source``, ``tile``, then the backend's stages)
and works on any machine; ``.metadata`` is a JSON-able dict (also readable as attributes,
``kernel.metadata.num_warps``).  The launcher is loaded from the backend on the first launch,
so compiling for a GPU needs no GPU.

``kernel[grid](*args)`` launches it directly with either all of the kernel's arguments
(constexprs included, as Triton passes them) or only its runtime ones; the jit launch path
uses the faster :meth:`CompiledKernel._run`, prepared once per kernel by :meth:`bind_values`.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import backends
from ..errors import LaunchError
from ..frontend.arguments import display_name, get_path, split_leaf_name
from ..ir import types as T
from . import interop

# Triton's stage names, read as kernellab's (the first of these the kernel has): ``asm["ttir"]``
# is the Tile IR, ``asm["ttgir"]`` its GPU form on CUDA, ``asm["llir"]`` the LLVM IR.
STAGE_ALIASES = {"ttir": ("tile",), "ttgir": ("tile.gpu", "tile"), "llir": ("llvm",)}


class Stages(dict):
    """Stage name -> text or bytes.  Stages a backend derives on demand (``lazy_stages``, e.g.
    CUDA's ``sass`` from the cubin) are computed on first access and then kept.  Triton's
    names (:data:`STAGE_ALIASES`) read the stage they stand for; they are not keys."""

    def __init__(self, asm: dict[str, str | bytes], lazy: dict[str, Callable[[dict], str | bytes]]):
        super().__init__(asm)
        self.lazy = lazy

    def __missing__(self, name: str) -> str | bytes:
        for stage in STAGE_ALIASES.get(name, ()):
            if stage in self or stage in self.lazy:
                return self[stage]
        if name not in self.lazy:
            raise KeyError(name)
        value = self[name] = self.lazy[name](self)
        return value


class Metadata(dict):
    """A dict whose keys also read as attributes (``metadata.num_warps``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no {name!r}; it has {', '.join(sorted(self))}") from None


# What a CompiledKernel holds for this process only (loaded code, bound launch functions): not pickled.
_PROCESS_STATE = ("_launcher", "_run", "_select", "_other_stages", "_asm", "_lazy_stages", "_written", "_runner")

# Program ids are int32 (tl.program_id's type, on every target), so no grid dimension exceeds this.
MAX_GRID_DIM = 2**31 - 1


def _dim(value: Any) -> int:
    try:
        dim = operator.index(value)
    except TypeError:
        raise LaunchError(f"grid dimensions must be integers, got {value!r} ({type(value).__name__})") from None
    if dim < 0:
        raise LaunchError(f"grid dimensions must be >= 0, got {dim}")
    if dim > MAX_GRID_DIM:
        raise LaunchError(f"grid dimension {dim} is too large: program ids are int32, so a dimension is at most "
                          f"2**31 - 1 = {MAX_GRID_DIM}; launch fewer, larger programs (a bigger BLOCK, or a loop)")
    return dim


def grid3(grid: Any) -> tuple[int, int, int] | None:
    """A grid of 1-3 dimensions as ``(x, y, z)``; ``None`` when a dimension is 0 (nothing runs)."""
    try:
        size = len(grid)
    except TypeError:
        raise LaunchError(f"a grid is a tuple of 1 to 3 ints or a function of the launch's arguments returning one, "
                          f"got {grid!r}") from None
    if size == 1:
        x, y, z = grid[0], 1, 1
    elif size == 2:
        x, y, z = grid[0], grid[1], 1
    elif size == 3:
        x, y, z = grid
    else:
        raise LaunchError(f"a grid has 1 to 3 dimensions, got {size}: {grid!r}")
    if (type(x) is not int or type(y) is not int or type(z) is not int or x < 0 or y < 0 or z < 0
            or x > MAX_GRID_DIM or y > MAX_GRID_DIM or z > MAX_GRID_DIM):
        x, y, z = _dim(x), _dim(y), _dim(z)
    if x and y and z:
        return (x, y, z)
    return None


def resolve_grid(grid: Any, meta: dict[str, Any], kernel: CompiledKernel) -> Any:
    """A grid given as a callable or a list, evaluated for one launch."""
    if callable(grid):
        try:
            return grid({**kernel.launch_options, **meta})
        except TypeError as error:
            if error.__traceback__ is None or error.__traceback__.tb_next is not None:
                raise  # raised inside the grid function: its own error
            raise LaunchError(f"the grid of `{kernel.metadata.get('name', '?')}` is a function, so it must take one "
                              "argument: a dict of the launch's arguments and options (e.g. lambda meta: "
                              f"(triton.cdiv(n, meta['BLOCK']),)); calling it failed: {error}") from None
    return tuple(grid) if isinstance(grid, list) else grid


LAUNCH_OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def _flattener(places: list[tuple[int, tuple[int, ...]]]) -> Callable[[tuple], tuple]:
    """A function taking a binder's value tuple to the launcher's values: the value at each
    ``(position, path)`` (``values[position][path[0]]...``), in order."""
    reads = ", ".join(f"values[{p}]" + "".join(f"[{i}]" for i in path) for p, path in places)
    return eval(f"lambda values: ({reads},)")  # noqa: S307 - made of ints only


class CompiledKernel:
    """A compiled kernel: ``asm`` (stage -> text/bytes), ``metadata`` and a launcher.

    What it holds for this process only (the loaded launcher, the bound launch functions, the
    reader of a cache entry's other stages) lives in slots, outside ``__dict__``: pickling, and
    copies of ``__dict__`` (torch inductor's compile workers send kernels so), carry the stages
    and metadata only, and the process state is made again by the first of ``metadata``,
    ``asm``, ``launcher``, ``run`` or ``_init_handles`` (no ``__getattr__``: it would slow every
    attribute read on the launch path)."""

    __slots__ = ("__dict__", "__weakref__", "_metadata", *_PROCESS_STATE)

    def __init__(self, asm: dict[str, str | bytes], metadata: dict[str, Any], launcher: Any = None, *,
                 other_stages: Callable[[], dict[str, str | bytes]] | None = None):
        """``other_stages`` (a cache hit): ``asm`` holds only the stages the backend's ``load``
        reads, and ``other_stages()`` returns every stage, read when ``asm`` is first used."""
        self.metadata = Metadata(metadata)
        target = self.metadata.get("target")
        self._lazy_stages = getattr(backends.get(target), "lazy_stages", {}) if target else {}
        self._read_stages = asm
        self._other_stages = other_stages
        self._asm: Stages | None = None if other_stages is not None else Stages(asm, self._lazy_stages)
        self.origin = "compiled"  # or "disk": where this object's stages came from
        self._launcher = launcher
        self._wants_buffers = True
        self._select: Callable | None = None
        self._slots: tuple[tuple[int, tuple[int, ...], bool, str], ...] = ()  # (position, path, pointer?, name)
        self._written: tuple[tuple[int, tuple[int, ...], str], ...] = ()  # the slots written through, once loaded
        self._runner: Callable[..., None] | None = None  # Triton's run, once made
        self._run = self._run_first
        self.launch_options = {name: self.metadata.get(name) for name in LAUNCH_OPTION_NAMES}

    # ---- what it is ----
    @property
    def metadata(self) -> Metadata:
        try:
            return self._metadata
        except AttributeError:  # made from a copy of another's __dict__
            self._after_unpickling()
            return self._metadata

    @metadata.setter
    def metadata(self, value: Any) -> None:
        """A dict, or a namedtuple of one (what torch inductor makes of it when sending it)."""
        self._metadata = value if type(value) is Metadata else Metadata(
            value._asdict() if hasattr(value, "_asdict") else value)

    @property
    def asm(self) -> Stages:
        """Stage name -> text or bytes (on a cache hit, the stages launching does not need are
        read from the entry now)."""
        try:
            stages = self._asm
        except AttributeError:  # made from a copy of another's __dict__
            self._after_unpickling()
            stages = self._asm
        if stages is None:
            stages = self._asm = Stages(self._other_stages(), self._lazy_stages)
            self._other_stages = None
        return stages

    @property
    def name(self) -> str:
        return self.metadata["name"]

    @property
    def target(self) -> str:
        return self.metadata["target"]

    @property
    def hash(self) -> str | None:
        return self.metadata.get("cache_key")

    @property
    def runtime_args(self) -> list[str]:
        """The arguments the launcher receives, in order (a tuple parameter's elements as
        ``name.0``, ``name.1.0``...: ``frontend/arguments.py``)."""
        return list(self.metadata["signature"])

    @property
    def n_regs(self) -> int:
        """Registers per thread; host targets have none to report and give 1, so occupancy
        formulas written for GPUs (``regs // (n_regs * warp_size * num_warps)``) stay finite."""
        return self.metadata.get("registers") or 1

    @property
    def n_spills(self) -> int | None:
        return self.metadata.get("spills")

    def __repr__(self) -> str:
        names = self.asm if getattr(self, "_asm", None) is not None else getattr(
            getattr(self, "_other_stages", None), "names", self._read_stages)
        return f"<CompiledKernel {self.name} for {self.target}: stages {', '.join(names)}>"

    # ---- loading ----
    def _load(self) -> None:
        backend = backends.get(self.target)
        if self._launcher is None:
            stages = self._asm if self._asm is not None else self._read_stages
            hooks = sys.modules.get("kernellab.runtime.launch_hooks")  # imported once a hook is set
            if hooks is not None and (hooks.load_start_hook is not None or hooks.load_end_hook is not None):
                self._launcher = hooks.loading(self, lambda: backend.load(stages, self.metadata))
            else:
                self._launcher = backend.load(stages, self.metadata)
        # a launcher may want Buffers where its backend does not (the CPU target's checked mode)
        self._wants_buffers = bool(getattr(self._launcher, "wants_buffers", getattr(backend, "wants_buffers", True)))
        if self._wants_buffers:
            self._run = self._run_buffers
        elif self._select is None:
            self._run = self._run_values
        else:
            self._run = self._run_selected
        written = {display_name(name) for name in self.metadata.get("written_args", ())}
        self._written = tuple((p, path, name) for p, path, is_pointer, name in self._slots
                              if is_pointer and name in written)
        if self._written and not self._wants_buffers:  # Buffers say it themselves (interop: writable)
            self._run = _checking_writes(self, self._run)

    def refuse_read_only(self, name: str) -> None:
        raise LaunchError(f"`{self.name}` writes through its argument `{name}`, but that array is read-only "
                          "(numpy: flags.writeable is False); pass a writable array (e.g. a copy)")

    def _init_handles(self) -> None:
        """Triton's name for loading the kernel (onto its device) before the first launch."""
        if "run" in self.__dict__ or "metadata" in self.__dict__:
            self._after_unpickling()
        if self._launcher is None:
            self._load()

    # ---- pickling: the stages and metadata travel; what this process loaded does not ----
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["metadata"] = dict(self.metadata)
        state["_read_stages"] = dict(self.asm)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._after_unpickling()

    def _after_unpickling(self) -> None:
        """Make this process's state again after unpickling, also where torch inductor rebuilt the
        object from a copy of its ``__dict__`` (metadata as a namedtuple, Triton's ``run``,
        ``function`` and ``module`` entries set to None)."""
        for name in ("run", "function", "module", "packed_metadata"):
            self.__dict__.pop(name, None)
        if "metadata" in self.__dict__:
            self.metadata = self.__dict__.pop("metadata")
        target = self._metadata.get("target")  # a slot read: no metadata at all is an AttributeError
        self._lazy_stages = getattr(backends.get(target), "lazy_stages", {}) if target else {}
        self._other_stages = None
        self._asm = Stages(self._read_stages, self._lazy_stages)
        self._launcher = None
        self._wants_buffers = True
        self._select = None
        self._written = ()
        self._runner = None
        self._run = self._run_first

    @property
    def launcher(self) -> Any:
        try:
            launcher = self._launcher
        except AttributeError:  # made from a copy of another's __dict__
            self._after_unpickling()
            launcher = None
        if launcher is None:
            self._load()
        return self._launcher

    # ---- the jit launch path ----
    def bind_values(self, value_names: Sequence[str], pointer_names: set[str]) -> None:
        """Prepare :meth:`_run` for a jit binder whose value tuples hold ``value_names`` (the
        kernel's non-constexpr parameters) in order; a tuple parameter's value is the tuple of
        its elements' values, whose runtime elements the launcher takes one by one."""
        runtime = self.runtime_args
        index = {}
        for k, name in enumerate(value_names):
            index.setdefault(name, k)  # the first, as list.index finds it
        places, slots, nested = [], [], False
        for leaf in runtime:  # a plain loop: this runs on every process's first launch
            if "." in leaf:  # a tuple element's leaf (arguments.SEPARATOR)
                name, path = split_leaf_name(leaf)
                shown, nested = display_name(leaf), nested or bool(path)
            else:
                name, path, shown = leaf, (), leaf
            if name not in index:
                raise ValueError(f"{name!r} is not in list")  # what list.index raised
            place = (index[name], path)
            places.append(place)
            slots.append((place[0], path, leaf in pointer_names, shown))
        positions = [p for p, _ in places]
        self._slots = tuple(slots)
        if nested:
            self._select = _flattener(places)
        elif positions == list(range(len(value_names))):
            self._select = None
        elif not positions:  # the kernel reads none of its parameters
            self._select = lambda values: ()
        elif len(positions) == 1:
            only = positions[0]
            self._select = lambda values: (values[only],)
        else:
            self._select = operator.itemgetter(*positions)
        if self._run != self._run_first:
            self._load()

    def _run_first(self, grid: Any, values: tuple, args: tuple, stream: Any) -> None:
        self._load()
        self._run(grid, values, args, stream)

    def _run_values(self, grid: Any, values: tuple, args: tuple, stream: Any) -> None:
        if type(grid) is tuple and len(grid) == 1 and type(grid[0]) is int and 0 < grid[0] <= MAX_GRID_DIM:
            self._launcher((grid[0], 1, 1), values, stream)
            return
        grid = grid3(grid)
        if grid is not None:
            self._launcher(grid, values, stream)

    def _run_selected(self, grid: Any, values: tuple, args: tuple, stream: Any) -> None:
        grid = grid3(grid)
        if grid is not None:
            self._launcher(grid, self._select(values), stream)

    def _run_buffers(self, grid: Any, values: tuple, args: tuple, stream: Any) -> None:
        grid = grid3(grid)
        if grid is None:
            return
        launch_args = [interop.to_buffer(get_path(args[p], path), name) if is_pointer else get_path(values[p], path)
                       for p, path, is_pointer, name in self._slots]
        self._launcher(grid, launch_args, stream)

    # ---- Triton's launcher interface (torch inductor's and other callers of triton.compile) ----
    src: Any = None  # the ASTSource it was compiled from (set by compile(ASTSource(...)))

    @property
    def function(self) -> Any:
        """The loaded kernel's handle (a ``CUfunction`` on CUDA; None on the host targets)."""
        return getattr(self.launcher, "function", None)

    @property
    def module(self) -> Any:
        return getattr(self.launcher, "module", None)

    @property
    def packed_metadata(self) -> Metadata:
        """What Triton's launcher takes as ``kernel_metadata`` (kernellab's launcher reads none)."""
        return self.metadata

    def launch_metadata(self, grid: Any, stream: Any, *args: Any) -> Any:
        """Triton's ``CompiledKernel.launch_metadata``: what launch hooks receive (name, function,
        stream), for a launch with all of the kernel's arguments."""
        from .launch_hooks import metadata_of

        return metadata_of(self, grid, stream, dict(self._runtime_arguments(args)), None)

    @property
    def run(self) -> Callable[..., None]:
        """Triton's ``CompiledKernel.run``: ``run(grid_0, grid_1, grid_2, stream, function,
        kernel_metadata, launch_metadata, enter_hook, exit_hook, *args)``, a launch with all of the
        kernel's arguments (constexprs included, as Triton 3.3+ passes them) between the hooks;
        made for this kernel on first use (``triton_run.py``)."""
        runner = getattr(self, "_runner", None)
        if runner is None:
            from .triton_run import make_runner

            runner = self._runner = make_runner(self)
        return runner

    # ---- direct launches ----
    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def launch(*args: Any, stream: Any = None) -> None:
            self.launch(grid, *args, stream=stream)

        return launch

    def launch(self, grid: Any, *args: Any, stream: Any = None) -> None:
        """Launch with the kernel's arguments (all of them, or only the runtime ones)."""
        launcher = self.launcher
        named = self._runtime_arguments(args)
        if callable(grid) or isinstance(grid, list):
            grid = resolve_grid(grid, dict(named), self)
        grid = grid3(grid)
        if grid is None:
            return
        values = self._launch_values(named)
        hooks = sys.modules.get("kernellab.runtime.launch_hooks")
        if hooks is None or not hooks.launching_with_hooks():
            launcher(grid, values, stream)
            return
        hooks.around(hooks.metadata_of(self, grid, stream, dict(named), None), lambda: launcher(grid, values, stream))

    def _runtime_arguments(self, args: Sequence[Any]) -> list[tuple[str, Any]]:
        """(leaf name, value) of each runtime argument, from all of the kernel's arguments (tuples
        as they were passed), from those of its parameters not declared constexpr (Triton 3.0 to
        3.2's compiled kernels took these, a specialized ``1`` included) or from the runtime ones
        only (a tuple's elements one by one)."""
        everything, runtime = self.metadata["arg_names"], self.runtime_args
        declared = self.metadata.get("constexpr_params", ())
        if len(args) != len(everything) and len(args) == len(everything) - len(declared) != len(runtime):
            everything = [name for name in everything if name not in declared]
        if len(args) == len(everything):
            by_name = dict(zip(everything, args))
            found = []
            for leaf in runtime:
                name, path = split_leaf_name(leaf)
                try:
                    found.append((leaf, get_path(by_name[name], path)))
                except (TypeError, IndexError):
                    raise TypeError(f"{self.name}: argument `{name}` does not have the structure it was compiled "
                                    f"for (no element `{display_name(leaf)}`)") from None
            return found
        if len(args) == len(runtime):
            return list(zip(runtime, args))
        raise TypeError(f"{self.name} takes its {len(everything)} arguments ({', '.join(everything)}), those not "
                        f"declared constexpr ({len(everything) - len(declared)}) or only the {len(runtime)} runtime "
                        f"ones ({', '.join(runtime)}); got {len(args)}")

    def _launch_values(self, named: list[tuple[str, Any]]) -> list[Any]:
        """What the launcher takes for each ``(leaf name, value)`` of :meth:`_runtime_arguments`."""
        signature = self.metadata["signature"]
        return [self._launch_value(name, signature[name], value) for name, value in named]

    def _launch_value(self, name: str, signature: str, value: Any) -> Any:
        shown = display_name(name)
        if signature.startswith("*"):
            if type(value) is int and value >= 0 and not self._wants_buffers:  # an address, as Triton takes
                return value
            buffer = interop.to_buffer(value, shown)
            if not buffer.writable and name in self.metadata.get("written_args", ()):
                self.refuse_read_only(shown)
            return buffer if self._wants_buffers else buffer.address
        ty = T.from_signature(signature)
        if ty.is_floating():
            return float(value)
        number = int(value)
        if not ty.get_int_min_value() <= number <= ty.get_int_max_value():
            raise LaunchError(f"argument `{shown}` = {number} does not fit in {signature}")
        return bool(number) if ty.is_bool() else number


def _checking_writes(kernel: CompiledKernel, run: Callable) -> Callable:
    """``run`` behind a refusal of read-only arrays for the arguments ``kernel`` writes through.
    Only numpy arrays can be read-only (device arrays and torch tensors cannot): the others are
    not looked at, so this costs a type check per written argument on the launch path (building
    a Buffer for a torch tensor here cost the cached first launch ~2 ms on the H200).  A closure,
    not a method: a bound method and a path walk per launch cost the hot launch ~0.3 us."""
    ndarray = np.ndarray
    # the common case, one written pointer, without the loop: 0.07 us less a launch (stand-in libcuda)
    if len(kernel._written) == 1 and not kernel._written[0][1]:
        (position, _, name), = kernel._written
        if run != kernel._run_values:
            def run_one_checked(grid: Any, values: tuple, args: tuple, stream: Any) -> None:
                arg = args[position]
                if type(arg) is ndarray and not arg.flags.writeable:
                    kernel.refuse_read_only(name)
                run(grid, values, args, stream)
            return run_one_checked
        launcher = kernel._launcher

        def run_one_checked_values(grid: Any, values: tuple, args: tuple, stream: Any) -> None:
            arg = args[position]
            if type(arg) is ndarray and not arg.flags.writeable:
                kernel.refuse_read_only(name)
            # _run_values's one-dimensional grid, inline (a call less a launch)
            if type(grid) is tuple and len(grid) == 1 and type(grid[0]) is int and 0 < grid[0] <= MAX_GRID_DIM:
                launcher((grid[0], 1, 1), values, stream)
                return
            run(grid, values, args, stream)
        return run_one_checked_values
    written = kernel._written

    def run_checked(grid: Any, values: tuple, args: tuple, stream: Any) -> None:
        for position, path, name in written:
            arg = get_path(args[position], path) if path else args[position]
            if type(arg) is ndarray and not arg.flags.writeable:
                kernel.refuse_read_only(name)
        run(grid, values, args, stream)
    return run_checked


__all__ = ["CompiledKernel", "Metadata", "Stages", "grid3", "resolve_grid", "LAUNCH_OPTION_NAMES"]
