"""Every environment variable kernellab reads, in one place, documented.

Values are read when asked for (not at import), so tests and notebooks can change them.

| variable | meaning | default |
|---|---|---|
| ``KERNELLAB_INTERPRET`` | ``1``: run every kernel in the numpy interpreter | off |
| ``TRITON_INTERPRET`` | the same, for code written for Triton | off |
| ``KERNELLAB_TARGET`` | force a target: ``interpret``, ``cpu``, ``cuda``, ``cuda:sm_90a`` | from the arguments |
| ``KERNELLAB_CACHE_DIR`` | the on-disk cache (empty: the default); must be yours | ``~/.cache/kernellab`` |
| ``KERNELLAB_CACHE`` | ``0``: never read or write the on-disk cache | on |
| ``KERNELLAB_SHARED_CACHE`` | ``1``: accept a cache folder another user owns or can write | off: refused |

The cache folder is checked once per process (``kernellab/cachedir.py``): one owned by another
user or writable by group/others is refused with a warning and a private one used instead,
unless ``KERNELLAB_SHARED_CACHE=1``; even then every file read back is checked against your own
key (a MAC), so nothing another user wrote runs.  A path that is not a folder (a file, a fifo,
``/dev/null``, a symlink loop) warns once and runs uncached.
| ``KERNELLAB_CACHE_AUTOTUNING`` | ``1``: keep autotuning results on disk (as ``cache_results=True``) | off |
| ``KERNELLAB_PRINT_AUTOTUNING`` | ``1``: print each autotune sweep's best config and timings | off |
| ``KERNELLAB_DEBUG`` | ``1``: every kernel with ``debug=True`` (device_assert; CPU: checked accesses) | off |
| ``TRITON_DEBUG`` | the same, for code written for Triton | off |
| ``KERNELLAB_NUM_THREADS`` | host threads the CPU target spreads a grid over | all cores |
| ``KERNELLAB_PTXAS`` | the ptxas binary to use | the ``nvidia-cuda-nvcc`` wheel's, then PATH |
| ``KERNELLAB_DUMP_DIR`` | write every stage (and, in ``passes/``, each pass) of every compilation here | off |
| ``KERNELLAB_CUDA_PIPELINE`` | ``tl.dot`` operand prefetch: ``1`` cp.async rings, ``registers``, ``0`` | ``1`` |
| ``KERNELLAB_CUDA_REGISTER_CAP`` | ``0``: never cap a tensor-core kernel's registers to fit one more CTA per SM | on |
| ``KERNELLAB_TUTORIAL_SIZE`` | notebook problem sizes: ``small`` (fast on 2 cores) or ``full`` | full on a GPU |
| ``KERNELLAB_NATIVE_LAUNCH`` | ``0``: ``kernel[grid](...)`` launches through the Python binder only | on |
| ``KERNELLAB_TRACEBACK`` | ``full``: keep kernellab's own frames in the tracebacks of kernel errors | short |
| ``KERNELLAB_AS_TRITON`` | ``1``: the triton alias in a process started with it (set for children) | off |
| ``KERNELLAB_MEMCHECK_CHILD`` | set by ``testing.cuda_memcheck`` in the pytest it runs under compute-sanitizer | off |

Triton's variables that kernellab acts on (``kernellab.knobs`` reads and writes them, as
Triton's knobs do); a boolean is on for ``1``, ``y``, ``yes``, ``on``, ``true`` (any case):

| variable | meaning | default |
|---|---|---|
| ``TRITON_CACHE_AUTOTUNING`` / ``TRITON_PRINT_AUTOTUNING`` | as the ``KERNELLAB_`` ones (either turns it on) | off |
| ``TRITON_ALWAYS_COMPILE`` | ``1``: compile every kernel, as ``KERNELLAB_CACHE=0`` | off |
| ``TRITON_DISABLE_LINE_INFO`` | ``1``: no source lines in the LLVM IR, PTX, cubin and host assembly | off |
| ``TRITON_DEFAULT_FP_FUSION`` | ``0``: kernels default to ``enable_fp_fusion=False`` | on |
| ``TRITON_PTXAS_PATH``, ``TRITON_NVDISASM_PATH``, ``TRITON_CUOBJDUMP_PATH`` | NVIDIA's programs | found |
| ``TRITON_KERNEL_DUMP`` | ``1``: dump every compilation's stages into ``TRITON_DUMP_DIR`` | off |
| ``TRITON_DUMP_DIR`` | where ``TRITON_KERNEL_DUMP`` dumps | ``$TRITON_HOME/.triton/dump`` |
| ``TRITON_HOME`` | the folder Triton's ``.triton`` folders go in | ``~`` |

A knob set with ``kernellab.knobs`` overrides its variable for this process (:func:`set_override`)
and is also written to the environment (unless ``knobs.propagate_env`` is False).  Triton's other
variables (``knobs.amd.*``, ``knobs.nvidia.dump_nvptx``...) are read by ``kernellab.knobs`` only,
to report them; they change nothing in kernellab.

Read but not kernellab's own: ``DISPLAY``, ``WAYLAND_DISPLAY`` and ``MPLBACKEND`` (whether
``kernellab.testing`` plots to a screen or to files: :func:`plots_to_screen`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variable:
    name: str
    default: str
    doc: str

    def raw(self) -> str:
        if _OVERRIDES and self.name in _OVERRIDES:
            value = _OVERRIDES[self.name]
            return self.default if value is None else value
        return os.environ.get(self.name, self.default)


_TRUE = {"1", "y", "yes", "on", "true"}  # Triton's truthy spellings (any case)

VARIABLES: dict[str, Variable] = {v.name: v for v in [
    Variable("KERNELLAB_INTERPRET", "0", "run every kernel in the numpy interpreter"),
    Variable("TRITON_INTERPRET", "0", "the same as KERNELLAB_INTERPRET, for Triton code"),
    Variable("KERNELLAB_TARGET", "", "force a target: interpret, cpu, cuda, cuda:sm_XX"),
    Variable("KERNELLAB_CACHE_DIR", str(Path.home() / ".cache" / "kernellab"), "on-disk cache of compiled kernels"),
    Variable("KERNELLAB_CACHE", "1", "0: never read or write the on-disk cache"),
    Variable("KERNELLAB_SHARED_CACHE", "0", "1: accept a cache folder another user owns or can write"),
    Variable("KERNELLAB_CACHE_AUTOTUNING", "0", "1: keep autotuning results on disk"),
    Variable("KERNELLAB_PRINT_AUTOTUNING", "0", "1: print each autotune sweep's result"),
    Variable("KERNELLAB_DEBUG", "0", "1: compile every kernel with debug=True (CPU: checked memory accesses)"),
    Variable("TRITON_DEBUG", "0", "the same as KERNELLAB_DEBUG, for Triton code"),
    Variable("KERNELLAB_NUM_THREADS", "", "host threads for the CPU target (default: all cores)"),
    Variable("KERNELLAB_PTXAS", "", "path of the ptxas binary"),
    Variable("KERNELLAB_DUMP_DIR", "", "write every stage of every compilation, and the IR after each pass, here"),
    Variable("KERNELLAB_CUDA_PIPELINE", "1", "1: cp.async rings (else registers); registers: registers only; 0: off"),
    Variable("KERNELLAB_CUDA_REGISTER_CAP", "1", "0: never cap a tensor-core kernel's registers at an occupancy cliff"),
    Variable("KERNELLAB_TUTORIAL_SIZE", "", "notebook problem sizes: small or full (default: full with a GPU)"),
    Variable("KERNELLAB_TRACEBACK", "short", "full: keep kernellab's frames in tracebacks of kernel errors"),
    Variable("KERNELLAB_NATIVE_LAUNCH", "1", "0: kernel[grid](...) always goes through the Python binder"),
    Variable("KERNELLAB_AS_TRITON", "0", "1: import triton gives kernellab in a process started with it"),
    Variable("KERNELLAB_MEMCHECK_CHILD", "0", "1 in the pytest that testing.cuda_memcheck runs under the sanitizer"),
    Variable("TRITON_CACHE_AUTOTUNING", "0", "the same as KERNELLAB_CACHE_AUTOTUNING, for Triton code"),
    Variable("TRITON_PRINT_AUTOTUNING", "0", "the same as KERNELLAB_PRINT_AUTOTUNING, for Triton code"),
    Variable("TRITON_ALWAYS_COMPILE", "0", "1: compile every kernel (no disk cache), as KERNELLAB_CACHE=0"),
    Variable("TRITON_DISABLE_LINE_INFO", "0", "1: compile without source line information"),
    Variable("TRITON_DEFAULT_FP_FUSION", "1", "0: kernels default to enable_fp_fusion=False"),
    Variable("TRITON_PTXAS_PATH", "", "the ptxas binary (after KERNELLAB_PTXAS)"),
    Variable("TRITON_NVDISASM_PATH", "", "the nvdisasm binary"),
    Variable("TRITON_CUOBJDUMP_PATH", "", "the cuobjdump binary"),
    Variable("TRITON_KERNEL_DUMP", "0", "1: dump every compilation's stages into TRITON_DUMP_DIR"),
    Variable("TRITON_DUMP_DIR", "", "where TRITON_KERNEL_DUMP dumps (default: $TRITON_HOME/.triton/dump)"),
    Variable("TRITON_HOME", "", "the folder Triton's .triton folders go in (default: the home folder)"),
]}

# Values that knobs set (``kernellab.knobs``), which win over the environment in this process;
# None: the knob says the variable is unset.
_OVERRIDES: dict[str, str | None] = {}


def set_override(name: str, value: str | None) -> None:
    """From now on (until :func:`clear_override`) ``name`` reads as ``value`` in this process,
    whatever the environment says (None: as if unset).  ``kernellab.knobs`` calls it."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not a variable kernellab reads")
    _OVERRIDES[name] = value
    _forced_memo[0] = object()  # the forced target is computed again


