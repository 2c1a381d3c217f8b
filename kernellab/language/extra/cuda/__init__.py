"""``tl.extra.cuda``: the module path Triton users import libdevice from
(``triton.language.extra.cuda.libdevice``); the same functions as ``tl.extra.libdevice``."""

from . import libdevice

__all__ = ["libdevice"]
