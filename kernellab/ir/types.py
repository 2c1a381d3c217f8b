"""Tile IR types.

One set of type objects serves the IR and the language: ``kernellab.language.float32`` *is*
``kernellab.ir.types.f32``.  Each type has two spellings:

* ``name``   — Triton's (``fp32``, ``int32``, ``pointer<fp32>``), what kernel authors see;
* ``ir``     — the Tile IR's (``f32``, ``i32``, ``ptr<f32>``, ``tile<128x64xf16>``), what the
  printer writes and the parser reads.

Types are interned: two equal types are the same object, so ``is`` and ``==`` agree.

Grammar of the printed form (the parser in ``kernellab.ir.parser`` reads exactly this)::

    scalar  := i1 | i8 | i16 | i32 | i64 | u8 | u16 | u32 | u64 | f8e4m3 | f8e5m2
             | f8e4b15 | f8e4b8 | f8e5b16 | f16 | bf16 | f32 | f64
    ptr     := "ptr<" ["const "] (scalar | ptr | tile) ["," addrspace] ">"
    tile    := "tile<" dim ("x" dim)* "x" (scalar | ptr) ">"
    desc    := "desc<" dim ("x" dim)* "x" scalar ">"
    void    := "void"
"""

from __future__ import annotations

import enum
from typing import ClassVar

import numpy as np

# numpy has no bfloat16 or fp8: ml_dtypes gives them (imported when one of these types' np_dtype
# is first read, not by `import kernellab`: ~5 ms).  Tile IR spelling -> ml_dtypes' name.
# f8e4b8 / f8e5b16 are Triton's fp8e4b8 / fp8e5b16 (AMD's "fnuz" formats: no infinities, one NaN
# at -0's encoding).
_ML_DTYPES = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2", "bf16": "bfloat16",
              "f8e4b8": "float8_e4m3fnuz", "f8e5b16": "float8_e5m2fnuz"}
# Types whose values are only their bits: Triton's fp8e4b15 (fp8e4nv's layout with exponent bias 15,
# no NaN or infinity).  No target computes with it: the language converts it to and from fp16 with
# integer operations on its bits (Triton's NVIDIA conversion), so its numpy form (the interpreter's,
# a constant's value) is the uint8 of its bits, as in Triton's interpreter.
BITS_ONLY = frozenset({"f8e4b15"})
# fp8 types a value converts to saturating at the largest finite magnitude (infinities too; NaN stays
# NaN): Triton's NVIDIA conversion (``cvt.rn.satfinite``, what the CUDA target emits), which the
# reference and every target follow.  The AMD "fnuz" formats keep ml_dtypes' overflow to NaN.
SATURATING_FP8 = frozenset({"f8e4m3", "f8e5m2"})


def _ml_dtype(ir: str) -> np.dtype | None:
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes is a dependency
        return None
    name = _ML_DTYPES[ir]
    return np.dtype(getattr(ml_dtypes, name)) if name else None


class Type:
    """Base of every Tile IR type.  Subclasses are interned through ``_intern``."""

    _interned: ClassVar[dict] = {}
    ir: str
    name: str

    @classmethod
    def _intern(cls, key: tuple, make):
        found = Type._interned.get(key)
        if found is None:
            found = make()
            Type._interned[key] = found
        return found

    # ---- Triton's dtype predicates (false unless a subclass says otherwise) ----
    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    def is_void(self) -> bool:
        return False

    def is_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_bool(self) -> bool:
        return False

    def is_const(self) -> bool:
        return False

    def is_tensor_descriptor(self) -> bool:
        return False

    @property
    def scalar(self) -> Type:
        """The element type for tiles, the type itself otherwise (Triton's ``.scalar``)."""
        return self

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        if not isinstance(self, ScalarType):
            return self.name
        return f"{REPR_MODULE}.{_LANGUAGE_NAMES.get(self.ir, self.name)}"

    def __reduce__(self):  # pragma: no cover - types are never pickled by kernellab
        raise TypeError("kernellab types are not picklable; use their printed form")


