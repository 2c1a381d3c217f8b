"""Frontend tests use the minimal jit object of ``tests/frontend/support.py`` (``jit``), so that
they exercise ``kernellab.frontend.lower`` on its own, without the runtime."""
