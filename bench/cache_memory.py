"""What a process's memory holds per distinct kernel (issue 17: "~157 KB per kernel, without
bound"): 100 distinct kernels launched once each on the CPU target (after 20 to warm up), the
traced growth by file, then the same after the kernels are dropped (what is left is held by
process-wide caches, not by the kernels).

    python bench/cache_memory.py [--kernels 100]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path

KERNEL = '''
@kl.jit
def k{i}(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * {i}.0 + 1.0, mask=m)
'''


def _growth(snapshot: tracemalloc.Snapshot, base: tracemalloc.Snapshot, top: int) -> tuple[int, list[str]]:
    stats = snapshot.compare_to(base, "filename")
    rows = [f"{s.size_diff / 1e3:9.1f} KB  {s.traceback[0].filename}" for s in stats[:top]]
    return sum(s.size_diff for s in stats), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="kl-memory-"))
    os.environ.setdefault("KERNELLAB_CACHE_DIR", str(folder / "cache"))
    os.environ.setdefault("KERNELLAB_TARGET", "cpu")
    warm, count = 20, args.kernels
    text = "import kernellab as kl\nimport kernellab.language as tl\n" + "".join(
        KERNEL.format(i=i) for i in range(warm + count))
    (folder / "many_kernels.py").write_text(text)
    sys.path.insert(0, str(folder))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import many_kernels
    import numpy as np

    x = np.ones(256, np.float32)
    out = np.empty_like(x)
    for i in range(warm + count):
        if i == warm:
            gc.collect()
            tracemalloc.start(1)
            base = tracemalloc.take_snapshot()
        getattr(many_kernels, f"k{i}")[(1,)](x, out, 256, BLOCK=256)
    gc.collect()
    total, rows = _growth(tracemalloc.take_snapshot(), base, 10)
    print(f"traced growth over {count} kernels: {total / 1e3:.0f} KB ({total / count / 1e3:.1f} KB a kernel)")
    print("\n".join(rows))
    for i in range(warm + count):
        delattr(many_kernels, f"k{i}")
    del many_kernels
    sys.modules.pop("many_kernels")
    gc.collect()
    left, rows = _growth(tracemalloc.take_snapshot(), base, 4)
    print(f"after the kernels are dropped: {left / 1e3:.0f} KB left ({left / count / 1e3:.1f} KB a kernel)")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