# The module a scalar type's repr names: ``triton.language`` while kernellab.as_triton is on.
REPR_MODULE = "kernellab.language"


class Kind(enum.IntEnum):
    """Promotion kinds, ordered as Triton orders them (bool < uint < int < float)."""

    BOOL = 0
    UINT = 1
    INT = 2
    FLOAT = 3


class ScalarType(Type):
    """A scalar element type: integers (signed and unsigned), bool (i1) and floats."""

    class SIGNEDNESS(enum.Enum):
        SIGNED = 0
        UNSIGNED = 1

    def __init__(self, ir: str, name: str, kind: Kind, bits: int, np_dtype, mantissa: int = 0,
                 exponent_bias: int = 0):
        self.ir = ir
        self.name = name
        self._kind = kind
        self.primitive_bitwidth = bits
        if ir not in _ML_DTYPES:  # those are read on first use (__getattr__)
            self.np_dtype = np.dtype(np_dtype) if np_dtype is not None else None
        self.fp_mantissa_width = mantissa
        self.exponent_bias = exponent_bias

    def __getattr__(self, name: str):
        """``np_dtype`` of bfloat16 and fp8, from ml_dtypes on first use (then an attribute)."""
        if name != "np_dtype" or self.__dict__.get("ir") not in _ML_DTYPES:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.np_dtype = _ml_dtype(self.ir)
        return self.np_dtype

    # ---- classification ----
    def kind(self) -> Kind:
        return self._kind

    def is_floating(self) -> bool:
        return self._kind is Kind.FLOAT

    def is_int(self) -> bool:
        return self._kind in (Kind.INT, Kind.UINT, Kind.BOOL)

    def is_bool(self) -> bool:
        return self._kind is Kind.BOOL

    def is_int_signed(self) -> bool:
        return self._kind is Kind.INT

    def is_int_unsigned(self) -> bool:
        """True for ``u8``...``u64`` and, as in Triton, for ``i1`` (a one-bit unsigned integer)."""
        return self._kind in (Kind.UINT, Kind.BOOL)

    def is_standard_floating(self) -> bool:
        return self.ir in ("f16", "bf16", "f32", "f64")

    def is_fp8(self) -> bool:
        return self.ir.startswith("f8")

    def is_fp8e4nv(self) -> bool:
        return self.ir == "f8e4m3"

    def is_fp8e5(self) -> bool:
        return self.ir == "f8e5m2"

    def is_fp8e4b15(self) -> bool:
        return self.ir == "f8e4b15"

    def is_fp8e4b8(self) -> bool:
        return self.ir == "f8e4b8"

    def is_fp8e5b16(self) -> bool:
        return self.ir == "f8e5b16"

    def is_fp16(self) -> bool:
        return self.ir == "f16"

    def is_bf16(self) -> bool:
        return self.ir == "bf16"

    def is_fp32(self) -> bool:
        return self.ir == "f32"

    def is_fp64(self) -> bool:
        return self.ir == "f64"

    def is_int1(self) -> bool:
        return self.ir == "i1"

    def is_int8(self) -> bool:
        return self.ir == "i8"

    def is_int16(self) -> bool:
        return self.ir == "i16"

    def is_int32(self) -> bool:
        return self.ir == "i32"

    def is_int64(self) -> bool:
        return self.ir == "i64"

    def is_uint8(self) -> bool:
        return self.ir == "u8"

    def is_uint16(self) -> bool:
        return self.ir == "u16"

    def is_uint32(self) -> bool:
        return self.ir == "u32"

    def is_uint64(self) -> bool:
        return self.ir == "u64"

    # ---- integer facts ----
    @property
    def int_bitwidth(self) -> int:
        return self.primitive_bitwidth if self.is_int() else 0

    @property
    def int_signedness(self) -> ScalarType.SIGNEDNESS:
        return self.SIGNEDNESS.UNSIGNED if self.is_int_unsigned() else self.SIGNEDNESS.SIGNED

    def get_int_max_value(self) -> int:
        if self.is_bool():
            return 1
        if self.is_int_unsigned():
            return 2**self.primitive_bitwidth - 1
        return 2 ** (self.primitive_bitwidth - 1) - 1

    def get_int_min_value(self) -> int:
        if self.is_bool() or self.is_int_unsigned():
            return 0
        return -(2 ** (self.primitive_bitwidth - 1))

    @property
    def itemsize(self) -> int:
        return max(1, self.primitive_bitwidth // 8)

    # ---- Triton's helpers that return types ----
    def with_element_ty(self, element_ty: Type) -> Type:
        return element_ty

    def to_unsigned(self) -> ScalarType:
        return by_ir("u" + self.ir[1:]) if self._kind is Kind.INT else self

    def to_signed(self) -> ScalarType:
        return by_ir("i" + self.ir[1:]) if self._kind is Kind.UINT else self

    def __call__(self, value):
        raise TypeError(f"{self.name} is a type; inside a kernel use x.to({self.name})")


class PointerType(Type):
    """``ptr<T>`` in global memory (address space 1) unless said otherwise.

    ``T`` is a scalar for ordinary pointers and a tile type for block pointers
    (``tl.make_block_ptr``), as in Triton.  A ``const`` pointer (``ptr<const T>``: a parameter
    annotated ``tl.const``) cannot be stored through; it is a type of its own, as in Triton.
    """

    def __init__(self, element_ty: Type, address_space: int, const: bool = False):
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        space = "" if address_space == 1 else f", {address_space}"
        self.ir = f"ptr<{'const ' if const else ''}{element_ty.ir}{space}>"
        self.name = f"{'const_' if const else ''}pointer<{element_ty.name}>"
        self.primitive_bitwidth = 64

    def is_ptr(self) -> bool:
        return True

    def is_block_ptr(self) -> bool:
        return isinstance(self.element_ty, TileType)

    @property
    def itemsize(self) -> int:
        return 8

    def kind(self) -> Kind:
        return Kind.INT

    def is_const(self) -> bool:
        return self.const

    def with_element_ty(self, element_ty: Type) -> Type:
        return element_ty


class TileType(Type):
    """``tile<d0 x d1 x ... x T>``: Triton's ``block_type``."""

    def __init__(self, element_ty: Type, shape: tuple[int, ...]):
        self.element_ty = element_ty
        self.shape = shape
        dims = "x".join(str(d) for d in shape)
        self.ir = f"tile<{dims}x{element_ty.ir}>"
        self.name = f"<{list(shape)}, {element_ty.name}>"
        numel = 1
        for d in shape:
            numel *= d
        self.numel = numel

    def is_block(self) -> bool:
        return True

    @property
    def scalar(self) -> Type:
        return self.element_ty

    @property
    def nbytes(self) -> int:
        return self.numel * self.element_ty.itemsize

    def get_block_shapes(self) -> tuple[int, ...]:
        return self.shape

    def with_element_ty(self, element_ty: Type) -> TileType:
        return tile(element_ty, self.shape)

    def is_ptr(self) -> bool:  # Triton: block types are never pointers themselves
        return False


class TensorDescType(Type):
    """``desc<d0 x d1 x T>``: a tensor descriptor (``tl.make_tensor_descriptor``)."""

    def __init__(self, block_type: TileType):
        self.block_type = block_type
        dims = "x".join(str(d) for d in block_type.shape)
        self.ir = f"desc<{dims}x{block_type.element_ty.ir}>"
        self.name = f"tensor_descriptor<{block_type.name}>"

    def is_tensor_descriptor(self) -> bool:
        return True


class VoidType(Type):
    def __init__(self):
        self.ir = "void"
        self.name = "void"

    def is_void(self) -> bool:
        return True


# ---------------------------------------------------------------------------------------------
# The scalar types (one object each)
# ---------------------------------------------------------------------------------------------

_SCALARS: list[ScalarType] = [
    ScalarType("i1", "int1", Kind.BOOL, 1, np.bool_),
    ScalarType("i8", "int8", Kind.INT, 8, np.int8),
    ScalarType("i16", "int16", Kind.INT, 16, np.int16),
    ScalarType("i32", "int32", Kind.INT, 32, np.int32),
    ScalarType("i64", "int64", Kind.INT, 64, np.int64),
    ScalarType("u8", "uint8", Kind.UINT, 8, np.uint8),
    ScalarType("u16", "uint16", Kind.UINT, 16, np.uint16),
    ScalarType("u32", "uint32", Kind.UINT, 32, np.uint32),
    ScalarType("u64", "uint64", Kind.UINT, 64, np.uint64),
    ScalarType("f8e4m3", "fp8e4nv", Kind.FLOAT, 8, None, mantissa=3, exponent_bias=7),
    ScalarType("f8e5m2", "fp8e5", Kind.FLOAT, 8, None, mantissa=2, exponent_bias=15),
    ScalarType("f8e4b15", "fp8e4b15", Kind.FLOAT, 8, np.uint8, mantissa=3, exponent_bias=15),  # BITS_ONLY
    ScalarType("f8e4b8", "fp8e4b8", Kind.FLOAT, 8, None, mantissa=3, exponent_bias=8),
    ScalarType("f8e5b16", "fp8e5b16", Kind.FLOAT, 8, None, mantissa=2, exponent_bias=16),
    ScalarType("f16", "fp16", Kind.FLOAT, 16, np.float16, mantissa=10, exponent_bias=15),
    ScalarType("bf16", "bf16", Kind.FLOAT, 16, None, mantissa=7, exponent_bias=127),
    ScalarType("f32", "fp32", Kind.FLOAT, 32, np.float32, mantissa=23, exponent_bias=127),
    ScalarType("f64", "fp64", Kind.FLOAT, 64, np.float64, mantissa=52, exponent_bias=1023),
]
_BY_IR = {t.ir: t for t in _SCALARS}
_BY_NAME = {t.name: t for t in _SCALARS}
for _t in _SCALARS:
    Type._interned[("scalar", _t.ir)] = _t

i1, i8, i16, i32, i64 = (_BY_IR[n] for n in ("i1", "i8", "i16", "i32", "i64"))
u8, u16, u32, u64 = (_BY_IR[n] for n in ("u8", "u16", "u32", "u64"))
f8e4m3, f8e5m2 = _BY_IR["f8e4m3"], _BY_IR["f8e5m2"]
f8e4b15, f8e4b8, f8e5b16 = _BY_IR["f8e4b15"], _BY_IR["f8e4b8"], _BY_IR["f8e5b16"]
f16, bf16, f32, f64 = (_BY_IR[n] for n in ("f16", "bf16", "f32", "f64"))
void = Type._intern(("void",), VoidType)

SCALAR_TYPES: tuple[ScalarType, ...] = tuple(_SCALARS)

# The language's attribute for each scalar type (``tl.float32``), what repr shows.
_LANGUAGE_NAMES = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
                   "u16": "uint16", "u32": "uint32", "u64": "uint64", "f8e4m3": "float8e4nv", "f8e5m2": "float8e5",
                   "f8e4b15": "float8e4b15", "f8e4b8": "float8e4b8", "f8e5b16": "float8e5b16", "f16": "float16",
                   "bf16": "bfloat16", "f32": "float32", "f64": "float64"}

