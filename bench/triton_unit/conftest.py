"""Fixtures and the sample rule for running Triton's unit tests (their files fetched beside this
one by run.sh, unmodified) through ``kernellab.as_triton`` and, as the reference, through real
Triton's interpreter.  kernellab's own code: Triton's conftest is not used.

The sample: the cases Triton's own CI runs in its interpreter (those marked ``interpreter``) in
the files that mark them, every case of the files that mark none, less the downcast sweeps of
test_conversions.py (2**24 values and more per case: hours in an interpreter); of those, a case (its pytest
node id) runs when ``crc32(node id) % N == 0``, N per file from :data:`SAMPLE_EVERY` (1 for a
file not named there).  The set depends on the ids alone, not on collection order or on which
implementation runs; ``--sample-all`` runs every case."""

import os
import tempfile
import zlib

import pytest

# file -> N: about one case in N runs (test_core.py has ~9,300 cases, ~7,300 marked).
SAMPLE_EVERY = {"test_core.py": 12, "test_block_pointer.py": 4, "test_standard.py": 2}


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu")
    parser.addoption("--sample-all", action="store_true", help="run every case, not the sample")


def pytest_configure(config):
    config.addinivalue_line("markers", "interpreter: the case runs in Triton's interpreter")


# files whose cases carry the `interpreter` mark where Triton runs them in its interpreter
MARKED_FILES = {"test_core.py", "test_tuple.py", "test_standard.py", "test_random.py", "test_block_pointer.py",
                "test_launch.py", "test_subprocess.py"}


def sampled(item) -> bool:
    """Whether the case ``item`` is in the sample."""
    nodeid = item.nodeid
    name = os.path.basename(nodeid.split("::")[0])
    if name in MARKED_FILES and item.get_closest_marker("interpreter") is None:
        return False
    if name == "test_conversions.py" and ("[float32-" in nodeid or "::test_typeconvert_downcast[" in nodeid):
        return False
    return zlib.crc32(nodeid.encode()) % SAMPLE_EVERY.get(name, 1) == 0


def pytest_collection_modifyitems(config, items):
    if config.getoption("--sample-all"):
        return
    keep = [item for item in items if sampled(item)]
    dropped = [item for item in items if not sampled(item)]
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
