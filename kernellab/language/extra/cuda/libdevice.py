"""``tl.extra.cuda.libdevice``: the functions of ``tl.extra.libdevice`` under Triton's CUDA path."""

from ..libdevice import *  # noqa: F403
from ..libdevice import __all__  # noqa: F401
