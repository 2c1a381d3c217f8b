"""Triton's ``triton.knobs``: settings in groups (``knobs.runtime.interpret``,
``knobs.autotuning.print``, ``knobs.cache.dir``, ``knobs.nvidia.ptxas``...), with Triton's API.

A knob is a descriptor on its group's class naming an environment variable.  Reading it gives
the value set on the group (``knobs.cache.dir = "/tmp/c"``), else the variable's (read each
time), else the default.  Setting it also writes the variable (unless ``knobs.propagate_env``
is False); ``del`` (or setting ``knobs.env``) forgets the value set; ``reset()`` forgets every
one; ``scope()`` restores the values and variables on exit; ``copy()`` gives an independent
group.  The descriptor kinds are Triton's: ``env_str``, ``env_bool``, ``env_int``,
``env_opt_str``, ``env_opt_bool``, ``env_class``, ``env_nvidia_tool``...

One place for settings: the knobs kernellab acts on name a variable that
:mod:`kernellab.config` declares (Triton's name: ``TRITON_DEBUG``, ``TRITON_PRINT_AUTOTUNING``,
``TRITON_DISABLE_LINE_INFO``...).  A value set on the groups of this module is handed to config
as an override (:func:`kernellab.config.set_override`), so every part of kernellab sees it even
when it is not written to the environment, and such a knob reads what kernellab will do (config's
reader: ``runtime.debug`` is on with ``KERNELLAB_DEBUG`` too).  ``runtime.jit_cache_hook``,
``jit_post_compile_hook``, the launch hooks (``launch_enter_hook``, ``launch_exit_hook``) and the
load hooks (``kernel_load_start_hook``, ``kernel_load_end_hook``) are called as Triton calls
them.  The other knobs are kept and reported and change nothing; setting one that Triton would
act on warns so (``knob_descriptors[name].warns``).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import subprocess
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from . import config


class Env:
    """The value that puts a knob back on its environment variable (``knobs.cache.dir = knobs.env``)."""

    def __repr__(self) -> str:
        return "knobs.env"


env = Env()

# Whether setting a knob also writes its environment variable (Triton's switch).
propagate_env: bool = True

_NOTHING = object()


def setenv(key: str, value: str | None) -> None:
    """Write (or, for None, remove) an environment variable, unless ``propagate_env`` is off."""
    if propagate_env:
        _write_environment(key, value)


def _write_environment(key: str, value: str | None) -> None:
    if value is not None:
        os.environ[key] = value
    else:
        os.environ.pop(key, None)


def toenv(value: Any) -> tuple[str | None] | None:
    """The environment text of a knob's value, as a 1-tuple (``(None,)``: unset); None when the
    value has no text (a class, a set)."""
    if value is None:
        return (None,)
    if isinstance(value, bool):
        return ("1" if value else "0",)
    if isinstance(value, (str, int)):
        return (str(value),)
    if isinstance(value, os.PathLike):
        return (os.fspath(value),)
    return None


def truthy(text: str) -> bool:
    """Triton's reading of a boolean variable (``1``, ``y``, ``on``, ``yes``, ``true``, any case)."""
    return text.strip().lower() in config._TRUE


class env_base:
    """A knob: a descriptor naming the environment variable ``key``.

    ``reader`` (kernellab's knobs only): the config function giving what kernellab does when no
    value is set; ``warns``: Triton acts on the knob and kernellab does not, so setting it warns."""

    def __init__(self, key: str, *, reader: Callable[[], Any] | None = None, warns: bool = False) -> None:
        self.key = key
        self.reader = reader
        self.warns = warns
        self.name = key.lower()

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__.get(self.name, _NOTHING)
        if value is _NOTHING:
            return self.reader() if self.reader is not None else self.get()
        return self.transform(value)

    def __set__(self, obj: Any, value: Any) -> None:
        if isinstance(value, Env):
            self.__delete__(obj)
            return
        if self.warns and value and getattr(obj, "_live", False):
            warnings.warn(f"knobs.{_group_name(obj)}.{self.name} is accepted but kernellab does not act on it",
                          stacklevel=3)
        obj.__dict__[self.name] = value
        text = toenv(value)
        if text is not None:
            setenv(self.key, text[0])
        _sync_override(obj, self)

    def __delete__(self, obj: Any) -> None:
        obj.__dict__.pop(self.name, None)
        _sync_override(obj, self)

    def get(self) -> Any:
        """The value from the environment (or the default)."""
        raise NotImplementedError

    def transform(self, value: Any) -> Any:
        """What reading gives for a value that was set (the same, except for NVIDIA tools)."""
        return value

    def raw(self) -> str | None:
        return os.environ.get(self.key)


