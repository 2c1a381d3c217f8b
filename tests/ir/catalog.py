"""A module that uses every op of the registry, with non-default attributes, nested regions,
two functions, a call, block pointers and tensor descriptors; it verifies.  Tests print it,
parse it and verify it.  ``OPS_USED`` lets a test notice an op added to the registry later."""

from __future__ import annotations

from kernellab.ir import Block, Builder, Location, Module
from kernellab.ir import types as T
from kernellab.ir.mathfns import MATH

N = 8
F = T.tile(T.f32, (N,))
I = T.tile(T.i32, (N,))
B = T.tile(T.i1, (N,))
PF = T.tile(T.pointer(T.f32), (N,))
PI = T.tile(T.pointer(T.i32), (N,))
M = T.tile(T.f32, (4, N))
BLOCK_PTR = T.pointer(M)

HERE = Location("/home/me/kernels.py", 12, 4)
THERE = Location("/home/me/lib/helpers.py", 3, 11)


class _Catalog:
    def __init__(self) -> None:
        self.b = Builder()
        self.used: set[str] = set()

    def op(self, name, operands=(), result_types=(), attrs=None, regions=(), grouped=False, hint=None):
        self.used.add(name)
        op = self.b.create(name, operands, result_types, attrs, regions, grouped=grouped)
        if hint and op.results:
            op.results[0].name_hint = hint
        return op

    def one(self, *args, **kwargs):
        return self.op(*args, **kwargs).result

    def const(self, value, ty, hint=None):
        return self.one("constant", [], [ty], {"value": value}, hint=hint)

    def cmp(self, a, b, predicate, ty):
        return self.one("cmp", [a, b], [ty], {"predicate": predicate})

    def combine_region(self, names=("add",), element=T.f32, count=1):
        region = Block([element] * (2 * count), ["a", "b"] + [None] * (2 * count - 2))
        with self.b.at_end(region):
            outs = [self.one(names[i], [region.args[i], region.args[count + i]], [element]) for i in range(count)]
            self.op("yield", [outs], grouped=True)
        return region


def build_catalog() -> tuple[Module, set[str]]:
    """The catalog module and the names of the ops it uses."""
    c = _Catalog()
    b = c.b
    b.module.attrs.update({"num_warps": 4, "target": "cpu", "ratio": 0.5, "flags": ("a", "b")})
    helper = b.function("scale", [T.f32, T.f32], [T.f32], ["x", "k"], {"noinline": True}, loc=THERE)
    with b.at_end(helper.body), b.location(THERE):
        prod = c.one("mul", helper.args, [T.f32], hint="x")
        c.op("return", [[prod]], grouped=True)
    kernel = b.function("catalog", [T.pointer(T.f32), T.pointer(T.i32), T.i32, T.f32], [],
                        ["x_ptr", "y_ptr", "n", "s"], {"kernel": True}, loc=HERE)
    kernel.arg_attrs[0].update({"divisibility": 16, "name": "x \"ptr\""})
    with b.at_end(kernel.body), b.location(HERE):
        _straight_line(c, kernel)
    return b.module, c.used


def _straight_line(c: _Catalog, kernel) -> None:
    x_ptr, y_ptr, n, s = kernel.args
    c.one("program_id", attrs={"axis": 1}, result_types=[T.i32], hint="pid")
    c.one("num_programs", attrs={"axis": 2}, result_types=[T.i32])
    offs = c.one("arange", result_types=[I], attrs={"start": 0, "end": N}, hint="offs")
    mask = c.cmp(offs, c.one("splat", [n], [I]), "lt", B)
    px = c.one("addptr", [c.one("splat", [x_ptr], [PF]), offs], [PF])
    py = c.one("addptr", [c.one("splat", [y_ptr], [PI]), offs], [PI])
    other = c.const(-0.0, F, hint="other")
    x = c.one("load", [px, mask, other], [F], {"cache": ".ca", "evict": "evict_last", "volatile": True},
              grouped=True, hint="x")
    y = c.one("load", [py, mask, None], [I], grouped=True, hint="x")
    floats = _elementwise(c, x, y, mask)
    _shapes(c, x, y, mask)
    _memory(c, x_ptr, n, px, py, x, y, mask)
    _reductions(c, x)
    _control(c, n, s, x, floats, mask, px)
    _debug(c, x, y, mask)
    c.op("store", [px, floats, mask], attrs={"cache": ".wb", "evict": "evict_first"}, grouped=True)
    c.op("return", [[]], grouped=True)


