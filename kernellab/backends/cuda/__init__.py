"""The CUDA backend: Tile IR -> GPU IR (layouts) -> NVPTX LLVM IR -> PTX -> cubin, launched
through the CUDA driver.  Importing this package registers the ``cuda`` target (and
``cuda:sm_XX``); it loads neither LLVM nor the driver."""

from .. import register
from .backend import CudaBackend

register("cuda", CudaBackend, CudaBackend.capabilities)

__all__ = ["CudaBackend"]