class env_str(env_base):
    def __init__(self, key: str, default: str, **extra: Any) -> None:
        super().__init__(key, **extra)
        self.default = default

    def get(self) -> str:
        value = self.raw()
        return self.default if value is None else value


class env_str_callable_default(env_base):
    """A string whose default is computed when read (Triton's ``cache.dir``: under ``home_dir``)."""

    def __init__(self, key: str, default_factory: Callable[[], str], **extra: Any) -> None:
        super().__init__(key, **extra)
        self.default_factory = default_factory

    def get(self) -> str:
        value = self.raw()
        return self.default_factory() if value is None else value


class env_bool(env_base):
    def __init__(self, key: str, default: bool = False, **extra: Any) -> None:
        super().__init__(key, **extra)
        self.default = default

    def get(self) -> bool:
        value = self.raw()
        return self.default if value is None else truthy(value)


class env_int(env_base):
    def __init__(self, key: str, default: int = 0, **extra: Any) -> None:
        super().__init__(key, **extra)
        self.default = default

    def get(self) -> int:
        value = self.raw()
        if value is None:
            return self.default
        try:
            return int(value)
        except ValueError:
            raise RuntimeError(f"{self.key}={value!r}: expected an integer") from None


class env_opt_str(env_base):
    """A string, None when unset."""

    def get(self) -> str | None:
        return self.raw()


class env_opt_bool(env_base):
    """A boolean, None when unset."""

    def get(self) -> bool | None:
        value = self.raw()
        return None if value is None else truthy(value)


class env_class(env_base):
    """A class named ``module:Class`` in the variable, which must derive from a class named
    ``type`` (None when unset)."""

    def __init__(self, key: str, type: str, **extra: Any) -> None:  # noqa: A002 - Triton's keyword
        super().__init__(key, **extra)
        self.type = type

    def get(self) -> type | None:
        value = self.raw()
        if value is None:
            return None
        module, _, name = value.partition(":")
        if not module or not name:
            raise RuntimeError(f"{self.key}={value!r}: expected MODULE:CLASS")
        cls = getattr(importlib.import_module(module), name)
        if not any(base.__name__ == self.type for base in cls.__mro__):
            raise RuntimeError(f"{self.key}={value!r}: {name} is not a {self.type}")
        return cls


@dataclass
class NvidiaTool:
    """A CUDA toolkit program: its ``path`` and release ``version`` as Triton spells it,
    major.minor (``"12.8"``: Triton's test helpers split it into two ints)."""

    path: str
    version: str

    @staticmethod
    @functools.lru_cache
    def from_path(path: str) -> NvidiaTool | None:
        """The tool at ``path``, None when it does not run or tells no release."""
        try:
            output = subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return None
        match = re.search(r"release (\d+\.\d+)", output)
        return NvidiaTool(path, match.group(1)) if match else None


class env_nvidia_tool(env_base):
    """An NVIDIA program (``TRITON_PTXAS_PATH``...): the path set or in the variable, else the one
    kernellab finds (the ``nvidia-cuda-*`` wheels, then PATH); reads as a :class:`NvidiaTool`."""

    def __init__(self, binary: str, **extra: Any) -> None:
        super().__init__(f"TRITON_{binary.upper().replace('-', '_')}_PATH", **extra)
        self.binary = binary

    def get(self) -> NvidiaTool:
        chosen = config.nvidia_tool_path(self.binary) if self.key in config.VARIABLES else self.raw()
        return self.transform(chosen)

    def transform(self, path: str | None) -> NvidiaTool:
        for candidate in (path, _found_tool(self.binary)):
            tool = NvidiaTool.from_path(os.fspath(candidate)) if candidate else None
            if tool is not None:
                return tool
        raise RuntimeError(f"cannot find {self.binary}: pip install nvidia-cuda-nvcc, put it on PATH, or set "
                           f"{self.key}")


