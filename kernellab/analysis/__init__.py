"""Analyses of Tile IR that more than one backend asks: facts about a function's values that
no pass writes into the IR.

``axis`` (``AxisAnalysis(function).info(value) -> AxisInfo``): per dimension, the contiguity,
power-of-two divisibility and constancy of integer and pointer tiles, and what is known of block
pointers and tensor descriptors (``BlockPtrFacts``), from ``arange``, constants, the kernel
arguments' ``divisibility=16`` specialization and ``tl.multiple_of``/``max_contiguous``/
``max_constancy`` hints.  The CUDA backend reads it to pick vector widths and layouts
(``backends/cuda/layouts/assign.py``) and which loads its pipelining pass may make
asynchronous; any LLVM backend can (it reads only ``kernellab.ir``).
"""
