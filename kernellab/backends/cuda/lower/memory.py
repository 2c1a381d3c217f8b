"""Global memory: pointer arithmetic, loads, stores and atomics.

A tile access is done in vectors: registers ``[r, r + vec)`` hold consecutive elements of the
unit-stride dimension, so one ``ld.global.v4.b32`` (or ``.v2``, ``.b32``, ``.b16``) moves them.
``vec`` is the layout's run of consecutive registers, cut to what the axis analysis proves:
contiguous addresses, their alignment, and a mask that is constant over the vector.

Unmasked accesses without cache hints are plain LLVM loads and stores of ``<vec x T>`` from
address space 1; masked ones (and those with cache or eviction hints) are predicated inline PTX
(``@p ld.global...``), the masked-off registers keeping their ``other`` values.  Stores are done
by one thread per element (replicated layouts mask the copies off).
"""

from __future__ import annotations

from dataclasses import replace
from math import gcd

import llvmlite.ir as ir

from ....ir.core import Op, Value
from ....ir.types import PointerType, Type, element_of
from ..layouts.linear import Layout
from .context import FunctionLowering, StructVal, TileVal, lowering
from .elementwise import SCALAR, map_elementwise
from .nvvm import build_vector, inline_asm
from .smem import SharedSpec, shared_address, store_staged, tma_store_spec
from .types import GLOBAL_PTR, I1, I8, I16, I32, I64, byte_size, constant, llvm_type, memory_type

# ---- pointer arithmetic --------------------------------------------------------------------------

