"""The CUDA backend's compile: the code generator's PTX (``compiler.py``) assembled into a cubin
by ptxas, under a register cap when the kernel is just over an occupancy cliff; an edited PTX
(``ir_override``) replaces the generated one first.

Apart from ``backend.py`` because a cache hit compiles nothing: the backend's import (paid by
every new process's first launch of a cached kernel) leaves this out.
"""

from __future__ import annotations

import time
from typing import Any

from ... import config
from . import occupancy, ptxas, tools


def compile_kernel(module: Any, options: dict, metadata: dict) -> dict[str, str | bytes]:
    """``tile.gpu``, ``llvm``, ``ptx`` and (with ptxas) ``cubin``; fills the metadata."""
    from .compiler import compile_to_ptx  # the code generator, looked up when it runs

    stages = compile_to_ptx(module, options, metadata, arch=options["arch"])
    return assemble(stages, options, metadata)


def compile_from_ptx(text: str, module: Any, options: dict, metadata: dict) -> dict[str, str | bytes]:
    """The stages with the edited PTX ``text``: the code generator still runs for the launch
    metadata (shared memory, argument types), its PTX is replaced."""
    from .compiler import compile_to_ptx
    from .ptx_params import check_override_params

    stages = compile_to_ptx(module, options, metadata, arch=options["arch"])

    signature = metadata.get("signature", {})
    runtime = [name for name in metadata.get("arg_names", []) if name in signature]
    path = metadata.get("ir_override", {}).get("path", "(ir_override)")
    extra = check_override_params(text, stages["ptx"], module.kernel.name, path, runtime)
    if extra:
        metadata["null_params"] = extra  # Triton's scratch pointers: null at launch
    stages["ptx"] = text
    return assemble(stages, options, metadata)


def assemble(stages: dict, options: dict, metadata: dict) -> dict[str, str | bytes]:
    """``stages`` with the ``cubin`` ptxas makes of their ``ptx`` (none without ptxas: the driver
    compiles the PTX at load); its registers, spills and shared memory go in the metadata."""
    arch = options["arch"]
    metadata["arch"] = arch
    path = tools.find_ptxas()
    if path is None:
        metadata["cubin_from"] = "driver"
        return stages
    edited_ptx = (metadata.get("ir_override") or {}).get("stage") == "ptx"  # kept as the user wrote it
    if not edited_ptx:
        stages["ptx"] = _for_ptxas(stages["ptx"], path, metadata)
    result = ptxas.assemble(stages["ptx"], arch, ptxas=path)  # a maxnreg is in the PTX (.maxnreg)
    seconds = result.seconds
    if options.get("maxnreg") is None and metadata.get("tensor_cores") and "llvm" in stages and not edited_ptx:
        result, seconds = _with_register_cap(result, seconds, stages, path, metadata)
    stages["cubin"] = result.cubin
    metadata.setdefault("compile_seconds", {})["cubin"] = seconds
    warnings = ptxas.performance_warnings(result.log)
    if warnings:  # e.g. wgmma serialized: the code runs, slowly (the compile report shows them)
        metadata["ptxas_warnings"] = warnings
    metadata.update(result.kernel(metadata.get("name")).as_metadata())
    metadata["cubin_from"] = "ptxas"
    return stages


def _for_ptxas(ptx: str, path: str, metadata: dict) -> str:
    """``ptx`` at the PTX ISA version of the ptxas that assembles it (``ptxas.with_isa_of``); the
    metadata's ``ptx_version`` says the one it has."""
    ptx = ptxas.with_isa_of(ptx, path)
    found = ptxas.VERSION_DIRECTIVE.search(ptx)
    if found is not None:
        metadata["ptx_version"] = found.group(1) + found.group(2)
    return ptx


def _with_register_cap(result: Any, seconds: float, stages: dict, path: str, metadata: dict
                       ) -> tuple[Any, float]:
    """``result`` assembled again under a register limit when the kernel is just over an
    occupancy cliff (``occupancy.register_cap``); the limited ``llvm``/``ptx`` stages and cubin
    are kept when ptxas spills nothing.  ``metadata["register_cap"]`` records the attempt."""
    from .compiler import with_register_limit

    kernel = result.kernel(metadata.get("name"))
    threads = int(metadata.get("threads_per_block") or 0)
    if not config.cuda_register_cap() or threads <= 0 or kernel.spill_stores or kernel.spill_loads:
        return result, seconds
    cap = occupancy.register_cap(kernel.registers, threads, int(metadata.get("shared") or 0), metadata["arch"])
    if cap is None:
        return result, seconds
    start = time.perf_counter()
    llvm_text, ptx = with_register_limit(stages["llvm"], metadata, cap)
    ptx = _for_ptxas(ptx, path, metadata)
    try:
        capped = ptxas.assemble(ptx, metadata["arch"], ptxas=path)
    except ptxas.PtxasError:  # an instruction needs more registers than the cap ("C7602")
        metadata["register_cap"] = {"cap": cap, "registers": [kernel.registers, None], "used": False}
        return result, seconds + (time.perf_counter() - start)
    squeezed = capped.kernel(metadata.get("name"))
    used = not (squeezed.spill_stores or squeezed.spill_loads or squeezed.stack_frame > kernel.stack_frame)
    metadata["register_cap"] = {
        "cap": cap, "registers": [kernel.registers, squeezed.registers], "used": used,
        "ctas_per_sm": [occupancy.ctas_by_registers(kernel.registers, threads),
                        occupancy.ctas_by_registers(squeezed.registers, threads)]}
    spent = time.perf_counter() - start
    if not used:
        return result, seconds + spent
    from ...passes import record_pass

    record_pass("register-cap", ptx, dialect="ptx", seconds=spent)  # the per-pass view's last PTX is this one
    stages["llvm"], stages["ptx"] = llvm_text, ptx
    return capped, seconds + spent


__all__ = ["compile_kernel", "compile_from_ptx", "assemble"]