# Triton's signature spellings (``*fp16``, ``i32``, ``u1``, ``fp32``...) -> scalar type.
_SIGNATURE_ALIASES = {
    "i1": i1, "u1": i1, "B": i1, "int1": i1, "bool": i1,
    "i8": i8, "i16": i16, "i32": i32, "i64": i64,
    "u8": u8, "u16": u16, "u32": u32, "u64": u64,
    "fp8e4nv": f8e4m3, "fp8e5": f8e5m2, "fp8e4b15": f8e4b15, "fp8e4b8": f8e4b8, "fp8e5b16": f8e5b16,
    "fp16": f16, "bf16": bf16, "fp32": f32, "fp64": f64,
    "f16": f16, "f32": f32, "f64": f64,
}


def _canonical_spellings() -> dict[str, str]:
    """Triton's ``type_canonicalisation_dict``: a dtype's name as Triton, torch or C spell it
    (``float32``, ``float8_e4m3fn``, ``half``, ``bool``) -> its signature spelling (``fp32``,
    ``fp8e4nv``, ``fp16``, ``u1``: every boolean is ``u1``); each spelling maps to itself."""
    table = {"void": "void", "bool": "u1", "int1": "u1", "uint1": "u1", "i1": "u1",
             "half": "fp16", "float": "fp32", "double": "fp64", "int": "i32"}
    for ty in _SCALARS:
        if ty is i1:
            continue
        spelling = to_signature(ty)
        table[_LANGUAGE_NAMES[ty.ir]] = spelling
        if _ML_DTYPES.get(ty.ir):
            table[_ML_DTYPES[ty.ir]] = spelling
    table.update({spelling: spelling for spelling in list(table.values())})
    return table


