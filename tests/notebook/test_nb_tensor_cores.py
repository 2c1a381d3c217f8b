"""The compile report of a Hopper matmul (``cuda:sm_90a``, compiled without a GPU) links its
tensor-core path to the source: in the bundle, every ``wgmma`` PTX line maps to the ``tl.dot``
line, every ``gpu.*`` line of ``tile.gpu`` to the load, dot or loop it was made from, and the
HTML carries the same links.  Two matmuls: the tutorial kernel in a file (one warpgroup) and
notebook 03's own ``%%tile_kernel`` cell compiled by the magic for sm_90a (two warpgroups)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from notebook_cells import magic

import kernellab as kl
import kernellab.language as tl
from kernellab.notebook import bundle as schema
from kernellab.notebook.compile_report import report
from kernellab.runtime.targets import backend_available
from tests.kernels import tutorials

pytestmark = pytest.mark.skipif(not backend_available("cuda"), reason="the CUDA backend does not import here")

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03_matrix_multiplication.ipynb"
D16 = {"divisibility": 16}
TUTORIAL_SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                      "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
TUTORIAL_CONSTEXPRS = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
                       "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "ACTIVATION": ""}
# compiled for the example arguments' specialization (unit strides become constants), launched nowhere
NOTEBOOK_OPTIONS = ('--target cuda:sm_90a --args "(a, b, c, M, N, K, K, 1, N, 1, N, 1)" '
                    '--constexprs "BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8" '
                    '--config "num_warps=8, num_stages=3" --stages tile.gpu,ptx')
GPU_OP = re.compile(r"\bgpu\.(\w+)")
LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)")


def notebook_matmul_cell() -> str:
    """The body (without its magic line) of notebook 03's ``%%tile_kernel`` cell."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    source = next(cell.source for cell in notebook.cells if cell.cell_type == "code"
                  and cell.source.startswith("%%tile_kernel") and "def matmul_kernel" in cell.source)
    return source.split("\n", 1)[1]


@pytest.fixture(scope="module", params=["tutorial", "notebook"])
def matmul_bundle(request, ipython, tmp_path_factory):
    """(bundle, warpgroups) of an sm_90a fp16 matmul with 128 x 128 x 64 blocks, 3 stages,
    compiled into a cache of its own: the disk cache's key covers a kernel's text but not its
    file or first line, so an entry made from another cell with the same kernel (the executed
    notebook's) would carry that cell's locations."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        return compiled_bundle(request.param, ipython)


def compiled_bundle(which: str, ipython) -> tuple[dict, int]:
    if which == "tutorial":
        shown = report(tutorials.matmul_kernel, ["tile.gpu", "ptx"], signature=TUTORIAL_SIGNATURE,
                       constexprs=TUTORIAL_CONSTEXPRS, target="cuda:sm_90a",
                       arg_attrs={name: D16 for name in TUTORIAL_SIGNATURE}, num_warps=4, num_stages=3)
        return shown.bundle, 1
    rng = np.random.default_rng(3)
    size = 256
    arrays = {name: rng.standard_normal((size, size)).astype(np.float16) for name in ("a", "b", "c")}
    ipython.user_ns.update(triton=kl, tl=tl, M=size, N=size, K=size, **arrays)
    try:
        return magic(ipython, NOTEBOOK_OPTIONS, notebook_matmul_cell()).report.bundle, 2
    finally:
        for name in ("triton", "M", "N", "K", "a", "b", "c", "matmul_kernel", "_tile_kernel"):
            ipython.user_ns.pop(name, None)


def source_lines(bundle: dict) -> dict[str, int]:
    """The source lines of the loop, the two loads and the dot, found in the report's source."""
    source = bundle["source"]
    numbered = list(enumerate(source["text"].splitlines(), source["first_line"]))

    def find(pattern: str) -> int:
        found = [number for number, text in numbered if re.search(pattern, text)]
        assert len(found) == 1, (pattern, found)
        return found[0]

    return {"loop": find(r"^\s*for k in range\("), "a": find(r"^\s*a = tl\.load\("),
            "b": find(r"^\s*b = tl\.load\("), "dot": find(r"= tl\.dot\(")}


def stage(bundle: dict, name: str) -> tuple[list[str], dict[int, int]]:
    entry = next(s for s in bundle["stages"] if s["name"] == name)
    return entry["text"].splitlines(), {stage_line: source_line for stage_line, source_line in entry["lines"]}


def expected_gpu_line(kind: str, line: str, operand_of: dict[int, int], lines: dict[str, int]) -> int:
    """Where a ``gpu.*`` op comes from: a ring's copies and reads from its load, the wait that
    keeps a dot in flight from the dot, the rest (declaring the rings, committing and waiting
    for copies, barriers, draining the last dot) from the loop."""
    if kind in ("async_copy", "shared_read"):
        buffer = int(re.search(r"buffer = (\d+)", line).group(1))
        return lines["ab"[operand_of[buffer]]]
    if kind == "dot_wait" and "pending = 1" in line:
        return lines["dot"]
    return lines["loop"]


