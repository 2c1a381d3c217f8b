"""User-defined aggregates (Triton's ``tl.core._aggregate``), end to end on every target: a
compile-time constructor and methods that change fields in place (given ``_semantic``), jit
methods, ``__getitem__``, constexpr fields, aggregates passed to and returned from jit functions
(inlined and noinline), carried by ``for`` and ``while`` loops and merged after run-time ``if``s;
against numpy on fresh random inputs, outputs poisoned with NaN.  Also built for sm_90a and
assembled by ptxas, and the errors Triton gives for assignments in kernels."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas
from kernellab.errors import CompilationError
from kernellab.ir.printer import print_module
from kernellab.testing.filecheck import run_parser


@tl.core._aggregate
class RunningSum:
    total: tl.tensor
    count: tl.tensor
    scale: tl.constexpr

    def __init__(self, total, count, scale):
        self.total = total
        self.count = count  # a number becomes an int32 scalar tensor (the annotation says tensor)
        self.scale = tl.constexpr(scale)

    @staticmethod
    def zeros(block, scale, _semantic=None):
        return RunningSum(tl.zeros((block,), tl.float32, _semantic=_semantic), 0, scale)

    def add(self, x, _semantic=None):  # compile-time code: changes the fields in place
        self.total = self.total + x * self.scale
        self.count = self.count + 1

    @kl.jit
    def mean(self):
        return tl.sum(self.total, axis=0) / self.count.to(tl.float32)

    @kl.jit
    def merge(self, other):
        return RunningSum(self.total + other.total, self.count + other.count, self.scale)

    def __getitem__(self, index, _semantic=None):
        return self.total if index == 0 else self.count


@kl.jit(noinline=True)
def scaled_total(acc):
    return acc.total * acc.scale


@kl.jit
def running_sum_kernel(x_ptr, out_ptr, stats_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    base = x_ptr + pid * n
    acc = RunningSum.zeros(BLOCK, SCALE)
    for start in range(0, n, BLOCK):  # changed in place by a compile-time method: carried
        acc.add(tl.load(base + start + offs, mask=start + offs < n, other=0.0))
    bonus = RunningSum.zeros(BLOCK, SCALE)
    if pid == 0:  # changed in one branch of a run-time if
        bonus.add(tl.full((BLOCK,), 1.0, tl.float32))
    acc = acc.merge(bonus)  # a jit method returning an aggregate
    tl.store(out_ptr + pid * BLOCK + offs, acc[0])
    tl.store(out_ptr + (2 + pid) * BLOCK + offs, scaled_total(acc))
    tl.store(stats_ptr + 2 * pid, acc.mean())
    tl.store(stats_ptr + 2 * pid + 1, acc[1].to(tl.float32))


def test_aggregate_carried_by_loops_ifs_and_calls(launch, inputs):
    n, block, scale = 300, 64, 0.5
    x = inputs.normal((2, n))
    out, stats = inputs.poisoned(4 * block), inputs.poisoned(4)
    launch(running_sum_kernel, (2,), x, out, stats, n, BLOCK=block, SCALE=scale)
    chunks = -(-n // block)
    padded = np.zeros((2, chunks * block), np.float32)
    padded[:, :n] = x
    totals = padded.reshape(2, chunks, block).sum(axis=1) * scale
    totals[0] += scale  # program 0 merged the bonus (ones, scaled)
    counts = np.array([chunks + 1, chunks])
    np.testing.assert_allclose(out[:2 * block], totals.ravel(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[2 * block:], totals.ravel() * scale, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(stats[0::2], totals.sum(axis=1) / counts, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(stats[1::2], counts)


@kl.jit
def while_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = RunningSum.zeros(BLOCK, 2.0)
    start = 0
    while start < n:
        acc.add(tl.load(x_ptr + start + offs, mask=start + offs < n, other=0.0))
        start += BLOCK
    tl.store(out_ptr + offs, acc.total)
    tl.store(out_ptr + BLOCK, acc.count.to(tl.float32))


def test_aggregate_changed_in_a_while_loop(launch, inputs):
    n, block = 200, 32
    x = inputs.normal(n)
    out = inputs.poisoned(block + 1)
    launch(while_kernel, (1,), x, out, n, BLOCK=block)
    chunks = -(-n // block)
    padded = np.zeros(chunks * block, np.float32)
    padded[:n] = x
    np.testing.assert_allclose(out[:block], padded.reshape(chunks, block).sum(axis=0) * 2, rtol=1e-5, atol=1e-5)
    assert out[block] == chunks


@tl.core._aggregate
class Window:
    offsets: tl.tensor
    bounds: tl.tuple
    width: tl.constexpr

    def __init__(self, start, n, width, _semantic=None):
        self.offsets = start + tl.arange(0, width, _semantic=_semantic)
        self.bounds = (start, n)
        self.width = tl.constexpr(width)

    @kl.jit
    def load(self, ptr):
        return tl.load(ptr + self.offsets, mask=self.offsets < self.bounds[1], other=0.0)


@kl.jit
def window_kernel(x_ptr, out_ptr, n, WIDTH: tl.constexpr):
    window = Window(tl.program_id(0) * WIDTH, n, WIDTH)
    total = tl.zeros((WIDTH,), tl.float32)
    for _ in range(3):  # `window` is read, never changed: not carried
        total += window.load(x_ptr)
    tl.store(out_ptr + window.offsets, total, mask=window.offsets < n)


@kl.jit
def window_while_kernel(x_ptr, out_ptr, n, WIDTH: tl.constexpr):
    window = Window(tl.program_id(0) * WIDTH, n, WIDTH)
    total = tl.zeros((WIDTH,), tl.float32)
    i = 0
    while i < 3:  # read in the condition and the body, never changed: not carried
        total += window.load(x_ptr) * (window.offsets < window.bounds[1] + i)
        i += 1
    tl.store(out_ptr + window.offsets, total, mask=window.offsets < n)


@pytest.mark.parametrize("kernel, loop", [(window_kernel, " = for("), (window_while_kernel, " = while(")])
def test_unchanged_aggregate_is_not_carried(launch, inputs, kernel, loop):
    n, width = 100, 32
    x = inputs.normal(n)
    out = inputs.poisoned(n)
    launch(kernel, (kl.cdiv(n, width),), x, out, n, WIDTH=width)
    np.testing.assert_allclose(out, x * 3, rtol=1e-5)
    text = print_module(run_parser(kernel, args=(x, out, n), kwargs={"WIDTH": width}))
    header = next(line for line in text.splitlines() if loop in line)
    carried = header.rsplit(" : ", 1)[1]  # the loop's result types: `total` (and the while's `i`) only
    assert carried == ("tile<32xf32> {" if kernel is window_kernel else "tile<32xf32>, i32 {"), header


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_aggregates_build_for_sm_90a():
    kernel = kl.compile(running_sum_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "stats_ptr": "*fp32",
                                                       "n": "i32"},
                        constexprs={"BLOCK": 64, "SCALE": 0.25}, target="cuda:sm_90a")
    assert ".entry running_sum_kernel" in kernel.asm["ptx"] and kernel.asm["cubin"]


def test_the_cache_key_covers_the_aggregate_class(tmp_path, monkeypatch):
    """A kernel's dependencies include its aggregates' jit methods, and its source hash their
    class's source: editing a compile-time method (the kernel's text unchanged) changes it."""
    import importlib
    import sys

    from kernellab.frontend import dependencies

    aggregate = ("import kernellab as kl\nimport kernellab.language as tl\n\n@tl.core._aggregate\nclass Scaler:\n"
                 "    factor: tl.constexpr\n\n    def __init__(self, factor):\n        self.factor = factor\n\n"
                 "    def apply(self, x, _semantic=None):\n        return x * self.factor\n\n"
                 "    @kl.jit\n    def twice(self, x):\n        return self.apply(self.apply(x))\n")
    kernel = ("import kernellab as kl\nimport kernellab.language as tl\nfrom agg_scaler import Scaler\n\n@kl.jit\n"
              "def scale_kernel(x_ptr):\n    s = Scaler(3.0)\n    tl.store(x_ptr, s.twice(s.apply(tl.load(x_ptr))))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "agg_kernel.py").write_text(kernel)
    hashes = []
    for body in ("x * self.factor", "x * self.factor + 1.0"):
        (tmp_path / "agg_scaler.py").write_text(aggregate.replace("x * self.factor", body))
        for name in ("agg_scaler", "agg_kernel"):
            sys.modules.pop(name, None)
        module = importlib.import_module("agg_kernel")
        found = dependencies(module.scale_kernel)
        assert [c.fn.__name__ for c in found.callees] == ["twice"]
        hashes.append(found.source_hash)
    for name in ("agg_scaler", "agg_kernel"):
        sys.modules.pop(name, None)
    assert hashes[0] != hashes[1]


# ---- what kernels may not do (Triton's errors) ----

@kl.jit
def assign_field(x_ptr):
    acc = RunningSum.zeros(4, 1.0)
    acc.total = tl.load(x_ptr + tl.arange(0, 4))


@kl.jit
def assign_item(x_ptr):
    acc = RunningSum.zeros(4, 1.0)
    acc[0] = tl.load(x_ptr + tl.arange(0, 4))


@tl.core._aggregate
class Incomplete:
    a: tl.tensor
    b: tl.constexpr

    def __init__(self, a):
        self.a = a

    @kl.jit
    def set_total(self, value):
        self.a = value


@kl.jit
def incomplete(x_ptr):
    Incomplete(tl.load(x_ptr))


@kl.jit
def wrong_field_type(x_ptr):
    RunningSum(tl.load(x_ptr), 1, tl.load(x_ptr))


@kl.jit
def changes_a_constexpr_field_in_a_loop(x_ptr, n):
    acc = RunningSum.zeros(4, 1.0)
    for _ in range(n):
        acc = RunningSum(acc.total, acc.count, 2.0)
    tl.store(x_ptr + tl.arange(0, 4), acc.total)


@pytest.mark.parametrize("kernel, message", [
    (assign_field, "assigning to an attribute"),
    (assign_item, "assigning to an element"),
    (incomplete, "did not initialize attribute 'b'"),
    (wrong_field_type, "tl.constexpr, but it is given a tensor"),
    (changes_a_constexpr_field_in_a_loop, "changes type"),
])
def test_errors(kernel, message):
    args = (np.zeros(4, np.float32),) + ((5,) if kernel is changes_a_constexpr_field_in_a_loop else ())
    with pytest.raises(CompilationError, match=message):
        run_parser(kernel, args=args)


def test_a_jit_method_cannot_assign_a_field():
    @kl.jit
    def kernel(x_ptr):
        Incomplete.set_total(x_ptr, tl.load(x_ptr))

    with pytest.raises(CompilationError, match="assigning to an attribute"):
        run_parser(kernel, args=(np.zeros(4, np.float32),))


@tl.core._aggregate
class Strict:
    a: tl.tensor

    def __init__(self, a):
        self.a = a

    def tag(self, _semantic=None):
        self.label = 1


def test_fields_are_the_annotated_names_only():
    @kl.jit
    def kernel(x_ptr):
        Strict(tl.load(x_ptr)).tag()

    with pytest.raises(CompilationError, match="Strict has no attribute 'label'"):
        run_parser(kernel, args=(np.zeros(4, np.float32),))
