"""Every compilation records its passes: ``metadata["passes"]`` on every target, the IR after
each pass in ``asm["passes"]`` (kept by the disk cache), and ``KERNELLAB_DUMP_DIR`` files."""

from __future__ import annotations

import json

import numpy as np
import pytest

import kernellab as kl
from kernellab.passes import DEFAULT_PIPELINE, kernel_passes
from kernellab.runtime.compiler import PASS_FILE_SUFFIX
from kernellab.runtime.targets import backend_available
from tests.notebook.nb_stage_kernels import stages_kernel

SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
BACKEND_STEPS = {"interpret": ["py"], "cpu": ["llvm", "llvm-opt", "asm"]}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _compile(target: str, block: int = 64):
    return kl.compile(stages_kernel, signature=SIGNATURE, constexprs={"BLOCK": block}, target=target)


def test_metadata_lists_every_pass_of_every_target(target, cache_dir, inputs):
    compiled = _compile(target)
    passes = compiled.metadata["passes"]
    names = [entry["name"] for entry in passes]
    assert names[:len(DEFAULT_PIPELINE) + 1] == ["lower", *DEFAULT_PIPELINE]
    if target in BACKEND_STEPS:
        assert names[len(DEFAULT_PIPELINE) + 1:] == BACKEND_STEPS[target]
    for entry in passes:
        assert set(entry) == {"name", "ms", "changed"} and entry["ms"] >= 0 and isinstance(entry["changed"], bool)
    assert passes[1]["changed"]  # inline: halve's call goes
    # the passes' output is the kernel that runs
    n = 300 + int(inputs.rng.integers(1, 100))
    x = inputs.uniform(n, 0.1, 4.0)
    out = inputs.poisoned(n)
    if target == "cuda":  # device copies, and the result back
        x_on, out_on = kl.to_device(x), kl.to_device(out)
        compiled[(-(-n // 64),)](x_on, out_on, n)
        out = out_on.numpy()
    else:
        compiled[(-(-n // 64),)](x, out, n)
    np.testing.assert_allclose(out, np.sqrt(x) * np.float32(0.5), rtol=1e-6)


def test_the_ir_after_each_pass_is_kept_with_its_locations(target, cache_dir):
    compiled = _compile(target)
    records = kernel_passes(compiled)
    assert [record.name for record in records] == [entry["name"] for entry in compiled.metadata["passes"]]
    tile = [record for record in records if record.dialect == "tile"]
    assert "func @halve" in tile[0].ir and "call(" in tile[0].ir and "call(" not in tile[1].ir
    assert tile[-1].ir == compiled.asm["tile"] and tile[-1].stage == "tile"
    assert all(f'"{stages_kernel.source_file}"' in record.ir and "loc(#f0:" in record.ir for record in tile)
    for before, after, entry in zip(tile, tile[1:], compiled.metadata["passes"][1:]):
        assert entry["changed"] == (before.ir != after.ir)


def test_a_disk_cache_hit_keeps_the_trail(target, cache_dir):
    compiled = _compile(target, 32)
    again = kl.jit(stages_kernel.fn)
    loaded = kl.compile(again, signature=SIGNATURE, constexprs={"BLOCK": 32}, target=target)
    assert loaded.origin == "disk" and loaded.metadata["passes"] == compiled.metadata["passes"]
    assert [r.ir for r in kernel_passes(loaded)] == \
        [r.ir for r in kernel_passes(compiled)]


def test_the_dump_dir_has_one_file_per_pass(target, cache_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_DUMP_DIR", str(tmp_path / "dump"))
    compiled = _compile(target, 16)
    # this compilation's folder (the test session's PTX check may dump its CUDA compilation beside it)
    entry = tmp_path / "dump" / f"{compiled.metadata['name']}-{compiled.metadata['cache_key'][:12]}"
    files = sorted((entry / "passes").iterdir())
    records = kernel_passes(compiled)
    assert len(files) == len(records)
    for index, (file, record) in enumerate(zip(files, records)):
        assert file.name.startswith(f"{index:02d}-{record.name}.")
        assert file.read_text() == record.ir
    assert files[0].suffix == ".tile" and files[-1].suffix == "." + PASS_FILE_SUFFIX[records[-1].dialect]


@pytest.mark.skipif(not backend_available("cuda"), reason="the CUDA backend does not import here")
def test_cuda_compilations_list_their_passes_too(cache_dir):
    compiled = _compile("cuda:sm_90a")  # no device needed
    names = [entry["name"] for entry in compiled.metadata["passes"]]
    # the backend's steps follow the passes (this kernel has no loop to pipeline)
    assert names == ["lower", *DEFAULT_PIPELINE, "layouts", "llvm", "ptx"]
    for entry in compiled.metadata["passes"]:
        assert set(entry) == {"name", "ms", "changed"} and entry["ms"] >= 0 and isinstance(entry["changed"], bool)
    records = kernel_passes(compiled)
    assert any(record.dialect == "ptx" or ".target sm_90a" in record.ir for record in records)
    json.dumps(compiled.metadata["passes"])