def _addptr(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    b = ctx.builder
    ptr, offset = args
    offset_type = element_of(op.operands[1].type)
    if offset.type.width < 32:
        offset = b.zext(offset, I32) if offset_type.is_int_unsigned() or offset_type.ir == "i1" else b.sext(offset, I32)
    elif offset.type.width == 32 and offset_type.is_int_unsigned():
        offset = b.zext(offset, I64)
    pointee = element_of(op.result.type).element_ty
    return b.gep(ptr, [offset], source_etype=memory_type(pointee))


SCALAR["addptr"] = _addptr


@lowering("addptr")
def _lower_addptr(ctx: FunctionLowering, op: Op, layout) -> list:
    return map_elementwise(ctx, op, layout, _addptr)


# ---- vector width --------------------------------------------------------------------------------

def _vector_dim(layout: Layout) -> int | None:
    for d in range(layout.rank):
        if layout.vector_width(d) > 1:
            return d
    return None


def _floor_pow2(n: int) -> int:
    return 1 << (max(1, n).bit_length() - 1)


def access_width(ctx: FunctionLowering, layout: Layout, ptr: Value, mask: Value | None, ty: Type) -> int:
    """Elements per vector access for a tile of pointers ``ptr`` in ``layout``."""
    dim = _vector_dim(layout)
    if dim is None:
        return 1
    size = byte_size(ty)
    info = ctx.plan.info(ptr)
    vec = min(layout.vector_width(dim), info.contiguity[dim], max(1, info.divisibility[dim] // size),
              max(1, 16 // size))
    if mask is not None:
        vec = min(vec, ctx.plan.info(mask).constancy[dim])
    return _floor_pow2(vec)


# ---- emitting one vector access ------------------------------------------------------------------

def _words(vec: int, ty: Type) -> tuple[int, ir.Type, str, str]:
    """(number of registers, their LLVM type, constraint letter, PTX type) for ``vec`` elements."""
    bits = vec * byte_size(ty) * 8
    if bits >= 32:
        return bits // 32, I32, "r", "b32"
    if bits == 16:
        return 1, I16, "h", "b16"
    return 1, I16, "h", "u8"


def _cache_suffix(op: Op, store: bool) -> str:
    cache = (op.attrs.get("cache") or "").lstrip(".")
    evict = (op.attrs.get("evict") or "").lstrip(".")
    if cache:
        return "." + cache
    if evict:
        return ".L1::" + evict
    return ""


def _pack(b: ir.IRBuilder, values: list[ir.Value], ty: Type, count: int, word: ir.Type) -> list[ir.Value]:
    """Elements (memory type) -> ``count`` registers of type ``word``."""
    vector = build_vector(b, values)
    bits = len(values) * byte_size(ty) * 8
    if word == I16 and bits == 8:
        return [b.zext(b.bitcast(vector, I8), I16)]
    words = b.bitcast(vector, ir.VectorType(word, count)) if count > 1 else b.bitcast(vector, word)
    if count == 1:
        return [words]
    return [b.extract_element(words, ir.Constant(I32, i)) for i in range(count)]


def _unpack(b: ir.IRBuilder, words: list[ir.Value], ty: Type, vec: int) -> list[ir.Value]:
    elem = memory_type(ty)
    bits = vec * byte_size(ty) * 8
    if bits == 8:
        packed = b.trunc(words[0], I8)
    elif len(words) == 1:
        packed = words[0]
    else:
        packed = ir.Constant(ir.VectorType(words[0].type, len(words)), ir.Undefined)
        for i, w in enumerate(words):
            packed = b.insert_element(packed, w, ir.Constant(I32, i))
    vector = b.bitcast(packed, ir.VectorType(elem, vec)) if vec > 1 else b.bitcast(packed, elem)
    if vec == 1:
        return [vector]
    return [b.extract_element(vector, ir.Constant(I32, i)) for i in range(vec)]


def _to_memory(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    return b.zext(value, I8) if value.type == I1 else value


def _from_memory(b: ir.IRBuilder, value: ir.Value, ty: Type) -> ir.Value:
    return b.icmp_unsigned("!=", value, ir.Constant(I8, 0)) if llvm_type(ty) == I1 else value


def load_vector(ctx: FunctionLowering, op: Op, ty: Type, address: ir.Value, vec: int, predicate: ir.Value | None,
                others: list[ir.Value] | None) -> list[ir.Value]:
    b = ctx.builder
    elem = memory_type(ty)
    size = byte_size(ty)
    volatile = bool(op.attrs.get("volatile"))
    suffix = "" if volatile else _cache_suffix(op, store=False)
    if predicate is None and not suffix and not volatile:
        if vec == 1:
            return [_from_memory(b, b.load(address, typ=elem, align=size), ty)]
        vector = b.load(address, typ=ir.VectorType(elem, vec), align=vec * size)
        return [_from_memory(b, b.extract_element(vector, ir.Constant(I32, i)), ty) for i in range(vec)]
    count, word, letter, ptx_type = _words(vec, ty)
    if others is None:
        other_words = [ir.Constant(word, 0)] * count
    else:
        other_words = _pack(b, [_to_memory(b, o) for o in others], ty, count, word)
    outs = ", ".join(f"${i}" for i in range(count))
    lines = [f"mov.b{word.width} ${i}, ${count + i};" for i in range(count)]
    guard = f"@${2 * count} " if predicate is not None else ""
    address_index = 2 * count + (1 if predicate is not None else 0)
    shape = f".v{count}" if count > 1 else ""
    space = "volatile.global" if volatile else "global"
    target = "{" + outs + "}" if count > 1 else outs
    lines.append(f"{guard}ld.{space}{suffix}{shape}.{ptx_type} {target}, [${address_index}];")
    constraints = ",".join([f"={letter}"] * count + [letter] * count + (["b"] if predicate is not None else []) + ["l"])
    args = other_words + ([predicate] if predicate is not None else []) + [address]
    words = inline_asm(b, "\n\t".join(lines), constraints, [word] * count, args, side_effect=True)
    return [_from_memory(b, v, ty) for v in _unpack(b, words, ty, vec)]


def store_vector(ctx: FunctionLowering, op: Op, ty: Type, address: ir.Value, values: list[ir.Value],
                 predicate: ir.Value | None) -> None:
    b = ctx.builder
    vec = len(values)
    size = byte_size(ty)
    suffix = _cache_suffix(op, store=True)
    stored = [_to_memory(b, v) for v in values]
    if predicate is None and not suffix:
        if vec == 1:
            b.store(stored[0], address, align=size)
            return
        b.store(build_vector(b, stored), address, align=vec * size)
        return
    count, word, letter, ptx_type = _words(vec, ty)
    words = _pack(b, stored, ty, count, word)
    guard = f"@${count} " if predicate is not None else ""
    address_index = count + (1 if predicate is not None else 0)
    shape = f".v{count}" if count > 1 else ""
    source = "{" + ", ".join(f"${i}" for i in range(count)) + "}" if count > 1 else "$0"
    text = f"{guard}st.global{suffix}{shape}.{ptx_type} [${address_index}], {source};"
    constraints = ",".join([letter] * count + (["b"] if predicate is not None else []) + ["l"])
    inline_asm(b, text, constraints, [], words + ([predicate] if predicate is not None else []) + [address])


def _and(b: ir.IRBuilder, a: ir.Value | None, c: ir.Value | None) -> ir.Value | None:
    if a is None:
        return c
    if c is None:
        return a
    return b.and_(a, c)


def load_tile(ctx: FunctionLowering, op: Op, ty: Type, layout: Layout, addresses: list[ir.Value],
              masks: list[ir.Value] | None, others: list[ir.Value] | None, vec: int) -> TileVal:
    regs: list[ir.Value] = []
    for r in range(0, layout.num_regs, vec):
        predicate = masks[r] if masks is not None else None
        other = others[r:r + vec] if others is not None else None
        regs += load_vector(ctx, op, ty, addresses[r], vec, predicate, other)
    return TileVal(layout, regs)


def store_tile(ctx: FunctionLowering, op: Op, ty: Type, layout: Layout, addresses: list[ir.Value],
               values: list[ir.Value], masks: list[ir.Value] | None, vec: int) -> None:
    owner = ctx.owner(layout)
    b = ctx.builder
    for r in range(0, layout.num_regs, vec):
        predicate = _and(b, masks[r] if masks is not None else None, owner)
        store_vector(ctx, op, ty, addresses[r], values[r:r + vec], predicate)


# ---- load / store -------------------------------------------------------------------------------

@lowering("load")
def _load(ctx: FunctionLowering, op: Op, layout: Layout | None) -> list:
    ptr, mask, other = op.operand("ptr"), op.operand("mask"), op.operand("other")
    ty = op.result.type
    if element_of(ptr.type).is_block_ptr():
        return [_block_load(ctx, op, ctx.get(ptr), layout, ctx.plan.info(ptr).block)]
    if layout is None:
        m = ctx.get(mask) if mask is not None else None
        o = [ctx.get(other)] if other is not None else None
        return [load_vector(ctx, op, ty, ctx.get(ptr), 1, m, o)[0]]
    ptrs = ctx.get(ptr, layout)
    masks = ctx.get(mask, layout).regs if mask is not None else None
    others = ctx.get(other, layout).regs if other is not None else None
    vec = access_width(ctx, layout, ptr, mask, ty)
    return [load_tile(ctx, op, ty, layout, ptrs.regs, masks, others, vec)]


@lowering("store")
def _store(ctx: FunctionLowering, op: Op, layout) -> None:
    ptr, value, mask = op.operand("ptr"), op.operand("value"), op.operand("mask")
    ty = value.type
    if element_of(ptr.type).is_block_ptr():
        _block_store(ctx, op, ctx.get(ptr), value, ctx.plan.info(ptr).block)
        return None
    anchor = ctx.plan.anchor(op)
    if anchor is None:
        m = ctx.get(mask) if mask is not None else None
        predicate = _and(ctx.builder, m, ctx.owner(None))
        store_vector(ctx, op, ty, ctx.get(ptr), [ctx.get(value)], predicate)
        return None
    ptrs = ctx.get(ptr, anchor)
    values = ctx.get(value, anchor)
    masks = ctx.get(mask, anchor).regs if mask is not None else None
    vec = access_width(ctx, anchor, ptr, mask, ty)
    store_tile(ctx, op, ty, anchor, ptrs.regs, values.regs, masks, vec)
    return None


# ---- block pointers and tensor descriptors -------------------------------------------------------

@lowering("make_block_ptr")
def _make_block_ptr(ctx: FunctionLowering, op: Op, layout) -> list:
    b = ctx.builder

    def i64(v: ir.Value) -> ir.Value:
        return b.sext(v, I64) if v.type.width < 64 else v

    def i32(v: ir.Value) -> ir.Value:
        return b.trunc(v, I32) if v.type.width > 32 else (b.sext(v, I32) if v.type.width < 32 else v)

    return [StructVal(ctx.get(op.operand("base")), [i64(ctx.get(v)) for v in op.operand_group("shape")],
                      [i64(ctx.get(v)) for v in op.operand_group("strides")],
                      [i32(ctx.get(v)) for v in op.operand_group("offsets")])]


@lowering("advance")
def _advance(ctx: FunctionLowering, op: Op, layout) -> list:
    b = ctx.builder
    ptr = ctx.get(op.operand("ptr"))
    deltas = [ctx.get(v) for v in op.operand_group("offsets")]
    offsets = []
    for o, d in zip(ptr.offsets, deltas):
        d = b.trunc(d, I32) if d.type.width > 32 else (b.sext(d, I32) if d.type.width < 32 else d)
        offsets.append(b.add(o, d))
    return [StructVal(ptr.base, ptr.shape, ptr.strides, offsets)]


@lowering("make_tensor_descriptor")
def _make_tensor_descriptor(ctx: FunctionLowering, op: Op, layout) -> list:
    b = ctx.builder

    def i64(v: ir.Value) -> ir.Value:
        return b.sext(v, I64) if v.type.width < 64 else v

    return [StructVal(ctx.get(op.operand("base")), [i64(ctx.get(v)) for v in op.operand_group("shape")],
                      [i64(ctx.get(v)) for v in op.operand_group("strides")], [])]


def _block_addresses(ctx: FunctionLowering, block: StructVal, offsets: list[ir.Value], layout: Layout,
                     element: Type, checked: tuple[int, ...]) -> tuple[list[ir.Value], list[ir.Value] | None]:
    b = ctx.builder
    addresses, masks = [], []
    for r in range(layout.num_regs):
        coords = ctx.coords(layout, r)
        linear = ir.Constant(I64, 0)
        inside = None
        for d, c in enumerate(coords):
            index = b.sext(b.add(offsets[d], c), I64)
            linear = b.add(linear, b.mul(index, block.strides[d]))
            if d in checked:
                ok = b.and_(b.icmp_signed(">=", index, ir.Constant(I64, 0)), b.icmp_signed("<", index, block.shape[d]))
                inside = ok if inside is None else b.and_(inside, ok)
        addresses.append(b.gep(block.base, [linear], source_etype=memory_type(element)))
        masks.append(inside)
    return addresses, (masks if checked else None)


def _block_width(layout: Layout, facts, element: Type, checked: tuple[int, ...]) -> int:
    dim = _vector_dim(layout)
    if dim is None or facts is None or facts.stride_constants[dim] != 1:
        return 1
    size = byte_size(element)
    others = [facts.stride_divisibility[d] * size for d in range(layout.rank) if d != dim]
    aligned = min([facts.base_divisibility, facts.offset_divisibility[dim] * size] + others)
    vec = min(layout.vector_width(dim), max(1, aligned // size), max(1, 16 // size))
    if dim in checked:
        vec = min(vec, gcd(facts.shape_divisibility[dim], facts.offset_divisibility[dim]))
    return _floor_pow2(vec)


def _block_load(ctx: FunctionLowering, op: Op, block: StructVal, layout: Layout, facts) -> TileVal:
    ty = op.result.type
    element = element_of(ty)
    checked = tuple(op.attrs.get("boundary_check") or ())
    addresses, masks = _block_addresses(ctx, block, block.offsets, layout, element, checked)
    others = None
    if masks is not None:
        pad = float("nan") if op.attrs.get("padding") == "nan" and element.is_floating() else 0
        others = [constant(ty, pad)] * layout.num_regs
    vec = _block_width(layout, facts, element, checked)
    return load_tile(ctx, op, ty, layout, addresses, masks, others, vec)


def _block_store(ctx: FunctionLowering, op: Op, block: StructVal, value: Value, facts) -> None:
    layout = ctx.plan.anchor(op)
    ty = value.type
    element = element_of(ty)
    checked = tuple(op.attrs.get("boundary_check") or ())
    addresses, masks = _block_addresses(ctx, block, block.offsets, layout, element, checked)
    values = ctx.get(value, layout)
    vec = _block_width(layout, facts, element, checked)
    store_tile(ctx, op, ty, layout, addresses, values.regs, masks, vec)


def _descriptor_offsets(ctx: FunctionLowering, op: Op) -> list[ir.Value]:
    b = ctx.builder
    out = []
    for v in op.operand_group("offsets"):
        x = ctx.get(v)
        out.append(b.trunc(x, I32) if x.type.width > 32 else (b.sext(x, I32) if x.type.width < 32 else x))
    return out


@lowering("descriptor_load")
def _descriptor_load(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    desc = ctx.get(op.operand("desc"))
    ty = op.result.type
    element = element_of(ty)
    checked = tuple(range(layout.rank))
    addresses, masks = _block_addresses(ctx, desc, _descriptor_offsets(ctx, op), layout, element, checked)
    facts = ctx.plan.info(op.operand("desc")).block
    nan = facts is not None and facts.padding == "nan" and element.is_floating()
    others = [constant(ty, float("nan") if nan else 0)] * layout.num_regs
    vec = _descriptor_width(ctx, op, layout, facts, element)
    return [load_tile(ctx, op, ty, layout, addresses, masks, others, vec)]


@lowering("descriptor_store")
def _descriptor_store(ctx: FunctionLowering, op: Op, layout) -> None:
    kernel = ctx.module.module.kernel
    staging = tma_store_spec(op, ctx.plan, ctx.module.arch_number, kernel) if ctx.function is kernel else None
    if staging is not None:
        return _tma_store(ctx, op, replace(staging, base=ctx.module.scratch_base))
    desc = ctx.get(op.operand("desc"))
    value = op.operand("value")
    layout = ctx.plan.anchor(op)
    element = element_of(value.type)
    checked = tuple(range(layout.rank))
    addresses, masks = _block_addresses(ctx, desc, _descriptor_offsets(ctx, op), layout, element, checked)
    facts = ctx.plan.info(op.operand("desc")).block
    vec = _descriptor_width(ctx, op, layout, facts, element)
    store_tile(ctx, op, value.type, layout, addresses, ctx.get(value, layout).regs, masks, vec)
    return None


def _tma_store(ctx: FunctionLowering, op: Op, staging: SharedSpec) -> None:
    """The block written by the tensor memory accelerator (sm_90, ``tma.py``): every thread puts
    its registers, in the value's own layout (no conversion for the store first), into a
    swizzled staging slot of the scratch; then thread 0 stores it, a ``cp.async.bulk.tensor``
    per swizzle panel (what falls outside the tensor is not written), and waits until the slot
    has been read; a barrier then holds every thread until it has, so that nothing writes the
    scratch (a ring's bytes, in a persistent kernel's next tile) under the store."""
    b = ctx.builder
    value = op.operand("value")
    ctx.reserve_shared(staging.slot_bytes)
    store_staged(ctx, ctx.get(value), value.type, staging)
    tensormap = b.ptrtoint(ctx.module.tensormap(op), I64)
    row, col = _descriptor_offsets(ctx, op)
    panel_elements = staging.swizzle // staging.size
    text = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];"
    with b.if_then(b.icmp_unsigned("==", ctx.tid, ir.Constant(I32, 0))):
        for panel in range(staging.shape[1] // panel_elements):
            source = shared_address(ctx, ir.Constant(I32, staging.base + panel * staging.panel_bytes))
            inner = b.add(col, ir.Constant(I32, panel * panel_elements))
            inline_asm(b, text, "l,r,r,r", [], [tensormap, inner, row, source])
        inline_asm(b, "cp.async.bulk.commit_group;", "", [], [])
        inline_asm(b, "cp.async.bulk.wait_group.read 0;", "", [], [])
    ctx.barrier()  # nobody writes the scratch (a ring, in a persistent kernel) before it has been read
    return None


def _descriptor_width(ctx: FunctionLowering, op: Op, layout: Layout, facts, element: Type) -> int:
    if facts is None:
        return 1
    offsets = tuple(ctx.plan.info(v).divisibility[0] for v in op.operand_group("offsets"))
    from ....analysis.axis import BlockPtrFacts

    with_offsets = BlockPtrFacts(facts.base_divisibility, facts.stride_constants, facts.stride_divisibility, offsets,
                                 facts.shape_divisibility)
    return _block_width(layout, with_offsets, element, tuple(range(layout.rank)))


# ---- atomics -------------------------------------------------------------------------------------

_SEMANTICS = {"acq_rel": ".acq_rel", "acquire": ".acquire", "release": ".release", "relaxed": ".relaxed",
              "": ".acq_rel"}
_SCOPES = {"gpu": ".gpu", "cta": ".cta", "sys": ".sys", "": ".gpu"}


def _atomic_type(ctx: FunctionLowering, op: Op, kind: str, element) -> str:
    if isinstance(element, PointerType):
        return "b64"
    bits = element.primitive_bitwidth
    if element.is_floating():
        if kind == "add":
            return {16: "noftz." + ("bf16" if element.ir == "bf16" else "f16"), 32: "f32", 64: "f64"}[bits]
        if kind in ("xchg", "cas"):
            return f"b{bits}"
        raise ctx.error(f"atomic {kind} on {element.ir} is not supported on CUDA", op)
    if bits < 32:
        raise ctx.error(f"atomics need 32- or 64-bit integers, got {element.ir}", op)
    if kind in ("and", "or", "xor", "xchg", "cas"):
        return f"b{bits}"
    if kind == "add":
        return f"u{bits}"
    return ("u" if element.is_int_unsigned() else "s") + str(bits)


def _register_letter(ty: ir.Type) -> str:
    from .nvvm import register_constraint

    return register_constraint(ty)


def _atomic_one(ctx: FunctionLowering, op: Op, kind: str, element, ptr: ir.Value, values: list[ir.Value],
                predicate: ir.Value | None) -> ir.Value:
    b = ctx.builder
    sem = _SEMANTICS[op.attrs.get("sem", "acq_rel")]
    scope = _SCOPES[op.attrs.get("scope", "gpu")]
    if not isinstance(element, PointerType) and element.is_floating() and kind in ("max", "min"):
        return _float_min_max(ctx, op, kind, element, ptr, values[0], predicate, sem, scope)
    llty = values[0].type
    letter = _register_letter(llty)
    ptx_type = _atomic_type(ctx, op, kind, element)
    name = "exch" if kind == "xchg" else ("cas" if kind == "cas" else kind)
    operands = ", ".join(f"${2 + i}" for i in range(len(values)))
    guard = f"@${2 + len(values)} " if predicate is not None else ""
    zero = "0" if letter in ("r", "l", "h") else ("0f00000000" if letter == "f" else "0d0000000000000000")
    move_type = {"r": "b32", "l": "b64", "h": "b16", "f": "f32", "d": "f64"}[letter]
    ordering = f"{sem}{scope}" if kind == "cas" else f"{scope}{sem}"  # Triton's spellings (ptxas takes either)
    text = f"mov.{move_type} $0, {zero};\n\t{guard}atom.global{ordering}.{name}.{ptx_type} $0, [$1], {operands};"
    constraints = ",".join([f"={letter}", "l"] + [letter] * len(values) + (["b"] if predicate is not None else []))
    args = [ptr] + values + ([predicate] if predicate is not None else [])
    return inline_asm(b, text, constraints, [llty], args)[0]


def _float_min_max(ctx: FunctionLowering, op: Op, kind: str, element, ptr, value, predicate, sem, scope) -> ir.Value:
    """Float atomic max/min through integer atomics on the bits: non-negative values order like
    signed integers, negative ones like unsigned integers reversed."""
    b = ctx.builder
    bits = element.primitive_bitwidth
    if bits == 16:
        return _half_min_max(ctx, kind, element, ptr, value, predicate, sem, scope)
    if bits not in (32, 64):
        raise ctx.error(f"atomic {kind} on {element.ir} is not supported on CUDA", op)
    int_type = ir.IntType(bits)
    raw = b.bitcast(value, int_type)
    positive = b.icmp_signed(">=", raw, ir.Constant(int_type, 0))
    always = ir.Constant(I1, 1)
    on_positive = _and(b, predicate, positive) or always
    on_negative = _and(b, predicate, b.not_(positive)) or always
    first, second = ("max", "min") if kind == "max" else ("min", "max")
    letter = "r" if bits == 32 else "l"
    text = (f"mov.b{bits} $0, 0;\n\t@$3 atom.global{scope}{sem}.{first}.s{bits} $0, [$1], $2;\n\t"
            f"@$4 atom.global{scope}{sem}.{second}.u{bits} $0, [$1], $2;")
    old = inline_asm(b, text, f"={letter},l,{letter},b,b", [int_type], [ptr, raw, on_positive, on_negative])[0]
    return b.bitcast(old, value.type)


def _half_min_max(ctx: FunctionLowering, kind: str, element, ptr, value, predicate, sem, scope) -> ir.Value:
    """fp16/bf16 atomic max/min (a descriptor reduction's; PTX has no such atom): a loop of 16-bit
    compare-and-swaps; each round swaps in ``min``/``max`` of what memory held and ``value``
    (PTX's: a NaN operand gives the other), until memory still held what the round read."""
    skip = "@!$3 bra done_${:uid};\n\t" if predicate is not None else ""
    text = ("{\n\t.reg .pred again;\n\t.reg .b16 seen, next;\n\tmov.b16 $0, 0;\n\t" + skip +
            f"ld.relaxed{scope}.global.b16 $0, [$1];\n"
            "again_${:uid}:\n\t"
            f"{kind}.{element.ir} next, $0, $2;\n\t"
            f"atom.global{sem}{scope}.cas.b16 seen, [$1], $0, next;\n\t"
            "setp.ne.b16 again, seen, $0;\n\tmov.b16 $0, seen;\n\t@again bra again_${:uid};\n"
            "done_${:uid}:\n\t}")
    b = ctx.builder
    args = [ptr, b.bitcast(value, I16)] + ([predicate] if predicate is not None else [])
    constraints = "=h,l,h" + (",b" if predicate is not None else "")
    return b.bitcast(inline_asm(b, text, constraints, [I16], args)[0], value.type)


def _broadcast_results(ctx: FunctionLowering, results: list[ir.Value], layout: Layout | None,
                       owner: ir.Value | None, ty: Type) -> list[ir.Value]:
    """Give every thread the value its element's owner got back (scalars: thread 0's)."""
    if owner is None:
        return results
    from .shared import from_storage, round_up, storage_type, to_storage

    b = ctx.builder
    size = byte_size(ty)
    count = 1 if layout is None else layout.numel
    ctx.reserve_shared(round_up(count * size))
    ctx.barrier()
    offsets = []
    for r, value in enumerate(results):
        if layout is None:
            offset = ir.Constant(I32, 0)
        else:
            strides = tuple(_row_major(layout.shape))
            offset = b.mul(_linear(ctx, ctx.coords(layout, r), strides), ir.Constant(I32, size))
        offsets.append(offset)
        with b.if_then(owner):
            b.store(to_storage(b, value, ty), ctx.shared(offset), align=size)
    ctx.barrier()
    return [from_storage(b, b.load(ctx.shared(o), typ=storage_type(ty), align=size), ty) for o in offsets]


def _row_major(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return list(reversed(strides))


def _linear(ctx: FunctionLowering, coords: list[ir.Value], strides) -> ir.Value:
    b = ctx.builder
    total = ir.Constant(I32, 0)
    for c, s in zip(coords, strides):
        total = b.add(total, b.mul(c, ir.Constant(I32, s)))
    return total


def _atomic(ctx: FunctionLowering, op: Op, layout: Layout | None, kind: str, operands: list[Value],
            mask: Value | None) -> list:
    b = ctx.builder
    ptr = op.operands[0]
    element = element_of(op.result.type)
    used = bool(ctx.plan.uses.get(id(op.result)))
    if layout is None:
        owner = ctx.owner(None)
        predicate = _and(b, ctx.get(mask) if mask is not None else None, owner)
        old = _atomic_one(ctx, op, kind, element, ctx.get(ptr), [ctx.get(v) for v in operands], predicate)
        return [_broadcast_results(ctx, [old], None, owner, op.result.type)[0] if used else old]
    ptrs = ctx.get(ptr, layout)
    values = [ctx.get(v, layout) for v in operands]
    masks = ctx.get(mask, layout).regs if mask is not None else None
    owner = ctx.owner(layout)
    results = []
    for r in range(layout.num_regs):
        predicate = _and(b, masks[r] if masks is not None else None, owner)
        results.append(_atomic_one(ctx, op, kind, element, ptrs.regs[r], [v.regs[r] for v in values], predicate))
    if used:
        results = _broadcast_results(ctx, results, layout, owner, op.result.type)
    return [TileVal(layout, results)]


@lowering("atomic_rmw")
def _atomic_rmw(ctx: FunctionLowering, op: Op, layout: Layout | None) -> list:
    return _atomic(ctx, op, layout, op.attrs["kind"], [op.operand("value")], op.operand("mask"))


@lowering("atomic_cas")
def _atomic_cas(ctx: FunctionLowering, op: Op, layout: Layout | None) -> list:
    return _atomic(ctx, op, layout, "cas", [op.operand("compare"), op.operand("value")], None)


__all__ = ["load_vector", "store_vector", "access_width", "GLOBAL_PTR", "llvm_type"]