def by_ir(ir: str) -> ScalarType:
    """The scalar type printed as ``ir`` (``f32``)."""
    try:
        return _BY_IR[ir]
    except KeyError:
        raise ValueError(f"unknown scalar type {ir!r}; known: {', '.join(_BY_IR)}") from None


def by_name(name: str) -> ScalarType:
    """The scalar type Triton calls ``name`` (``fp32``, ``int32``, ``bf16``)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; known: {', '.join(_BY_NAME)}") from None


def from_signature(text: str) -> Type:
    """A type from Triton's signature spelling: ``*fp16`` -> ``ptr<f16>``, ``i32`` -> ``i32``."""
    text = text.strip()
    if text.startswith("*k"):  # Triton's spelling of a pointer to constant data
        return pointer(from_signature(text[2:]), const=True)
    if text.startswith("*"):
        return pointer(from_signature(text[1:]))
    try:
        return _SIGNATURE_ALIASES[text]
    except KeyError:
        known = ", ".join(sorted(_SIGNATURE_ALIASES))
        raise ValueError(f"unknown signature type {text!r}; use '*T' for pointers, T one of {known}") from None


def to_signature(ty: Type) -> str:
    """Triton's signature spelling of ``ty`` (inverse of :func:`from_signature`)."""
    if isinstance(ty, PointerType):
        return ("*k" if ty.const else "*") + to_signature(ty.element_ty)
    if ty is i1:
        return "i1"
    if isinstance(ty, ScalarType):
        return ty.name if ty.is_floating() else ty.ir
    raise ValueError(f"{ty} has no signature spelling")


