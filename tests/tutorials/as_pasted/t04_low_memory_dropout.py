"""Triton tutorial 04 (low-memory dropout), written for `import triton`: dropout with a stored
mask, then with a mask regenerated from a seed (tl.rand), which needs no mask in memory."""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _dropout(x_ptr, x_keep_ptr, output_ptr, n_elements, p, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    x_keep = tl.load(x_keep_ptr + offsets, mask=mask)
    # kept elements are scaled by 1 / (1 - p) so the expected value is unchanged
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def dropout(x, x_keep, p):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    _dropout[grid](x, x_keep, output, n_elements, p, BLOCK_SIZE=1024)
    return output


def show(rows, headers):  # the tutorial prints with tabulate, when it is installed
    try:
        import tabulate
    except ImportError:
        for name, row in zip(headers, rows):
            print(f"{name:>16}", " ".join(f"{v:7.4f}" for v in row))
        return
    print(tabulate.tabulate([[name] + row for name, row in zip(headers, rows)]))


x = torch.randn(size=(10, ), device=DEVICE)
p = 0.5
x_keep = (torch.rand(size=(10, ), device=DEVICE) > p).to(torch.int32)
output = dropout(x, x_keep=x_keep, p=p)
show([x.tolist(), x_keep.tolist(), output.tolist()], ["input", "keep mask", "output"])
assert torch.allclose(output, torch.where(x_keep.bool(), x * 2, torch.zeros_like(x)))


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # one random number per element, a function of (seed, offset) only
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output


x = torch.randn(size=(10, ), device=DEVICE)
output = seeded_dropout(x, p=0.5, seed=123)
output2 = seeded_dropout(x, p=0.5, seed=123)
output3 = seeded_dropout(x, p=0.5, seed=512)
show([x.tolist(), output.tolist(), output2.tolist(), output3.tolist()],
     ["input", "output (seed = 123)", "output (seed = 123)", "output (seed = 512)"])
assert torch.equal(output, output2) and not torch.equal(output, output3)
kept = output != 0
assert torch.allclose(output[kept], x[kept] * 2)
large = seeded_dropout(torch.ones(100_000, device=DEVICE), p=0.5, seed=7)
assert abs((large != 0).float().mean().item() - 0.5) < 0.01  # about half the elements are kept