def test_the_bundle_is_valid_and_shows_the_pipelined_sm90a_matmul(matmul_bundle):
    bundle, _ = matmul_bundle
    schema.validate(bundle)
    assert bundle["target"] == "cuda:sm_90a"
    assert [s["name"] for s in bundle["stages"]] == ["tile.gpu", "ptx"]
    assert bundle["metadata"]["pipelining"]["kind"] == "async"


def test_every_gpu_op_of_tile_gpu_maps_to_its_load_dot_or_loop(matmul_bundle):
    bundle, warpgroups = matmul_bundle
    lines = source_lines(bundle)
    text, links = stage(bundle, "tile.gpu")
    operand_of = {int(m.group(1)): int(m.group(2)) for m in
                  re.finditer(r"gpu\.shared_buffer \{buffer = (\d+), stages = 3, operand = (\d)", "\n".join(text))}
    assert sorted(operand_of.values()) == [0, 1]
    kinds = []
    for number, line in enumerate(text, 1):
        found = GPU_OP.search(line)
        if found is None:
            continue
        kinds.append(found.group(1))
        assert links.get(number) == expected_gpu_line(found.group(1), line, operand_of, lines), line
    # two rings; copies of two prologue iterations and of the loop body, per operand
    assert kinds.count("shared_buffer") == 2 and kinds.count("async_copy") == 6 and kinds.count("shared_read") == 2
    assert kinds.count("dot_wait") == 2 and kinds.count("async_wait") == 2 and kinds.count("async_commit") == 3
    assert kinds.count("barrier") == (1 if warpgroups > 1 else 0)  # another warpgroup may still read the slot


def test_every_wgmma_line_of_the_ptx_maps_to_the_dot_line(matmul_bundle):
    bundle, warpgroups = matmul_bundle
    lines = source_lines(bundle)
    text, links = stage(bundle, "ptx")
    wgmma = [(n, line) for n, line in enumerate(text, 1) if "wgmma." in line and not line.lstrip().startswith("//")]
    mma = [n for n, line in wgmma if "wgmma.mma_async" in line]
    assert len(mma) == 2 // warpgroups * 4  # the 64-row blocks of a warpgroup x the k16 steps of BLOCK_K = 64
    for number, line in wgmma:
        drained = "wait_group.sync.aligned 0;" in line  # after the loop: the last dot
        assert links.get(number) == lines["loop" if drained else "dot"], line
    copies = {links.get(n) for n, line in enumerate(text, 1) if re.search(r"\bcp\.async\.cg\.", line)}
    assert copies == {lines["a"], lines["b"]}


def test_the_links_are_the_ptx_loc_directives(matmul_bundle):
    """The bundle reads the ``.loc`` lines the compiler wrote (it guesses nothing)."""
    bundle, _ = matmul_bundle
    text, links = stage(bundle, "ptx")
    current = None
    checked = 0
    for number, line in enumerate(text, 1):
        found = LOC.match(line)
        if found:
            current = int(found.group(1))
        elif "wgmma.mma_async" in line:
            assert links[number] == current
            checked += 1
    assert checked > 0


def test_the_html_lights_up_the_wgmma_lines_with_the_dot_line(matmul_bundle):
    bundle, _ = matmul_bundle
    from kernellab.notebook import html

    page = html.render(bundle)
    dot = source_lines(bundle)["dot"]
    ptx = next(s for s in bundle["stages"] if s["name"] == "ptx")
    pane = html.stage_pane(ptx, bundle["source"]["first_line"])
    assert pane in page  # the report shows the PTX pane (the pass timeline below it has its own copy)
    expected = sum("wgmma.mma_async" in line for line in ptx["text"].splitlines())
    shown = re.findall(rf'<span class="l L{dot} c\d+"><i>\d+ </i><b>{dot} </b>\s*wgmma\.mma_async', pane)
    assert len(shown) == expected > 0
    assert f":has(.L{dot}:hover) .L{dot}" in page


def test_the_report_says_when_registers_were_capped_and_what_ptxas_warned(monkeypatch, tmp_path):
    """The tutorial matmul at 64x256x32, 4 warps, is capped to three CTAs per SM (tests/backends/
    cuda/test_tensor_core_stalls.py): the report's diagnostics say so; ptxas's performance notes (here
    planted into the metadata, as the backend stores them) show as warnings, escaped in the HTML."""
    from kernellab.backends.cuda import ptxas

    if ptxas.find_ptxas() is None:
        pytest.skip("ptxas is not installed")
    from tests.backends.cuda.test_tensor_core_codegen import matmul

    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    compiled = matmul("fp16", 64, 256, 32, warps=4, stages=3)
    compiled.metadata["ptxas_warnings"] = ["(C7514) Potential Performance Loss: wgmma <serialized>"]
    shown = report(compiled, ["ptx"])
    messages = [note["message"] for note in shown.bundle["diagnostics"]]
    assert "registers capped at 168 (188 -> 168) to fit 3 CTAs per SM instead of 2; " \
           "KERNELLAB_CUDA_REGISTER_CAP=0 turns it off" in messages
    assert "ptxas: (C7514) Potential Performance Loss: wgmma <serialized>" in messages
    steps = [step for step in compiled.metadata["passes"] if step["name"] == "register-cap"]
    assert len(steps) == 1 and steps[0]["changed"]
    html = shown.html()
    assert "wgmma &lt;serialized&gt;" in html and "wgmma <serialized>" not in html
