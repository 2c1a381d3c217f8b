"""``pytest -p kernellab.as_triton.pytest_plugin``: the tests' ``import triton`` gives kernellab.

The alias is installed when pytest loads the plugin, before it imports any test module or
conftest; the run stops at once if the real triton was imported first."""

from __future__ import annotations

from . import install

install()


def pytest_report_header(config: object) -> str:
    return "triton: kernellab (kernellab.as_triton alias)"