CANONICAL_SPELLINGS: dict[str, str] = _canonical_spellings()


def from_numpy(dtype) -> ScalarType:
    """The scalar type of a numpy dtype (bool -> i1)."""
    dtype = np.dtype(dtype)
    for t in sorted(_SCALARS, key=lambda t: t.ir in _ML_DTYPES):  # numpy's own first: no ml_dtypes import
        if t.ir not in BITS_ONLY and t.np_dtype is not None and t.np_dtype == dtype:
            return t
    raise TypeError(f"numpy dtype {dtype} has no kernellab type")


def numpy_dtype(ty: Type) -> np.dtype:
    """The numpy dtype holding values of ``ty`` (pointers: int64 byte addresses)."""
    element = ty.element_ty if isinstance(ty, TileType) else ty
    if isinstance(element, PointerType):
        return np.dtype(object) if element.is_block_ptr() else np.dtype(np.int64)
    if isinstance(element, ScalarType):
        if element.np_dtype is None:
            raise TypeError(f"{element.name} values have no numpy form here (ml_dtypes is missing)")
        return element.np_dtype
    if isinstance(element, TensorDescType):
        return np.dtype(object)
    raise TypeError(f"type {ty.ir} has no numpy dtype")


def pointer(element_ty: Type, address_space: int = 1, const: bool = False) -> PointerType:
    """``ptr<element_ty>`` (``ptr<const element_ty>`` with ``const``)."""
    if not isinstance(element_ty, Type) or element_ty.is_void():
        raise TypeError(f"pointer element must be a type, got {element_ty!r}")
    const = bool(const)
    return Type._intern(("ptr", element_ty, address_space, const),
                        lambda: PointerType(element_ty, address_space, const))