def _math_functions(c: _Catalog, x, y):
    """Every math function declared in ir/mathfns/: on f32 / i32 tiles where it has such a
    signature, else on scalar constants of its first signature's types (f64, u32, i64...)."""
    by_type = {"f32": x, "i32": y}
    scalars = {}
    for fn in MATH.values():
        signature = next((sig for sig in fn.signatures if all(ty in by_type for ty in sig)), None)
        if signature is not None:
            result = T.tile(T.by_ir(fn.signatures[signature]), (N,))
            c.one(fn.name, [by_type[ty] for ty in signature], [result])
            continue
        signature = next(iter(fn.signatures))
        for ty in signature:
            scalars.setdefault(ty, c.const(1 if ty[0] in "iu" else 1.5, T.by_ir(ty)))
        c.one(fn.name, [scalars[ty] for ty in signature], [T.by_ir(fn.signatures[signature])])


def _elementwise(c: _Catalog, x, y, mask):
    for value, ty in ((1.5, T.f32), (float("inf"), T.f32), (float("-inf"), T.f64), (float("nan"), T.f16),
                      (1e-30, T.f64), (-7, T.i8), (2**63 - 1, T.i64), (True, T.i1), (255, T.u8)):
        c.const(value, ty)
    acc = x
    for name in ("add", "sub", "mul", "div", "rem", "div_rn", "umulhi"):
        operand = y if name == "umulhi" else acc
        result = c.one(name, [operand, operand], [operand.type])
        acc = result if operand is acc else acc
    ints = y
    for name in ("and", "or", "xor", "shl", "shr", "div", "rem"):
        ints = c.one(name, [ints, y], [I])
    for name in ("exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "sqrt_rn", "rsqrt", "erf", "floor", "ceil",
                 "neg", "abs"):
        acc = c.one(name, [acc], [F])
    _math_functions(c, x, y)
    c.one("not", [ints], [I])
    c.one("not", [mask], [B])
    acc = c.one("minimum", [acc, x], [F], {"propagate_nan": "all"})
    acc = c.one("maximum", [acc, x], [F])
    acc = c.one("fdiv", [acc, x], [F], {"ieee_rounding": True})
    acc = c.one("fma", [acc, x, x], [F])
    acc = c.one("clamp", [acc, x, x], [F], {"propagate_nan": "all"})
    for predicate in ("eq", "ne", "lt", "le", "gt", "ge"):
        c.cmp(acc, x, predicate, B)
    acc = c.one("select", [mask, acc, x], [F])
    c.one("cast", [acc], [T.tile(T.f16, (N,))], {"rounding": "rtz"})
    c.one("cast", [y], [F])
    c.one("bitcast", [acc], [I])
    return acc


def _shapes(c: _Catalog, x, y, mask) -> None:
    row = c.one("expand_dims", [x], [T.tile(T.f32, (1, N))], {"axis": 0})
    wide = c.one("broadcast", [row], [M])
    c.one("reshape", [wide], [T.tile(T.f32, (N, 4))], {"can_reorder": True})
    c.one("trans", [wide], [T.tile(T.f32, (N, 4))], {"order": (1, 0)})
    pair = c.one("join", [x, x], [T.tile(T.f32, (N, 2))])
    c.op("split", [pair], [F, F])
    c.one("cat", [x, x], [T.tile(T.f32, (2 * N,))], {"can_reorder": True})
    c.one("gather", [x, y], [F], {"axis": 0})
    c.one("flip", [x], [F], {"axis": 0})
    c.one("sort", [x], [F], {"axis": 0, "descending": True})
    c.one("histogram", [y, mask], [T.tile(T.i32, (4,))], {"num_bins": 4}, grouped=True)


