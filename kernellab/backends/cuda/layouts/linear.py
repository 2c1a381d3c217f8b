"""Linear layouts: how a tile's elements are spread over one CTA's registers, lanes and warps.

A layout maps three hardware indices — the register index ``r`` inside a thread, the lane
``l`` inside a warp (32 lanes) and the warp ``w`` — to the coordinate of the tile element that
register holds.  Every tile dimension is a power of two, and the map is *linear over bits*:
each bit of ``r``, ``l`` and ``w`` has a basis vector (a coordinate), and the element held is
the XOR of the basis vectors of the bits that are set.  Every basis vector the compiler builds
has at most one non-zero component, and that component is a power of two, so XOR is the same
as addition and each dimension's bits come from distinct hardware bits.

* A zero lane or warp basis means *replication*: the lanes (warps) that differ only in that bit
  hold the same elements.  Zero register bases are never kept (they would duplicate registers).
* Blocked layouts (``sizePerThread``, ``threadsPerWarp``, ``warpsPerCTA``, ``order``), slices
  (a reduction's result), the ``mma.sync`` accumulator layout and views (expand_dims, trans,
  reshape, broadcast sources) are all such maps; so equality, conversion, reduction and
  vectorization questions are answered on basis vectors alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

Basis = tuple[int, ...]

LANES = 32
LANE_BITS = 5


def log2(n: int) -> int:
    """``log2`` of a power of two (raises otherwise)."""
    if n <= 0 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


def is_power_of_two(n: int) -> bool:
    return n > 0 and not n & (n - 1)


def _xor(a: Basis, b: Basis) -> Basis:
    return tuple(x ^ y for x, y in zip(a, b))


def _basis(rank: int, dim: int, value: int) -> Basis:
    out = [0] * rank
    out[dim] = value
    return tuple(out)


@dataclass(frozen=True)
class Layout:
    """A distributed layout of a tile of ``shape`` over a CTA (see the module docstring).

    ``kind`` and ``params`` only describe how the layout was built (for printing); equality
    compares the maps themselves, so two recipes for the same placement are the same layout.
    """

    shape: tuple[int, ...]
    reg: tuple[Basis, ...]
    lane: tuple[Basis, ...]
    warp: tuple[Basis, ...]
    kind: str = field(default="linear", compare=False)
    params: str = field(default="", compare=False)

    # ---- sizes ----
    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_regs(self) -> int:
        return 1 << len(self.reg)

    @property
    def num_warps(self) -> int:
        return 1 << len(self.warp)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    # ---- the map ----
    def _combine(self, bases: tuple[Basis, ...], index: int) -> Basis:
        out = (0,) * self.rank
        for bit, b in enumerate(bases):
            if index >> bit & 1:
                out = _xor(out, b)
        return out

    def reg_coord(self, r: int) -> Basis:
        return self._combine(self.reg, r)

    def lane_coord(self, lane: int) -> Basis:
        return self._combine(self.lane, lane)

    def warp_coord(self, warp: int) -> Basis:
        return self._combine(self.warp, warp)

    def coord(self, r: int, lane: int, warp: int) -> Basis:
        return _xor(_xor(self.reg_coord(r), self.lane_coord(lane)), self.warp_coord(warp))

    @cached_property
    def reg_coords(self) -> tuple[Basis, ...]:
        """The coordinate offset of every register (the thread's own offset not included)."""
        return tuple(self.reg_coord(r) for r in range(self.num_regs))

    @cached_property
    def reg_index(self) -> dict[Basis, int]:
        """Register offset coordinate -> register index."""
        return {c: r for r, c in enumerate(self.reg_coords)}

    # ---- facts used by the lowering ----
    def vector_width(self, dim: int) -> int:
        """How many consecutive registers hold consecutive elements along ``dim`` starting at
        register 0 (a power of two): the widest vector access the layout allows."""
        width = 1
        for b in self.reg:
            if b != _basis(self.rank, dim, width):
                break
            width *= 2
        return width

    def replicated_lane_bits(self) -> int:
        """Mask of lane bits whose lanes hold copies of the same elements."""
        return sum(1 << i for i, b in enumerate(self.lane) if not any(b))

    def replicated_warp_bits(self) -> int:
        return sum(1 << i for i, b in enumerate(self.warp) if not any(b))

    def bits_along(self, dim: int) -> tuple[list[int], list[int], list[int]]:
        """Which register, lane and warp bits move along ``dim``."""
        def pick(bases: tuple[Basis, ...]) -> list[int]:
            return [i for i, b in enumerate(bases) if b[dim]]

        return pick(self.reg), pick(self.lane), pick(self.warp)

    def is_distributed(self) -> bool:
        """Every element is held by some thread, each basis moves along one dimension by a power
        of two, and no two bases of one dimension coincide."""
        seen: dict[int, set[int]] = {d: set() for d in range(self.rank)}
        for b in self.reg + self.lane + self.warp:
            nonzero = [d for d, v in enumerate(b) if v]
            if not nonzero:
                continue
            if len(nonzero) > 1 or not is_power_of_two(b[nonzero[0]]):
                return False
            d = nonzero[0]
            if b[d] in seen[d] or b[d] >= self.shape[d]:
                return False
            seen[d].add(b[d])
        return all(len(seen[d]) == log2(self.shape[d]) for d in range(self.rank))

    def describe(self) -> str:
        """A compact printed form: the recipe when there is one, else the bases."""
        if self.params:
            return f"#{self.kind}<{self.params}>"

        def fmt(bases):
            return "[" + ", ".join("(" + ",".join(map(str, b)) + ")" for b in bases) + "]"

        return f"#{self.kind}<reg={fmt(self.reg)}, lane={fmt(self.lane)}, warp={fmt(self.warp)}>"

    def __str__(self) -> str:
        return self.describe()


def _check_shape(shape: tuple[int, ...]) -> None:
    for d in shape:
        if not is_power_of_two(d):
            raise ValueError(f"the CUDA backend needs tile dimensions that are powers of two, got {list(shape)}")


def _drop_zero(bases) -> tuple[Basis, ...]:
    return tuple(b for b in bases if any(b))


# ---- blocked layouts ---------------------------------------------------------------------------

@dataclass(frozen=True)
class BlockedSpec:
    """Triton's blocked encoding parameters."""

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]

    def __str__(self) -> str:
        def f(t):
            return "[" + ", ".join(map(str, t)) + "]"
        return (f"sizePerThread={f(self.size_per_thread)}, threadsPerWarp={f(self.threads_per_warp)}, "
                f"warpsPerCTA={f(self.warps_per_cta)}, order={f(self.order)}")


