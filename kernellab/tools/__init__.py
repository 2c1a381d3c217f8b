"""Triton's ``triton.tools``: ``tensor_descriptor.TensorDescriptor`` (host descriptors),
``ragged_tma`` (descriptors over concatenated sub-arrays) and ``mxfp`` (microscaling formats)."""