def clear_override(name: str) -> None:
    """``name`` reads from the environment again."""
    if _OVERRIDES.pop(name, _MISSING) is not _MISSING:
        _forced_memo[0] = object()


_MISSING = object()


def flag(name: str) -> bool:
    """A boolean variable (1/true/yes/on)."""
    return VARIABLES[name].raw().strip().lower() in _TRUE


def text(name: str) -> str:
    return VARIABLES[name].raw().strip()


def interpret() -> bool:
    """Whether every kernel runs in the interpreter."""
    return flag("KERNELLAB_INTERPRET") or flag("TRITON_INTERPRET")


def _forced_target() -> str | None:
    if interpret():
        return "interpret"
    return text("KERNELLAB_TARGET") or None


TARGET_VARIABLES = ("KERNELLAB_INTERPRET", "TRITON_INTERPRET", "KERNELLAB_TARGET")
_ENVIRON_DATA = getattr(os.environ, "_data", None)  # os.environ's own dict: reading it is a dict lookup
_ENVIRON_KEYS = tuple(os.environ.encodekey(n) for n in TARGET_VARIABLES) if _ENVIRON_DATA is not None else ()
_forced_memo: list = [object(), object(), object(), None]  # raw values last seen (by identity), forced target


def forced_target() -> str | None:
    """The target forced by the environment, if any (``interpret`` when interpreting).

    Every launch asks, so this is memoized on the raw values of its three variables, read from
    ``os.environ``'s own dict and compared by identity (~0.1 us instead of ~2 us); changes made
    through ``os.environ`` are seen at once."""
    if _ENVIRON_DATA is None:  # pragma: no cover - os.environ without its dict
        return _forced_target()
    get, memo = _ENVIRON_DATA.get, _forced_memo
    a, b, c = _ENVIRON_KEYS
    if get(a) is not memo[0] or get(b) is not memo[1] or get(c) is not memo[2]:
        memo[3] = _forced_target()
        memo[0], memo[1], memo[2] = get(a), get(b), get(c)
    return memo[3]


