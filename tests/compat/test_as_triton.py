"""The opt-in alias: ``import triton`` gives kernellab for a script, a module (pytest), the
pytest plugin and the notebook magic; it refuses when the real triton is already imported."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
    import sys
    import numpy as np
    import triton
    import triton.language as tl
    from triton.compiler.errors import CompileTimeAssertionFailure
    from triton.runtime.jit import JITFunction
    from triton.runtime._allocation import set_allocator
    from triton.runtime.autotuner import Autotuner, Config, heuristics

    @triton.jit
    def fill(x_ptr, N: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, N), tl.arange(0, N) * 3)

    x = np.full(8, -1, np.int32)
    fill[(1,)](x, 8)
    assert isinstance(fill, JITFunction) and triton.__name__ == "kernellab"
    assert triton.Config is Config and triton.heuristics is heuristics and triton.runtime.autotune is triton.autotune
    assert isinstance(triton.autotune([Config({"N": 8})], key=[])(fill), Autotuner)
    print(repr(tl.int32), x.tolist(), sys.argv[1:])
"""


def _run(args: list[str], cwd: Path, extra_path: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), extra_path) if p),
           "KERNELLAB_TARGET": "interpret"}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _child_says_ok(tmp_path: Path, script: str, *prefix: str) -> None:
    """Runs ``script`` in a child process (after ``prefix``: e.g. ``-m kernellab.as_triton``); it prints ok."""
    (tmp_path / "child.py").write_text(textwrap.dedent(script))
    done = _run([*prefix, "child.py"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "ok"


def test_a_script_runs_with_import_triton(tmp_path):
    (tmp_path / "script.py").write_text(textwrap.dedent(SCRIPT))
    done = _run(["-m", "kernellab.as_triton", "script.py", "--flag", "1"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "triton.language.int32 [0, 3, 6, 9, 12, 15, 18, 21] ['--flag', '1']"


TEST_FILE = """
    import numpy as np
    import triton
    import triton.language as tl

    @triton.jit
    def double(x_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)

    def test_double():
        x = np.arange(1, 9, dtype=np.float32)
        double[(1,)](x, 8)
        assert list(x) == [2, 4, 6, 8, 10, 12, 14, 16]

    def test_it_is_kernellab():
        assert triton.__name__ == "kernellab" and triton.language.__name__ == "kernellab.language"
"""


@pytest.mark.parametrize("how", [["-m", "kernellab.as_triton", "-m", "pytest"],
                                 ["-m", "pytest", "-p", "kernellab.as_triton.pytest_plugin"]],
                         ids=["module", "plugin"])
def test_pytest_runs_triton_tests(tmp_path, how):
    (tmp_path / "test_triton_code.py").write_text(textwrap.dedent(TEST_FILE))
    done = _run([*how, "-q", "-p", "no:cacheprovider", "test_triton_code.py"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_it_refuses_when_the_real_triton_is_imported(tmp_path):
    fake = tmp_path / "site" / "triton"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("REAL = True\n")
    (tmp_path / "script.py").write_text("import triton\nimport kernellab.as_triton as a\na.install()\n")
    done = _run(["script.py"], tmp_path, extra_path=str(tmp_path / "site"))
    assert done.returncode != 0
    assert "TritonAlreadyImported: the real triton is already imported" in done.stderr


def test_a_missing_module_names_the_kernellab_counterpart(tmp_path):
    (tmp_path / "script.py").write_text("import triton.experimental.gluon\n")
    done = _run(["-m", "kernellab.as_triton", "script.py"], tmp_path)
    assert "No module named 'triton.experimental': kernellab" in done.stderr
    assert "has no kernellab.experimental" in done.stderr


MAGIC_CHILD = """
    import sys

    import pytest

    import kernellab
    import kernellab.as_triton as alias

    class Shell:
        registered: dict = {}

        def register_magic_function(self, fn, kind, name):
            self.registered[(kind, name)] = fn

    shell = Shell()
    alias.load_ipython_extension(shell)
    try:
        assert alias.active()
        import triton.language

        assert triton is kernellab and triton.language is kernellab.language
        assert repr(triton.language.float16) == "triton.language.float16"
        assert shell.registered[("line", "as_triton")]("status") == "import triton gives kernellab"
    finally:
        assert alias.as_triton_magic("off") == "import triton is not aliased"
    assert "triton" not in sys.modules and repr(kernellab.language.float16) == "kernellab.language.float16"
    with pytest.raises(ValueError, match="on, off or status"):
        alias.as_triton_magic("maybe")
    print("ok")
"""


def test_the_line_magic_installs_and_removes_the_alias(tmp_path):
    """In a child process: in this one the real triton may already be imported (torch imports it
    where it is installed, and tests/pytorch is collected before this runs), and then the alias
    refuses, as it should."""
    _child_says_ok(tmp_path, MAGIC_CHILD)


MODULE_PATHS = """
    import importlib, inspect, sys
    import triton

    # as `import triton` does, the driver's module is there and its driver is not made yet
    driver_module = sys.modules["triton.runtime.driver"]
    assert driver_module is sys.modules["kernellab.runtime.driver"] and driver_module._active is None
    importlib.reload(sys.modules["triton.runtime.driver"])
    importlib.reload(sys.modules["triton.runtime"])
    assert triton.runtime.driver._active is None and triton.runtime.driver._default is None
    active = triton.runtime.driver.active
    assert isinstance(active, importlib.import_module("triton.backends.driver").DriverBase)
    assert active is triton.runtime.driver.default and triton.runtime.driver._active is active
    assert active.utils is not None and active.get_benchmarker() is triton.testing.do_bench
    # a module loaded later is under its triton name too, and still has its source
    import kernellab.runtime.launch_hooks as hooks
    assert sys.modules["triton.runtime.launch_hooks"] is hooks and "LazyDict" in inspect.getsource(hooks)
    import kernellab.runtime.interface as interface
    assert sys.modules["triton.runtime._allocation"] is interface
    print("ok")
"""


def test_triton_module_paths_are_in_sys_modules(tmp_path):
    _child_says_ok(tmp_path, MODULE_PATHS, "-m", "kernellab.as_triton")


VERSION_CHILD = """
    import sys

    from packaging.version import Version

    import kernellab
    import kernellab.as_triton as alias

    own = kernellab.__version__
    alias.install()
    import triton

    # code gates on the Triton release (Liger-Kernel: compare_version("triton", ge, "3.0.0"))
    assert triton.__version__ == alias.TRITON_VERSION and Version(triton.__version__) >= Version("3.0.0")
    # kernellab's own version still names its caches
    from kernellab.backends.interpreter.backend import InterpreterBackend
    from kernellab.runtime.cache import compiler_fingerprint
    compiler_fingerprint.cache_clear()
    assert compiler_fingerprint().startswith(own + "+")
    assert InterpreterBackend().version_key().startswith(f"interpret-{own}-")
    alias.uninstall()
    assert kernellab.__version__ == own != alias.TRITON_VERSION and "triton" not in sys.modules
    print("ok")
"""


def test_triton_version_is_tritons_while_aliased(tmp_path):
    _child_says_ok(tmp_path, VERSION_CHILD)


RENAMED_PATHS_CHILD = """
    import importlib, sys

    import kernellab
    import kernellab.as_triton as alias

    alias.install()
    import triton.backends.compiler  # entered at install (the driver's module): no import sets the attribute
    import triton.compiler.compiler

    assert triton.backends.compiler is sys.modules["triton.backends.compiler"]
    assert triton.compiler.compiler.CompiledKernel is triton.compiler.CompiledKernel
    assert callable(triton.compiler.compiler.compile) and triton.compiler.compiler.ASTSource
    alias.uninstall()
    assert "compiler" not in vars(kernellab.backends) and not hasattr(kernellab.compiler, "compiler")
    print("ok")
"""


def test_renamed_module_paths_are_attributes(tmp_path):
    _child_says_ok(tmp_path, RENAMED_PATHS_CHILD)


TORCH_CHILD = """
    import torch

    import kernellab.as_triton as alias

    alias.install()
    torch.use_deterministic_algorithms(True)  # imports torch._inductor, which imports triton's compiler modules
    torch.use_deterministic_algorithms(False)
    print("ok")
"""


def test_torch_inductor_imports_through_the_alias(tmp_path):
    pytest.importorskip("torch")
    _child_says_ok(tmp_path, TORCH_CHILD)


TORCH_COMPAT_CHILD = """
    import numpy as np
    import torch

    import kernellab.as_triton as alias

    alias.install()
    # torch.compile's Triton layer: fla decorates its autograd Functions with @torch.compile at import
    import torch._inductor.runtime.triton_compat as compat
    import triton
    import triton.language as tl
    from triton.runtime.autotuner import OutOfResources, PTXASError
    from triton.runtime.cache import triton_key
    from triton.runtime.errors import OutOfResources as errors_out_of_resources
    from triton.runtime.jit import KernelInterface

    assert compat.HAS_TRITON and compat.OutOfResources is OutOfResources is errors_out_of_resources
    assert issubclass(PTXASError, Exception) and triton_key() == triton_key() and isinstance(triton_key(), str)

    @triton.jit
    def twice(x_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)

    class Logged(KernelInterface):  # a wrapper as torch's symmetric-memory helpers write one
        def __init__(self, fn):
            self.fn, self.grids = fn, []

        def run(self, *args, grid, warmup, **kwargs):
            self.grids.append(grid)
            return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)

    x = np.random.default_rng().standard_normal(8).astype(np.float32)
    expected = x * 2
    logged = Logged(twice)
    logged[(1,)](x, N=8)
    np.testing.assert_array_equal(x, expected)
    assert logged.grids == [(1,)]
    assert isinstance(twice, KernelInterface) and isinstance(triton.autotune([triton.Config({})], key=[])(twice),
                                                            KernelInterface)
    assert KernelInterface[int] is not None  # a generic in annotations, as Triton's

    @torch.compile
    class Doubled(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
    print("ok")
"""


def test_torch_compiles_triton_layer_imports_through_the_alias(tmp_path):
    pytest.importorskip("torch")
    _child_says_ok(tmp_path, TORCH_COMPAT_CHILD)


HAS_TRITON_CHILD = """
    import numpy as np
    import torch

    import kernellab.as_triton as alias

    alias.install()
    import triton
    import triton.backends
    import triton.language as tl
    from torch.utils._triton import has_triton

    # torch.utils._triton.has_triton(), which torchao and others ask before defining their Triton
    # kernels, reads triton.backends.backends (it raised AttributeError)
    found = triton.backends.backends
    assert set(found) == {"cpu", "nvidia"}, found
    assert has_triton()
    host = found["cpu"]
    assert host.driver.is_active() and host.driver().get_current_target().backend == "cpu"
    assert found["nvidia"].driver.is_active() == torch.cuda.is_available()
    assert host.compiler("cpu").name == "cpu" and found["nvidia"].compiler("cuda:sm_90a").name == "cuda"
    triton.runtime.driver.set_active(host.driver())  # as torch's set_driver_to_cpu does
    assert isinstance(triton.runtime.driver.active, host.driver)

    @triton.jit
    def add_one(x_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)

    x = np.random.default_rng().standard_normal(16).astype(np.float32)
    expected = x + 1
    add_one[(1,)](x, N=16)
    np.testing.assert_array_equal(x, expected)
    triton.runtime.driver.reset_active()
    print("ok")
"""


def test_torch_has_triton_finds_the_backends_registry(tmp_path):
    pytest.importorskip("torch")
    _child_says_ok(tmp_path, HAS_TRITON_CHILD)


TORCH_BACKEND_HASH_CHILD = """
    import torch.utils._triton as torch_triton

    import kernellab.as_triton as alias

    alias.install()
    import triton
    from triton.compiler.compiler import make_backend
    from triton.runtime.driver import driver

    from kernellab import backends

    # what torch.compile asks of Triton before it writes a compiled graph (its cache key)
    assert driver.active is triton.runtime.driver.active and callable(driver.set_active)
    target = driver.active.get_current_target()
    backend = make_backend(target)
    assert backend.hash() == backends.get("cpu").version_key()
    assert backend.parse_options({}).extern_libs is None and backend.parse_options({"num_warps": 8}).num_warps == 8
    assert len(torch_triton.triton_hash_with_backend()) == 64
    print("ok")
"""


def test_torch_compiles_backend_hash_through_the_alias(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "child.py").write_text(textwrap.dedent(TORCH_BACKEND_HASH_CHILD))
    done = subprocess.run([sys.executable, "child.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "KERNELLAB_TARGET": "cpu"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "ok"
