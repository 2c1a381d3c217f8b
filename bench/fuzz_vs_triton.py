"""One-off comparison: the fuzzer's random programs on Triton's own interpreter (TRITON_INTERPRET=1,
Triton installed beside kernellab, never a dependency) against the fuzzer's reference, to check the
reference's reading of Triton's semantics.  Programs with bf16 are skipped unless --bf16 (Triton's
interpreter mishandles them).  Usage: python bench/fuzz_vs_triton.py FIRST_SEED COUNT [--bf16]"""

from __future__ import annotations

import collections
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from kernellab.fuzz.data import expected, make_arrays  # noqa: E402
from kernellab.fuzz.generator import generate  # noqa: E402
from kernellab.fuzz.runner import compare  # noqa: E402


def to_torch(array: np.ndarray) -> torch.Tensor:
    if array.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(array)


def to_numpy(tensor: torch.Tensor, like: np.ndarray) -> np.ndarray:
    if like.dtype == ml_dtypes.bfloat16:
        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def main() -> None:
    first, count = int(sys.argv[1]), int(sys.argv[2])
    with_bf16 = "--bf16" in sys.argv
    folder = Path(tempfile.mkdtemp(prefix="fuzz-vs-triton-"))
    stats: collections.Counter = collections.Counter()
    for seed in range(first, first + count):
        program = generate(seed, parts=1)
        if "bfloat16" in program.source() and not with_bf16:
            stats["skipped (bf16)"] += 1
            continue
        source = program.source().replace("import kernellab\nimport kernellab.language as tl",
                                          "import triton as kernellab\nimport triton.language as tl")
        path = folder / f"k{seed}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"k{seed}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        arrays = make_arrays(program)
        want = expected(program, arrays)
        tensors = {name: to_torch(array.copy()) for name, array in arrays.items()}
        try:
            getattr(module, program.name)[(program.grid,)](*[tensors[n] for n in program.parameters()[:-2]],
                                                           program.m, program.n, **program.constexprs())
        except Exception as error:
            stats["Triton error"] += 1
            print(f"seed {seed}: Triton raised {type(error).__name__}: {str(error)[:200]}")
            continue
        got = {name: to_numpy(tensors[name], arrays[name]) for name in arrays}
        found = compare(program, "triton-interpret", got, want)
        stats["differs" if found else "agrees"] += 1
        for mismatch in found:
            print(f"seed {seed}: {str(mismatch)[:300]}")
    print(dict(stats))


if __name__ == "__main__":
    main()
