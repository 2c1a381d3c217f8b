"""The FileCheck the tests use lives in ``kernellab.testing.filecheck`` (Triton's unit tests reach
it as ``triton._filecheck``); this name stays for the tests that import it from here."""

from kernellab.testing.filecheck import FileCheckError, filecheck

__all__ = ["FileCheckError", "filecheck"]
