"""Triton's ``triton.knobs``: the settings in groups (``knobs.runtime.interpret``,
``knobs.autotuning.print``, ``knobs.cache.dir``, ``knobs.nvidia.ptxas``...).

One place for settings: a knob that kernellab has a setting for reads and writes that setting's
environment variable (declared in :mod:`kernellab.config`), so ``knobs.runtime.interpret = True``
and ``TRITON_INTERPRET=1`` are the same thing, seen by every part of kernellab and inherited by
subprocesses; ``reset()`` puts the variables back as they were.  The other knobs keep the value
given (Triton's defaults otherwise) and change nothing in kernellab, except ``runtime.jit_cache_hook``
and ``runtime.jit_post_compile_hook``, which the JIT reads and calls as Triton's does; setting one
that Triton would act on and kernellab does not (another hook, an override) warns so.  Each group
lists which is which in ``knob_descriptors`` (``KnobDescriptor.variable`` is None for the ones
without a kernellab setting).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from . import config


@dataclass(frozen=True)
class KnobDescriptor:
    """``variable``: the kernellab setting behind the knob (None: kept here, no effect);
    ``kind``: ``bool``, ``str`` or ``object``; ``inverted``: the knob is the variable's negation."""

    name: str
    variable: str | None
    kind: str = "bool"
    default: Any = None
    inverted: bool = False
    warns: bool = False
    reader: Callable[[], Any] | None = None  # when more than the variable decides (interpret)


class HookChain:
    """A chain of hooks (Triton's ``knobs.runtime.launch_enter_hook``...): ``add``, ``remove``,
    and calling it calls each hook."""

    def __init__(self) -> None:
        self.calls: list[Callable] = []

    def __bool__(self) -> bool:
        return bool(self.calls)

    def add(self, fn: Callable) -> None:
        if fn not in self.calls:
            self.calls.append(fn)

    def remove(self, fn: Callable) -> None:
        if fn in self.calls:
            self.calls.remove(fn)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        for fn in self.calls:
            fn(*args, **kwargs)


@dataclass
class NvidiaTool:
    """A CUDA toolkit program: its ``path`` and release ``version`` as Triton spells it,
    major.minor (``"12.8"``: Triton's test helpers split it into two ints); None for both when
    there is none."""

    path: str | None
    version: str | None


def _tool(name: str) -> NvidiaTool:
    from .backends.cuda import tools

    path = tools.find_ptxas() if name == "ptxas" else tools.find_tool(name)
    release = tools.version(path) if path and name == "ptxas" else None
    return NvidiaTool(path, ".".join(release.split(".")[:2]) if release else None)


class base_knobs:
    """A group of knobs.  Knobs are attributes; ``knobs`` maps names to current values,
    ``reset()`` forgets what was set, ``scope()`` restores the values on exit."""

    DESCRIPTORS: tuple[KnobDescriptor, ...] = ()

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_saved_environment", {})

    @property
    def knob_descriptors(self) -> dict[str, KnobDescriptor]:
        return {d.name: d for d in self.DESCRIPTORS}

    @property
    def knobs(self) -> dict[str, Any]:
        return {d.name: getattr(self, d.name) for d in self.DESCRIPTORS}

    def __getattr__(self, name: str) -> Any:
        descriptor = self.knob_descriptors.get(name)
        if descriptor is None:
            raise AttributeError(f"knobs.{_group_name(self)} has no knob {name!r}; its knobs are "
                                 f"{', '.join(self.knob_descriptors)}")
        if name in self._values:
            return self._values[name]
        if descriptor.variable is None:
            return self._default(descriptor)
        return _read(descriptor)

    def _default(self, descriptor: KnobDescriptor) -> Any:
        value = descriptor.default() if callable(descriptor.default) else descriptor.default
        self._values[descriptor.name] = value
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        descriptor = self.knob_descriptors.get(name)
        if descriptor is None:
            raise AttributeError(f"knobs.{_group_name(self)} has no knob {name!r}; its knobs are "
                                 f"{', '.join(self.knob_descriptors)}")
        if descriptor.variable is None:
            if descriptor.warns and value:
                warnings.warn(f"knobs.{_group_name(self)}.{name} is accepted but kernellab does not act on it",
                              stacklevel=2)
            self._values[name] = value
            return
        self._saved_environment.setdefault(descriptor.variable, os.environ.get(descriptor.variable))
        _write(descriptor, value)

    def reset(self) -> base_knobs:
        """Forget every value set: the variables are back to what they were before."""
        for variable, value in self._saved_environment.items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value
        self._saved_environment.clear()
        self._values.clear()
        return self

    def copy(self) -> base_knobs:
        clone = type(self)()
        clone._values.update(self._values)
        return clone

    @contextmanager
    def scope(self) -> Iterator[base_knobs]:
        """Within the block, knobs may be set; on exit they are as before."""
        values, environment = dict(self._values), {d.variable: os.environ.get(d.variable)
                                                   for d in self.DESCRIPTORS if d.variable}
        try:
            yield self
        finally:
            self._values.clear()
            self._values.update(values)
            for variable, value in environment.items():
                if value is None:
                    os.environ.pop(variable, None)
                else:
                    os.environ[variable] = value


