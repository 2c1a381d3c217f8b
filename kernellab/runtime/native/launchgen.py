"""The native launch function of one *shape*, as LLVM IR (llvmlite) compiled to an object.

A shape is what the code depends on: the kinds of the launch's slots (the kernel's parameters,
then the launch keywords), which slots are passed to the kernel and how they are packed, and
the tail (a CUDA launch or a call of a CPU grid function).  Everything else -- addresses, the
expected types and values, the kernel to return -- is a word of the function's data
(:class:`Layout`), so one object serves every kernel of a shape in every process and is kept
in the disk cache.

What the function does, for ``kernel[grid](*args, **kwargs)`` (``args[0]`` is the grid bound
by ``functools.partial``)::

    slots <- defaults; positional arguments; keyword arguments matched by name (identity)
    every slot checked against the specialization the data describes (exact types; int range,
    divisibility by 16 and the value 1; pointer alignment; dtype, device; constexpr values;
    launch options; the environment's forced target); values extracted; a tuple argument's
    slot checks its exact type and length, and each element is a slot of its own (after the
    launch keywords' slots), read from the tuple and checked in turn
    grid: a tuple of 1 to 3 positive ints within the limits
    tail: cuLaunchKernel(...) with the parameters packed on the stack, or the CPU grid
    function on the calling thread (when the grid is small enough to run inline)
    return the CompiledKernel

On any mismatch, a failed C API call or a launch error, it clears the error and calls the
fallback (the next function of the chain, finally the Python binder) with the very same
arguments, so every unusual case is handled, and explained, by Python.
"""

from __future__ import annotations

from typing import Any

from ...backends.record import Record
from .capi import API_FUNCTIONS, FLOAT_VALUE, TUPLE_ITEMS, TUPLE_SIZE
from .irfunction import NativeFunction

SYMBOL = "kernellab_launch"
FORMAT = 2  # bump when the generated code changes meaning

KINDS = ("i32", "i64", "one", "float", "bool", "none", "const", "numpy", "torch", "klarray", "stream", "skip",
         "tuple")
PACK_CODES = ("Q", "q", "i", "f", "d")  # u64 (pointers), i64, i32, f32, f64
LAUNCH_SLOTS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "ir_override", "stream", "warmup")

_FIXED = ("fallback", "kernel", *API_FUNCTIONS, "long_type", "float_type", "tuple_type", "none", "true", "false",
          "environ", "env_key0", "env_key1", "env_key2", "env_val0", "env_val1", "env_val2", "s_dtype",
          "s_get_device", "s_data_ptr", "s_is_cuda", "numpy_descr", "klarray_buffer", "klarray_keys",
          "klarray_address", "torch_direct", "torch_dtype_get", "torch_dtype_closure", "torch_is_cuda_get",
          "torch_is_cuda_closure", "torch_data_ptr")
# The native launch ABIs (a backend's ``Capabilities.native_launch``, its tail's "kind").
CUDA_DRIVER = "cuda_driver"  # cuLaunchKernel with a stream
HOST_GRID = "host_grid"  # the CPU target's grid function (inline or through its thread pool)
_TAIL = {CUDA_DRIVER: ("launch", "function", "block", "shared", "max_x", "max_y", "max_z", "stream_getter",
                  "device_long"),
         HOST_GRID: ("grid", "status", "inline_cell", "inline_work", "clock")}
_PER_KIND = {"i32": ("div", "one"), "i64": ("div",), "const": ("expected", "expected_int", "expected_is_int"),
             "numpy": ("type", "dtype", "align"), "torch": ("type", "dtype", "device", "device_mode", "align"),
             "klarray": ("type", "keys", "align"), "tuple": ("type",)}

# Modes of the "div"/"align" words (divisibility by 16 of ints, 16-byte alignment of pointers).
MUST_NOT, MUST, ANY = 0, 1, 2
# Modes of a torch tensor's "device_mode" word: get_device() == the "device" word; or only
# is_cuda, True (one CUDA device in the process) or False (the CPU target).
DEVICE_INDEX, DEVICE_CUDA, DEVICE_HOST = 0, 1, 2


NPY_ARRAY_WRITEABLE = 0x0400  # numpy's flag bit of a writable array


