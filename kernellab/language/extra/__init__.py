"""``tl.extra``: vendor libraries.  ``libdevice`` is Triton's libdevice (every function on every
target); ``cuda.libdevice`` is the same module under the path Triton's CUDA backend uses."""

from . import cuda, libdevice

__all__ = ["cuda", "libdevice"]
