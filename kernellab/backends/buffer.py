"""The pointer argument a backend receives: :class:`Buffer` (the address, the allocation
around it, the device and the element type).  The runtime builds them from numpy arrays, torch
tensors, CuPy arrays and other foreign arrays (``kernellab.runtime.interop``); backends and
kernellab's own device arrays produce and read them."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import LaunchError
from ..ir.types import ScalarType

HOST = "cpu"


@dataclass(slots=True)
class Buffer:
    """A pointer argument.

    ``address``  the byte address the kernel's pointer holds;
    ``nbytes``   the bytes the argument's view spans from its lowest byte;
    ``base``     the start of the allocation ``address`` lies in;
    ``extent``   the size in bytes of that allocation (``[base, base + extent)`` is what a
                 kernel may touch through this argument);
    ``device``   ``"cpu"`` or ``"cuda:N"``;
    ``dtype``    the element type (a kernellab scalar type) or ``None`` when unknown;
    ``name``     the kernel parameter's name (for messages);
    ``owner``    the object that keeps the memory alive.
    """

    address: int
    nbytes: int
    base: int
    extent: int
    device: str = HOST
    dtype: ScalarType | None = None
    name: str = ""
    owner: Any = field(default=None, repr=False, compare=False)
    writable: bool = True
    spec_keys: tuple | None = field(default=None, repr=False, compare=False)  # the launch path's, once made

    @property
    def is_host(self) -> bool:
        return self.device == HOST

    def host_view(self) -> np.ndarray:
        """A writable ``uint8`` numpy view of the whole allocation (host buffers only)."""
        if not self.is_host:
            raise LaunchError(f"argument {self.name or '?'} lives on {self.device}, not on the host; "
                              "copy it to the host first (.numpy()) or run on the cuda target")
        if self.extent == 0:
            return np.zeros(0, np.uint8)
        return np.ctypeslib.as_array((ctypes.c_uint8 * self.extent).from_address(self.base))

    def __kernellab_buffer__(self) -> Buffer:
        return self