class Shape(Record):
    """``tail`` the backend's native launch ABI (``Capabilities.native_launch``: "cuda_driver",
    "host_grid"); ``slots`` one kind per slot (the kernel's parameters, then
    :data:`LAUNCH_SLOTS`, then the elements of tuple arguments); ``nparams`` how many slots are
    parameters; ``values`` the launch's values in order, as ``(slot, pack code)``; ``elements``
    ``(parent slot, index)`` of each element slot, in order (a parent comes before its
    elements)."""

    __slots__ = ("tail", "slots", "nparams", "values", "elements")
    _defaults = {"elements": ()}
    tail: str
    slots: tuple[str, ...]
    nparams: int
    values: tuple[tuple[int, str], ...]
    elements: tuple[tuple[int, int], ...]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        bound = len(self.slots) - len(self.elements)
        if self.tail not in _TAIL or any(k not in KINDS for k in self.slots) \
                or any(c not in PACK_CODES for _, c in self.values) \
                or any(not 0 <= parent < bound + i or self.slots[parent] != "tuple"
                       for i, (parent, _) in enumerate(self.elements)):
            raise ValueError(f"not a launch shape: {self}")

    @property
    def bound(self) -> int:
        """How many slots the call's arguments bind (parameters and launch keywords)."""
        return len(self.slots) - len(self.elements)

    def describe(self) -> dict[str, Any]:
        return {"format": FORMAT, "tail": self.tail, "slots": list(self.slots), "nparams": self.nparams,
                "values": [list(v) for v in self.values], "elements": [list(e) for e in self.elements]}


class Layout:
    """Word indices of a shape's data."""

    def __init__(self, shape: Shape):
        names = list(_FIXED) + list(_TAIL[shape.tail])
        for k, kind in enumerate(shape.slots):
            names += [f"name{k}", f"default{k}"] + [f"{word}{k}" for word in _PER_KIND.get(kind, ())]
        self.index = {name: i for i, name in enumerate(names)}
        self.size = len(names)

    def __getitem__(self, name: str) -> int:
        return self.index[name]


# ---------------------------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------------------------

def generate(shape: Shape) -> str:
    """The LLVM IR text of ``shape``'s launch function."""
    return str(_Generator(shape).module)


def compile_object(shape: Shape) -> bytes:
    """``shape``'s launch function as an object file for this host (generic CPU: any machine of
    this architecture runs it)."""
    return compile_ir(generate(shape))


