"""The disk cache keys an entry by where the kernel is, not only by its text: the stages carry
source locations, so the same kernel moved down a file (or into another notebook cell) must not
get the old entry's line maps."""

from __future__ import annotations

import importlib.util
import textwrap

import kernellab as kl

KERNEL = textwrap.dedent('''
    import kernellab as kl
    import kernellab.language as tl


    @kl.jit
    def twice(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
''')


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.twice


def test_the_same_kernel_further_down_is_another_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "moved.py"
    path.write_text(KERNEL)
    first = kl.compile(load(path, "moved"), signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"},
                       constexprs={"BLOCK": 64}, target="cpu")
    path.write_text("\n\n\n" + KERNEL)  # three lines above it, text unchanged
    second = kl.compile(load(path, "moved"), signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"},
                        constexprs={"BLOCK": 64}, target="cpu")
    assert second.metadata["cache_key"] != first.metadata["cache_key"]
    assert second.metadata["source_location"]["first_line"] == first.metadata["source_location"]["first_line"] + 3
    lines = {line for _, _, line, _ in second.metadata["line_maps"]["tile"]}
    assert min(lines) >= second.metadata["source_location"]["first_line"]
