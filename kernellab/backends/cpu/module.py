"""A Tile IR module as one LLVM module for the host.

Each Tile IR function becomes an internal LLVM function ``(args..., pid0, pid1, pid2, nprog0,
nprog1, nprog2, status, [result pointers...])``: tiles are passed and returned through
pointers to their buffers.  The exported entry point is the C-ABI grid function::

    void kernellab_grid(uint64_t *args, int64_t start, int64_t end, int32_t gx, int32_t gy, int32_t gz)

``args`` holds one 8-byte slot per kernel argument (pointers and integers as integers, floats
as doubles), then the status block's address.  It runs the programs whose linear ids lie in
[start, end) (x fastest) and stops early once the status flag is set (a failed assert).
"""

from __future__ import annotations

from typing import Any

import llvmlite.binding as llvm
import llvmlite.ir as ll

from ...errors import CompilationError
from ...ir.core import Function, Module
from ...ir.types import PointerType, ScalarType, TileType, Type
from ..debuginfo import debug_info
from .emitter import Emitter
from .llvm_types import F64, I32, I64, PTR, VOID, i32, i64, llvm_type, narrow
from .lower_memory import call_types, call_values, from_call_values, is_block_like
from .tiles import Buffer

GRID_SYMBOL = "kernellab_grid"
CONTEXT_PARAMS = 7  # pid0..2, nprog0..2, status


def arg_kind(ty: Type) -> str:
    """How the launcher writes an argument of type ``ty`` into its slot."""
    if isinstance(ty, PointerType):
        if ty.is_block_ptr():
            raise CompilationError("block pointers cannot be kernel arguments; build them with tl.make_block_ptr")
        return "ptr"
    if isinstance(ty, ScalarType):
        return ty.ir
    raise CompilationError(f"the CPU target cannot take a kernel argument of type {ty.ir}")


def _access_sites(module: Module) -> dict:
    from ..interpreter.pointers import access_sites  # the one provenance analysis (the interpreter's)

    return access_sites(module)


