"""The error of a failed ``tl.device_assert`` on the GPU: what ``driver.cuda_error`` makes of
CUDA_ERROR_ASSERT.

In a module of its own because only a device assert needs it (after which the process's CUDA
context is unusable), and a class of two bases costs ~0.04 ms to define: the driver's import,
which every new process's first CUDA launch pays for, leaves it out.
"""

from __future__ import annotations

from ...errors import KernelAssertionError
from .driver import CUDA_ERROR_ASSERT, CudaError


class DeviceAssertError(CudaError, KernelAssertionError):
    """A ``tl.device_assert`` failed on the GPU (CUDA_ERROR_ASSERT).  The device printed the
    assertion's message, thread and block; CUDA cannot recover from it in this process."""

    def __init__(self, call: str, code: int = CUDA_ERROR_ASSERT, detail: str = ""):
        super().__init__(call, code, detail or (
            "a tl.device_assert failed on the GPU; the device printed the assertion message, its source line, "
            "thread and block on standard output. CUDA cannot recover from a device-side assert: this "
            "process's CUDA context is unusable, restart the process (or the notebook kernel)"))


__all__ = ["DeviceAssertError"]