def forced_target_keys() -> tuple[bytes, ...]:
    """The keys of ``os.environ``'s own dict that :func:`forced_target` reads (empty when
    ``os.environ`` has no such dict); the native launch path compares their values as it does."""
    return _ENVIRON_KEYS


_cache_dir_memo: list = [None, None]  # the raw value last seen, its Path


def cache_dir() -> Path:
    """The cache folder the user asked for: ``KERNELLAB_CACHE_DIR`` as a Path, the default
    when unset or empty (memoized on the raw value: a new process's first launch asks several
    times, and building the Path costs ~20 us each).  The caches use ``cachedir.root()``: this
    folder once checked (or a private one, or none)."""
    raw = text("KERNELLAB_CACHE_DIR")
    if raw != _cache_dir_memo[0]:
        _cache_dir_memo[1] = Path(raw).expanduser() if raw else default_cache_dir()
        _cache_dir_memo[0] = raw
    return _cache_dir_memo[1]


def default_cache_dir() -> Path:
    """``~/.cache/kernellab``."""
    return Path(VARIABLES["KERNELLAB_CACHE_DIR"].default)


def shared_cache() -> bool:
    """Whether the user opted into a cache folder that others own or can write."""
    return flag("KERNELLAB_SHARED_CACHE")


def disk_cache_enabled() -> bool:
    """Whether compiled kernels are read from and written to the disk cache (``KERNELLAB_CACHE``,
    off with ``TRITON_ALWAYS_COMPILE``)."""
    return flag("KERNELLAB_CACHE") and not flag("TRITON_ALWAYS_COMPILE")


def cache_autotuning() -> bool:
    return flag("KERNELLAB_CACHE_AUTOTUNING") or flag("TRITON_CACHE_AUTOTUNING")


def print_autotuning() -> bool:
    return flag("KERNELLAB_PRINT_AUTOTUNING") or flag("TRITON_PRINT_AUTOTUNING")


