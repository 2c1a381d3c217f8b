"""The fixtures Triton's unit tests take (``device``, ``with_allocator``), for running those tests
(their files copied beside this one, unmodified) through ``kernellab.as_triton`` and, as the
reference, through real Triton's interpreter.  kernellab's own code: Triton's conftest is not used."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu")


@pytest.fixture
def device(request):
    return request.config.getoption("--device")


@pytest.fixture
def with_allocator():
    import torch
    import triton

    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8))
    yield
