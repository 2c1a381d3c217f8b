"""``@autotune`` and ``@heuristics`` (Triton's semantics), with a faster, better-kept sweep.

::

    @kl.autotune(configs=[kl.Config({"BLOCK": 128}, num_warps=4), kl.Config({"BLOCK": 1024})],
                 key=["n"])
    @kl.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr): ...

    kernel[grid](x, n)        # the first launch for a new key times every config, then runs the best

The tuning key is the values of the ``key`` arguments and the dtype of every argument that has
one (of the arrays in tuple arguments too).  A new key starts a *sweep*: ``prune_configs_by``
(``early_config_prune(configs, named_args, **kwargs)`` must leave at least one config;
``perf_model(**args, **config)`` with ``top_k``, a fraction or a count, keeps the fastest
predictions), then every remaining config
is compiled (in parallel, see ``compile``) and timed with ``do_bench(fn, quantiles)``
(median, 20th and 80th percentile, ms).  Around every timed run: ``Config.pre_hook``, then the
autotuner's ``pre_hook`` (by default: zero ``reset_to_zero`` arguments, save ``restore_value``
ones), the launch, and ``post_hook`` (by default: restore them).  A config that cannot compile
or runs out of resources gets an infinite time and its reason in the results.

Beyond Triton: the results of every sweep are kept (``tuner.results``, a pandas DataFrame:
config, compile time, run time quantiles, failure reason); ``cache_results`` keeps them on disk
per config (``cache``); a progress bar shows while a sweep runs.
"""

from __future__ import annotations

import builtins
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from ... import config as kl_config
from ...errors import AutotunerError, OutOfResources
from ...lazy import lazy_attributes
from ..jit import KernelInterface, register_serial, torch_intercept
from . import compile as compile_jobs
from .cache import Entry, ResultCache
from .config import Config
from .hooks import ResetRestore
from .results import SweepRecord, progress_bar, report, results_frame, show_progress
from .timing import do_bench as default_do_bench
from .timing import do_bench_cudagraph

# Triton's autotuner module has its errors too (torch.compile's Triton layer imports OutOfResources and
# PTXASError from it); ptxas's error is the CUDA backend's, imported when first named.
__getattr__, __dir__ = lazy_attributes(globals(), {"PTXASError": ("kernellab.backends.cuda.ptxas", "PtxasError")})

QUANTILES = (0.5, 0.2, 0.8)
_LAUNCH_ONLY = ("grid", "warmup")
_INFINITE = [float("inf")] * len(QUANTILES)


def _check_names(fn_name: str, arg_names: Sequence[str], names: Iterable[str] | None, what: str) -> list[str]:
    chosen = [names] if isinstance(names, str) else list(names or ())
    unknown = [name for name in chosen if name not in arg_names]
    if unknown:
        raise ValueError(f"{what} of `{fn_name}` names {', '.join(map(repr, unknown))}, which "
                         f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'}; the parameters are "
                         f"{', '.join(arg_names)}")
    return chosen


class KernelWrapper(KernelInterface):
    """What Autotuner and Heuristics share with a jit kernel: ``kernel[grid](...)``, ``run``,
    ``warmup``, ``arg_names`` and the wrapped ``fn``."""

    fn: Any
    arg_names: list[str]

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        intercept = torch_intercept()  # kernellab.torch, while torch traces
        if intercept is not None:
            traced = intercept(self, grid)
            if traced is not None:
                return traced
        return partial(self._launch, grid)

    def _launch(self, grid: Any, *args: Any, **kwargs: Any) -> Any:
        return self.run(*args, grid=grid, warmup=False, **kwargs)

    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError

    @property
    def __name__(self) -> str:
        """The wrapped kernel's name, unless one was given (Triton's wrappers take ``__name__``
        as a plain attribute: subclasses of Autotuner set ``self.__name__``)."""
        given = self.__dict__.get("_given_name")
        return given if given is not None else compile_jobs.base_jit(self).__name__

    @__name__.setter
    def __name__(self, name: str) -> None:
        self.__dict__["_given_name"] = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"`{self.__name__}` is a kernel: launch it with {self.__name__}[grid](...)")


def _dtypes(value: Any) -> list[str]:
    """The dtype of an array argument, or of each array in a tuple argument (the tuning key has them)."""
    if isinstance(value, tuple):
        return [dtype for item in value for dtype in _dtypes(item)]
    return [str(value.dtype)] if hasattr(value, "dtype") else []