def line_info() -> bool:
    """Whether compiled stages carry source lines (off with ``TRITON_DISABLE_LINE_INFO``)."""
    return not flag("TRITON_DISABLE_LINE_INFO")


def default_fp_fusion() -> bool:
    """``enable_fp_fusion``'s default (``TRITON_DEFAULT_FP_FUSION``)."""
    return flag("TRITON_DEFAULT_FP_FUSION")


def debug() -> bool:
    """Whether every kernel compiles with ``debug=True`` (``KERNELLAB_DEBUG`` or ``TRITON_DEBUG``)."""
    return flag("KERNELLAB_DEBUG") or flag("TRITON_DEBUG")


def num_threads() -> int:
    value = text("KERNELLAB_NUM_THREADS")
    if value:
        count = int(value)
        if count < 1:
            raise ValueError(f"KERNELLAB_NUM_THREADS must be a positive integer, got {value!r}")
        return count
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def ptxas_path() -> str | None:
    return text("KERNELLAB_PTXAS") or text("TRITON_PTXAS_PATH") or None


def nvidia_tool_path(name: str) -> str | None:
    """The path the user gave for an NVIDIA program (``ptxas``, ``nvdisasm``, ``cuobjdump``), if any."""
    if name == "ptxas":
        return ptxas_path()
    variable = f"TRITON_{name.upper().replace('-', '_')}_PATH"
    if variable not in VARIABLES:
        return None
    return text(variable) or None


def triton_home() -> str:
    """``TRITON_HOME``, else the home folder."""
    return text("TRITON_HOME") or os.path.expanduser("~/")


def triton_dir(name: str) -> str:
    """``$TRITON_HOME/.triton/<name>`` (Triton's ``cache``, ``dump``, ``override`` folders)."""
    return os.path.join(triton_home(), ".triton", name)


def dump_dir() -> Path | None:
    """Where every compilation's stages are dumped: ``KERNELLAB_DUMP_DIR``, else with
    ``TRITON_KERNEL_DUMP`` on, ``TRITON_DUMP_DIR`` (default ``$TRITON_HOME/.triton/dump``); None: no dump."""
    value = text("KERNELLAB_DUMP_DIR")
    if not value and flag("TRITON_KERNEL_DUMP"):
        value = text("TRITON_DUMP_DIR") or triton_dir("dump")
    return Path(value).expanduser() if value else None


def tutorial_size() -> str | None:
    """``small`` or ``full`` when ``KERNELLAB_TUTORIAL_SIZE`` says so, else None (the notebooks
    decide: full with a GPU)."""
    value = text("KERNELLAB_TUTORIAL_SIZE").lower()
    if value and value not in ("small", "full"):
        raise ValueError(f"KERNELLAB_TUTORIAL_SIZE is small or full, got {value!r}")
    return value or None


def native_launch() -> bool:
    """Whether ``kernel[grid](...)`` may use generated native launch functions."""
    return flag("KERNELLAB_NATIVE_LAUNCH")


def cuda_pipeline_mode() -> str:
    """How CUDA loops prefetch their dot operands: ``async`` (shared-memory rings filled by
    ``cp.async`` where a loop qualifies, else registers), ``registers`` or ``off``."""
    value = text("KERNELLAB_CUDA_PIPELINE").lower()
    if value == "registers":
        return "registers"
    return "async" if value in _TRUE else "off"


def cuda_pipelining() -> bool:
    """Whether CUDA loops prefetch the next iteration's dot operands (software pipelining)."""
    return cuda_pipeline_mode() != "off"


def cuda_register_cap() -> bool:
    """Whether a CUDA kernel with ``tl.dot`` a few registers over an occupancy cliff is assembled
    again with the limit that fits one more CTA per SM (kept when ptxas spills nothing)."""
    return flag("KERNELLAB_CUDA_REGISTER_CAP")


def as_triton() -> bool:
    """Whether this process starts with the ``triton`` alias (``kernellab_as_triton.pth`` asks at
    start-up; ``kernellab.as_triton.install()`` sets the variable for the process's children)."""
    return flag("KERNELLAB_AS_TRITON")


def full_tracebacks() -> bool:
    """Whether errors in a user's kernel keep kernellab's own frames in their traceback."""
    return text("KERNELLAB_TRACEBACK").lower() == "full"


def plots_to_screen() -> bool:
    """Whether matplotlib may show windows: a display exists (X11/Wayland, macOS, Windows) or
    the user chose a backend with ``MPLBACKEND``; otherwise plots go to files (Agg)."""
    import sys

    if os.environ.get("MPLBACKEND"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("darwin", "win32")
