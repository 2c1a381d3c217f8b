"""Target facts live on the backends (``Capabilities``): nothing outside kernellab/backends/
compares target names, and the facts the runtime asks for are the ones each backend states."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kernellab
from kernellab import backends
from kernellab.runtime import driver as runtime_driver
from kernellab.runtime.autotuning import compile as autotune_compile
from kernellab.runtime.autotuning import timing as autotune_timing
from kernellab.runtime.targets import cuda_device_count, select_target

TARGET_NAMES = {"interpret", "cpu", "cuda"}
ROOT = Path(kernellab.__file__).parent
# Not yet asking the capabilities (other engineers' files, left to them and reported):
# autotuning/cache.py (cache hardening); target_info.py and ast_source.py (Triton compatibility,
# merged at the end of this work: Triton's GPUTarget.backend spellings, and current_target()).
NOT_YET = {"runtime/autotuning/cache.py", "language/target_info.py", "runtime/ast_source.py"}


def _names_a_target(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.split(":", 1)[0] in TARGET_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_target(e) for e in node.elts)
    return False


def target_comparisons(source: str) -> list[int]:
    """Lines comparing a value with a target name (``==``, ``!=``, ``in``, ``.startswith``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(_names_a_target(n) for n in [node.left, *node.comparators]):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith") and any(_names_a_target(a) for a in node.args)):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_comparisons_and_ignores_docstrings() -> None:
    source = '"""target == "cuda" in a docstring"""\nif t == "cuda": pass\nif t.startswith("cpu"): pass\n' \
             'ok = kind in ("interpret", "host")\nx = {"cuda": 1}\n'
    assert target_comparisons(source) == [2, 3, 4]


def test_no_target_name_comparisons_outside_the_backends() -> None:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("backends/") or relative in NOT_YET:
            continue
        found += [f"{relative}:{line}" for line in target_comparisons(path.read_text())]
    assert not found, f"ask backends.capabilities(target) instead: {found}"


@pytest.mark.parametrize("target", ["interpret", "cpu", "cuda", "cuda:sm_90a"])
def test_every_backend_states_its_facts(target: str) -> None:
    facts = backends.capabilities(target)
    assert facts.name == target.split(":", 1)[0]
    assert facts.parallel_compile in autotune_compile.STRATEGIES
    assert facts.timer in autotune_timing.TIMERS
    assert facts.default_dot_input_precision in facts.dot_input_precisions
    assert facts.launches_host_arrays is not facts.gpu
    assert backends.get(target).capabilities is facts


def test_the_facts_drive_the_runtime() -> None:
    assert backends.capabilities("cuda").min_dot_size == (16, 16, 16)
    assert backends.capabilities("cpu").min_dot_size == (1, 1, 1)
    assert backends.capabilities("interpret").debug_by_default
    assert autotune_timing.timer_class("cpu") is autotune_timing.HostTimer
    assert autotune_timing.timer_class("cuda:sm_90a") is autotune_timing.CudaTimer
    with pytest.raises(ValueError, match="device must be 'cpu', 'cuda' or None"):
        autotune_timing.timer_class("tpu")
    assert select_target(None, [("x", "cuda:0"), ("y", "cuda")], "k") == "cuda"
    assert backends.device_target("cuda:1") == "cuda" and backends.device_target("cpu") is None


def test_the_driver_shim_answers_for_the_target_it_launches_on(monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    active = runtime_driver.ActiveDriver()
    assert active.target() == "interpret"
    assert not active.is_cuda() and active.is_active()
    assert active.get_current_stream() == 0
    assert active.get_current_target().backend == "cpu"
    monkeypatch.setenv("KERNELLAB_TARGET", "cuda")
    assert active.is_cuda()
    assert active.is_active() == (cuda_device_count() > 0)


@pytest.mark.gpu
def test_the_driver_reports_the_stream_launches_go_on(monkeypatch) -> None:
    from kernellab.backends.cuda import driver

    monkeypatch.delenv("KERNELLAB_TARGET", raising=False)
    active = runtime_driver.ActiveDriver()
    assert active.is_cuda() and active.is_active()
    assert active.get_current_stream() == driver.current_stream(active.get_current_device())
    torch = __import__("sys").modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():  # then torch's current stream decides
        with driver.launches_on(0xABC):  # a graph capture's stream
            assert active.get_current_stream() == 0xABC