class Autotuner(KernelWrapper):
    """A kernel that picks the fastest of ``configs`` for each tuning key."""

    def __init__(self, fn: Any, arg_names: Sequence[str], configs: Sequence[Config] | None, key: Sequence[str],
                 reset_to_zero: Iterable[str] | None = None, restore_value: Iterable[str] | None = None,
                 pre_hook: Callable | None = None, post_hook: Callable | None = None,
                 prune_configs_by: dict[str, Any] | None = None, warmup: float | None = None,
                 rep: float | None = None, use_cuda_graph: bool = False, do_bench: Callable | None = None,
                 cache_results: bool = False, parallel_compile: str | bool = "auto", progress: bool | None = None):
        self.fn = fn
        self.serial = register_serial(self)
        self.base_fn = compile_jobs.base_jit(fn)
        self.arg_names = list(arg_names)
        name = self.base_fn.__name__
        self.configs = list(configs) if configs else [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        for config in self.configs:
            if not isinstance(config, Config):
                raise TypeError(f"autotune's configs are kl.Config objects; `{name}` got {config!r}")
        # as Triton's: a key name that is no parameter is kept and takes no part in the key (fla's
        # merge_fwd_bwd_kernel keys on a BT it does not take)
        self.keys = [key] if isinstance(key, str) else list(key or ())
        self.reset_restore = ResetRestore(_check_names(name, self.arg_names, reset_to_zero, "reset_to_zero"),
                                          _check_names(name, self.arg_names, restore_value, "restore_value"))
        self.pre_hook = pre_hook or self.reset_restore.pre_hook
        self.post_hook = post_hook or self.reset_restore.post_hook
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.perf_model, self.configs_top_k, self.early_config_prune = _pruning(prune_configs_by)
        self.cache_results = bool(cache_results) or kl_config.cache_autotuning()
        self.parallel_compile = parallel_compile
        compile_jobs.choose_strategy(parallel_compile, "cpu", 0)  # validates the value
        self.progress = progress
        self.num_warmups, self.num_reps, self.use_cuda_graph = warmup, rep, use_cuda_graph
        self._do_bench = do_bench
        if do_bench is None and (warmup is not None or rep is not None or use_cuda_graph):
            _warn_deprecated()
        self.cache: dict[tuple, Config] = {}
        self.configs_timings: dict[Config, list[float]] | None = None
        self.best_config: Config | None = None
        self.bench_time: float | None = None
        self.nargs: dict[str, Any] | None = None
        self.sweeps: dict[tuple, list[SweepRecord]] = {}
        self.phase_seconds: dict[str, float] = {}  # the last sweep's wall time per phase
        self.compile_strategy: str | None = None     # how its configs were compiled
        self._records: list[SweepRecord] = []

    def __repr__(self) -> str:
        return f"Autotuner({self.base_fn!r}, {len(self.configs)} configs, key={self.keys})"

    @property
    def reset_to_zero(self) -> list[str]:
        """The arguments zeroed before every timed run (Triton's attribute: subclasses that install
        hooks of their own read it, as fla's CachedAutotuner does)."""
        return self.reset_restore.reset_to_zero

    @property
    def restore_value(self) -> list[str]:
        """The arguments saved before every timed run and written back after it (Triton's attribute)."""
        return self.reset_restore.restore_value

    # ---- what the sweeps found ----
    @property
    def results(self) -> Any:
        """Every config of every sweep so far as a pandas DataFrame (one row per config and key)."""
        return results_frame(self._records)

    # ---- the tuning key and pruning ----
    def tuning_key(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple:
        named = {**dict(zip(self.arg_names, args)), **kwargs}
        named = {name: value for name, value in named.items() if name in self.arg_names}
        key = [named[name] for name in self.keys if name in named]
        key += [dtype for value in named.values() for dtype in _dtypes(value)]
        return tuple(key)

    def prune_configs(self, kwargs: dict[str, Any], nargs: dict[str, Any] | None = None) -> list[Config]:
        """The configs left after ``early_config_prune`` and ``perf_model``/``top_k``."""
        nargs = self.nargs if nargs is None else nargs
        pruned = list(self.configs)
        if self.early_config_prune:
            pruned = list(self.early_config_prune(self.configs, nargs, **kwargs) or [])
            if not pruned:
                raise AutotunerError("Autotuner error: No valid autotuner configs after pruning. "  # Triton's words
                                     "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = _top_k(self.configs_top_k, len(pruned))
            if len(pruned) > top_k:
                estimates = {config: self.perf_model(**nargs, **kwargs, **config.all_kwargs()) for config in pruned}
                pruned = sorted(estimates, key=estimates.get)[:top_k]
        return pruned

    # ---- launching ----
    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> Any:
        self._check_conflicts(kwargs)
        self.nargs = dict(zip(self.arg_names, args))
        try:
            if warmup:
                return self.warmup(*args, grid=grid, **kwargs)
            config = self._choose(args, grid, kwargs)
            self.best_config = config
            if config.pre_hook is not None:
                config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
            return self.fn.run(*args, grid=grid, warmup=False, **kwargs, **config.all_kwargs())
        finally:
            self.nargs = None

    def warmup(self, *args: Any, grid: Any = (1,), **kwargs: Any) -> list[Any]:
        """Compile every config left after pruning (in parallel); returns the compiled kernels."""
        kwargs = {k: v for k, v in kwargs.items() if k != "warmup"}
        nargs = dict(zip(self.arg_names, args))
        configs = self.prune_configs(kwargs, nargs)
        target = compile_jobs.launch_target(self.base_fn, {**nargs, **kwargs})
        outcomes = self._compile(configs, args, grid, kwargs, target)
        for config, outcome in zip(configs, outcomes):
            if outcome.failure is not None:
                raise AutotunerError(f"config {config} of `{self.base_fn.__name__}` failed to compile: "
                                     f"{outcome.failure}")
        return [outcome.kernel for outcome in outcomes]

    def _check_conflicts(self, kwargs: dict[str, Any]) -> None:
        given = set(kwargs) - set(_LAUNCH_ONLY)
        for config in self.configs:
            conflicts = sorted(given & config.all_kwargs().keys())
            if conflicts:
                raise ValueError(f"Conflicting meta-parameters: {', '.join(conflicts)}. `{self.base_fn.__name__}` "
                                 f"is autotuned over them (config {config}); don't pass them when launching it, or "
                                 "remove them from the configs")

    def _choose(self, args: Sequence[Any], grid: Any, kwargs: dict[str, Any]) -> Config:
        if len(self.configs) == 1:
            return self.configs[0]
        key = self.tuning_key(args, kwargs)
        if key not in self.cache:
            pruned = self.prune_configs(kwargs)
            if len(pruned) == 1:
                self.cache[key] = pruned[0]
            else:
                self._sweep(key, pruned, args, grid, kwargs)
        return self.cache[key]

    # ---- the sweep ----
    def _sweep(self, key: tuple, configs: list[Config], args: Sequence[Any], grid: Any,
               kwargs: dict[str, Any]) -> None:
        start = time.perf_counter()
        target = compile_jobs.launch_target(self.base_fn, {**self.nargs, **kwargs})
        name = self.base_fn.__name__
        records = [SweepRecord(name, key, config) for config in configs]
        stored = ResultCache(self.base_fn, target) if self.cache_results else None
        if stored is not None:
            self._load_stored(stored, key, records)
        pending = [r for r in records if not r.cached]
        if pending:
            self._compile_and_time(pending, args, grid, kwargs, target)
            if stored is not None:
                for record in pending:
                    stored.store(key, record.config, Entry(record.timings, record.failure, record.compile_s))
        timings = {record.config: record.timings for record in records}
        best = builtins.min(timings, key=timings.get)
        for record in records:
            record.best = record.config is best
        self.cache[key] = best
        self.configs_timings = timings
        self.bench_time = time.perf_counter() - start
        self.sweeps[key] = records
        self._records.extend(records)
        self.pre_hook({**self.nargs, **kwargs, **best.all_kwargs()}, reset_only=True)
        if kl_config.print_autotuning():
            print(report(name, key, records, self.bench_time, best))

    def _load_stored(self, stored: ResultCache, key: tuple, records: list[SweepRecord]) -> None:
        for record in records:
            entry = stored.load(key, record.config)
            if entry is not None:
                record.timings, record.failure, record.compile_s = entry.timings, entry.failure, entry.compile_seconds
                record.cached = True

    def _compile_and_time(self, records: list[SweepRecord], args: Sequence[Any], grid: Any,
                          kwargs: dict[str, Any], target: str) -> None:
        start = time.perf_counter()
        outcomes = self._compile([r.config for r in records], args, grid, kwargs, target, config_hooks=True)
        self.phase_seconds = {"compile": time.perf_counter() - start}
        start = time.perf_counter()
        for record, outcome in zip(records, outcomes):
            record.compile_s, record.failure = outcome.compile_seconds, outcome.failure
            if outcome.error is not None:
                self._hooks_of_a_failed_launch(kwargs, record.config, outcome.error)
        runnable = [r for r in records if r.failure is None]
        bench = self._bench_function(target)
        with progress_bar(len(runnable), f"{self.base_fn.__name__}: timing", show_progress(self.progress)) as bar:
            for record in runnable:
                record.timings, record.failure = self._time_config(args, grid, kwargs, record.config, bench)
                bar.update(1)
        self.phase_seconds["timing"] = time.perf_counter() - start

    def _compile(self, configs: list[Config], args: Sequence[Any], grid: Any, kwargs: dict[str, Any],
                 target: str, config_hooks: bool = False) -> list[compile_jobs.Compiled]:
        """Compiles ``configs``.  With ``config_hooks`` (a sweep), a config with a ``pre_hook`` is
        left to its first timed launch, which compiles it after the hook as Triton's does: the hook
        may set what the specialization reads (a host TensorDescriptor's ``block_shape``, made with
        a placeholder)."""
        jobs = [partial(self._deferred if config_hooks and config.pre_hook is not None else self._warmup_job,
                        args, grid, kwargs, config) for config in configs]
        strategy = compile_jobs.choose_strategy(self.parallel_compile, target, len(jobs))
        self.compile_strategy = strategy
        description = f"{self.base_fn.__name__}: compiling ({strategy})"
        with progress_bar(len(jobs), description, show_progress(self.progress)) as bar:
            return compile_jobs.compile_all(jobs, strategy, bar.update)

    def _warmup_job(self, args: Sequence[Any], grid: Any, kwargs: dict[str, Any], config: Config) -> Any:
        return self.fn.warmup(*args, grid=grid, **kwargs, **config.all_kwargs())

    @staticmethod
    def _deferred(*_: Any) -> None:
        return None  # no kernel yet: the config's first timed launch compiles it

    def _bench_function(self, target: str) -> Callable:
        """``do_bench(fn, quantiles)``: the user's, or kernellab's on the target's clock (with the
        deprecated ``warmup``/``rep``/``use_cuda_graph`` when given)."""
        if self._do_bench is not None:
            return self._do_bench
        device = target  # do_bench times on the target's clock (its Capabilities.timer)
        rep = self.num_reps if self.num_reps is not None else 100
        if self.use_cuda_graph:
            return partial(do_bench_cudagraph, rep=rep, device=device)
        warmup = self.num_warmups if self.num_warmups is not None else 25
        return partial(default_do_bench, warmup=warmup, rep=rep, device=device)

    def _hooks_of_a_failed_launch(self, kwargs: dict[str, Any], config: Config, error: BaseException) -> None:
        """The hooks a config that failed to compile gets, as in Triton, where it fails at its
        first launch: the pre-hooks, then ``post_hook(..., exception=error)``."""
        named = {**self.nargs, **kwargs, **config.all_kwargs()}
        if config.pre_hook:
            config.pre_hook(named)
        self.pre_hook(named)
        self.post_hook(named, exception=error)

    def _bench(self, *args: Any, config: Config, **meta: Any) -> list[float]:
        """Triton's ``_bench``: one config's timings (median, 20th and 80th percentile, ms; infinite
        when it cannot compile or run out of resources), the launch's keywords in ``meta`` (``grid``
        among them).  Subclasses that choose configs their own way call it (FlagGems' LibTuner)."""
        meta = {k: v for k, v in meta.items() if k != "warmup"}
        grid = meta.pop("grid", None)
        conflicts = sorted(meta.keys() & config.kwargs.keys())
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(conflicts)}. Make sure that you don't re-define "
                             "auto-tuned symbols.")  # Triton's words
        if self.nargs is None:
            self.nargs = dict(zip(self.arg_names, args))
        target = compile_jobs.launch_target(self.base_fn, {**self.nargs, **meta})
        return self._time_config(args, grid, meta, config, self._bench_function(target))[0]

    def _time_config(self, args: Sequence[Any], grid: Any, kwargs: dict[str, Any], config: Config,
                     bench: Callable) -> tuple[list[float], str | None]:
        """``(timings, failure)`` of one config."""
        current = {**kwargs, **config.all_kwargs()}
        named = {**self.nargs, **current}

        def kernel_call() -> None:
            if config.pre_hook:
                config.pre_hook(named)
            self.pre_hook(named)
            try:
                self.fn.run(*args, grid=grid, warmup=False, **current)
            except Exception as error:
                self.post_hook(named, exception=error)
                raise
            self.post_hook(named, exception=None)

        try:
            timings = bench(kernel_call, quantiles=QUANTILES)
        except compile_jobs.failure_types() as error:
            return list(_INFINITE), compile_jobs.describe(error)
        return _as_list(timings), None


def _as_list(timings: Any) -> list[float]:
    if isinstance(timings, (int, float)):
        return [float(timings)] * len(QUANTILES)
    return [float(t) for t in timings]


def _top_k(top_k: Any, count: int) -> int:
    if isinstance(top_k, float) and top_k <= 1.0:
        return max(1, int(count * top_k))
    if isinstance(top_k, int) and not isinstance(top_k, bool) and top_k >= 1:
        return top_k
    raise TypeError(f"prune_configs_by's top_k is a fraction of the configs (a float <= 1.0) or a count (an int >= 1), "
                    f"got {top_k!r}")


def _pruning(prune_configs_by: dict[str, Any] | None) -> tuple[Callable | None, Any, Callable | None]:
    given = dict(prune_configs_by or {})
    unknown = sorted(set(given) - {"perf_model", "top_k", "early_config_prune"})
    if unknown:
        raise ValueError(f"prune_configs_by takes perf_model, top_k and early_config_prune; got {', '.join(unknown)}")
    return given.get("perf_model"), given.get("top_k", 1.0), given.get("early_config_prune")


def _warn_deprecated() -> None:
    """Triton's old ``warmup``/``rep``/``use_cuda_graph`` arguments: they still work, and warn."""
    warnings.warn("autotune's warmup, rep and use_cuda_graph are deprecated: pass do_bench=lambda fn, quantiles: "
                  "kl.testing.do_bench(fn, warmup=..., rep=..., quantiles=quantiles) instead", DeprecationWarning,
                  stacklevel=4)


def autotune(configs: Sequence[Config], key: Sequence[str], prune_configs_by: dict[str, Any] | None = None,
             reset_to_zero: Iterable[str] | None = None, restore_value: Iterable[str] | None = None,
             pre_hook: Callable | None = None, post_hook: Callable | None = None, warmup: float | None = None,
             rep: float | None = None, use_cuda_graph: bool = False, do_bench: Callable | None = None,
             cache_results: bool = False, parallel_compile: str | bool = "auto",
             progress: bool | None = None) -> Callable[[Any], Autotuner]:
    """Autotune a ``@jit`` kernel over ``configs`` for each value of the ``key`` arguments.

    Triton's arguments (see the module docstring), and: ``parallel_compile`` (``"auto"``,
    ``"processes"``, ``"threads"``, ``"sequential"``/False) and ``progress`` (show a progress
    bar: True, False, or None for notebooks and terminals)."""

    def decorator(fn: Any) -> Autotuner:
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results,
                         parallel_compile=parallel_compile, progress=progress)

    return decorator