def tile(element_ty: Type, shape) -> TileType:
    """``tile<shape x element_ty>``; shape dims are positive ints."""
    shape = tuple(int(d) for d in shape)
    if not shape:
        raise ValueError("a tile needs at least one dimension; use the element type for scalars")
    if any(d <= 0 for d in shape):
        raise ValueError(f"tile dimensions must be positive, got {list(shape)}")
    if isinstance(element_ty, TileType):
        raise TypeError("tile elements must be scalars or pointers")
    return Type._intern(("tile", element_ty, shape), lambda: TileType(element_ty, shape))


def desc(block_type: TileType) -> TensorDescType:
    """``desc<block shape x element>``."""
    return Type._intern(("desc", block_type), lambda: TensorDescType(block_type))


def element_of(ty: Type) -> Type:
    """The element type of a tile, or the type itself."""
    return ty.element_ty if isinstance(ty, TileType) else ty


def shape_of(ty: Type) -> tuple[int, ...]:
    """The shape of a tile; ``()`` for scalars and pointers."""
    return ty.shape if isinstance(ty, TileType) else ()


def with_shape(element_ty: Type, shape: tuple[int, ...]) -> Type:
    """A tile of ``shape`` or, for ``()``, the element type itself."""
    return tile(element_ty, shape) if shape else element_ty


def parse_type(text: str) -> Type:
    """Parse the printed form of a type (see the module docstring)."""
    parser = _TypeParser(text)
    ty = parser.parse()
    parser.expect_end()
    return ty


class _TypeParser:
    def __init__(self, text: str, pos: int = 0):
        self.text = text
        self.pos = pos

    def error(self, what: str) -> ValueError:
        return ValueError(f"bad type {self.text!r} at column {self.pos}: {what}")

    def skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def take(self, literal: str) -> bool:
        self.skip_spaces()
        if self.text.startswith(literal, self.pos):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str) -> None:
        if not self.take(literal):
            raise self.error(f"expected {literal!r}")

    def expect_end(self) -> None:
        self.skip_spaces()
        if self.pos != len(self.text):
            raise self.error("unexpected text after the type")

    def word(self) -> str:
        self.skip_spaces()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] == "_"):
            self.pos += 1
        return self.text[start:self.pos]

    def parse(self) -> Type:
        if self.take("ptr<"):
            const = self.take("const ")
            element = self.parse()
            space = 1
            if self.take(","):
                space = int(self.word())
            self.expect(">")
            return pointer(element, space, const)
        if self.take("tile<") or self.take("desc<"):
            is_desc = self.text[self.pos - 5:self.pos] == "desc<"
            dims = []
            while True:
                self.skip_spaces()
                start = self.pos
                while self.pos < len(self.text) and self.text[self.pos].isdigit():
                    self.pos += 1
                if start == self.pos:
                    break
                dims.append(int(self.text[start:self.pos]))
                self.expect("x")
            element = self.parse()
            self.expect(">")
            if not dims:
                raise self.error("a tile needs dimensions")
            return desc(tile(element, dims)) if is_desc else tile(element, dims)
        word = self.word()
        if word == "void":
            return void
        if word in _BY_IR:
            return _BY_IR[word]
        raise self.error(f"unknown type {word!r}")
