"""Lowering a whole Tile IR module to an NVPTX LLVM module.

The entry kernel becomes a ``ptx_kernel`` function (``.entry`` in PTX) with ``maxntid`` set to
the CTA size; other functions (``noinline`` callees) become device functions that take and
return flattened values (tiles as one parameter per register, in the default layout).
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

from ....errors import CompilationError
from ....ir.core import Function, Module, Op
from ....ir.types import PointerType, ScalarType, TileType, Type, element_of
from ...debuginfo import debug_info
from .. import tma
from ..layouts.assign import LayoutPlan
from ..layouts.tensor_cores import arch_number
from . import cluster, control, debug, dot, elementwise, math, memory, reduce, shape, smem, tma_ops  # noqa: F401  (tables)
from .context import FunctionLowering, is_struct_type
from .control import flat_count
from .nvvm import Nvvm
from .types import GLOBAL_PTR, I8, I32, I64, SHARED_PTR, llvm_type


@dataclass
class Callee:
    llfn: ir.Function
    arg_layouts: list
    result_layouts: list
    result_flat_types: list[ir.Type]


def _flat_types(ty: Type, layout) -> list[ir.Type]:
    if isinstance(ty, TileType):
        return [llvm_type(ty)] * layout.num_regs
    if isinstance(ty, PointerType) and ty.is_block_ptr():
        rank = len(ty.element_ty.shape)
        return [GLOBAL_PTR] + [I64] * (2 * rank) + [I32] * rank
    if ty.is_tensor_descriptor():
        rank = len(ty.block_type.shape)
        return [GLOBAL_PTR] + [I64] * (2 * rank)
    return [llvm_type(ty)]


def kernel_param_type(ty: Type) -> ir.Type:
    """How a kernel argument is passed: scalars as themselves (``i1`` as a byte), pointers as
    64-bit global pointers."""
    if isinstance(ty, ScalarType) and ty.ir == "i1":
        return I8
    return llvm_type(ty)


class ModuleLowering:
    def __init__(self, module: Module, plans: dict[str, LayoutPlan], num_warps: int, arch: str = "sm_90a",
                 fp_fusion: bool = True, num_ctas: int = 1, line_info: bool = True):
        self.module = module
        self.num_ctas = num_ctas  # CTAs per program: a thread-block cluster when > 1 (cluster.py)
        self.fp_fusion = fp_fusion  # float mul + add may become fma (enable_fp_fusion)
        self.plans = plans
        self.num_warps = num_warps
        self.arch = arch
        self.arch_number = arch_number(arch)
        staged: dict = {}
        for function in module.functions.values():
            staged.update(smem.staged_operands(function, plans[function.name], num_warps, arch))
        self.regions = smem.plan_regions(list(module.functions.values()), staged)
        # hidden kernel parameters, in order (tma.py)
        self.tensormaps = _tensormaps(module, self.regions, plans, self.arch_number)
        self.live_rings = 0  # pipelined loops' rings in use where the lowering is (smem.py)
        kernel = module.kernel
        self.llmod = ir.Module(name=kernel.name)
        self.llmod.triple = "nvptx64-nvidia-cuda"
        self.nvvm = Nvvm(self.llmod)
        self.debug = debug_info(self.llmod, kernel.loc.file, emission="DebugDirectivesOnly", enabled=line_info)
        self.llmod.add_named_metadata("llvm.module.flags").add(
            self.llmod.add_metadata([I32(4), "nvvm-reflect-ftz", I32(0)]))
        self.strings: dict[str, ir.GlobalVariable] = {}
        self.shared_size = self.regions.total
        self._smem: ir.Value | None = None
        self.callees: dict[str, Callee] = {}
        self.llfns: dict[str, ir.Function] = {}

    # ---- tensor maps ----
    def tensormap(self, op: Op) -> ir.Value:
        """The hidden kernel parameter holding the tensor map a TMA copy or store uses."""
        kernel = self.module.kernel
        made, spec, _ = _tma_use(op, self.regions, self.plans[kernel.name], self.arch_number, kernel)
        index = list(self.tensormaps).index((id(made), spec.shape[0], spec.swizzle // spec.size))
        return self.llfns[kernel.name].args[len(kernel.args) + index]

    def tensormap_specs(self) -> list[dict]:
        """``metadata["tma"]``: what the launcher encodes into each hidden parameter."""
        return [spec.to_json() for spec in self.tensormaps.values()]

    # ---- shared memory ----
    def shared_base(self) -> ir.Value:
        """An (opaque) pointer to the dynamic shared-memory buffer."""
        if self._smem is None:
            buffer = ir.GlobalVariable(self.llmod, ir.ArrayType(I8, 0), "global_smem", addrspace=3)
            buffer.linkage = "external"
            buffer.align = 1024 if self.regions.total else 16  # the swizzled layouts repeat every 1024 bytes
            buffer.type = SHARED_PTR  # an opaque pointer, so that any type can be stored through it
            self._smem = buffer
        return self._smem

    @property
    def scratch_base(self) -> int:
        """Where the scratch starts: after the staged operands, and after the rings while any is
        live."""
        return self.regions.total if self.live_rings else self.regions.staged

    def reserve_shared(self, nbytes: int) -> None:
        """Room for ``nbytes`` of scratch (after the persistent regions)."""
        self.shared_size = max(self.shared_size, self.scratch_base + int(nbytes))

    # ---- functions ----
    def arg_layouts(self, function: Function) -> list:
        plan = self.plans[function.name]
        return [plan.layout(a) if isinstance(a.type, TileType) else None for a in function.args]

    def result_layouts(self, function: Function) -> list:
        plan = self.plans[function.name]
        return [plan.default(t.shape) if isinstance(t, TileType) else None for t in function.result_types]

    def _declare(self, function: Function, kernel: bool) -> ir.Function:
        if kernel:
            for ty in function.arg_types:
                if isinstance(ty, TileType) or is_struct_type(ty):
                    raise CompilationError(f"a kernel argument cannot have type {ty.ir}", function.loc, function.name)
            params = [kernel_param_type(t) for t in function.arg_types] + [ir.PointerType()] * len(self.tensormaps)
            fnty = ir.FunctionType(ir.VoidType(), params)
        else:
            params = []
            for ty, layout in zip(function.arg_types, self.arg_layouts(function)):
                params += _flat_types(ty, layout)
            results = []
            for ty, layout in zip(function.result_types, self.result_layouts(function)):
                results += _flat_types(ty, layout)
            ret = ir.LiteralStructType(results) if results else ir.VoidType()
            fnty = ir.FunctionType(ret, params)
        llfn = ir.Function(self.llmod, fnty, function.name)
        if kernel:
            llfn.calling_convention = "ptx_kernel"
            for i in range(len(self.tensormaps)):
                llfn.args[len(function.arg_types) + i].name = f"tmap{i}"
        else:  # a noinline callee stays a call, as the user asked (and as in Triton: its call site keeps its line)
            llfn.linkage = "internal"
            llfn.attributes.add("noinline")
        return llfn

    def callee(self, name: str) -> Callee:
        found = self.callees.get(name)
        if found is None:
            if name not in self.module.functions:
                raise CompilationError(f"call to unknown function @{name}", self.module.kernel.loc, name)
            function = self.module.functions[name]
            results = self.result_layouts(function)
            flat = []
            for ty, layout in zip(function.result_types, results):
                flat += _flat_types(ty, layout)
            found = Callee(self.llfns[name], self.arg_layouts(function), results, flat)
            self.callees[name] = found
        return found

    def text(self, maxnreg: int | None = None) -> str:
        """The LLVM IR text, with the kernel's ``"nvvm.maxntid"`` attribute (PTX ``.maxntid``:
        the CTA size), given ``maxnreg``, ``"nvvm.maxnreg"`` (PTX ``.maxnreg``: ptxas ignores
        ``--maxrregcount`` for a kernel with launch bounds) and for a cluster ``"nvvm.cluster_dim"``
        (PTX ``.reqnctapercluster``).  llvmlite cannot spell string attributes, so they are added
        to the text."""
        kernel = self.module.kernel.name
        attribute = f'"nvvm.maxntid"="{32 * self.num_warps}"' + register_limit(maxnreg)
        if self.num_ctas > 1:
            attribute += f' "nvvm.cluster_dim"="{self.num_ctas},1,1"'
        lines = str(self.llmod).splitlines()
        for i, line in enumerate(lines):
            if line.startswith("define ptx_kernel") and f'@"{kernel}"(' in line:
                head, paren, tail = line.rpartition(")")
                for j in range(len(self.tensormaps)):  # a CUtensorMap passed by value (__grid_constant__)
                    head = head.replace(f'ptr %"tmap{j}"', f'ptr byval([128 x i8]) align 64 "nvvm.grid_constant" '
                                                          f'%"tmap{j}"')
                lines[i] = f"{head}{paren} {attribute}{tail}"
                break
        return "\n".join(lines) + "\n"

    def lower(self) -> ir.Module:
        kernel = self.module.kernel
        for function in self.module.functions.values():
            self.llfns[function.name] = self._declare(function, function is kernel)
        for function in self.module.functions.values():
            self._lower_function(function, function is kernel)
        return self.llmod

    def _lower_function(self, function: Function, kernel: bool) -> None:
        llfn = self.llfns[function.name]
        subprogram = self.debug.subprogram(llfn, function.name, function.loc)
        ctx = FunctionLowering(self, function, self.plans[function.name], llfn, subprogram)
        b = ctx.builder
        if kernel:
            for arg, param, ty in zip(function.args, llfn.args, function.arg_types):
                value = param
                if isinstance(ty, ScalarType) and ty.ir == "i1":
                    value = ctx.prologue.trunc(param, ir.IntType(1))
                ctx.set(arg, value)
        else:
            from .control import unflatten

            i = 0
            for arg, layout in zip(function.args, self.arg_layouts(function)):
                n = flat_count(arg.type, layout)
                ctx.set(arg, unflatten(list(llfn.args[i:i + n]), arg.type, layout))
                i += n
        if kernel:
            cluster.only_the_first_cta(ctx)
        ctx.lower_block(function.body)
        if not b.block.is_terminated:
            if kernel or not function.result_types:
                b.ret_void()
            else:
                b.unreachable()


def _tma_use(op: Op, regions, plan, arch: int, kernel: Function) -> tuple | None:
    """(descriptor op, the shared layout of its box, element type) for an op the tensor memory
    accelerator does: a ring's ``gpu.tma_copy``, or a ``descriptor_store`` it can take
    (``tma.store_spec``); None for anything else."""
    if op.name == "gpu.tma_copy":
        return op.operand("desc").defining_op, regions.specs[op.attrs["buffer"]], \
            op.operand("desc").type.block_type.element_ty
    if op.name == "descriptor_store":
        spec = smem.tma_store_spec(op, plan, arch, kernel)
        if spec is not None:
            return op.operand("desc").defining_op, spec, element_of(op.operand("value").type)
    return None


def _tensormaps(module: Module, regions, plans: dict, arch: int) -> dict:
    """One tensor map per descriptor and box that the kernel's TMA copies and stores use, in
    order: key (descriptor op, box rows, box inner elements) -> TensorMapSpec."""
    kernel = module.kernel
    found: dict = {}
    for op in kernel.walk():
        use = _tma_use(op, regions, plans[kernel.name], arch, kernel)
        if use is None:
            continue
        made, spec, element = use
        key = (id(made), spec.shape[0], spec.swizzle // spec.size)
        if key not in found:
            found[key] = tma.spec_of(made, spec.shape, element, spec.swizzle, kernel)
    return found


def register_limit(maxnreg: int | None) -> str:
    """The kernel attribute text that limits its registers per thread (empty for no limit)."""
    return "" if maxnreg is None else f' "nvvm.maxnreg"="{int(maxnreg)}"'

