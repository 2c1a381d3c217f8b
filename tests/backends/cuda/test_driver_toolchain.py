"""ptxas and the disassembler: discovery, assembling real PTX, the resource report, errors, SASS.
No GPU needed; tests that need ptxas or nvdisasm skip without them."""

from __future__ import annotations

import os
import stat

import pytest

from kernellab.backends.cuda import ptxas, sass
from kernellab.errors import OutOfResources

from .driver_kit import ADD_PTX, SHARED_PTX, SOURCE_FILE, pressure_ptx, static_shared_ptx

PTXAS = ptxas.find_ptxas()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="no ptxas installed")
needs_disassembler = pytest.mark.skipif(not sass.available(), reason="no nvdisasm or cuobjdump installed")


# -- discovery --------------------------------------------------------------------------------

def _fake_tool(folder, name: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 99.1, V99.1.7'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_kernellab_ptxas_wins(tmp_path, monkeypatch):
    chosen = _fake_tool(tmp_path, "my-ptxas")
    monkeypatch.setenv("KERNELLAB_PTXAS", chosen)
    assert ptxas.find_ptxas() == chosen


def test_kernellab_ptxas_that_does_not_exist_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_PTXAS", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="KERNELLAB_PTXAS"):
        ptxas.find_ptxas()


def test_wheel_folder_comes_before_path(tmp_path, monkeypatch):
    wheel_bin = tmp_path / "site" / "nvidia" / "cu13" / "bin"
    wheel_bin.mkdir(parents=True)
    on_path = tmp_path / "path"
    on_path.mkdir()
    wheel = _fake_tool(wheel_bin, "ptxas")
    _fake_tool(on_path, "ptxas")
    monkeypatch.delenv("KERNELLAB_PTXAS", raising=False)
    monkeypatch.setattr("sys.path", [str(tmp_path / "site")])
    monkeypatch.setenv("PATH", str(on_path))
    assert ptxas.find_ptxas() == wheel


def test_path_is_the_last_resort(tmp_path, monkeypatch):
    on_path = tmp_path / "path"
    on_path.mkdir()
    found = _fake_tool(on_path, "ptxas")
    monkeypatch.delenv("KERNELLAB_PTXAS", raising=False)
    monkeypatch.setattr("sys.path", [str(tmp_path / "empty-site")])
    monkeypatch.setenv("PATH", str(on_path))
    assert ptxas.find_ptxas() == found
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert ptxas.find_ptxas() is None


def test_identity_follows_the_binary_and_version_reads_it(tmp_path):
    tool = _fake_tool(tmp_path, "ptxas")
    first = ptxas.identity(tool)
    assert tool in first and ptxas.identity(None) == "ptxas:none"
    assert ptxas.version(tool) == "99.1.7"
    os.utime(tool, ns=(1, 1))
    ptxas.identity.cache_clear()
    assert ptxas.identity(tool) != first


# -- the resource report ----------------------------------------------------------------------

REPORT = """\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'kern' for 'sm_90a'
ptxas info    : Function properties for kern
    32 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 368 bytes cmem[0]
"""


def test_parse_resources_of_an_entry_and_a_device_function():
    found = ptxas.parse_resources(REPORT)
    kern, helper = found["kern"], found["helper"]
    assert (kern.registers, kern.barriers, kern.shared_static, kern.constant) == (40, 1, 2048, 368)
    assert (kern.stack_frame, kern.spill_stores, kern.spill_loads, kern.entry) == (32, 12, 20, True)
    assert (helper.stack_frame, helper.spill_stores, helper.spill_loads, helper.entry) == (16, 8, 4, False)
    assert kern.as_metadata()["spills"] == 12 and kern.as_metadata()["registers"] == 40


@needs_ptxas
def test_assemble_reports_registers_of_a_real_kernel():
    result = ptxas.assemble(ADD_PTX, "sm_90a")
    assert result.cubin.startswith(b"\x7fELF")
    kernel = result.kernel("add_kernel")
    assert kernel.entry and 8 <= kernel.registers <= 32
    assert kernel.spill_stores == 0 and kernel.shared_static == 0
    assert result.kernel() is kernel and result.seconds > 0


@needs_ptxas
def test_assemble_reports_spills_under_maxnreg():
    free = ptxas.assemble(pressure_ptx(64), "sm_90a").kernel()
    capped = ptxas.assemble(pressure_ptx(64), "sm_90a", maxnreg=24).kernel()
    assert free.spill_stores == 0 and free.registers >= 64
    assert capped.registers <= 24 and capped.spill_stores > 0 and capped.spill_loads > 0


@needs_ptxas
def test_assemble_reports_static_shared_memory_and_barriers():
    kernel = ptxas.assemble(static_shared_ptx(4096), "sm_90a").kernel("static_shared")
    assert kernel.shared_static == 4096 and kernel.barriers == 1
    assert ptxas.assemble(SHARED_PTX, "sm_90a").kernel().shared_static == 0  # dynamic: not ptxas's to count


@needs_ptxas
def test_too_much_static_shared_memory_is_out_of_resources():
    with pytest.raises(OutOfResources, match="shared memory") as caught:
        ptxas.assemble(static_shared_ptx(300_000), "sm_90a")
    assert caught.value.required == 300_000 and 0 < caught.value.limit < 300_000


@needs_ptxas
def test_bad_ptx_raises_with_the_log():
    broken = ADD_PTX.replace("add.f32 %f3, %f1, %f2;", "add.f32 %f3, %f1, %nothing;")
    with pytest.raises(ptxas.PtxasError, match="sm_90a") as caught:
        ptxas.assemble(broken, "sm_90a")
    assert "nothing" in str(caught.value) and "kernel.ptx" in caught.value.log


def test_assemble_rejects_a_malformed_arch():
    with pytest.raises(ValueError, match="sm_90a"):
        ptxas.assemble(ADD_PTX, "hopper")


# -- SASS ---------------------------------------------------------------------------------------

@needs_ptxas
@needs_disassembler
def test_sass_of_a_cubin_with_line_information():
    text = sass.sass(ptxas.assemble(ADD_PTX, "sm_90a").cubin)
    assert "add_kernel" in text and "LDG.E" in text and "FADD" in text
    if sass.find_disassembler()[0] == "nvdisasm":
        assert f'File "{SOURCE_FILE}", line 9' in text


def test_sass_needs_a_cubin():
    with pytest.raises(TypeError, match="cubin"):
        sass.sass(ADD_PTX.encode())


def test_sass_without_a_disassembler_says_how_to_get_one(monkeypatch):
    monkeypatch.setattr(sass, "find_disassembler", lambda: None)
    with pytest.raises(sass.SassUnavailable, match="nvidia-cuda-nvdisasm"):
        sass.sass(b"\x7fELF" + bytes(60))


# -- the PTX ISA version ptxas is given ---------------------------------------------------------

@pytest.mark.parametrize("release, isa", [("12.0.76", 80), ("12.4.99", 84), ("12.6.20", 85), ("12.8.93", 87),
                                          ("12.9.41", 88), ("13.0.88", 90), ("13.1.2", 91), ("11.8.89", 78),
                                          ("unknown", None)])
def test_the_newest_ptx_isa_of_a_cuda_release(release, isa):
    assert ptxas.isa_of_release(release) == isa


def test_the_ptx_version_is_raised_to_the_ptxas_one_never_lowered(tmp_path):
    tool = _fake_tool(tmp_path, "ptxas")  # release 99.1
    raised = ptxas.with_isa_of(".version 8.6\n.target sm_100a\n", tool)
    assert raised.splitlines()[:2] == [f".version {ptxas.isa_of_release('99.1') // 10}.1", ".target sm_100a"]
    assert ptxas.with_isa_of(".version 99.9\n", tool) == ".version 99.9\n"


SR_E2M1 = """
@kl.jit
def stochastic_fp4(x_ptr, bits_ptr, out_ptr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    # torchao's NVFP4 stochastic rounding: cvt.rs needs PTX ISA 8.7, newer than LLVM's sm_100a default
    packed = tl.inline_asm_elementwise(
        "cvt.rs.satfinite.e2m1x4.f32 $0, {$1, $2, $3, $4}, $5;", "=h,r,r,r,r,r",
        [x, x, x, x, tl.load(bits_ptr + offs)], dtype=tl.uint16, is_pure=True, pack=1)
    tl.store(out_ptr + offs, packed)
"""


@needs_ptxas
def test_inline_asm_of_a_newer_ptx_isa_assembles_with_the_ptxas_version(tmp_path):
    release = ptxas.isa_of_release(ptxas.version(PTXAS))
    if release is None or release < 87:
        pytest.skip("needs a ptxas from CUDA 12.8 or later")
    import importlib.util
    import textwrap

    source = tmp_path / "sr_kernel.py"
    source.write_text("import kernellab as kl\nimport kernellab.language as tl\n" + textwrap.dedent(SR_E2M1))
    spec = importlib.util.spec_from_file_location("sr_kernel", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import kernellab as kl

    compiled = kl.compile(kl.compiler.ASTSource(fn=module.stochastic_fp4, signature={
        "x_ptr": "*fp32", "bits_ptr": "*i32", "out_ptr": "*u16"}), target="cuda:sm_100a")
    assert compiled.asm["cubin"]
    assert f".version {release // 10}.{release % 10}" in compiled.asm["ptx"]
    assert compiled.metadata["ptx_version"] == str(release)