def _group_name(group: base_knobs) -> str:
    return type(group).__name__.removesuffix("_knobs")


def _read(descriptor: KnobDescriptor) -> Any:
    if descriptor.reader is not None:
        return descriptor.reader()
    if descriptor.kind == "bool":
        value = config.flag(descriptor.variable)
        return not value if descriptor.inverted else value
    return config.text(descriptor.variable) or descriptor.default


def _write(descriptor: KnobDescriptor, value: Any) -> None:
    if descriptor.kind == "bool":
        on = bool(value) != descriptor.inverted
        os.environ[descriptor.variable] = "1" if on else "0"
    elif value is None:
        os.environ.pop(descriptor.variable, None)
    else:
        os.environ[descriptor.variable] = os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _knob(name: str, variable: str | None = None, kind: str = "bool", default: Any = None, **extra: Any
          ) -> KnobDescriptor:
    if variable is not None and variable not in config.VARIABLES:
        raise AssertionError(f"knob {name} names {variable}, which kernellab.config does not declare")
    return KnobDescriptor(name, variable, kind, default, **extra)


def _inert(name: str, default: Any = None, kind: str = "object", warns: bool = True) -> KnobDescriptor:
    return _knob(name, None, kind, default, warns=warns)


class runtime_knobs(base_knobs):
    DESCRIPTORS = (
        _knob("interpret", "TRITON_INTERPRET", reader=config.interpret),
        _knob("debug", "KERNELLAB_DEBUG", reader=config.debug),
        _inert("override_arch", kind="str"),
        _inert("launch_enter_hook", HookChain, warns=False),
        _inert("launch_exit_hook", HookChain, warns=False),
        _inert("kernel_load_start_hook", HookChain, warns=False),
        _inert("kernel_load_end_hook", HookChain, warns=False),
        _inert("jit_cache_hook", warns=False),  # called by the JIT (runtime/jit.py), as Triton's
        _inert("jit_post_compile_hook", warns=False),
        _inert("add_stages_inspection_hook"),
    )


class compilation_knobs(base_knobs):
    DESCRIPTORS = (
        _knob("always_compile", "KERNELLAB_CACHE", inverted=True),
        _inert("override", False, "bool"),
        _inert("dump_ir", False, "bool"),
        _inert("dump_ir_extract_di_local_variables", False, "bool", warns=False),
        _inert("allow_non_constexpr_globals", False, "bool", warns=False),
        _inert("disable_line_info", False, "bool"),
        _inert("front_end_debugging", False, "bool", warns=False),
        _inert("enable_asan", False, "bool"),
        _inert("store_binary_only", False, "bool", warns=False),
        _inert("use_ir_loc", None, "str", warns=False),
        _inert("instrumentation_mode", "", "str"),
        _inert("listener"),
    )


