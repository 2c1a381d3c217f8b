"""Triton's runtime interfaces that kernellab's classes stand in for: ``KernelInterface`` (what
``kernel[grid](...)`` objects are), the allocator hook (``set_allocator``), asynchronous
compilation (``AsyncCompileMode``, ``FutureKernel``) and the remote-cache base classes."""

from __future__ import annotations

import abc
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # concurrent.futures (and logging, which it imports) load only when compiling async
    from concurrent.futures import Executor, Future

T = TypeVar("T")


class KernelInterface(Generic[T], metaclass=abc.ABCMeta):
    """What can be launched as ``kernel[grid](*args)``: ``run(*args, grid=, warmup=)``.
    kernellab's ``JITFunction``, ``Autotuner`` and ``Heuristics`` are instances; a subclass
    implements ``run``."""

    run: T

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        if cls is not KernelInterface:
            return NotImplemented
        launchable = all(callable(getattr(other, name, None)) for name in ("run", "__getitem__", "warmup"))
        return launchable and (getattr(other, "__kernellab_jit__", False) or hasattr(other, "fn"))

    def warmup(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def run(self, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement run(*args, grid=, warmup=)")

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


# ---- the allocator (Triton's ``triton.runtime._allocation``) ----

class NullAllocator:
    """The allocator before ``set_allocator``: a kernel that needs scratch memory says so."""

    def __call__(self, size: int, alignment: int, stream: Any) -> Any:
        raise RuntimeError("this kernel needs a run-time memory allocation but no allocator is set; "
                           "call kernellab.set_allocator(fn) with fn(size, alignment, stream) -> array")


_NULL_ALLOCATOR = NullAllocator()
_allocator: ContextVar[Callable] = ContextVar("kernellab_allocator", default=_NULL_ALLOCATOR)  # noqa: B039 (stateless)


def set_allocator(allocator: Callable[[int, int, Any], Any] | None) -> None:
    """Set the function that gives kernels global scratch memory: ``allocator(size, alignment,
    stream)`` returns an array (``.data_ptr()``).  kernellab's kernels need none today (tensor
    descriptors are built without scratch memory), so it is kept for code that sets one.
    ``None`` takes the allocator away again (Triton takes it: torchao resets with it in a
    ``finally``); a kernel that then needs memory says that none is set."""
    if allocator is None:
        allocator = _NULL_ALLOCATOR
    elif not callable(allocator):
        raise TypeError(f"set_allocator takes a function (size, alignment, stream) -> array, not {allocator!r}")
    _allocator.set(allocator)


def get_allocator() -> Callable:
    return _allocator.get()


# ---- asynchronous compilation (Triton's ``AsyncCompileMode``) ----

active_mode: ContextVar[AsyncCompileMode | None] = ContextVar("kernellab_async_compile", default=None)


class FutureKernel:
    """A kernel being compiled: ``result()`` waits for it (None with ``ignore_errors`` when the
    compilation failed)."""

    def __init__(self, finalize_compile: Callable[[Any], None], future: Future):
        self.finalize_compile = finalize_compile
        self.future = future
        self.kernel = None

    def result(self, ignore_errors: bool = False) -> Any:
        if self.kernel is not None:
            return self.kernel
        try:
            kernel = self.future.result()
        except Exception:
            if ignore_errors:
                return None
            raise
        self.finalize_compile(kernel)
        self.kernel = kernel
        return kernel

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result(), name)


class AsyncCompileMode:
    """``with AsyncCompileMode(executor): kernel.warmup(...)`` compiles the warmups on
    ``executor`` (each returns a :class:`FutureKernel`); leaving the block waits for them all."""

    def __init__(self, executor: Executor, *, ignore_errors: bool = False):
        self.executor = executor
        self.ignore_errors = ignore_errors
        self.raw_futures: list[Future] = []
        self.future_kernels: dict[Any, FutureKernel] = {}

    def submit(self, key: Any, compile_fn: Callable[[], Any], finalize_fn: Callable[[Any], None]) -> FutureKernel:
        found = self.future_kernels.get(key)
        if found is not None:
            return found
        future = self.executor.submit(compile_fn)
        self.raw_futures.append(future)
        found = self.future_kernels[key] = FutureKernel(finalize_fn, future)
        future.kernellab_key = key
        return found

    def __enter__(self) -> AsyncCompileMode:
        if active_mode.get() is not None:
            raise RuntimeError("an AsyncCompileMode is already active; nest no second one")
        active_mode.set(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        from concurrent.futures import as_completed

        try:
            for future in as_completed(self.raw_futures):
                self.future_kernels[future.kernellab_key].result(self.ignore_errors)
        finally:
            active_mode.set(None)


# ---- remote caches (Triton's ``triton.runtime.cache``) ----

class RemoteCacheBackend(abc.ABC):
    """A remote store of compiled kernels: ``get(filenames) -> {name: bytes}``, ``put(name,
    data)``.  kernellab's cache is local (``kernellab.config.cache_dir``); it reads no remote
    backend, and the class is here for code that subclasses it."""

    def __init__(self, key: str):
        self.key = key

    @abc.abstractmethod
    def get(self, filenames: list[str]) -> dict[str, bytes]:
        """The stored bytes of each name found."""

    @abc.abstractmethod
    def put(self, filename: str, data: bytes) -> None:
        """Store ``data`` under ``filename``."""


class RedisRemoteCacheBackend(RemoteCacheBackend):
    """Triton's Redis-backed cache; kernellab has no remote cache, so making one says so."""

    def __init__(self, key: str):
        raise RuntimeError("kernellab has no remote kernel cache (Redis); its on-disk cache is "
                           "kernellab.config.cache_dir(), shared by processes on one machine")

    def get(self, filenames: list[str]) -> dict[str, bytes]:  # pragma: no cover - cannot be made
        raise NotImplementedError

    def put(self, filename: str, data: bytes) -> None:  # pragma: no cover - cannot be made
        raise NotImplementedError


__all__ = ["KernelInterface", "NullAllocator", "set_allocator", "get_allocator", "AsyncCompileMode", "FutureKernel",
           "active_mode", "RemoteCacheBackend", "RedisRemoteCacheBackend"]