def _found_tool(binary: str) -> str | None:
    """The program kernellab finds itself (the wheels, then PATH)."""
    from .backends.cuda import tools

    return tools.bundled_tool("ptxas" if binary.startswith("ptxas") else binary)


def _group_name(group: Any) -> str:
    return type(group).__name__.removesuffix("_knobs")


def _sync_override(group: Any, knob: env_base) -> None:
    """Hand a live group's knob value (or its absence) to kernellab.config, for variables config declares."""
    if not getattr(group, "_live", False) or knob.key not in config.VARIABLES:
        return
    value = group.__dict__.get(knob.name, _NOTHING)
    text = toenv(value) if value is not _NOTHING else None
    if text is None:
        config.clear_override(knob.key)
    else:
        config.set_override(knob.key, text[0])
        if knob.key in config.TARGET_VARIABLES:  # launches read these from the environment itself
            _write_environment(knob.key, text[0])


class base_knobs:
    """A group of knobs.  ``knobs`` maps names to current values, ``reset()`` forgets what was
    set, ``scope()`` restores the values (and variables) on exit, ``copy()`` an independent group."""

    # plain attributes Triton acts on and kernellab does not: setting one warns
    INERT_ATTRIBUTES: frozenset[str] = frozenset()

    @property
    def knob_descriptors(self) -> dict[str, env_base]:
        found: dict[str, env_base] = {}
        for cls in reversed(type(self).__mro__):
            found.update({k: v for k, v in vars(cls).items() if isinstance(v, env_base)})
        return found

    @property
    def knobs(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.knob_descriptors}

    def __setattr__(self, name: str, value: Any) -> None:
        if not hasattr(type(self), name):
            raise AttributeError(f"knobs.{_group_name(self)} has no knob {name!r}; its knobs are "
                                 f"{', '.join(n for n in dir(type(self)) if not n.startswith('_'))}")
        if name in self.INERT_ATTRIBUTES and value is not None:
            warnings.warn(f"knobs.{_group_name(self)}.{name} is accepted but kernellab does not act on it",
                          stacklevel=2)
        object.__setattr__(self, name, value)

    def copy(self) -> base_knobs:
        clone = type(self)()
        clone.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_live"})
        return clone

    def reset(self) -> base_knobs:
        """Forget every value set (each knob reads its variable again)."""
        for name in self.knob_descriptors:
            delattr(self, name)
        return self

    @contextmanager
    def scope(self) -> Iterator[base_knobs]:
        """Within the block knobs may be set; on exit the values and variables are as before."""
        descriptors = self.knob_descriptors.values()
        environment = {d.key: os.environ.get(d.key) for d in descriptors}
        values = dict(self.__dict__)
        try:
            yield self
        finally:
            self.__dict__.clear()
            self.__dict__.update(values)
            for key, value in environment.items():
                _write_environment(key, value)
            for descriptor in descriptors:
                _sync_override(self, descriptor)
            self._restored()

    def _restored(self) -> None:
        """Called when ``scope()`` has put the values back (the runtime group tells the launch path)."""


class HookChain:
    """Hooks called in order (``reversed``: last added first): ``add``, ``remove``, and calling
    the chain calls each.  ``on_change`` (kernellab's) is told when one is added or removed."""

    def __init__(self, reversed: bool = False, on_change: Callable[[], None] | None = None) -> None:  # noqa: A002
        self.calls: list[Callable] = []
        self.reversed = reversed
        self.on_change = on_change

    def __bool__(self) -> bool:
        return bool(self.calls)

    def add(self, func: Callable) -> None:
        if func not in self.calls:
            self.calls.append(func)
            self._changed()

    def remove(self, func: Callable) -> None:
        if func in self.calls:
            self.calls.remove(func)
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        for func in (self.calls[::-1] if self.reversed else list(self.calls)):
            func(*args, **kwargs)


def _launch_hooks_changed() -> None:
    """The launch or load hooks changed: the launch path is made again with (or without) them."""
    from .runtime import launch_hooks

    launch_hooks.changed()


def _inert(descriptor: env_base) -> env_base:
    """``descriptor`` marked as a knob Triton acts on and kernellab does not (setting it warns)."""
    descriptor.warns = True
    return descriptor


