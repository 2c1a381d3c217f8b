"""A ``%%tile_kernel`` cell's code: run in the user's namespace under a stable file name, and
the small languages of the magic's options.

The cell's text is registered in ``linecache`` as ``<tile_kernel-HASH>`` (HASH from the text)
with the magic's line as line 1, so the kernels it defines have retrievable source, and every
location the compiler records (errors, the line maps of every stage) is a line number of the
cell as the notebook shows it.
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..ir import types as T


class OptionError(ValueError):
    """An option of the magic cannot be understood (the magic reports it as a usage error)."""


@dataclass(frozen=True)
class Cell:
    """A cell's body and the file name its code runs under."""

    body: str
    filename: str

    FIRST_LINE = 2  # line 1 is the %%tile_kernel line

    @classmethod
    def of(cls, body: str) -> Cell:
        digest = hashlib.sha256(body.encode()).hexdigest()[:12]
        return cls(body, f"<tile_kernel-{digest}>")

    @property
    def text(self) -> str:
        """The cell as the notebook shows it (the magic's line, then the body)."""
        return "%%tile_kernel\n" + self.body

    @property
    def last_line(self) -> int:
        return self.FIRST_LINE + max(len(self.body.splitlines()), 1) - 1

    def register(self) -> None:
        """Put the cell's text in ``linecache`` (so ``inspect.getsource`` finds the kernels)."""
        text = self.text if self.text.endswith("\n") else self.text + "\n"
        linecache.cache[self.filename] = (len(text), None, text.splitlines(keepends=True), self.filename)

    def run(self, namespace: dict[str, Any], transform: Callable[[str], str] | None = None) -> None:
        """Register the cell and execute its body in ``namespace``; ``transform`` turns IPython
        syntax (``%magic`` lines) into Python, line for line, as IPython does for any cell."""
        self.register()
        source = transform(self.body) if transform is not None else self.body
        code = compile("\n" + source, self.filename, "exec")
        exec(code, namespace)


# ---------------------------------------------------------------------------------------------
# The kernels a cell defines
# ---------------------------------------------------------------------------------------------

def _jit_of(value: Any) -> Any | None:
    """The JITFunction in ``value`` (itself, or under autotune/heuristics), else None."""
    seen = 0
    while value is not None and seen < 16:
        if getattr(value, "__kernellab_jit__", False) is True:
            return value
        value = getattr(value, "fn", None)
        seen += 1
    return None


def kernels_in(cell: Cell, namespace: dict[str, Any]) -> dict[str, Any]:
    """Name -> object (a jit kernel or its autotune/heuristics wrapper) of every kernel the cell
    defined, in the order of their lines."""
    found = []
    for name, value in list(namespace.items()):
        jit = _jit_of(value) if not isinstance(value, type) else None
        if jit is not None and jit.fn.__code__.co_filename == cell.filename:
            found.append((jit.fn.__code__.co_firstlineno, name, value))
    return {name: value for _, name, value in sorted(found, key=lambda item: item[0])}


def triton_kernels_in(cell: Cell, namespace: dict[str, Any]) -> list[str]:
    """Names of the kernels the cell decorated with the real Triton's ``@triton.jit`` (Triton
    installed and imported without kernellab's alias), which kernellab does not compile."""
    found = []
    for name, value in list(namespace.items()):
        if isinstance(value, type) or not type(value).__module__.startswith("triton."):
            continue
        fn = getattr(value, "fn", None)
        while fn is not None and not hasattr(fn, "__code__"):
            fn = getattr(fn, "fn", None)
        if fn is not None and fn.__code__.co_filename == cell.filename:
            found.append(name)
    return found