def _memory(c: _Catalog, x_ptr, n, px, py, x, y, mask) -> None:
    n64 = c.one("cast", [n], [T.i64])
    one64 = c.const(1, T.i64)
    zero = c.const(0, T.i32)
    block = c.one("make_block_ptr", [x_ptr, [n64, n64], [n64, one64], [zero, zero]], [BLOCK_PTR],
                  {"block_shape": (4, N), "order": (1, 0)}, grouped=True, hint="block")
    block = c.one("advance", [block, [zero, c.const(N, T.i32)]], [BLOCK_PTR], grouped=True, hint="block")
    tile = c.one("load", [block, None, None], [M], {"boundary_check": (0, 1), "padding": "nan"}, grouped=True)
    c.op("store", [block, tile, None], attrs={"boundary_check": (0,)}, grouped=True)
    desc = c.one("make_tensor_descriptor", [x_ptr, [n64, n64], [n64, one64]], [T.desc(M)], grouped=True)
    tile = c.one("descriptor_load", [desc, [zero, zero]], [M], grouped=True)
    c.op("descriptor_store", [desc, tile, [zero, zero]], grouped=True)
    c.one("atomic_rmw", [px, x, mask], [F], {"kind": "max", "sem": "relaxed", "scope": "cta"}, grouped=True)
    c.one("atomic_cas", [py, y, y], [I], {"sem": "acquire"})


def _reductions(c: _Catalog, x) -> None:
    c.one("reduce", [x], [T.f32], {"axis": 0}, [c.combine_region()])
    c.op("reduce", [x, x], [T.f32, T.f32], {"axis": 0}, [c.combine_region(("maximum", "add"), count=2)])
    c.one("scan", [x], [F], {"axis": 0, "reverse": True}, [c.combine_region(("mul",))])
    a = c.one("reshape", [c.one("cat", [x, x], [T.tile(T.f32, (2 * N,))])], [T.tile(T.f32, (4, 4))])
    c.one("dot", [a, a, c.const(0.0, T.tile(T.f32, (4, 4)))], [T.tile(T.f32, (4, 4))],
          {"input_precision": "tf32", "max_num_imprecise_acc": 32})


def _control(c: _Catalog, n, s, x, floats, mask, px) -> None:
    b = c.b
    zero, one = c.const(0, T.i32), c.const(1, T.i32)
    body = Block([T.i32, F, T.f32], ["i", "acc", "t"])
    loop = c.op("for", [zero, n, one, [x, s]], [F, T.f32],
                {"num_stages": 3, "loop_unroll_factor": 2, "flatten": True, "disallow_acc_multi_buffer": True,
                 "warp_specialize": True}, [body], grouped=True)
    with b.at_end(body):
        then, other = Block(), Block()
        branch = c.op("if", [c.cmp(body.args[0], one, "eq", T.i1)], [F], regions=[then, other])
        with b.at_end(then):
            c.op("yield", [[c.one("mul", [body.args[1], floats], [F], hint="acc")]], grouped=True)
        with b.at_end(other):
            c.op("yield", [[body.args[1]]], grouped=True)
        c.op("yield", [[branch.result, body.args[2]]], grouped=True)
    before, after = Block([T.i32], ["v"]), Block([T.i32], ["w"])
    c.op("while", [[n]], [T.i32], regions=[before, after], grouped=True)
    with b.at_end(before):
        c.op("condition", [c.cmp(before.args[0], zero, "gt", T.i1), [before.args[0]]], grouped=True)
    with b.at_end(after):
        c.op("yield", [[c.one("sub", [after.args[0], one], [T.i32])]], grouped=True)
    with b.location(THERE):
        c.op("call", [loop.results[1], s], [T.f32], {"callee": "scale"})
    side, empty = Block(), Block()
    c.op("if", [c.cmp(n, zero, "ne", T.i1)], [], regions=[side, empty])
    with b.at_end(side):
        c.op("store", [px, loop.results[0], mask], grouped=True)
        c.op("yield", [[]], grouped=True)
    with b.at_end(empty):
        c.op("yield", [[]], grouped=True)


def _debug(c: _Catalog, x, y, mask) -> None:
    c.op("print", [x, y], attrs={"prefix": "x = \"q\"\n\tend é", "hex": True})
    c.op("print", [], attrs={"prefix": "tick"})
    c.op("assert", [mask], attrs={"message": "out of bounds: {x}"})
    c.op("barrier")
    c.op("assume", [c.cmp(c.const(3, T.i32), c.const(0, T.i32), "gt", T.i1)])
    c.one("hint", [x], [F], {"multiple_of": (16,), "max_contiguous": (N,), "max_constancy": (1,)})
    c.op("inline_asm", [x, x], [F, F], {"asm": "mov.b32 $0, $2;\n\tmov.b32 $1, $3;", "constraints": "=r,=r,r,r",
                                        "pure": False, "pack": 4})