class build_knobs(base_knobs):
    """How Triton builds its C launchers (kernellab generates its launchers: kept, no effect)."""

    cc = env_opt_str("CC")
    cudacrt_path = env_opt_str("TRITON_CUDACRT_PATH")
    cudart_path = env_opt_str("TRITON_CUDART_PATH")
    impl: Callable | None = None

    @property
    def backend_dirs(self) -> set[str]:
        return {path for path in (self.cudacrt_path, self.cudart_path) if path is not None}


class redis_knobs(base_knobs):
    key_format = env_str("TRITON_REDIS_KEY_FORMAT", "triton:{key}:{filename}")
    host = env_str("TRITON_REDIS_HOST", "localhost")
    port = env_int("TRITON_REDIS_PORT", 6379)


class cache_knobs(base_knobs):
    """``dir`` is kernellab's cache (``KERNELLAB_CACHE_DIR``, default ``~/.cache/kernellab``: its
    layout is not Triton's); ``dump_dir`` is where ``compilation.dump_ir`` dumps."""

    home_dir = env_str("TRITON_HOME", os.path.expanduser("~/"))
    dir = env_str_callable_default("KERNELLAB_CACHE_DIR", lambda: os.fspath(config.cache_dir()),
                                   reader=lambda: os.fspath(config.cache_dir()))
    dump_dir = env_str_callable_default("TRITON_DUMP_DIR", lambda: cache.get_triton_dir("dump"))
    override_dir = env_str_callable_default("TRITON_OVERRIDE_DIR", lambda: cache.get_triton_dir("override"))
    manager_class = env_class("TRITON_CACHE_MANAGER", "CacheManager")
    remote_manager_class = env_class("TRITON_REMOTE_CACHE_BACKEND", "RemoteCacheBackend")

    def get_triton_dir(self, dirname: str) -> str:
        """``<home_dir>/.triton/<dirname>`` (Triton's folders)."""
        return os.path.join(self.home_dir, ".triton", dirname)


class compilation_knobs(base_knobs):
    override = _inert(env_bool("TRITON_KERNEL_OVERRIDE"))
    dump_ir = env_bool("TRITON_KERNEL_DUMP")
    dump_ir_extract_di_local_variables = env_bool("LLVM_EXTRACT_DI_LOCAL_VARIABLES")
    store_binary_only = env_bool("TRITON_STORE_BINARY_ONLY")
    always_compile = env_bool("TRITON_ALWAYS_COMPILE", reader=lambda: not config.disk_cache_enabled())
    use_ir_loc = env_opt_str("USE_IR_LOC")
    enable_asan = _inert(env_bool("TRITON_ENABLE_ASAN"))
    disable_line_info = env_bool("TRITON_DISABLE_LINE_INFO")
    front_end_debugging = env_bool("TRITON_FRONT_END_DEBUGGING")
    allow_non_constexpr_globals = env_bool("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS")
    # read once, as Triton does (refresh_knobs() reads it again)
    instrumentation_mode: str = os.environ.get("TRITON_INSTRUMENTATION_MODE", "")
    listener: Callable | None = None
    INERT_ATTRIBUTES = frozenset({"listener"})


class autotuning_knobs(base_knobs):
    cache = env_bool("TRITON_CACHE_AUTOTUNING", reader=config.cache_autotuning)
    print = env_bool("TRITON_PRINT_AUTOTUNING", reader=config.print_autotuning)


_HOOKS = ("launch_enter_hook", "launch_exit_hook", "kernel_load_start_hook", "kernel_load_end_hook")


class runtime_knobs(base_knobs):
    interpret = env_bool("TRITON_INTERPRET", reader=config.interpret)
    debug = env_bool("TRITON_DEBUG", reader=config.debug)
    override_arch = _inert(env_opt_str("TRITON_OVERRIDE_ARCH"))

    # called by kernellab's launch path (runtime/launch_hooks.py), as Triton's launcher calls them
    launch_enter_hook = HookChain(on_change=_launch_hooks_changed)
    launch_exit_hook = HookChain(reversed=True, on_change=_launch_hooks_changed)
    kernel_load_start_hook = HookChain(on_change=_launch_hooks_changed)
    kernel_load_end_hook = HookChain(reversed=True, on_change=_launch_hooks_changed)
    # called by the JIT (runtime/jit.py), as Triton's
    jit_cache_hook: Callable | None = None
    jit_post_compile_hook: Callable | None = None
    add_stages_inspection_hook: Callable | None = None
    INERT_ATTRIBUTES = frozenset({"add_stages_inspection_hook"})

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in _HOOKS:
            _launch_hooks_changed()

    def __delattr__(self, name: str) -> None:
        super().__delattr__(name)
        if name in _HOOKS:
            _launch_hooks_changed()

    def _restored(self) -> None:
        _launch_hooks_changed()


