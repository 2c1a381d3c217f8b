"""A failed tl.device_assert on the GPU: the device prints the message, the host raises a
KernelAssertionError (a device assert ends the process's CUDA context, so this runs in a
child process)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from kernellab.backends.cuda.device_assert import DeviceAssertError
from kernellab.backends.cuda.driver import CUDA_ERROR_ASSERT, cuda_error
from kernellab.errors import KernelAssertionError

CHILD = textwrap.dedent('''
    import numpy as np
    import kernellab as kl
    import kernellab.language as tl
    from kernellab.errors import KernelAssertionError

    @kl.jit(debug=True)
    def checked(x_ptr, N: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, N))
        tl.device_assert(x < 100, "x must stay below 100")

    x = np.arange(16, dtype=np.int32)
    x[5] = 500
    data = kl.to_device(x)
    try:
        checked[(1,)](data, N=16)
        data.numpy()
    except KernelAssertionError as error:
        print("RAISED", type(error).__name__, flush=True)
''')


def test_an_assert_code_becomes_a_kernel_assertion_error():
    error = cuda_error("cuMemcpyDtoH_v2", CUDA_ERROR_ASSERT)
    assert isinstance(error, DeviceAssertError) and isinstance(error, KernelAssertionError)
    assert "device_assert failed on the GPU" in str(error) and "restart the process" in str(error)


@pytest.mark.gpu
def test_a_failed_device_assert_raises_and_the_device_prints_the_message(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert "RAISED DeviceAssertError" in output, output[-2000:]
    assert "x must stay below 100" in output, output[-2000:]
