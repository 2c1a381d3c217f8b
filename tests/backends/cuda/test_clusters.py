"""``num_ctas`` > 1: a program is a thread-block cluster (sm_90+).  Without a GPU: the PTX asks for
the cluster, counts programs in clusters and runs the program in the cluster's first CTA (the
others return), and ptxas assembles it; the options say what is allowed; the launcher launches
``num_ctas`` CTAs per program.  On the GPU (``gpu``): every store and atomic happens once per
program, and results match torch for elementwise, reduction, scan, dot and descriptor kernels."""

from __future__ import annotations

import re

import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas
from kernellab.backends.cuda.backend import CudaBackend
from kernellab.errors import LaunchError
from tests.backends.cuda.test_launch_checks import args, fake, make_launcher  # noqa: F401  (fixture)

needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")


@kl.jit
def count_and_scale(x_ptr, out_ptr, counts_ptr, ids_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    before = tl.atomic_add(counts_ptr + offsets % 4, 1, mask=mask)
    tl.store(out_ptr + offsets, x * 2 + before.to(tl.float32) * 0, mask=mask)
    tl.store(ids_ptr + pid * 2, pid)
    tl.store(ids_ptr + pid * 2 + 1, tl.num_programs(0))


SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "counts_ptr": "*i32", "ids_ptr": "*i32", "n": "i32"}


def compile_count(arch="sm_90a", num_ctas=2):
    return kl.compile(count_and_scale, signature=SIGNATURE, constexprs={"BLOCK": 128}, target=f"cuda:{arch}",
                      num_ctas=num_ctas)


@needs_ptxas
@pytest.mark.parametrize("num_ctas", [2, 4, 8])
def test_a_program_is_a_cluster_of_num_ctas_ctas(num_ctas):
    kernel = compile_count(num_ctas=num_ctas)
    ptx = kernel.asm["ptx"]
    assert f".reqnctapercluster {num_ctas}, 1, 1" in ptx and ".explicitcluster" in ptx
    assert "%clusterid.x" in ptx and "%nclusterid.x" in ptx and "%ctaid.x" not in ptx
    assert kernel.metadata["num_ctas"] == num_ctas and kernel.metadata["registers"] > 0  # ptxas assembled it


@needs_ptxas
def test_the_first_cta_of_a_cluster_runs_the_program_and_the_others_return():
    ptx = compile_count().asm["ptx"]
    rank = re.search(r"mov\.u32\s+(%r\d+), %cluster_ctarank;", ptx)
    assert rank
    # the rank is tested before anything else of the body, and the other CTAs return there
    body = ptx[rank.end():]
    test = re.search(r"setp\.(eq|ne)\.(s|b|u)32\s+(%p\d+), " + re.escape(rank.group(1)) + r", 0;", body)
    assert test and test.start() < body.index("ld.global") and test.start() < body.index("atom.global")
    branches = re.findall(r"@!?%p\d+ bra \t?(\$L__BB\d+_\d+);\s*bra\.uni \t?(\$L__BB\d+_\d+);", body[test.end():])
    assert branches, "the rank test decides between the body and a return"
    returns = [label for label in branches[0] if re.search(re.escape(label) + r":\s*(\.loc[^\n]*\s*)*ret;", body)]
    assert len(returns) == 1
    assert "barrier.cluster" not in ptx and "mapa" not in ptx  # no CTA waits on, or reads, another


@needs_ptxas
def test_one_cta_programs_have_no_cluster():
    ptx = compile_count(num_ctas=1).asm["ptx"]
    assert not re.search(r"cluster(id|_ctarank)|reqnctapercluster|barrier\.cluster", ptx) and "%ctaid.x" in ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm80"])
def test_clusters_need_hopper(arch):
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+ \(Hopper\)"):
        CudaBackend().options(num_ctas=2, arch=arch)


@pytest.mark.parametrize("num_ctas", [3, 6, 16])
def test_cluster_sizes_are_powers_of_two_up_to_eight(num_ctas):
    with pytest.raises(ValueError, match=r"num_ctas must be 1, 2, 4 or 8"):
        CudaBackend().options(num_ctas=num_ctas, arch="sm_90a")


def test_tritons_spelling_of_an_architecture():
    assert CudaBackend().options(arch="sm90a", num_ctas=4)["arch"] == "sm_90a"


def test_the_launch_has_num_ctas_ctas_per_program(fake):  # noqa: F811  (the fixture)
    kern = make_launcher(num_ctas=4)
    for grid in ((3, 2, 1), (5, 1, 1), (7, 1, 1)):
        kern(grid, args(), None)
    assert [launch["grid"] for launch in fake.launches] == [(12, 2, 1), (20, 1, 1), (28, 1, 1)]
    assert kern.native_tail() is None  # the native launch path knows no clusters: the launcher's own


def test_too_many_clusters_for_the_grid_is_a_launch_error(fake):  # noqa: F811
    with pytest.raises(LaunchError, match=r"num_ctas=2 CTAs each: 4294967294 CTAs, over the device's limit"):
        make_launcher(num_ctas=2)((2**31 - 1, 1, 1), args(), None)
    assert fake.launches == []


