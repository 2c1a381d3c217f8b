"""hatchling's build hook for kernellab: the JupyterLab extension, prebuilt and committed.

``extension/labextension/`` is in the repository with a stamp of the sources it was built from
(``extension/stamp.py``), so building a wheel or installing editable needs no Node.js: when the
stamp matches the sources, nothing runs.  When the sources changed, npm rebuilds the extension
if it is installed; without npm an editable install only warns (the viewer is then the old
build) and a wheel build fails rather than ship a stale viewer.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _stamp_module(root: Path) -> Any:
    spec = importlib.util.spec_from_file_location("kernellab_extension_stamp", root / "extension" / "stamp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class PrebuiltExtensionHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        extension = Path(self.root) / "extension"
        stamp = _stamp_module(Path(self.root))
        reason = stamp.staleness(extension)
        if reason is None:
            return
        npm = shutil.which("npm")
        if npm is None:
            message = f"kernellab: {reason}, and npm (Node.js >= 20) is not installed to rebuild it"
            if version == "editable":
                print(f"{message}; the installed viewer is the previous build", file=sys.stderr)
                return
            raise RuntimeError(message)
        for command in ([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                        [npm, "run", "--silent", "build:if-stale"]):
            subprocess.run(command, cwd=extension, check=True)
