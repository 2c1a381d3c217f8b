"""Target facts live on the backends (``Capabilities``): nothing outside kernellab/backends/
compares target names, and the facts the runtime asks for are the ones each backend states."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kernellab
import kernellab as kl
import kernellab.language as tl
from kernellab import backends
from kernellab.runtime import driver as runtime_driver
from kernellab.runtime.ast_source import target_name
from kernellab.runtime.autotuning import cache as autotune_cache
from kernellab.runtime.autotuning import compile as autotune_compile
from kernellab.runtime.autotuning import timing as autotune_timing
from kernellab.runtime.targets import backend_available, cuda_device_count, select_target

TARGET_NAMES = {"interpret", "cpu", "cuda"}
ROOT = Path(kernellab.__file__).parent


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
        if relative.startswith("backends/"):
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
    cuda = backends.capabilities("cuda")
    assert cuda.min_dot_size == (1, 1, 16) and cuda.min_dot_size_8bit == (1, 1, 32)  # Triton's NVIDIA rules
    assert cuda.supported_fp8_types("sm_90a") == ("fp8e4b15", "fp8e4nv", "fp8e5")
    assert cuda.supported_fp8_types("sm_80") == ("fp8e4b15", "fp8e5")
    assert cuda.deprecated_fp8_dot_types("sm_90a") == {"fp8e4b15"} and not cuda.deprecated_fp8_dot_types("sm_89")
    assert len(backends.capabilities("interpret").supported_fp8_types()) == 5
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


@kl.jit
def _target_facts(out_ptr):
    target = tl.target_info.current_target()
    tl.store(out_ptr, tl.target_info.cuda_capability_geq(9, 0) * 1000 + target.warp_size)


@pytest.mark.parametrize("target, expected", [("interpret", 1), ("cpu", 1), ("cuda:sm_90a", 1032),
                                              ("cuda:sm_80", 32)])
def test_target_info_reads_the_backends_facts(target: str, expected: int) -> None:
    if not backend_available(target.split(":")[0]):
        pytest.skip(f"the {target} backend does not import here")
    compiled = kl.compile(_target_facts, signature={"out_ptr": "*i32"}, target=target)  # no device needed
    assert f"constant {{value = {expected}}} : i32" in compiled.asm["tile"]


@pytest.mark.parametrize("backend, arch, target", [("cuda", 90, "cuda:sm_90a"), ("cuda", 80, "cuda:sm_80"),
                                                   ("cuda", 100, "cuda:sm_100a"), ("cuda", None, "cuda"),
                                                   ("cpu", "x86_64", "cpu"), ("interpret", None, "interpret")])
def test_a_triton_gpu_target_names_a_kernellab_target(backend, arch, target) -> None:
    assert target_name(runtime_driver.GPUTarget(backend, arch, 32)) == target


def test_an_unknown_triton_backend_is_refused() -> None:
    with pytest.raises(ValueError, match=r"kernellab compiles for .*'cuda'.*, not the target GPUTarget\(backend='hip'"):
        target_name(runtime_driver.GPUTarget("hip", "gfx942", 64))


def test_autotuning_results_name_the_device_the_backend_reports() -> None:
    assert autotune_cache._device_identity(backends.get("cpu")) == "host"
    if backend_available("cuda"):
        cuda = backends.get("cuda:sm_90a")
        assert autotune_cache._device_identity(cuda) == cuda.device_identity()


def test_the_driver_shim_asks_the_cuda_driver_for_its_stream(monkeypatch) -> None:
    """Without a GPU: the shim's answers are the CUDA driver's (a stand-in records the calls)."""
    if not backend_available("cuda"):
        pytest.skip("the CUDA backend does not import here")
    from kernellab.backends.cuda import driver

    asked = []
    monkeypatch.setattr(driver, "current_device", lambda: 1)
    monkeypatch.setattr(driver, "current_stream", lambda ordinal: asked.append(ordinal) or 0x5EED + ordinal)
    monkeypatch.setenv("KERNELLAB_TARGET", "cuda")
    active = runtime_driver.ActiveDriver()
    assert active.get_current_device() == 1
    assert active.get_current_stream() == 0x5EED + 1 and active.get_current_stream(3) == 0x5EED + 3
    assert asked == [1, 3]