class cache_knobs(base_knobs):
    DESCRIPTORS = (
        _knob("dir", "KERNELLAB_CACHE_DIR", "str"),
        _knob("dump_dir", "KERNELLAB_DUMP_DIR", "str"),
        _inert("override_dir", None, "str"),
        _inert("home_dir", lambda: os.path.expanduser("~"), "str", warns=False),
        _inert("manager_class"),
        _inert("remote_manager_class"),
    )

    def get_triton_dir(self, dirname: str) -> str:
        """A folder of kernellab's cache (Triton's ``get_triton_dir``)."""
        return os.path.join(os.fspath(config.cache_dir()), dirname)


class autotuning_knobs(base_knobs):
    DESCRIPTORS = (
        _knob("cache", "KERNELLAB_CACHE_AUTOTUNING"),
        _knob("print", "KERNELLAB_PRINT_AUTOTUNING"),
    )


class build_knobs(base_knobs):
    DESCRIPTORS = (
        _inert("cc", None, "str", warns=False),
        _inert("cudacrt_path", None, "str", warns=False),
        _inert("cudart_path", None, "str", warns=False),
        _inert("impl", warns=False),
        _inert("backend_dirs", set, warns=False),
    )


class language_knobs(base_knobs):
    DESCRIPTORS = (
        _inert("fp32_default", None, "str"),
        _inert("default_fp_fusion", True, "bool", warns=False),
    )


class nvidia_knobs(base_knobs):
    DESCRIPTORS = (
        _inert("ptxas", lambda: _tool("ptxas"), warns=False),
        _inert("ptxas_blackwell", lambda: _tool("ptxas"), warns=False),
        _inert("cuobjdump", lambda: _tool("cuobjdump"), warns=False),
        _inert("nvdisasm", lambda: _tool("nvdisasm"), warns=False),
        _inert("dump_nvptx", False, "bool"),
        _inert("disable_ptxas_opt", False, "bool"),
        _inert("dump_ptxas_log", False, "bool"),
        _inert("ptxas_options", None, "str"),
        _inert("mock_ptx_version", None, "str"),
        _inert("libdevice_path", None, "str", warns=False),
        _inert("libcuda_path", None, "str", warns=False),
    )


class amd_knobs(base_knobs):
    DESCRIPTORS = tuple(_inert(name, False, "bool") for name in (
        "use_buffer_ops", "use_buffer_atomics", "buffer_ops_analyze_small_tensor_range", "dump_amdgcn",
        "libhip_path", "use_block_pingpong", "use_in_thread_transpose", "use_async_copy", "scalarize_packed_fops"))


class proton_knobs(base_knobs):
    DESCRIPTORS = (
        _inert("disable", False, "bool", warns=False),
        _inert("cupti_lib_dir", None, "str", warns=False),
        _inert("enable_nvtx", False, "bool"),
    )


class redis_knobs(base_knobs):
    DESCRIPTORS = (
        _inert("key_format", "triton:{key}:{filename}", "str", warns=False),
        _inert("host", "localhost", "str", warns=False),
        _inert("port", 6379, "int", warns=False),
    )


runtime = runtime_knobs()
compilation = compilation_knobs()
cache = cache_knobs()
autotuning = autotuning_knobs()
build = build_knobs()
language = language_knobs()
nvidia = nvidia_knobs()
amd = amd_knobs()
proton = proton_knobs()
redis = redis_knobs()

GROUPS = {g.__class__.__name__.removesuffix("_knobs"): g for g in (runtime, compilation, cache, autotuning, build,
                                                                   language, nvidia, amd, proton, redis)}


def refresh_knobs() -> None:
    """Forget every knob set in every group (Triton's ``refresh_knobs``)."""
    for group in GROUPS.values():
        group.reset()


__all__ = ["base_knobs", "HookChain", "NvidiaTool", "KnobDescriptor", "refresh_knobs", "GROUPS", *GROUPS]
