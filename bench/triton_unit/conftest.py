"""Fixtures and the sample rule for running Triton's unit tests (their files fetched beside this
one by run.sh, unmodified) through ``kernellab.as_triton`` and, as the reference, through real
Triton.  kernellab's own code: Triton's conftest is not used.

The sample, ``--device cpu`` (Triton's interpreter and kernellab's host targets): the cases
Triton's own CI runs in its interpreter (those marked ``interpreter``) in the files that mark
them, every case of the files that mark none, less the downcast sweeps of test_conversions.py
(2**24 values and more per case: hours in an interpreter).  ``--device cuda``: every case (as
Triton's GPU CI runs them).  Of those, a case (its pytest node id) runs when
``crc32(node id) % N == 0``, N per file from :data:`SAMPLE_EVERY` (or :data:`SAMPLE_EVERY_CUDA`;
1 for a file not named there; the files of cuda_unit/, Triton's cuda/ folder, are named with
the folder).  The set depends on the ids alone, not on collection order or on which
implementation runs; ``--sample-all`` runs every case.

``TRITON_UNIT_EXPECT=kernellab`` (or ``triton``), which run.sh sets, makes every process of the
run (each xdist worker too) check that ``import triton`` gives that implementation."""

import os
import tempfile
import zlib

import pytest

# file -> N: about one case in N runs (test_core.py has ~9,300 cases, ~7,300 marked).
SAMPLE_EVERY = {"test_core.py": 12, "test_block_pointer.py": 4, "test_standard.py": 2,
                "test_tensor_descriptor.py": 2}
# on the GPU (every case of a file, marked or not; test_tensor_descriptor.py has 2,705)
SAMPLE_EVERY_CUDA = {"test_core.py": 12, "test_block_pointer.py": 4, "test_standard.py": 2,
                     "test_conversions.py": 4, "test_tensor_descriptor.py": 4, "test_matmul.py": 8,
                     "test_warp_specialization.py": 2, "test_pipeliner.py": 2}


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu")
    parser.addoption("--sample-all", action="store_true", help="run every case, not the sample")
    parser.addoption("--sample-residue", action="store", type=int, default=0,
                     help="draw the cases whose crc32(node id) % N is this (default 0, the sample of the "
                          "committed results); another residue gives a disjoint sample of the files with N > 1")
    parser.addoption("--unmarked", action="store_true",
                     help="--device cpu: the cases Triton runs on GPUs only (no `interpreter` mark) instead of the "
                          "marked ones, to see how kernellab's host targets take them (there is no reference)")


def pytest_configure(config):
    config.addinivalue_line("markers", "interpreter: the case runs in Triton's interpreter")
    expect = os.environ.get("TRITON_UNIT_EXPECT")
    if expect:
        import triton

        got = "kernellab" if triton.__name__.startswith("kernellab") else "triton"
        if got != expect:
            raise pytest.UsageError(f"this run is meant for {expect}, but `import triton` gives {got} "
                                    f"({triton.__file__}); run kernellab's side through python -m "
                                    "kernellab.as_triton -m pytest -p kernellab.as_triton.pytest_plugin")


# files whose cases carry the `interpreter` mark where Triton runs them in its interpreter
MARKED_FILES = {"test_core.py", "test_tuple.py", "test_standard.py", "test_random.py", "test_block_pointer.py",
                "test_launch.py", "test_subprocess.py", "test_tensor_descriptor.py", "test_line_info.py"}


HERE = os.path.dirname(os.path.abspath(__file__))


def sampled(item, on_gpu: bool = False, residue: int = 0, unmarked: bool = False) -> bool:
    """Whether the case ``item`` is in the sample (``on_gpu``: the ``--device cuda`` one; ``residue``:
    which of the N disjoint samples of a file; ``unmarked``: the GPU-only cases of the marked files)."""
    nodeid = item.nodeid
    name = os.path.relpath(str(item.path), HERE)  # cuda_unit/: Triton's cuda/ folder
    if on_gpu:
        every = SAMPLE_EVERY_CUDA.get(name, 1)
        return zlib.crc32(nodeid.encode()) % every == residue % every
    if name in MARKED_FILES and (item.get_closest_marker("interpreter") is None) != unmarked:
        return False
    if unmarked and name not in MARKED_FILES:
        return False
    if name == "test_conversions.py" and ("[float32-" in nodeid or "::test_typeconvert_downcast[" in nodeid):
        return False
    every = SAMPLE_EVERY.get(name, 1)
    return zlib.crc32(nodeid.encode()) % every == residue % every


def pytest_collection_modifyitems(config, items):
    if config.getoption("--sample-all"):
        return
    on_gpu = config.getoption("--device") != "cpu"
    residue, unmarked = config.getoption("--sample-residue"), config.getoption("--unmarked")
    keep = [item for item in items if sampled(item, on_gpu, residue, unmarked)]
    dropped = [item for item in items if not sampled(item, on_gpu, residue, unmarked)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


@pytest.fixture
def device(request):
    return request.config.getoption("--device")


@pytest.fixture
def with_allocator():
    import torch
    import triton

    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8))
    yield


@pytest.fixture
def fresh_triton_cache():
    """An empty cache directory for the test (the cache knob both implementations have, set
    inside its group's ``scope()``, which restores it)."""
    from triton import knobs

    with tempfile.TemporaryDirectory() as directory, knobs.cache.scope():
        knobs.cache.dir = directory
        yield directory


@pytest.fixture
def fresh_knobs():
    """The knobs, with what the test sets in the runtime and compilation groups undone after
    it (a JIT hook a test sets must not outlive it)."""
    from triton import knobs

    with knobs.runtime.scope(), knobs.compilation.scope():
        yield knobs
