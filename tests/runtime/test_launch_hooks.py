"""Triton's launch hooks (``knobs.runtime.launch_enter_hook`` / ``launch_exit_hook``: called
around every launch with a LazyDict of its metadata, the kernel's ``launch_metadata`` included)
and load hooks (``kernel_load_start_hook`` / ``kernel_load_end_hook``), on the host targets; a
kernel already launched natively gets the hooks, and loses them (the native path back) when
they are removed."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab import knobs
from kernellab.runtime import launch_hooks
from kernellab.runtime.native import capi, fastpath


def _kernel():
    def launch_metadata(grid, metadata, args):
        return {"grid": grid, "n": args["n"], "BLOCK": args["BLOCK"], "kernel": metadata["name"]}

    @kl.jit(launch_metadata=launch_metadata)
    def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)

    return scale


@pytest.fixture
def hooks():
    """The runtime knobs as they were after the test (hooks removed)."""
    with knobs.runtime.scope():
        yield knobs.runtime
    for chain in (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook,
                  knobs.runtime.kernel_load_start_hook, knobs.runtime.kernel_load_end_hook):
        chain.calls.clear()
    launch_hooks.changed()


def _launch(kernel, inputs, n, grid=None):
    x = inputs.normal(n).astype(np.float32)
    out = inputs.poisoned(n).astype(np.float32)
    kernel[grid or (lambda meta: (kl.cdiv(meta["n"], meta["BLOCK"]),))](x, out, n, BLOCK=64)
    np.testing.assert_allclose(out, x * 3, rtol=1e-6)


def test_the_launch_hooks_get_the_launch_metadata(host_target, inputs, hooks):
    kernel, seen = _kernel(), []
    enter = lambda metadata: seen.append(("enter", metadata.get()))  # noqa: E731
    leave = lambda metadata: seen.append(("exit", metadata.get()))  # noqa: E731
    hooks.launch_enter_hook.add(enter)
    hooks.launch_exit_hook.add(leave)
    n = int(inputs.integers((), 65, 500))
    _launch(kernel, inputs, n)
    (_, entered), (_, left) = seen
    assert entered is left or entered == left
    assert entered["name"] == "scale" and entered["kernel"] == "scale" and entered["stream"] == 0
    assert entered["grid"] == (kl.cdiv(n, 64),) and entered["n"] == n and entered["BLOCK"] == 64
    hooks.launch_enter_hook.remove(enter)
    hooks.launch_exit_hook.remove(leave)
    _launch(kernel, inputs, n)
    assert len(seen) == 2


def test_exit_hooks_run_last_added_first(host_target, inputs, hooks):
    kernel, order = _kernel(), []
    for name in ("a", "b"):
        hooks.launch_enter_hook.add(lambda metadata, name=name: order.append(f"enter {name}"))
        hooks.launch_exit_hook.add(lambda metadata, name=name: order.append(f"exit {name}"))
    _launch(kernel, inputs, 100, grid=(2,))
    assert order == ["enter a", "enter b", "exit b", "exit a"]


def test_a_hook_set_as_a_function_and_a_direct_launch(host_target, inputs, hooks):
    kernel, seen = _kernel(), []
    with knobs.runtime.scope():
        knobs.runtime.launch_enter_hook = lambda metadata: seen.append(metadata.get()["name"])
        compiled = kernel.warmup(tl.float32, tl.float32, 100, BLOCK=64)
        x, out = inputs.normal(100).astype(np.float32), np.zeros(100, np.float32)
        compiled[(2,)](x, out, 100)
        _launch(kernel, inputs, 100)
    assert seen == ["scale", "scale"]
    _launch(kernel, inputs, 100)  # the scope restored the HookChain: nothing is called
    assert seen == ["scale", "scale"]


def test_the_load_hooks_see_each_kernel_loaded_once(host_target, inputs, hooks):
    kernel, seen = _kernel(), []
    hooks.kernel_load_start_hook.add(lambda *args: seen.append(("start", *args)))
    hooks.kernel_load_end_hook.add(lambda *args: seen.append(("end", *args)))
    _launch(kernel, inputs, 100)
    _launch(kernel, inputs, 100)
    (start, module, function, name, group, key), end = seen
    assert start == "start" and module is None and function is None and name == "scale"
    assert end[0] == "end" and end[3:] == ("scale", group, key)
    assert key == kernel.cache[next(iter(kernel.cache))].hash and isinstance(group, dict)


@pytest.mark.skipif(not (fastpath.enabled() and capi.supported()), reason="no native launch path here")
def test_a_natively_launched_kernel_gets_the_hooks_and_loses_them(monkeypatch, inputs, hooks):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    kernel, seen = _kernel(), []
    for _ in range(3):
        _launch(kernel, inputs, 100, grid=(2,))
    assert type(kernel._head).__name__ == "builtin_function_or_method"  # launched natively
    hook = lambda metadata: seen.append(metadata.get()["n"])  # noqa: E731
    hooks.launch_enter_hook.add(hook)
    for _ in range(3):
        _launch(kernel, inputs, 100, grid=(2,))
    assert seen == [100, 100, 100] and "_kl_launch_hooked" in kernel.binder_source
    hooks.launch_enter_hook.remove(hook)
    for _ in range(3):
        _launch(kernel, inputs, 100, grid=(2,))
    assert seen == [100, 100, 100] and "_kl_launch_hooked" not in kernel.binder_source
    assert type(kernel._head).__name__ == "builtin_function_or_method"


@pytest.mark.gpu
def test_the_hooks_on_cuda_see_the_function_and_stream(inputs, hooks):
    kernel, seen, loads = _kernel(), [], []
    hooks.launch_enter_hook.add(lambda metadata: seen.append(metadata.get()))
    hooks.kernel_load_end_hook.add(lambda *args: loads.append(args))
    n = 300
    x = inputs.normal(n).astype(np.float32)
    dx, out = kl.to_device(x), kl.to_device(inputs.poisoned(n).astype(np.float32))
    kernel[(kl.cdiv(n, 64),)](dx, out, n, BLOCK=64)
    np.testing.assert_allclose(out.numpy(), x * 3, rtol=1e-6)
    (metadata,), ((module, function, name, group, key),) = seen, loads
    assert metadata["name"] == name == "scale" and metadata["function"] == function and function
    assert isinstance(metadata["stream"], int) and module is not None and key and isinstance(group, dict)
