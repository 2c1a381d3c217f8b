"""``ir_override``: compile from an edited stage file instead of the stage the compiler would
generate (``Config(..., ir_override=path)``, ``kernel[grid](..., ir_override=path)``,
``kl.compile(..., ir_override=path)``).

The file's suffix names the stage: ``.tile`` (Tile IR, any target: it is parsed and verified in
place of lowering the Python source and running the passes), ``.llvm``/``.ll``/``.llir`` (LLVM
IR as the backend emits it: the CPU target) and ``.ptx`` (the CUDA target; PTX that Triton wrote
works too, its trailing scratch-pointer parameters passed as null pointers).  Triton's MLIR
stages (``.ttir``, ``.ttgir``) are refused, saying so: kernellab's IR is its own.  A backend takes its own
stages through ``compile_from(stage, text, module, options, metadata)``; the module it receives
is still the kernel's Tile IR, for the metadata the launcher needs (argument kinds, prints...).
The file's contents (not its path) go into the compile cache key, so editing it recompiles.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STAGE_OF_SUFFIX = {".tile": "tile", ".llvm": "llvm", ".ll": "llvm", ".llir": "llvm", ".ptx": "ptx"}
# Triton's MLIR stages: kernellab's compiler is not MLIR, so it cannot start from them.
TRITON_MLIR_SUFFIXES = {".ttir": "Triton's TTIR", ".ttgir": "Triton's TTGIR"}


@dataclass(frozen=True)
class StageOverride:
    """An edited stage: its name, its text and the file it came from."""

    stage: str
    text: str
    path: str

    def key(self) -> dict[str, str]:
        """What goes into the compile cache key."""
        return {"stage": self.stage, "sha256": hashlib.sha256(self.text.encode()).hexdigest()}


def read_override(path: Any) -> StageOverride | None:
    """The override in file ``path`` (``None`` for no override)."""
    if path is None:
        return None
    if not isinstance(path, (str, Path)):
        raise TypeError(f"ir_override is the path of an edited stage file, got {path!r}")
    file = Path(path).expanduser()
    stage = STAGE_OF_SUFFIX.get(file.suffix)
    if file.suffix in TRITON_MLIR_SUFFIXES:
        raise ValueError(f"ir_override {str(path)!r} is {TRITON_MLIR_SUFFIXES[file.suffix]} (MLIR), which kernellab "
                         "cannot compile: its compiler has its own IR, not Triton's MLIR dialects. Override "
                         "kernellab's Tile IR instead (a .tile file: kernel.asm['tile'] of the compiled kernel, "
                         "edited), or the PTX (.ptx: Triton's own PTX works too)")
    if stage is None:
        raise ValueError(f"ir_override {str(path)!r}: the file's suffix names the stage it replaces; use one of "
                         f"{', '.join(STAGE_OF_SUFFIX)}")
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise FileNotFoundError(f"ir_override {str(path)!r} cannot be read: {error.strerror or error}") from None
    return StageOverride(stage, text, str(file))


def compile_from(backend: Any, override: StageOverride, module: Any, options: dict, metadata: dict
                 ) -> dict[str, str | bytes]:
    """The backend's stages, starting from ``override`` (a stage after ``tile``)."""
    resume = getattr(backend, "compile_from", None)
    accepted = getattr(backend, "override_stages", ())
    if resume is None or override.stage not in accepted:
        allowed = ", ".join(["tile", *accepted])
        raise ValueError(f"ir_override {override.path!r} replaces the {override.stage!r} stage, which the "
                         f"{backend.name} target cannot start from; it accepts: {allowed}")
    return resume(override.stage, override.text, module, options, metadata)


__all__ = ["StageOverride", "read_override", "compile_from", "STAGE_OF_SUFFIX", "TRITON_MLIR_SUFFIXES"]