def test_the_host_targets_run_num_ctas_kernels_as_one_program(host_target):
    import numpy as np

    x = np.arange(300, dtype=np.float32)
    out = np.zeros_like(x)
    counts = np.zeros(4, np.int32)
    ids = np.zeros(6, np.int32)
    count_and_scale[(3,)](x, out, counts, ids, 300, BLOCK=128, num_ctas=2)
    np.testing.assert_array_equal(out, 2 * x)
    assert counts.tolist() == [75, 75, 75, 75] and ids.tolist() == [0, 3, 1, 3, 2, 3]


# ---- on the GPU -----------------------------------------------------------------------------------



def _cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("needs an sm_90+ GPU")
    return torch


@pytest.mark.gpu
@pytest.mark.parametrize("num_ctas", [1, 2, 4])
def test_clustered_programs_count_clusters_and_apply_each_atomic_once(num_ctas):
    torch = _cuda()
    n = 1000
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    counts = torch.zeros(4, dtype=torch.int32, device="cuda")
    ids = torch.zeros(16, dtype=torch.int32, device="cuda")
    count_and_scale[(8,)](x, out, counts, ids, n, BLOCK=128, num_ctas=num_ctas)
    torch.testing.assert_close(out, 2 * x)
    assert counts.tolist() == [250] * 4
    assert ids.view(8, 2).tolist() == [[p, 8] for p in range(8)]


@kl.jit
def ticket(counter_ptr, out_ptr, BLOCK: tl.constexpr):
    """Each program takes tickets with atomics whose results it uses (a store before them too)."""
    pid = tl.program_id(0)
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), tl.full((BLOCK,), -1, tl.int32))
    first = tl.atomic_add(counter_ptr, BLOCK)
    offsets = tl.arange(0, BLOCK)
    mine = tl.atomic_add(counter_ptr + 1 + offsets % 2, offsets * 0 + 1)
    tl.store(out_ptr + pid * BLOCK + offsets, first + mine * 0 + offsets)


@pytest.mark.gpu
@pytest.mark.parametrize("num_ctas", [2, 4])
def test_atomics_whose_results_are_used_happen_once_per_program(num_ctas):
    torch = _cuda()
    programs, block = 64, 32
    counter = torch.zeros(3, dtype=torch.int32, device="cuda")
    out = torch.zeros(programs * block, dtype=torch.int32, device="cuda")
    ticket[(programs,)](counter, out, BLOCK=block, num_ctas=num_ctas)
    assert counter.tolist() == [programs * block, programs * block // 2, programs * block // 2]
    # each program's tickets are one run of BLOCK numbers, the runs a permutation of all of them
    assert sorted(out.tolist()) == list(range(programs * block))


@kl.jit
def running_count(sums_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    counts = tl.cumsum(tl.where(tl.arange(0, BLOCK) < cols + row, 1, 0), axis=0)
    tl.store(sums_ptr + row, tl.sum(counts, axis=0))


@pytest.mark.gpu
@pytest.mark.parametrize("num_ctas", [2, 8])
def test_reductions_and_scans_in_clustered_programs(num_ctas):
    torch = _cuda()
    from tests.kernels import tutorials

    rows, cols = 37, 1000
    x = torch.randn(rows, cols, device="cuda")
    out = torch.full_like(x, float("nan"))
    # the tutorial's persistent softmax: 8 programs (clusters) stride over the rows by num_programs
    tutorials.softmax_kernel[(8,)](out, x, x.stride(0), out.stride(0), rows, cols, BLOCK_SIZE=1024,
                                   num_stages=2, num_warps=8, num_ctas=num_ctas)
    torch.testing.assert_close(out, torch.softmax(x, dim=1))
    sums = torch.zeros(rows, dtype=torch.int32, device="cuda")
    running_count[(rows,)](sums, 900, BLOCK=1024, num_warps=8, num_ctas=num_ctas)
    # the running count reaches 900 + row and stays there over the rest of the block
    expected = [(900 + r) * (901 + r) // 2 + (1024 - 900 - r) * (900 + r) for r in range(rows)]
    assert sums.tolist() == expected


@pytest.mark.gpu
@pytest.mark.parametrize("num_ctas", [2, 4])
def test_the_tutorial_matmul_in_clusters(num_ctas):
    torch = _cuda()
    from tests.kernels import tutorials

    a = torch.randn(300, 200, device="cuda", dtype=torch.float16)
    b = torch.randn(200, 250, device="cuda", dtype=torch.float16)
    c = torch.full((300, 250), float("nan"), device="cuda", dtype=torch.float16)
    grid = (kl.cdiv(300, 128) * kl.cdiv(250, 64),)
    tutorials.matmul_kernel[grid](a, b, c, 300, 250, 200, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                  c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
                                  GROUP_SIZE_M=8, ACTIVATION="", num_warps=4, num_stages=3, num_ctas=num_ctas)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=5e-2, rtol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("num_ctas", [1, 2])
def test_host_descriptors_in_clusters(num_ctas):
    torch = _cuda()
    from kernellab.tools.tensor_descriptor import TensorDescriptor
    from tests.kernels import tutorials

    m, n, k = 512, 384, 256
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b_t = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    descs = (TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor.from_tensor(b_t, [128, 64]),
             TensorDescriptor.from_tensor(c, [128, 128]))
    tutorials.matmul_host_descriptor_kernel[(m // 128, n // 128)](*descs, m, n, k, BLOCK_SIZE_M=128,
                                                                  BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, num_warps=4,
                                                                  num_stages=3, num_ctas=num_ctas)
    torch.testing.assert_close(c.float(), a.float() @ b_t.float().T, atol=5e-2, rtol=1e-2)