def blocked(shape: tuple[int, ...], spec: BlockedSpec) -> Layout:
    """The linear form of a blocked layout: registers first cover ``sizePerThread`` (in
    ``order``), then lanes, then warps, then the registers repeat the CTA tile over the shape.
    Lanes or warps beyond the shape replicate."""
    shape = tuple(shape)
    _check_shape(shape)
    rank = len(shape)

    def along(d: int, start: int, count: int) -> list[Basis]:
        return [_basis(rank, d, (start << i) if (start << i) < shape[d] else 0) for i in range(log2(count))]

    reg: list[Basis] = []
    lane: list[Basis] = []
    warp: list[Basis] = []
    for d in spec.order:
        reg += along(d, 1, spec.size_per_thread[d])
    for d in spec.order:
        lane += along(d, spec.size_per_thread[d], spec.threads_per_warp[d])
    for d in spec.order:
        warp += along(d, spec.size_per_thread[d] * spec.threads_per_warp[d], spec.warps_per_cta[d])
    for d in spec.order:
        step = spec.size_per_thread[d] * spec.threads_per_warp[d] * spec.warps_per_cta[d]
        while step < shape[d]:
            reg.append(_basis(rank, d, step))
            step *= 2
    return Layout(shape, _drop_zero(reg), tuple(lane), tuple(warp), "blocked", str(spec))


