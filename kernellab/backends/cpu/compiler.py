"""Stages of a CPU compilation: Tile IR -> LLVM IR (as emitted) -> optimized -> host assembly
and object code, each timed into ``metadata["compile_seconds"]``; the emitted and optimized
LLVM IR and the assembly are recorded as passes (``llvm``, ``llvm-opt``, ``asm``)."""

from __future__ import annotations

import threading
import time
from typing import Any

import llvmlite.binding as llvm

from ...errors import CompilationError
from ...ir.core import Module
from .device import frame_bytes, registers_used
from .module import GRID_SYMBOL, ModuleLowering, arg_kind

_init_lock = threading.Lock()
_initialized = False


def initialize() -> None:
    global _initialized
    with _init_lock:
        if not _initialized:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _initialized = True


def host_cpu() -> tuple[str, str]:
    """(cpu name, feature string) of this host."""
    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def target_machine(opt: int = 3) -> llvm.TargetMachine:
    """A fresh target machine for the host (an execution engine takes ownership of one)."""
    initialize()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    cpu, features = host_cpu()
    return target.create_target_machine(cpu=cpu, features=features, opt=opt, reloc="pic", codemodel="jitdefault")


_tm_local = threading.local()


def shared_target_machine(opt: int) -> llvm.TargetMachine:
    """One target machine per thread and opt level, for compiling (never given to an engine)."""
    machines = getattr(_tm_local, "machines", None)
    if machines is None:
        machines = _tm_local.machines = {}
    if opt not in machines:
        machines[opt] = target_machine(opt)
    return machines[opt]


def compile_module(module: Module, options: dict[str, Any], metadata: dict[str, Any],
                   llvm_text: str | None = None) -> dict[str, str | bytes]:
    """Tile IR -> {"llvm": text as emitted, "asm": host assembly, "obj": object code}.  A given
    ``llvm_text`` (an edited ``llvm`` stage, ``ir_override``) replaces the emitted text."""
    from ...passes.pipeline import active_recording, record_pass  # the compiler's (a launch never needs it)

    initialize()
    seconds = metadata.setdefault("compile_seconds", {})
    started = time.perf_counter()
    lowering = ModuleLowering(module, options)
    llvm_module = lowering.build()
    edited = llvm_text is not None
    llvm_text = llvm_text if edited else str(llvm_module)
    seconds["llvm"] = time.perf_counter() - started

    started = time.perf_counter()
    opt = int(options.get("opt_level", 3))
    tm = shared_target_machine(opt)
    try:
        parsed = llvm.parse_assembly(llvm_text)
        parsed.verify()
    except RuntimeError as error:
        origin = "the edited LLVM IR (ir_override) is invalid" if edited else \
            "the CPU backend produced invalid LLVM IR (a kernellab bug)"
        raise CompilationError(f"{origin}: {error}") from None
    _optimize(parsed, tm, opt)
    seconds["opt"] = time.perf_counter() - started
    record_pass("llvm", llvm_text, dialect="llvm", seconds=seconds["llvm"])
    if active_recording() is not None:  # printing the optimized module costs ~1 ms: only when recorded
        record_pass("llvm-opt", str(parsed), dialect="llvm", seconds=seconds["opt"])
    started = time.perf_counter()
    # each emission runs LLVM's codegen IR passes on the module it is given, in place: the assembly
    # comes from a copy, so that the object is built from the optimized module itself (emitting the
    # assembly first changed the object: a wrong tl.minimum at opt_level=1, found by the fuzzer)
    asm = tm.emit_assembly(parsed.clone())
    seconds["asm"] = time.perf_counter() - started
    record_pass("asm", asm, dialect="asm", seconds=seconds["asm"])
    started = time.perf_counter()
    obj = tm.emit_object(parsed)
    seconds["obj"] = time.perf_counter() - started

    kernel = module.kernel
    metadata["shared"] = frame_bytes(asm)  # the stack holds the tiles: the CPU's shared memory
    metadata["registers"] = registers_used(asm)
    metadata["cpu"] = {
        "entry": GRID_SYMBOL,
        "args": [arg_kind(t) for t in kernel.arg_types],
        "prints": lowering.prints,
        "asserts": lowering.asserts,
        "accesses": lowering.accesses,
        "triple": llvm.get_process_triple(),
        "cpu": host_cpu()[0],
    }
    metadata.setdefault("name", kernel.name)
    return {"llvm": llvm_text, "asm": asm, "obj": obj}


def _optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine, opt: int) -> None:
    tuning = llvm.create_pipeline_tuning_options(speed_level=min(opt, 3))
    tuning.loop_vectorization = opt >= 2
    tuning.slp_vectorization = opt >= 2
    tuning.loop_unrolling = opt >= 2
    builder = llvm.create_pass_builder(tm, tuning)
    builder.getModulePassManager().run(module, builder)
