"""``tl.extra``: vendor libraries.  ``libdevice`` maps the common libdevice names onto
kernellab's own math builtins, so code written for ``triton.language.extra.libdevice`` imports."""

from . import libdevice

__all__ = ["libdevice"]