class ModuleLowering:
    """Builds the LLVM module; lowerings reach module-wide things through ``em.ml``."""

    def __init__(self, module: Module, options: dict[str, Any]):
        self.tile_module = module
        self.options = options
        self.module = ll.Module(name=module.kernel.name)
        self.module.triple = llvm.get_process_triple()
        self.debug = debug_info(self.module, module.kernel.loc.file, enabled=bool(options.get("line_info", True)))
        self.vector_bits = int(options.get("vector_bits") or host_vector_bits())
        self.functions: dict[str, ll.Function] = {}
        self.prints: list[dict] = []
        self.asserts: list[dict] = []
        self._callees: dict[str, ll.Function] = {}
        # checked mode (debug): memory accesses are checked against their arguments' allocations
        self.checked = bool(options.get("debug"))
        self.accesses: list[dict] = []
        self.pointer_arguments = [k for k, t in enumerate(module.kernel.arg_types) if isinstance(t, PointerType)]
        self.sites = _access_sites(module) if self.checked else {}

    # ---- things lowerings ask for ----
    def function(self, name: str, fnty: ll.FunctionType) -> ll.Function:
        """A declared function (intrinsic or libm) by name."""
        found = self.functions.get(name)
        if found is None:
            found = ll.Function(self.module, fnty, name)
            self.functions[name] = found
        return found

    def record_print(self, description: dict) -> int:
        self.prints.append(description)
        return len(self.prints) - 1

    def record_assert(self, description: dict) -> int:
        self.asserts.append(description)
        return len(self.asserts) - 1

    def record_access(self, description: dict) -> int:
        self.accesses.append(description)
        return len(self.accesses) - 1

    def callee(self, name: str, op) -> ll.Function:
        found = self._callees.get(name)
        if found is not None:
            return found
        function = self.tile_module.functions.get(name)
        if function is None:
            raise CompilationError(f"call to unknown function @{name}", op.loc)
        fn = self._declare(function, with_results=True)
        self._callees[name] = fn
        self._lower_function(function, fn, kernel=False)
        return fn

    # ---- building ----
    def build(self) -> ll.Module:
        kernel = self.tile_module.kernel
        program = self._declare(kernel, with_results=False)
        self._lower_function(kernel, program, kernel=True)
        self._grid(kernel, program)
        return self.module

    def _param_types(self, function: Function) -> list[ll.Type]:
        return [t for ty in function.arg_types for t in call_types(ty)]

    def _declare(self, function: Function, with_results: bool) -> ll.Function:
        params = self._param_types(function) + [I32] * 6 + [PTR]
        if with_results:  # a pointer per result (per component of a block pointer or descriptor)
            params += [PTR] * sum(len(call_types(t)) if is_block_like(t) else 1 for t in function.result_types)
        fn = ll.Function(self.module, ll.FunctionType(VOID, params), f"{function.name}.program")
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        return fn

    def _lower_function(self, function: Function, fn: ll.Function, kernel: bool) -> None:
        n = len(self._param_types(function))
        context = {"pids": list(fn.args[n:n + 3]), "nprogs": list(fn.args[n + 3:n + 6]), "status": fn.args[n + 6]}
        em = Emitter(self, function, fn, context)
        args = []
        params = iter(fn.args[:n])
        for ty in function.arg_types:
            if isinstance(ty, TileType):
                args.append(Buffer(next(params), ty.shape, ty.element_ty))
            elif is_block_like(ty):
                args.append(from_call_values(ty, [next(params) for _ in call_types(ty)]))
            else:
                args.append(next(params))
        terminator, values = em.lower_block(function.body, args)
        if not kernel and values:
            outs = iter(fn.args[n + CONTEXT_PARAMS:])
            for ty, value in zip(function.result_types, values):
                if isinstance(ty, TileType):
                    em.materialize(value, into=Buffer(next(outs), ty.shape, ty.element_ty))
                elif is_block_like(ty):
                    for component in call_values(ty, value):
                        em.b.store(component, next(outs))
                else:
                    em.b.store(value, next(outs))
        if not em.b.block.is_terminated:
            em.b.branch(em.exit_block)
        em.alloca_builder.branch(fn.blocks[1])
        exit_builder = ll.IRBuilder(em.exit_block)
        exit_builder.debug_metadata = em.loc_md
        exit_builder.ret_void()

    def _grid(self, kernel: Function, program: ll.Function) -> None:
        fnty = ll.FunctionType(VOID, [PTR, I64, I64, I32, I32, I32])
        fn = ll.Function(self.module, fnty, GRID_SYMBOL)
        fn.attributes.add("nounwind")
        slots, start, end, gx, gy, gz = fn.args
        scope = self.debug.subprogram(fn, GRID_SYMBOL, kernel.loc)
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        b.debug_metadata = self.debug.location(kernel.loc, scope)
        values = [_read_slot(b, slots, k, ty) for k, ty in enumerate(kernel.arg_types)]
        status = b.load(b.gep(slots, [i64(len(kernel.arg_types))], source_etype=I64), typ=PTR)
        gx64, gy64 = b.sext(gx, I64), b.sext(gy, I64)
        head = fn.append_basic_block("head")
        body = fn.append_basic_block("body")
        done = fn.append_basic_block("done")
        entry = b.block
        b.branch(head)
        b.position_at_end(head)
        linear = b.phi(I64)
        linear.add_incoming(start, entry)
        b.cbranch(b.icmp_signed("<", linear, end), body, done)
        b.position_at_end(body)
        rest = b.sdiv(linear, gx64)
        pid0 = b.trunc(b.srem(linear, gx64), I32)
        pid1 = b.trunc(b.srem(rest, gy64), I32)
        pid2 = b.trunc(b.sdiv(rest, gy64), I32)
        b.call(program, values + [pid0, pid1, pid2, gx, gy, gz, status])
        failed = b.load(status, typ=I32)
        nxt = b.add(linear, i64(1))
        linear.add_incoming(nxt, b.block)
        b.cbranch(b.icmp_unsigned("!=", failed, i32(0)), done, head)
        b.position_at_end(done)
        b.ret_void()


def _read_slot(b: ll.IRBuilder, slots: ll.Value, k: int, ty: Type) -> ll.Value:
    address = b.gep(slots, [i64(k)], source_etype=I64)
    kind = arg_kind(ty)
    if kind == "ptr":
        return b.load(address, typ=PTR)
    if ty.is_floating():
        wide = b.load(address, typ=F64)
        if ty.ir == "f64":
            return wide
        single = b.fptrunc(wide, ll.FloatType())
        return single if ty.ir == "f32" else narrow(b, single, ty)
    raw = b.load(address, typ=I64)
    target = llvm_type(ty)
    return raw if target == I64 else b.trunc(raw, target)


def host_vector_bits() -> int:
    """The widest SIMD register of the host (bits)."""
    features = llvm.get_host_cpu_features()
    if features.get("avx512f"):
        return 512
    if features.get("avx2") or features.get("avx"):
        return 256
    return 128