def choose_kernel(kernels: dict[str, Any], requested: str | None, foreign: Sequence[str] = ()) -> tuple[str, Any]:
    """``--kernel NAME``, or the last kernel the cell defines (earlier ones are taken to be
    jit functions it calls); ``foreign``: the cell's kernels of the real Triton (an error that
    says how to have kernellab compile them)."""
    if not kernels and foreign:
        raise OptionError(f"{', '.join(foreign)}: decorated by the real Triton's @triton.jit (Triton is imported in "
                          "this notebook's Python process), which %%tile_kernel does not compile; have "
                          "`import triton` give kernellab with %as_triton, run before anything imports triton "
                          "(restart the kernel first), or write `import kernellab as triton`")
    if not kernels:
        raise OptionError("this cell defines no @jit kernel (decorate a function with @kl.jit or @triton.jit)")
    if requested is None:
        name = list(kernels)[-1]
        return name, kernels[name]
    if requested not in kernels:
        raise OptionError(f"--kernel {requested}: the cell defines {', '.join(kernels)}")
    return requested, kernels[requested]


# ---------------------------------------------------------------------------------------------
# Option values
# ---------------------------------------------------------------------------------------------

def strip_quotes(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def joined(tokens: str | list[str] | None, separator: str) -> str | None:
    """An option's words as one text: ``--constexprs BLOCK=1024 num_warps=4`` (words joined by
    ``", "``) means what ``--constexprs "BLOCK=1024, num_warps=4"`` means; a quoted value is one word."""
    if tokens is None or isinstance(tokens, str):
        return tokens
    if separator.strip() == ",":
        return separator.join(stripped for token in tokens if (stripped := strip_quotes(token).strip(", ")))
    return separator.join(strip_quotes(token) for token in tokens)


_NAMED = re.compile(r"^([A-Za-z_]\w*)=(?!=)(.*)$", re.S)
_ARRAY = re.compile(r"^(\*?)([A-Za-z]\w*)\[(.*)\]$", re.S)


def parse_args(tokens: str | list[str], namespace: dict[str, Any]) -> Any:
    """``--args``: a Python expression (a tuple in parameter order, or a dict by name), or
    ``name=value`` words where a value is a Python expression or ``dtype[shape]``, a new array
    (``x_ptr=f32[n] n=4096``: shapes may use the other, non-array values)."""
    words = [strip_quotes(word) for word in ([tokens] if isinstance(tokens, str) else tokens)]
    if not words or not _NAMED.match(words[0]):
        return evaluate(" ".join(words), namespace, "--args")
    items = []
    for word in words:
        found = _NAMED.match(word)
        if found is None:
            raise OptionError(f"--args: {word!r} is not name=value; write e.g. --args x_ptr=f32[n] y_ptr=f32[n] "
                              "n=4096 (or one Python expression: --args \"(x, y, out, n)\")")
        items.append(found.groups())
    arrays = {name: found for name, value in items
              if (found := _ARRAY.match(value)) is not None and _is_type_name(found.group(2))}
    named = {name: evaluate(value, namespace, f"--args {name}") for name, value in items if name not in arrays}
    for seed, (name, array) in enumerate(arrays.items()):
        shape = evaluate(f"({array.group(3)},)", namespace, f"--args {name}", named)
        named[name] = example_array(array.group(2), shape, seed)
    return {name: named[name] for name, _ in items}


def _is_type_name(text: str) -> bool:
    try:
        T.from_signature(text)
    except ValueError:
        return False
    return True


def example_array(type_name: str, shape: tuple, seed: int) -> Any:
    """A host array of ``shape`` for ``--args x=f32[...]``: normal values for floats, small
    integers for integers, the same for the same seed (so checks are reproducible)."""
    import numpy as np

    ty = T.from_signature(type_name)
    if not all(isinstance(n, int) and n >= 0 for n in shape):
        raise OptionError(f"--args {type_name}{list(shape)}: the shape must be non-negative integers")
    rng = np.random.default_rng(seed)
    if ty.is_floating():
        return rng.standard_normal(shape, dtype=np.float32).astype(T.numpy_dtype(ty))
    if ty is T.i1:
        return rng.integers(0, 2, shape).astype(bool)
    low = 0 if T.numpy_dtype(ty).kind == "u" else -64
    return rng.integers(low, 64, shape).astype(T.numpy_dtype(ty))


def parse_signature(text: str) -> dict[str, str]:
    """``"x_ptr=*fp32, n=i32"`` (or ``x_ptr: *fp32``) -> ``{"x_ptr": "*fp32", "n": "i32"}``."""
    found = {}
    for part in strip_quotes(text).split(","):
        if not part.strip():
            continue
        name, sep, kind = part.partition("=") if "=" in part else part.partition(":")
        name, kind = name.strip(), kind.strip()
        if not sep or not name.isidentifier() or not kind:
            raise OptionError(f"--signature: {part.strip()!r} is not name=type; write e.g. "
                              "--signature \"x_ptr=*fp32, y_ptr=*fp16, n=i32\"")
        try:
            T.from_signature(kind)
        except (ValueError, KeyError, TypeError) as error:
            raise OptionError(f"--signature: {kind!r} (for {name}) is not a type: {error}. Types are Triton's "
                              "spellings: *fp32, *fp16, *bf16, *i32, i32, i64, fp32, u1...") from None
        found[name] = kind
    return found


def parse_assignments(text: str, namespace: dict[str, Any], option: str) -> dict[str, Any]:
    """``"BLOCK=1024, num_warps=8"`` -> values, each evaluated as Python in ``namespace``."""
    source = strip_quotes(text)
    if not source.strip():
        return {}
    try:
        call = ast.parse(f"_({source})", mode="eval").body
    except SyntaxError:
        raise OptionError(f"{option}: {source!r} is not a list of name=value (e.g. {option} \"BLOCK=1024, "
                          "num_warps=4\")") from None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise OptionError(f"{option}: {source!r} is not a list of name=value (e.g. {option} \"BLOCK=1024\")")
    return {keyword.arg: evaluate_node(keyword.value, namespace, f"{option} {keyword.arg}")
            for keyword in call.keywords}


def evaluate_node(node: ast.expr, namespace: dict[str, Any], what: str, local: dict[str, Any] | None = None) -> Any:
    expression = ast.Expression(body=node)
    ast.fix_missing_locations(expression)
    try:
        return eval(compile(expression, f"<{what}>", "eval"), namespace, local or {})
    except Exception as error:
        raise OptionError(f"{what}: {ast.unparse(node)!r} failed: {type(error).__name__}: {error}") from None


def evaluate(text: str, namespace: dict[str, Any], what: str, local: dict[str, Any] | None = None) -> Any:
    """A Python expression of an option, evaluated in the user's namespace (and ``local``)."""
    source = strip_quotes(text)
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError as error:
        raise OptionError(f"{what}: {source!r} is not a Python expression ({error.msg})") from None
    return evaluate_node(node, namespace, what, local)


def parse_check(text: str) -> tuple[str | None, str]:
    """``--check "out=x+y"`` -> ("out", "x+y"); ``--check "x+y"`` -> (None, "x+y")."""
    source = strip_quotes(text)
    try:
        module = ast.parse(source)
    except SyntaxError as error:
        raise OptionError(f"--check: {source!r} is neither output=reference nor a reference expression "
                          f"({error.msg})") from None
    statement = module.body[0] if len(module.body) == 1 else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id, ast.unparse(statement.value)
    if isinstance(statement, ast.Expr):
        return None, source
    raise OptionError(f"--check: {source!r} is neither output=reference nor a reference expression")


def parse_stages(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [name.strip() for name in strip_quotes(text).split(",") if name.strip()]
    if not names:
        raise OptionError("--stages: name at least one stage, e.g. --stages tile,llvm,ptx")
    return names


__all__ = ["Cell", "OptionError", "kernels_in", "choose_kernel", "joined", "parse_args",
           "parse_signature", "parse_assignments", "evaluate",
           "parse_check", "parse_stages", "strip_quotes"]
