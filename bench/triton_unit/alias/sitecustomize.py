"""On kernellab's side of bench/triton_unit/run.sh (``TRITON_UNIT_EXPECT=kernellab``), every Python
process started with this folder on ``PYTHONPATH`` -- pytest, its xdist workers and the
subprocesses the tests start (test_subprocess.py runs print_helper.py) -- gets kernellab for
``import triton``, so that a real Triton installed beside it is never what runs there."""

import os

if os.environ.get("TRITON_UNIT_EXPECT") == "kernellab":
    import kernellab.as_triton

    kernellab.as_triton.install()
