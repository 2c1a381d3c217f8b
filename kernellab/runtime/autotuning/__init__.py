"""Autotuning: ``Config``, ``@autotune`` and ``@heuristics`` with Triton's semantics.

Modules: ``autotuner`` (``Autotuner``, ``Heuristics``, the decorators; Triton's
``triton.runtime.autotuner``, through ``kernellab.as_triton``'s alias table), ``config``
(``Config``), ``compile`` (a sweep's parallel compilation), ``timing`` (``do_bench``,
``do_bench_cudagraph``: the timers ``kernellab.testing`` re-exports), ``cache`` (results kept on
disk), ``hooks`` (reset/restore around timed runs), ``results`` (a sweep's records, the table,
the progress bar).

The package is named ``autotuning``, not ``autotune``: ``kernellab.runtime.autotune`` is the
decorator (as ``triton.runtime.autotune``), and importing a subpackage of that name would
replace it.  Nothing is imported here: ``kernellab.testing`` reads ``timing`` without loading
the autotuner.
"""
