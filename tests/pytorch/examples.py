"""The worked examples of issue 13: softmax and layer norm, forward and backward, as kernellab
ops with autograd (kernels in both directions).  Rows are one program each; tensors are 2-D and
contiguous (the ops check it)."""

from __future__ import annotations

import torch

import kernellab as kl
import kernellab.language as tl
import kernellab.torch as klt


@kl.jit
def softmax_forward_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


@kl.jit
def softmax_backward_kernel(dy_ptr, y_ptr, dx_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0)
    y = tl.load(y_ptr + row * stride + cols, mask=mask, other=0.0)
    tl.store(dx_ptr + row * stride + cols, y * (dy - tl.sum(dy * y, axis=0)), mask=mask)


@kl.jit
def layer_norm_forward_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    centered = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, centered * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@kl.jit
def layer_norm_backward_kernel(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_rows_ptr, db_rows_ptr, n_cols,
                               BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dy = tl.load(dy_ptr + row * n_cols + cols, mask=mask, other=0.0)
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / n_cols
    c2 = tl.sum(wdy, axis=0) / n_cols
    tl.store(dx_ptr + row * n_cols + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    tl.store(dw_rows_ptr + row * n_cols + cols, dy * xhat, mask=mask)  # summed over rows by torch
    tl.store(db_rows_ptr + row * n_cols + cols, dy, mask=mask)


FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


# ---- softmax ----

@klt.op("kltest::softmax", mutates_args=(), dtypes=FLOATS)
def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_forward_kernel[(rows,)](x, y, x.stride(0), cols, BLOCK=kl.next_power_of_2(cols))
    return y


@klt.op("kltest::softmax_backward", mutates_args=(), dtypes=FLOATS)
def softmax_backward(dy: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    rows, cols = y.shape
    dx = torch.empty_like(y)
    softmax_backward_kernel[(rows,)](dy, y, dx, y.stride(0), cols, BLOCK=kl.next_power_of_2(cols))
    return dx


def _softmax_setup(ctx, inputs, output):
    ctx.save_for_backward(output)


def _softmax_grad(ctx, dy):
    (y,) = ctx.saved_tensors
    return softmax_backward(dy.contiguous(), y)


softmax.register_autograd(_softmax_grad, setup_context=_softmax_setup)


# ---- layer norm ----

@klt.op("kltest::layer_norm_forward", mutates_args=(), dtypes=FLOATS)
def layer_norm_forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                       eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    rows, cols = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(rows, dtype=x.dtype, device=x.device)
    rstd = torch.empty(rows, dtype=x.dtype, device=x.device)
    layer_norm_forward_kernel[(rows,)](x, weight, bias, y, mean, rstd, cols, eps, BLOCK=kl.next_power_of_2(cols))
    return y, mean, rstd


@klt.op("kltest::layer_norm_backward", mutates_args=(), dtypes=FLOATS)
def layer_norm_backward(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, mean: torch.Tensor,
                        rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    rows, cols = x.shape
    dx = torch.empty_like(x)
    dw_rows = torch.empty_like(x)
    db_rows = torch.empty_like(x)
    layer_norm_backward_kernel[(rows,)](dy, x, weight, mean, rstd, dx, dw_rows, db_rows, cols,
                                        BLOCK=kl.next_power_of_2(cols))
    return dx, dw_rows.sum(0), db_rows.sum(0)


def _layer_norm_setup(ctx, inputs, output):
    x, weight, _bias, _eps = inputs
    _y, mean, rstd = output
    ctx.mark_non_differentiable(mean, rstd)
    ctx.save_for_backward(x, weight, mean, rstd)


def _layer_norm_grad(ctx, dy, _dmean, _drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dx, dw, db = layer_norm_backward(dy.contiguous(), x, weight, mean, rstd)
    return dx, dw, db, None


layer_norm_forward.register_autograd(_layer_norm_grad, setup_context=_layer_norm_setup)


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    return layer_norm_forward(x, weight, bias, eps)[0]


class MLPBlock(torch.nn.Module):
    """layer norm -> linear -> GELU -> linear -> softmax, with the norm and the softmax from
    kernellab (``kernellab=True``) or from torch."""

    def __init__(self, width: int, hidden: int, classes: int, kernellab: bool):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.fc1 = torch.nn.Linear(width, hidden)
        self.fc2 = torch.nn.Linear(hidden, classes)
        self.kernellab = kernellab

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.kernellab:
            h = layer_norm(x, self.norm.weight, self.norm.bias, self.norm.eps)
        else:
            h = torch.nn.functional.layer_norm(x, self.norm.normalized_shape, self.norm.weight, self.norm.bias,
                                               self.norm.eps)
        logits = self.fc2(torch.nn.functional.gelu(self.fc1(h)))
        return softmax(logits) if self.kernellab else torch.softmax(logits, dim=-1)