class language_knobs(base_knobs):
    fp32_default = _inert(env_opt_str("TRITON_F32_DEFAULT"))
    default_fp_fusion = env_bool("TRITON_DEFAULT_FP_FUSION", True, reader=config.default_fp_fusion)


class nvidia_knobs(base_knobs):
    cuobjdump = env_nvidia_tool("cuobjdump")
    nvdisasm = env_nvidia_tool("nvdisasm")
    ptxas = env_nvidia_tool("ptxas")
    ptxas_blackwell = env_nvidia_tool("ptxas-blackwell")
    dump_nvptx = _inert(env_bool("NVPTX_ENABLE_DUMP"))
    disable_ptxas_opt = _inert(env_bool("DISABLE_PTXAS_OPT"))
    ptxas_options = _inert(env_opt_str("PTXAS_OPTIONS"))
    mock_ptx_version = env_opt_str("TRITON_MOCK_PTX_VERSION")
    dump_ptxas_log = _inert(env_bool("TRITON_DUMP_PTXAS_LOG"))
    libdevice_path = env_opt_str("TRITON_LIBDEVICE_PATH")
    libcuda_path = env_opt_str("TRITON_LIBCUDA_PATH")


class amd_knobs(base_knobs):
    """Triton's AMD settings (kernellab has no AMD target: kept, no effect)."""

    use_buffer_ops = env_bool("AMDGCN_USE_BUFFER_OPS", True)
    use_buffer_atomics = env_bool("AMDGCN_USE_BUFFER_ATOMICS", True)
    buffer_ops_analyze_small_tensor_range = env_bool("AMDGCN_ANALYZE_SMALL_TENSOR_RANGE")
    dump_amdgcn = env_bool("AMDGCN_ENABLE_DUMP")
    libhip_path = env_opt_str("TRITON_LIBHIP_PATH")
    use_block_pingpong = env_opt_bool("TRITON_HIP_USE_BLOCK_PINGPONG")
    use_in_thread_transpose = env_opt_bool("TRITON_HIP_USE_IN_THREAD_TRANSPOSE")
    use_async_copy = env_bool("TRITON_HIP_USE_ASYNC_COPY")
    scalarize_packed_fops = env_bool("AMDGCN_SCALARIZE_PACKED_FOPS")


class proton_knobs(base_knobs):
    disable = env_bool("TRITON_PROTON_DISABLE")
    cupti_lib_dir = env_str("TRITON_CUPTI_LIB_PATH", "")
    enable_nvtx = env_bool("TRITON_ENABLE_NVTX", True)


def _live(group: base_knobs) -> base_knobs:
    """``group`` as one of this module's groups (what it sets, kernellab.config sees)."""
    object.__setattr__(group, "_live", True)
    return group


build = _live(build_knobs())
redis = _live(redis_knobs())
cache = _live(cache_knobs())
compilation = _live(compilation_knobs())
autotuning = _live(autotuning_knobs())
runtime = _live(runtime_knobs())
language = _live(language_knobs())
nvidia = _live(nvidia_knobs())
amd = _live(amd_knobs())
proton = _live(proton_knobs())

GROUPS = {_group_name(g): g for g in (runtime, compilation, cache, autotuning, build, language, nvidia, amd, proton,
                                      redis)}


def refresh_knobs() -> None:
    """Read again the knobs read once (Triton's ``refresh_knobs``: ``compilation.instrumentation_mode``;
    the other knobs read their variables whenever asked)."""
    compilation.instrumentation_mode = os.environ.get("TRITON_INSTRUMENTATION_MODE", "")


__all__ = ["base_knobs", "HookChain", "NvidiaTool", "Env", "env", "propagate_env", "setenv", "toenv", "env_base",
           "env_str", "env_str_callable_default", "env_bool", "env_int", "env_opt_str", "env_opt_bool", "env_class",
           "env_nvidia_tool", "refresh_knobs", "GROUPS", *GROUPS]