class Heuristics(KernelWrapper):
    """A kernel whose meta-parameters ``values`` are computed from the other arguments."""

    def __init__(self, fn: Any, arg_names: Sequence[str], values: dict[str, Callable[[dict[str, Any]], Any]]):
        self.fn = fn
        self.serial = register_serial(self)
        self.arg_names = list(arg_names)
        if not isinstance(values, dict) or not all(callable(h) for h in values.values()):
            raise TypeError("heuristics takes a dict of meta-parameter names to functions of the named arguments, "
                            f"got {values!r}")
        self.values = values

    def __repr__(self) -> str:
        return f"Heuristics({self.fn!r}, {sorted(self.values)})"

    def _with_values(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> Any:
        return self.fn.run(*args, grid=grid, warmup=warmup, **self._with_values(args, kwargs))

    def warmup(self, *args: Any, grid: Any = (1,), **kwargs: Any) -> Any:
        return self.fn.warmup(*args, grid=grid, **self._with_values(args, kwargs))


def heuristics(values: dict[str, Callable[[dict[str, Any]], Any]]) -> Callable[[Any], Heuristics]:
    """Compute meta-parameters from the other arguments::

        @kl.heuristics(values={"BLOCK": lambda args: kl.next_power_of_2(args["n"])})
        @kl.jit
        def kernel(x_ptr, n, BLOCK: tl.constexpr): ...
    """

    def decorator(fn: Any) -> Heuristics:
        return Heuristics(fn, fn.arg_names, values)

    return decorator


__all__ = ["Autotuner", "autotune", "Heuristics", "heuristics", "Config", "AutotunerError", "OutOfResources",
           "PTXASError"]  # noqa: F822 (lazy)
