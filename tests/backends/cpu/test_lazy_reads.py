"""A load is read before the next store even when only a view of it (reshape, trans, join, cat,
a descriptor's block) is used after that store: the CPU target evaluates tiles lazily, and a view
of a lazy load used to be evaluated after the store, reading what it wrote (Liger-Kernel's
in-place SwiGLU backward: dG came out wrong on the CPU target)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.tools.tensor_descriptor import TensorDescriptor


@kl.jit
def descriptors_in_place(g_src, u_src, g_dst, u_dst, B: tl.constexpr):
    g = tl.reshape(g_src.load([0, 0, 0]), [B, B])
    u = tl.reshape(u_src.load([0, 0, 0]), [B, B])
    s = tl.sigmoid(g)
    u_dst.store([0, 0, 0], tl.reshape(s * 2.0, [1, B, B]))  # overwrites u's memory
    g_dst.store([0, 0, 0], tl.reshape(u * s, [1, B, B]))  # still the u read before


@kl.jit
def views_in_place(x_ptr, y_ptr, out_ptr, B: tl.constexpr, VIEW: tl.constexpr):
    o = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    x = tl.load(x_ptr + o)
    if VIEW == "trans":
        v = tl.trans(x)
    elif VIEW == "reshape":
        v = tl.reshape(tl.reshape(x, [B * B]), [B, B])
    else:  # join then split: a combination of two lazy loads
        a, b = tl.split(tl.join(x, x + 1.0))
        v = a + b
    tl.store(y_ptr + o, tl.full([B, B], -5.0, tl.float32))  # y aliases x; x has no use but the view
    tl.store(out_ptr + o, v)


def test_descriptor_blocks_read_before_an_aliasing_store(host_target, inputs):
    g, u = inputs.normal((1, 16, 16)), inputs.normal((1, 16, 16))
    g0, u0 = g.copy(), u.copy()
    d = lambda a: TensorDescriptor.from_tensor(a, [1, 16, 16])  # noqa: E731
    descriptors_in_place[(1,)](d(g), d(u), d(g), d(u), 16)
    s = 1 / (1 + np.exp(-g0))
    np.testing.assert_allclose(u, s * 2, rtol=1e-6)
    np.testing.assert_allclose(g, u0 * s, rtol=1e-6)


@pytest.mark.parametrize("view", ["trans", "reshape", "join"])
def test_views_of_loads_read_before_an_aliasing_store(host_target, inputs, view):
    x = inputs.normal((16, 16))
    x0, out = x.copy(), np.full((16, 16), np.nan, np.float32)
    views_in_place[(1,)](x, x, out, 16, view)
    expected = {"trans": x0.T, "reshape": x0, "join": 2 * x0 + 1}[view]
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert (x == -5).all()