def compile_ir(text: str) -> bytes:
    """LLVM IR text -> an object file for this host (generic CPU)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(text)
    module.verify()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    machine = target.create_target_machine(opt=2, reloc="pic", codemodel="small")
    return machine.emit_object(module)


# ---------------------------------------------------------------------------------------------
# kernel[grid]: the subscript of a JITFunction, natively
# ---------------------------------------------------------------------------------------------

GETITEM_SYMBOL = "kernellab_getitem"
GETITEM_DATA = "kernellab_getitem_data"  # an undefined symbol: the loader gives the data's address
GETITEM_WORDS = ("PyObject_GetAttr", "PyObject_Vectorcall", "Py_DecRef", "s_head", "none", "PyMethod_New", "slow",
                 "wrong_count")


def generate_getitem() -> str:
    """``JITFunction.__getitem__`` as a METH_FASTCALL method: ``PyMethod_New(self._head, grid)``
    (the head bound to the grid as a method's self); ``slow(self, grid)`` while ``_head`` is None
    (no binder yet) or the grid is None, ``wrong_count(*args)`` for anything but one argument."""
    import llvmlite.binding as llvm
    import llvmlite.ir as ir

    ptr, i64 = ir.PointerType(), ir.IntType(64)
    module = ir.Module(name="kernellab_getitem")
    module.triple = llvm.get_process_triple()
    data = ir.GlobalVariable(module, ir.ArrayType(i64, len(GETITEM_WORDS)), GETITEM_DATA)
    data.linkage = "external"
    fn = ir.Function(module, ir.FunctionType(ptr, [ptr, ptr, i64]), GETITEM_SYMBOL)
    this, args, nargs = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    stack = b.alloca(ptr, size=2)

    def word(name: str, ty: Any = ptr) -> Any:
        at = b.gep(data, [ir.Constant(i64, 0), ir.Constant(i64, GETITEM_WORDS.index(name))])
        return b.load(b.bitcast(at, ty.as_pointer()), typ=ty)

    vectorcall = ir.FunctionType(ptr, [ptr, ptr, i64, ptr])
    one, wrong = fn.append_basic_block("one"), fn.append_basic_block("wrong")
    b.cbranch(b.icmp_signed("==", nargs, ir.Constant(i64, 1)), one, wrong)
    b.position_at_end(wrong)
    b.ret(b.call(word("PyObject_Vectorcall", vectorcall.as_pointer()), [word("wrong_count"), args, nargs,
                                                                      ir.Constant(ptr, None)]))
    b.position_at_end(one)
    head = b.call(word("PyObject_GetAttr", ir.FunctionType(ptr, [ptr, ptr]).as_pointer()), [this, word("s_head")])
    failed, found = fn.append_basic_block("failed"), fn.append_basic_block("found")
    b.cbranch(b.icmp_unsigned("==", head, ir.Constant(ptr, None)), failed, found)
    b.position_at_end(failed)
    b.ret(ir.Constant(ptr, None))  # the lookup's exception propagates
    b.position_at_end(found)
    grid = b.load(args, typ=ptr)
    b.call(word("Py_DecRef", ir.FunctionType(ir.VoidType(), [ptr]).as_pointer()), [head])  # self keeps it
    slow, bind = fn.append_basic_block("slow"), fn.append_basic_block("bind")
    none = word("none")
    b.cbranch(b.or_(b.icmp_unsigned("==", head, none), b.icmp_unsigned("==", grid, none)), slow, bind)
    b.position_at_end(slow)
    b.store(this, stack)
    b.store(grid, b.gep(stack, [ir.Constant(i64, 1)], source_etype=ptr))
    b.ret(b.call(word("PyObject_Vectorcall", vectorcall.as_pointer()), [word("slow"), stack, ir.Constant(i64, 2),
                                                                      ir.Constant(ptr, None)]))
    b.position_at_end(bind)
    b.ret(b.call(word("PyMethod_New", ir.FunctionType(ptr, [ptr, ptr]).as_pointer()), [head, grid]))
    return str(module)


class _Generator(NativeFunction):
    def __init__(self, shape: Shape):
        self.shape = shape
        super().__init__("kernellab_launch", SYMBOL, Layout(shape))
        self.values: dict[int, Any] = {}
        self._build()

    def fail_on_mode(self, flag: Any, word: str) -> None:
        """Fail unless ``flag`` (i1) agrees with a MUST_NOT / MUST / ANY word."""
        mode = self.word(word)
        wanted = self.b.icmp_signed("==", mode, self.const(MUST))
        checked = self.b.icmp_signed("!=", mode, self.const(ANY))
        self.fail_if(self.b.and_(checked, self.b.icmp_unsigned("!=", flag, wanted)))

    def multiple_of_16(self, value: Any) -> Any:
        return self.b.icmp_signed("==", self.b.and_(value, self.const(15)), self.const(0))

    # ---- the function ----
    def _build(self) -> None:
        b = self.b
        shape = self.shape
        nargs = b.and_(self.nargsf, self.const((1 << 63) - 1))
        self.fail_if(b.icmp_signed("<", nargs, self.const(1)))
        npos = b.sub(nargs, self.const(1))
        self.fail_if(b.icmp_signed(">", npos, self.const(shape.nparams)))
        slots = self.alloca(self.ptr, size=shape.bound)
        slot = [b.gep(slots, [self.const(k)], source_etype=self.ptr) for k in range(shape.bound)]
        for k in range(shape.bound):
            b.store(self.pointer_word(f"default{k}"), slot[k])
        self._positional(npos, slot)
        self._keywords(nargs, npos, slot)
        objects = []
        for k in range(shape.bound):
            obj = b.load(slot[k], typ=self.ptr)
            self.fail_if(b.icmp_unsigned("==", obj, self.null()))  # a required argument is missing
            objects.append(obj)
        for k, kind in enumerate(shape.slots):
            if k >= shape.bound:  # an element of a tuple whose slot (checked before) has this many
                parent, index = shape.elements[k - shape.bound]
                objects.append(self.load_at(objects[parent], TUPLE_ITEMS + 8 * index))
            getattr(self, f"_check_{kind}")(k, objects[k])
        self._environment()
        grid = self._grid()
        getattr(self, f"_tail_{shape.tail}")(grid)
        kernel = self.pointer_word("kernel")
        self.call("Py_IncRef", self.ir.VoidType(), [self.ptr], [kernel])
        b.ret(kernel)
        self.finish_fallback()

    def _positional(self, npos: Any, slot: list[Any]) -> None:
        b = self.b
        for i in range(self.shape.nparams):
            given, done = self.fn.append_basic_block(), self.fn.append_basic_block()
            b.cbranch(b.icmp_signed(">", npos, self.const(i)), given, done)
            b.position_at_end(given)
            b.store(self.load_at(self.args, 8 * (1 + i)), slot[i])
            b.branch(done)
            b.position_at_end(done)

    def _keywords(self, nargs: Any, npos: Any, slot: list[Any]) -> None:
        b = self.b
        has, loop, after = (self.fn.append_basic_block() for _ in range(3))
        b.cbranch(b.icmp_unsigned("!=", self.kwnames, self.null()), has, after)
        b.position_at_end(has)
        count = self.load_at(self.kwnames, TUPLE_SIZE, self.i64)
        entry = b.block
        b.branch(loop)
        b.position_at_end(loop)
        j = b.phi(self.i64)
        j.add_incoming(self.const(0), entry)
        more, body = self.fn.append_basic_block(), self.fn.append_basic_block()
        b.cbranch(b.icmp_signed("<", j, count), body, after)
        b.position_at_end(body)
        name = b.load(b.gep(self._at(self.kwnames, TUPLE_ITEMS), [j], source_etype=self.ptr), typ=self.ptr)
        value = b.load(b.gep(self.args, [b.add(nargs, j)], source_etype=self.ptr), typ=self.ptr)
        for k in range(self.shape.bound):
            match, miss = self.fn.append_basic_block(), self.fn.append_basic_block()
            b.cbranch(b.icmp_unsigned("==", name, self.pointer_word(f"name{k}")), match, miss)
            b.position_at_end(match)
            if k < self.shape.nparams:  # also given by position: Python reports it
                self.fail_if(b.icmp_signed(">", npos, self.const(k)))
            b.store(value, slot[k])
            b.branch(more)
            b.position_at_end(miss)
        b.branch(self.fallback)  # not a name this function knows
        b.position_at_end(more)
        j.add_incoming(b.add(j, self.const(1)), more)
        b.branch(loop)
        b.position_at_end(after)

    # ---- slot checks ----
    def _int(self, k: int, obj: Any) -> Any:
        self.fail_unless_type(obj, "long_type")
        return self.as_long(obj)

    def _check_i32(self, k: int, obj: Any) -> None:
        b = self.b
        value = self._int(k, obj)
        self.fail_if(b.icmp_signed("<", value, self.const(-(2**31))))
        self.fail_if(b.icmp_signed(">", value, self.const(2**31 - 1)))
        is_one = b.icmp_signed("==", value, self.const(1))
        self.fail_if(b.and_(is_one, b.icmp_signed("!=", self.word(f"one{k}"), self.const(0))))
        self.fail_on_mode(self.multiple_of_16(value), f"div{k}")
        self.values[k] = value

    def _check_i64(self, k: int, obj: Any) -> None:
        b = self.b
        value = self._int(k, obj)
        fits_i32 = b.and_(b.icmp_signed(">=", value, self.const(-(2**31))),
                          b.icmp_signed("<=", value, self.const(2**31 - 1)))
        self.fail_if(fits_i32)  # its key would be i32
        self.fail_on_mode(self.multiple_of_16(value), f"div{k}")
        self.values[k] = value

    def _check_one(self, k: int, obj: Any) -> None:
        self.fail_if(self.b.icmp_signed("!=", self._int(k, obj), self.const(1)))

    def _check_float(self, k: int, obj: Any) -> None:
        self.fail_unless_type(obj, "float_type")
        self.values[k] = self.load_at(obj, FLOAT_VALUE, self.f64)

    def _check_bool(self, k: int, obj: Any) -> None:
        b = self.b
        is_true = b.icmp_unsigned("==", obj, self.pointer_word("true"))
        is_false = b.icmp_unsigned("==", obj, self.pointer_word("false"))
        self.fail_if(b.not_(b.or_(is_true, is_false)))
        self.values[k] = b.zext(is_true, self.i64)

    def _check_none(self, k: int, obj: Any) -> None:
        self.fail_if(self.b.icmp_unsigned("!=", obj, self.pointer_word("none")))

    def _check_skip(self, k: int, obj: Any) -> None:
        pass

    def _check_tuple(self, k: int, obj: Any) -> None:
        """The exact type (tuple, or the NamedTuple class) and length; its elements are slots."""
        self.fail_unless_type(obj, f"type{k}")
        length = sum(parent == k for parent, _ in self.shape.elements)
        self.fail_if(self.b.icmp_signed("!=", self.load_at(obj, TUPLE_SIZE, self.i64), self.const(length)))

    def _check_const(self, k: int, obj: Any) -> None:
        """The expected object itself, or an int of the expected int's value."""
        b = self.b
        same, other, done = (self.fn.append_basic_block() for _ in range(3))
        b.cbranch(b.icmp_unsigned("==", obj, self.pointer_word(f"expected{k}")), same, other)
        b.position_at_end(other)
        self.fail_if(b.icmp_signed("==", self.word(f"expected_is_int{k}"), self.const(0)))
        value = self._int(k, obj)
        self.fail_if(b.icmp_signed("!=", value, self.word(f"expected_int{k}")))
        b.branch(done)
        b.position_at_end(same)
        b.branch(done)
        b.position_at_end(done)

    def _aligned(self, k: int, address: Any) -> None:
        self.fail_on_mode(self.multiple_of_16(address), f"align{k}")
        self.values[k] = address

    def _check_numpy(self, k: int, obj: Any) -> None:
        """A numpy array: its descr and data pointer read from the array object."""
        b = self.b
        self.fail_unless_type(obj, f"type{k}")
        descr = b.load(b.gep(obj, [self.word("numpy_descr")], source_etype=self.i8), typ=self.ptr)
        self.fail_if(b.icmp_unsigned("!=", descr, self.pointer_word(f"dtype{k}")))
        # PyArrayObject.flags follows descr: read-only arrays go down the chain (the launcher
        # refuses them where the kernel writes)
        flags_at = b.add(self.word("numpy_descr"), self.const(8))
        flags = b.load(b.gep(obj, [flags_at], source_etype=self.i8), typ=self.ir.IntType(32))
        self.fail_if(b.icmp_unsigned("==", b.and_(flags, self.ir.Constant(self.ir.IntType(32), NPY_ARRAY_WRITEABLE)),
                                     self.ir.Constant(self.ir.IntType(32), 0)))
        self._aligned(k, self.load_at(obj, 16, self.i64))

    def _check_torch(self, k: int, obj: Any) -> None:
        """A torch tensor: ``dtype`` (identity), its device (``is_cuda`` or ``get_device()``, as
        the slot's mode says) and ``data_ptr()``.  With ``torch_direct`` set the C functions
        behind ``dtype``, ``is_cuda`` and ``data_ptr`` (found and checked when the data was
        made) are called directly, skipping torch's attribute lookups."""
        b = self.b
        self.fail_unless_type(obj, f"type{k}")
        direct = b.icmp_signed("!=", self.word("torch_direct"), self.const(0))
        dtype = self.choose(direct, lambda: self.getter(obj, "torch_dtype_get", "torch_dtype_closure"),
                            lambda: self.get_attr(obj, "s_dtype"))
        self.decref(dtype)  # torch's dtypes live forever; only the identity is compared
        self.fail_if(b.icmp_unsigned("!=", dtype, self.pointer_word(f"dtype{k}")))
        mode = self.word(f"device_mode{k}")
        by_index, by_flag, done = (self.fn.append_basic_block() for _ in range(3))
        b.cbranch(b.icmp_signed("==", mode, self.const(DEVICE_INDEX)), by_index, by_flag)
        b.position_at_end(by_index)
        device = self.call_method(obj, "s_get_device")
        self.fail_unless_type(device, "long_type")
        index = self.as_long(device)
        self.decref(device)
        self.fail_if(b.icmp_signed("!=", index, self.word(f"device{k}")))
        b.branch(done)
        b.position_at_end(by_flag)
        flag = self.choose(direct, lambda: self.getter(obj, "torch_is_cuda_get", "torch_is_cuda_closure"),
                           lambda: self.get_attr(obj, "s_is_cuda"))
        self.decref(flag)
        wanted = b.select(b.icmp_signed("==", mode, self.const(DEVICE_CUDA)), self.pointer_word("true"),
                          self.pointer_word("false"))
        self.fail_if(b.icmp_unsigned("!=", flag, wanted))
        b.branch(done)
        b.position_at_end(done)
        pointer = self.choose(direct, lambda: self.no_args(obj, "torch_data_ptr"),
                              lambda: self.call_method(obj, "s_data_ptr"))
        address = self.as_unsigned(pointer)
        self.fail_if(b.icmp_unsigned("==", address, self.const(0)))  # a meta or empty tensor: the binder says which
        self._aligned(k, address)

    def _check_klarray(self, k: int, obj: Any) -> None:
        """A kernellab DeviceArray: its cached Buffer's ``spec_keys`` (identity: dtype and device)
        and ``address``, read from their slots (offsets in the data, checked when it was made)."""
        b = self.b
        self.fail_unless_type(obj, f"type{k}")
        buffer = self.slot_of(obj, "klarray_buffer")
        self.fail_if(b.icmp_unsigned("==", buffer, self.pointer_word("none")))
        self.fail_if(b.icmp_unsigned("!=", self.slot_of(buffer, "klarray_keys"), self.pointer_word(f"keys{k}")))
        address = self.slot_of(buffer, "klarray_address")
        self.fail_unless_type(address, "long_type")
        self._aligned(k, self.as_unsigned(address, owned=False))

    def _check_stream(self, k: int, obj: Any) -> None:
        """None (the current stream, from the getter in the data) or an int handle."""
        is_none = self.b.icmp_unsigned("==", obj, self.pointer_word("none"))
        self.values[k] = self.choose(is_none, self._current_stream, lambda: self._given_stream(obj), ty=self.i64)

    def _given_stream(self, obj: Any) -> Any:
        self.fail_unless_type(obj, "long_type")
        return self.as_unsigned(obj, owned=False)

    def _current_stream(self) -> Any:
        stack = self.alloca(self.ptr)
        self.b.store(self.pointer_word("device_long"), stack)
        found = self.call("PyObject_Vectorcall", self.ptr, [self.ptr, self.ptr, self.i64, self.ptr],
                          [self.pointer_word("stream_getter"), stack, self.const(1), self.null()])
        self.fail_if(self.b.icmp_unsigned("==", found, self.null()))
        self.fail_unless_type(found, "long_type")
        return self.as_unsigned(found)

    # ---- environment, grid ----
    def _environment(self) -> None:
        """The forced-target variables are the objects seen when the data was made (as
        ``config.forced_target`` compares them)."""
        for i in range(3):
            found = self.call("PyDict_GetItem", self.ptr, [self.ptr, self.ptr],
                              [self.pointer_word("environ"), self.pointer_word(f"env_key{i}")])
            self.fail_if(self.b.icmp_unsigned("!=", found, self.pointer_word(f"env_val{i}")))

    def _grid(self) -> list[Any]:
        b = self.b
        grid = self.load_at(self.args, 0)
        self.fail_unless_type(grid, "tuple_type")
        size = self.load_at(grid, TUPLE_SIZE, self.i64)
        self.fail_if(b.icmp_signed("<", size, self.const(1)))
        self.fail_if(b.icmp_signed(">", size, self.const(3)))
        dims = []
        for axis in range(3):
            present, absent, done = (self.fn.append_basic_block() for _ in range(3))
            b.cbranch(b.icmp_signed(">", size, self.const(axis)), present, absent)
            b.position_at_end(present)
            item = self.load_at(grid, TUPLE_ITEMS + 8 * axis)
            self.fail_unless_type(item, "long_type")
            value = self.as_long(item)
            self.fail_if(b.icmp_signed("<", value, self.const(1)))  # empty grids: Python runs nothing
            self.fail_if(b.icmp_signed(">", value, self.const(2**31 - 1)))
            present_end = b.block
            b.branch(done)
            b.position_at_end(absent)
            b.branch(done)
            b.position_at_end(done)
            dim = b.phi(self.i64)
            dim.add_incoming(value, present_end)
            dim.add_incoming(self.const(1), absent)
            dims.append(dim)
        return dims

    # ---- tails ----
    def _packed(self, code: str, value: Any) -> tuple[Any, Any]:
        """(LLVM type, value) of a value packed with struct ``code``."""
        b = self.b
        if code == "i":
            return self.i32, b.trunc(value, self.i32)
        if code == "f":
            return self.f32, b.fptrunc(value, self.f32)
        if code == "d":
            return self.f64, value
        return self.i64, value

    def _tail_cuda_driver(self, grid: list[Any]) -> None:
        b = self.b
        for axis, dim in zip("xyz", grid):
            self.fail_if(b.icmp_signed(">", dim, self.word(f"max_{axis}")))
        sizes = {"Q": 8, "q": 8, "i": 4, "f": 4, "d": 8}
        offsets, position = [], 0
        for _, code in self.shape.values:
            position = -(-position // sizes[code]) * sizes[code]
            offsets.append(position)
            position += sizes[code]
        storage = self.alloca(self.i64, size=max(1, -(-position // 8)))
        pointers = self.alloca(self.ptr, size=max(1, len(offsets)))
        for i, ((k, code), offset) in enumerate(zip(self.shape.values, offsets)):
            _, packed = self._packed(code, self.values[k])
            where = self._at(storage, offset)
            self.store(packed, where)
            self.store(where, b.gep(pointers, [self.const(i)], source_etype=self.ptr))
        stream = self.values[self.shape.nparams + LAUNCH_SLOTS.index("stream")]
        i32 = self.i32
        result = self.call("launch", i32, [self.ptr, i32, i32, i32, i32, i32, i32, i32, self.ptr, self.ptr, self.ptr],
                           [self.pointer_word("function"), *(b.trunc(d, i32) for d in grid),
                            b.trunc(self.word("block"), i32), self.const(1, i32), self.const(1, i32),
                            b.trunc(self.word("shared"), i32), b.inttoptr(stream, self.ptr), pointers, self.null()])
        self.fail_if(b.icmp_signed("!=", result, self.const(0, i32)))

    def _tail_host_grid(self, grid: list[Any]) -> None:
        b = self.b
        total = b.mul(b.mul(grid[0], grid[1]), grid[2])
        cell = self.pointer_word("inline_cell")
        self.fail_if(b.icmp_signed(">", total, b.load(cell, typ=self.i64)))  # the pool's work: Python
        count = len(self.shape.values)
        slots = self.alloca(self.i64, size=count + 1)
        for i, (k, code) in enumerate(self.shape.values):
            _, packed = self._packed(code, self.values[k])
            self.store(packed, b.gep(slots, [self.const(i)], source_etype=self.i64))
        b.store(self.word("status"), b.gep(slots, [self.const(count)], source_etype=self.i64))
        start = self._now()
        i32 = self.i32
        self.call("grid", self.ir.VoidType(), [self.ptr, self.i64, self.i64, i32, i32, i32],
                  [slots, self.const(0), total, *(b.trunc(d, i32) for d in grid)])
        elapsed = b.sub(self._now(), start)
        elapsed = b.select(b.icmp_signed("<", elapsed, self.const(1)), self.const(1), elapsed)
        work = b.load(self.pointer_word("inline_work"), typ=self.i64)  # the schedule's cell
        programs = b.sdiv(b.mul(work, total), elapsed)
        b.store(b.select(b.icmp_signed("<", programs, self.const(1)), self.const(1), programs), cell)

    def _now(self) -> Any:
        """CLOCK_MONOTONIC in nanoseconds."""
        b = self.b
        spec = self.alloca(self.i64, size=2)
        self.call("clock", self.i32, [self.i32, self.ptr], [self.const(1, self.i32), spec])
        seconds = b.load(spec, typ=self.i64)
        nanoseconds = b.load(b.gep(spec, [self.const(1)], source_etype=self.i64), typ=self.i64)
        return b.add(b.mul(seconds, self.const(10**9)), nanoseconds)



__all__ = ["Shape", "Layout", "generate", "compile_object", "compile_ir", "generate_getitem", "GETITEM_SYMBOL",
           "GETITEM_DATA", "GETITEM_WORDS", "SYMBOL", "FORMAT", "KINDS", "PACK_CODES",
           "LAUNCH_SLOTS", "MUST_NOT", "MUST", "ANY", "DEVICE_INDEX", "DEVICE_CUDA", "DEVICE_HOST"]
