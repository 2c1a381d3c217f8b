"""The alias reaches the Python children of an aliased process (``KERNELLAB_AS_TRITON``, read at
their start by the ``kernellab_as_triton.pth`` the package installs), so torch inductor's compile
workers compile with kernellab: ``torch.compile`` with inductor's Triton CPU backend runs its
generated kernels on kernellab's CPU target, against eager results."""

from __future__ import annotations

import importlib.util
import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _startup_hook_installed() -> bool:
    """Whether this Python's site folders hold kernellab's .pth (pip install puts it there)."""
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    return any((Path(folder) / "kernellab_as_triton.pth").is_file() for folder in folders)


needs_install = pytest.mark.skipif(not _startup_hook_installed(),
                                   reason="kernellab is not pip-installed here (its .pth starts children aliased)")


def _run(script: str, tmp_path: Path, *prefix: str, timeout: int = 120, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / "script.py").write_text(textwrap.dedent(script))
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    environment.pop("KERNELLAB_AS_TRITON", None)
    environment.update(env)
    return subprocess.run([sys.executable, *prefix, "script.py"], cwd=tmp_path, env=environment, capture_output=True,
                          text=True, timeout=timeout)


def test_install_sets_the_variable_and_uninstall_removes_it(tmp_path):
    done = _run("""
        import os
        import kernellab.as_triton as alias
        assert "KERNELLAB_AS_TRITON" not in os.environ
        alias.install()
        assert os.environ["KERNELLAB_AS_TRITON"] == "1"
        alias.uninstall()
        assert "KERNELLAB_AS_TRITON" not in os.environ
        print("ok")
    """, tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@needs_install
def test_a_child_of_an_aliased_script_is_aliased(tmp_path):
    done = _run("""
        import subprocess, sys
        import triton
        child = "import triton, sys; print(triton.__name__, 'triton' in sys.modules)"
        print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout.strip())
    """, tmp_path, "-m", "kernellab.as_triton")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "kernellab True"


@needs_install
def test_the_variable_alone_starts_a_process_aliased(tmp_path):
    done = _run("import triton, kernellab; print(triton is kernellab)", tmp_path, KERNELLAB_AS_TRITON="1")
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
    done = _run("import kernellab.as_triton as alias; print(alias.active())", tmp_path, KERNELLAB_AS_TRITON="0")
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


INDUCTOR = """
    import torch
    import torch._inductor.config as inductor_config
    import torch.nn.functional as F

    inductor_config.cpu_backend = "triton"  # inductor writes Triton kernels for CPU tensors
    inductor_config.compile_threads = 2  # and compiles them in worker processes (the real Triton has no
    from torch._inductor.async_compile import AsyncCompile  # CPU backend: they fail unless aliased)

    AsyncCompile.use_process_pool()  # starts the workers
    AsyncCompile.wait_pool_ready()
    assert AsyncCompile.use_process_pool()
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(33, 300, generator=generator)
    weight = torch.randn(300, generator=generator)

    def model(x, weight):
        normed = F.layer_norm(x, (300,), weight)
        return torch.softmax(normed, -1), normed.argmax(-1), x.cumsum(-1)

    for got, want in zip(torch.compile(model)(x, weight), model(x, weight)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    import triton
    assert triton.__name__ == "kernellab"
    print("ok")
"""


@needs_install
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_torch_inductor_compiles_its_triton_kernels_with_kernellab(tmp_path):
    _inductor_says_ok(INDUCTOR, tmp_path)


def _inductor_says_ok(script: str, tmp_path: Path) -> None:
    done = _run(script, tmp_path, "-m", "kernellab.as_triton", timeout=300,
                TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"), KERNELLAB_TARGET="")
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    assert done.stdout.strip().splitlines()[-1] == "ok"


INDUCTOR_CUDA = """
    import torch
    import torch._inductor.config as inductor_config
    import torch.nn.functional as F

    inductor_config.compile_threads = 2
    from torch._inductor.async_compile import AsyncCompile

    AsyncCompile.use_process_pool()
    AsyncCompile.wait_pool_ready()
    generator = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(64, 1000, device="cuda", generator=generator, dtype=torch.float16)
    weight = torch.randn(1000, device="cuda", generator=generator, dtype=torch.float16)

    def model(x, weight):
        normed = F.layer_norm(x.float(), (1000,), weight.float())
        return torch.softmax(normed, -1).half(), normed.argmax(-1), F.gelu(x) * weight

    for got, want in zip(torch.compile(model)(x, weight), model(x, weight)):
        torch.testing.assert_close(got, want, rtol=2e-3, atol=2e-3)
    import triton
    assert triton.__name__ == "kernellab"
    print("ok")
"""


@needs_install
@pytest.mark.gpu
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_torch_inductor_compiles_its_cuda_kernels_with_kernellab(tmp_path):
    _inductor_says_ok(INDUCTOR_CUDA, tmp_path)


GRAPH_CACHE = """
    import torch
    import torch._inductor.config as inductor_config
    import torch.nn.functional as F
    from torch._dynamo.utils import counters

    inductor_config.cpu_backend = "triton"
    inductor_config.fx_graph_cache = True
    inductor_config.compile_threads = 1
    x, weight = torch.randn(33, 300), torch.randn(300)

    def model(x, weight):
        return torch.softmax(F.layer_norm(x, (300,), weight), -1), x.cumsum(-1)

    for got, want in zip(torch.compile(model)(x, weight), model(x, weight)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    print(counters["inductor"]["fxgraph_cache_hit"], "ok")
"""


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_inductors_graph_cache_brings_back_kernellab_kernels(tmp_path):
    """A second process finds the compiled graph in inductor's cache: the kernels come back
    pickled (stages and metadata) and launch without being compiled again."""
    said = []
    for _ in range(2):
        done = _run(GRAPH_CACHE, tmp_path, "-m", "kernellab.as_triton", timeout=300,
                    TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"), KERNELLAB_TARGET="")
        assert done.returncode == 0, done.stdout + done.stderr[-4000:]
        said.append(done.stdout.strip().splitlines()[-1])
    assert said == ["0 ok", "1 ok"]
