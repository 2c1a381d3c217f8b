"""Host object code loaded without LLVM (``backends.cpu.objload``): code, constants, writable
data, calls into libc/libm through the GOT and through call stubs, in LLVM's small and large
code models; objects it cannot load are refused before anything runs."""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

from kernellab.backends.cpu import objload

llvm = pytest.importorskip("llvmlite.binding")
pytestmark = pytest.mark.skipif(not objload.supported_here(), reason="objects are loaded on x86-64 Linux only")

# sum(table[i] * x[i]) + expf(x[0]) + the number of earlier calls (a writable counter); memset
# clears a scratch buffer first (an external call LLVM may emit as a libcall).
SOURCE = r"""
@table = internal constant [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0], align 16
@calls = internal global i64 0, align 8
declare float @expf(float)
declare ptr @memset(ptr, i32, i64)

define double @mix(ptr %x, ptr %scratch) {
entry:
  call ptr @memset(ptr %scratch, i32 0, i64 64)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
  %acc = phi float [0.0, %entry], [%sum, %loop]
  %tp = getelementptr [4 x float], ptr @table, i64 0, i64 %i
  %xp = getelementptr float, ptr %x, i64 %i
  %t = load float, ptr %tp
  %v = load float, ptr %xp
  %m = fmul float %t, %v
  %sum = fadd float %acc, %m
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, 4
  br i1 %done, label %exit, label %loop
exit:
  %x0 = load float, ptr %x
  %e = call float @expf(float %x0)
  %r = fadd float %sum, %e
  %n = load i64, ptr @calls
  %n1 = add i64 %n, 1
  store i64 %n1, ptr @calls
  %rd = fpext float %r to double
  %nd = sitofp i64 %n to double
  %out = fadd double %rd, %nd
  ret double %out
}
"""

MIX = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p, ctypes.c_void_p)


def emit(source: str, codemodel: str) -> bytes:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(source)
    module.triple = llvm.get_process_triple()
    module.verify()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    machine = target.create_target_machine(opt=2, reloc="pic", codemodel=codemodel)
    return machine.emit_object(module)


@pytest.mark.parametrize("codemodel", ["small", "large", "jitdefault"])
def test_code_constants_data_and_external_calls(codemodel):
    loaded = objload.load_object(emit(SOURCE, codemodel))
    mix = MIX(loaded.address("mix"))
    x = np.random.default_rng(3).uniform(-1, 1, 4).astype(np.float32)
    scratch = np.full(16, 7.0, np.float32)
    expected = float(np.dot(np.float32([1, 2, 3, 4]), x)) + math.exp(float(x[0]))
    for calls in range(3):
        assert mix(x.ctypes.data, scratch.ctypes.data) == pytest.approx(expected + calls, rel=1e-6)
    assert not scratch.any()  # memset ran


def test_external_symbols_come_from_the_resolver():
    seen = []

    def resolve(name):
        seen.append(name)
        return objload.process_symbol(name)

    objload.load_object(emit(SOURCE, "small"), resolve)
    assert sorted(set(seen)) == ["expf", "memset"]


def test_unresolved_symbols_are_refused():
    source = "declare i32 @kernellab_no_such_function(i32)\n" \
             "define i32 @f(i32 %x) {\n  %y = call i32 @kernellab_no_such_function(i32 %x)\n  ret i32 %y\n}\n"
    with pytest.raises(objload.UnsupportedObject, match="kernellab_no_such_function"):
        objload.load_object(emit(source, "small"))


def test_thread_locals_are_refused():
    source = "@t = internal thread_local global i32 0\n" \
             "define i32 @f() {\n  %v = load i32, ptr @t\n  ret i32 %v\n}\n"
    with pytest.raises(objload.UnsupportedObject, match="thread-local"):
        objload.load_object(emit(source, "small"))


@pytest.mark.parametrize("data", [b"", b"not an object", b"\x7fELF" + bytes(60)])
def test_other_files_are_refused(data):
    with pytest.raises(objload.UnsupportedObject):
        objload.load_object(data)


def test_a_symbol_the_object_does_not_define():
    loaded = objload.load_object(emit(SOURCE, "small"))
    with pytest.raises(objload.UnsupportedObject, match="no symbol 'nope'"):
        loaded.address("nope")


@pytest.mark.skipif(not objload.supported_here(), reason="objects are loaded on x86-64 Linux only")
def test_the_mapping_flags_are_the_mmap_modules():
    import mmap  # objload spells them out (importing this C extension cost every cached first launch)

    assert objload._PAGE == mmap.PAGESIZE
    assert (objload._PROT_READ, objload._PROT_WRITE, objload._PROT_EXEC) == (mmap.PROT_READ, mmap.PROT_WRITE,
                                                                             mmap.PROT_EXEC)
    assert (objload._MAP_PRIVATE, objload._MAP_ANONYMOUS) == (mmap.MAP_PRIVATE, mmap.MAP_ANONYMOUS)