def blocked_spec(shape: tuple[int, ...], num_warps: int, order: tuple[int, ...] | None = None,
                 size_per_thread: tuple[int, ...] | None = None) -> BlockedSpec:
    """Blocked parameters for ``shape``: lanes, then warps, fill the fastest dimension first
    (as far as it has elements for them); the slowest dimension takes what is left."""
    rank = len(shape)
    order = tuple(order) if order is not None else tuple(reversed(range(rank)))
    spt = list(size_per_thread) if size_per_thread is not None else [1] * rank
    tpw, wpc = [1] * rank, [1] * rank
    lanes, warps = LANES, num_warps
    for d in order[:-1]:
        room = max(1, shape[d] // spt[d])
        tpw[d] = max(1, min(lanes, room))
        lanes //= tpw[d]
        wpc[d] = max(1, min(warps, room // tpw[d]))
        warps //= wpc[d]
    tpw[order[-1]] = lanes
    wpc[order[-1]] = warps
    return BlockedSpec(tuple(spt), tuple(tpw), tuple(wpc), order)


def default_blocked(shape: tuple[int, ...], num_warps: int, order: tuple[int, ...] | None = None,
                    vector: int = 1) -> Layout:
    """A blocked layout for ``shape`` with ``vector`` consecutive elements per thread along the
    fastest dimension (reduced so that every thread gets work where the tile allows)."""
    rank = len(shape)
    order = tuple(order) if order is not None else tuple(reversed(range(rank)))
    numel = 1
    for d in shape:
        numel *= d
    threads = LANES * num_warps
    vector = max(1, min(vector, shape[order[0]], max(1, numel // threads)))
    spt = [1] * rank
    spt[order[0]] = vector
    return blocked(shape, blocked_spec(shape, num_warps, order, tuple(spt)))


# ---- mma.sync (m16n8k16) accumulator --------------------------------------------------------------

def mma_warps(shape: tuple[int, int], num_warps: int) -> tuple[int, int]:
    """Warps over (M, N) for an mma accumulator: each doubling goes to the dimension with more
    16x8 tiles left per warp (M first on ties)."""
    wm, wn = 1, 1
    while wm * wn < num_warps:
        if shape[0] // (16 * wm) >= shape[1] // (8 * wn) and shape[0] // (16 * wm) > 1:
            wm *= 2
        elif shape[1] // (8 * wn) > 1:
            wn *= 2
        else:
            wm *= 2
    return wm, wn


def mma_accumulator(shape: tuple[int, ...], num_warps: int, warps: tuple[int, int] | None = None) -> Layout:
    """The accumulator layout of ``mma.sync.m16n8k16`` tiled over warps (``warps`` = (along M,
    along N), default :func:`mma_warps`) and repeated over the shape: in each 16x8 tile,
    lane = 4*row%8 + col/2, registers (col%2, row/8)."""
    m, n = shape[-2], shape[-1]
    batch = shape[:-2]
    rank = len(shape)
    wm, wn = warps or mma_warps((m, n), num_warps)

    def b(dm: int, dn: int) -> Basis:
        out = [0] * rank
        out[rank - 2] = dm if dm < m else 0
        out[rank - 1] = dn if dn < n else 0
        return tuple(out)

    reg = [b(0, 1), b(8, 0)]
    lane = [b(0, 2), b(0, 4), b(1, 0), b(2, 0), b(4, 0)]
    warp = [b(16 << i, 0) for i in range(log2(wm))] + [b(0, 8 << i) for i in range(log2(wn))]
    step = 8 * wn
    while step < n:
        reg.append(b(0, step))
        step *= 2
    step = 16 * wm
    while step < m:
        reg.append(b(step, 0))
        step *= 2
    for d in reversed(range(len(batch))):
        step = 1
        while step < shape[d]:
            reg.append(_basis(rank, d, step))
            step *= 2
    layout = Layout(tuple(shape), _drop_zero(reg), tuple(lane), tuple(warp), "mma",
                    f"version=2, instr=16x8x16, warpsPerCTA=[{wm}, {wn}]")
    return layout


def mma_operand(acc: Layout, operand: int, k: int, bits: int = 16) -> Layout:
    """The registers of ``mma.sync``'s A (``operand`` 0, shape (M, k)) or B (1, shape (k, N))
    fragments for the accumulator layout ``acc`` (2-D) and ``bits``-wide elements (16:
    ``m16n8k16``, 32: tf32 ``m16n8k8``, 8: int8 ``m16n8k32``).  Each 32-bit register holds
    ``p = 32 / bits`` elements consecutive along k; with ``h`` = half an instruction's k
    (``16 * 8 / bits``), A holds (row g, cols p t .. p t + p - 1) then rows +8 then cols +h of
    each 16 x 2h tile; B holds (rows p t .. p t + p - 1, col g) then rows +h of each 2h x 8 tile
    (g = lane / 4, t = lane % 4).  Warps split M for A (N for B) as in ``acc`` and hold copies
    along the other dimension."""
    m, n = acc.shape
    per_register = 32 // bits
    half = 128 // bits
    packed = [1 << i for i in range(log2(per_register))]
    beyond = [2 * half << i for i in range(max(0, log2(k) - log2(2 * half)))]
    if operand == 0:
        reg = [(0, s) for s in packed] + [(8, 0), (0, half)] + [(0, s) for s in beyond]
        reg += [(b[0], 0) for b in acc.reg if b[0] >= 16]
        lane = [(0, per_register), (0, 2 * per_register), (1, 0), (2, 0), (4, 0)]
        warp = [(b[0], 0) for b in acc.warp]
        shape = (m, k)
    else:
        reg = [(s, 0) for s in packed] + [(half, 0)] + [(s, 0) for s in beyond]
        reg += [(0, b[1]) for b in acc.reg if b[1] >= 8]
        lane = [(per_register, 0), (2 * per_register, 0), (0, 1), (0, 2), (0, 4)]
        warp = [(0, b[1]) for b in acc.warp]
        shape = (k, n)
    return Layout(shape, _drop_zero(reg), tuple(lane), tuple(warp), "dot_op",
                  f"opIdx={operand}, parent={acc.describe()}")


# ---- transforms -------------------------------------------------------------------------------

def slice_layout(layout: Layout, axis: int) -> Layout:
    """The layout of a reduction along ``axis``: the axis is removed; threads that held different
    positions along it now hold the same element (replication)."""
    def project(b: Basis) -> Basis:
        return b[:axis] + b[axis + 1:]

    reg = tuple(project(b) for b in layout.reg if not b[axis])
    return Layout(layout.shape[:axis] + layout.shape[axis + 1:], _drop_zero(reg),
                  tuple(project(b) for b in layout.lane), tuple(project(b) for b in layout.warp), "slice",
                  f"dim={axis}, parent={layout.describe()}")


def project(layout: Layout, dims: tuple[int, ...]) -> Layout:
    """``layout`` with ``dims`` shrunk to size 1 (a broadcast's source, read from the result's
    layout): bases along those dims vanish or become replication."""
    def proj(b: Basis) -> Basis:
        return tuple(0 if d in dims else v for d, v in enumerate(b))

    shape = tuple(1 if d in dims else s for d, s in enumerate(layout.shape))
    return Layout(shape, _drop_zero(proj(b) for b in layout.reg), tuple(proj(b) for b in layout.lane),
                  tuple(proj(b) for b in layout.warp), layout.kind, layout.params)


def expand(layout: Layout, axis: int) -> Layout:
    """The layout of ``expand_dims(x, axis)`` for ``x`` in ``layout``."""
    def ins(b: Basis) -> Basis:
        return b[:axis] + (0,) + b[axis:]

    return Layout(layout.shape[:axis] + (1,) + layout.shape[axis:], tuple(ins(b) for b in layout.reg),
                  tuple(ins(b) for b in layout.lane), tuple(ins(b) for b in layout.warp), layout.kind,
                  layout.params)


def squeeze(layout: Layout, axis: int) -> Layout:
    """The inverse of :func:`expand` (``shape[axis]`` must be 1)."""
    if layout.shape[axis] != 1:
        raise ValueError(f"cannot squeeze dim {axis} of size {layout.shape[axis]}")

    def rm(b: Basis) -> Basis:
        return b[:axis] + b[axis + 1:]

    return Layout(layout.shape[:axis] + layout.shape[axis + 1:], tuple(rm(b) for b in layout.reg),
                  tuple(rm(b) for b in layout.lane), tuple(rm(b) for b in layout.warp), layout.kind, layout.params)


def permute(layout: Layout, order: tuple[int, ...]) -> Layout:
    """The layout of ``trans(x, order)``: result dim i is source dim ``order[i]``."""
    def perm(b: Basis) -> Basis:
        return tuple(b[o] for o in order)

    return Layout(tuple(layout.shape[o] for o in order), tuple(perm(b) for b in layout.reg),
                  tuple(perm(b) for b in layout.lane), tuple(perm(b) for b in layout.warp), "linear")


def _flat(b: Basis, shape: tuple[int, ...]) -> int:
    index = 0
    for v, s in zip(b, shape):
        index = index * s + v
    return index


def _unflat(index: int, shape: tuple[int, ...]) -> Basis:
    out = []
    for s in reversed(shape):
        out.append(index % s)
        index //= s
    return tuple(reversed(out))


def reshape(layout: Layout, shape: tuple[int, ...]) -> Layout:
    """The layout of a row-major ``reshape`` to ``shape``: each basis keeps its flat index."""
    shape = tuple(shape)
    _check_shape(shape)

    def re(b: Basis) -> Basis:
        return _unflat(_flat(b, layout.shape), shape)

    return Layout(shape, tuple(re(b) for b in layout.reg), tuple(re(b) for b in layout.lane),
                  tuple(re(b) for b in layout.warp), "linear")


def with_register_dim(layout: Layout, size: int) -> Layout:
    """``layout`` with a new last dimension of ``size`` held in registers (first), as ``join``
    makes it."""
    rank = layout.rank + 1
    reg = tuple(_basis(rank, rank - 1, 1 << i) for i in range(log2(size)))
    def ext(b: Basis) -> Basis:
        return b + (0,)

    return Layout(layout.shape + (size,), reg + tuple(ext(b) for b in layout.reg),
                  tuple(ext(b) for b in layout.lane), tuple(ext(b) for b in layout.warp), "linear")


def same_threads(a: Layout, b: Layout) -> bool:
    """Whether ``b``'s registers can be read out of ``a``'s by register selection alone: the
    lanes and warps agree and each of ``b``'s register offsets is one of ``a``'s."""
    if a.shape != b.shape or a.lane != b.lane or a.warp != b.warp:
        return False
    index = a.reg_index
    return all(c in index for c in b.reg_coords)
