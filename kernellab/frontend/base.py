"""The visitor's core: dispatch with source locations, error conversion, the names in scope
and statement lists (with the names each statement leaves live)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ..errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct
from ..language.core import StaticAssertionError, UnsupportedConstruct, tensor
from ..language.semantics import SemanticError
from .analysis import names_loaded
from .names import MISSING, OuterNames, check_readable, undefined_name_message
from .python_builtins import HANDLERS
from .source import jit_name, load_source, python_function
from .values import wrap

if TYPE_CHECKING:  # pragma: no cover
    from ..ir.core import Location
    from .module import ModuleContext


HANDLERS_NAMES = [fn.__name__ for fn in HANDLERS]


class _NotReturned:
    def __repr__(self) -> str:
        return "NOT_RETURNED"


NOT_RETURNED = _NotReturned()

# Exceptions whose message says everything; others are shown with their type name.
_PLAIN_ERRORS = (SemanticError, TypeError, ValueError, AssertionError, NameError, AttributeError, IndexError,
                 KeyError)

# Language errors reported as a CompilationError subclass Triton users catch.
_ERROR_CLASSES: dict[type, type[CompilationError]] = {StaticAssertionError: CompileTimeAssertionFailure,
                                                      UnsupportedConstruct: UnsupportedLanguageConstruct}

# Constructs kernels cannot use: node type -> (what it is, what to do instead).
UNSUPPORTED: dict[type, tuple[str, str]] = {
    ast.Break: ("`break`", "make the loop bound or a `while` condition express when to stop"),
    ast.Continue: ("`continue`", "guard the rest of the loop body with an `if`"),
    ast.With: ("`with`", "kernels have no context managers"),
    ast.AsyncWith: ("`async with`", "kernels have no context managers"),
    ast.Try: ("`try`", "kernels cannot catch exceptions"),
    ast.Raise: ("`raise`", "use tl.static_assert for compile-time checks or tl.device_assert at run time"),
    ast.Lambda: ("`lambda`", "define a @kernellab.jit function instead"),
    ast.FunctionDef: ("a nested `def`", "define a @kernellab.jit function at module level instead"),
    ast.AsyncFunctionDef: ("a nested `async def`", "define a @kernellab.jit function at module level instead"),
    ast.ClassDef: ("a class definition", "define classes outside the kernel"),
    ast.Global: ("`global`", "kernels cannot assign globals; pass values as arguments"),
    ast.Nonlocal: ("`nonlocal`", "kernels cannot assign outer variables"),
    ast.Delete: ("`del`", "reassign the variable instead"),
    ast.Yield: ("`yield`", "kernels are not generators"),
    ast.YieldFrom: ("`yield from`", "kernels are not generators"),
    ast.Await: ("`await`", "kernels are not coroutines"),
    ast.SetComp: ("a set comprehension", "kernels have no sets"),
    ast.DictComp: ("a dict comprehension", "kernels have no dicts"),
    ast.GeneratorExp: ("a generator expression", "use a list comprehension ([f(x) for x in t] is a tuple)"),
    ast.Set: ("a set literal", "kernels have no sets; use a tuple"),
    ast.Dict: ("a dict literal", "kernels have no dicts"),
    ast.Import: ("`import`", "import at module level, outside the kernel"),
    ast.ImportFrom: ("`import`", "import at module level, outside the kernel"),
    ast.NamedExpr: ("the walrus operator `:=`", "assign in a separate statement"),
    ast.Starred: ("`*` unpacking here", "unpacking works only in call arguments"),
    ast.Match: ("`match`", "use if/elif"),
}
if hasattr(ast, "TryStar"):
    UNSUPPORTED[ast.TryStar] = ("`try`", "kernels cannot catch exceptions")


def error_message(error: BaseException) -> str:
    """The user-facing text of an exception raised while lowering a node."""
    text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    hint = getattr(error, "hint", None) if isinstance(error, SemanticError) else None
    if hint:
        text = f"{text}; {hint}"
    if isinstance(error, _PLAIN_ERRORS):
        return text or type(error).__name__
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class LoweringBase:
    """State of one function being lowered: its source, the names in scope, whether it has
    returned, how deep in loops it is."""

    def __init__(self, ctx: ModuleContext, jit: Any, bindings: dict[str, Any], is_kernel: bool = False):
        self.ctx = ctx
        self.builder = ctx.builder
        self.sem = ctx.semantic
        self.jit = jit
        self.name = jit_name(jit)
        self.is_kernel = is_kernel
        self.source = load_source(jit)
        self.outer = OuterNames(python_function(jit))
        self.scope: dict[str, Any] = dict(bindings)
        self.unavailable: dict[str, str] = {}  # names that cannot be read here, and why
        self.assigned_line: dict[str, int] = {}  # the line each name was last assigned at
        self.returned: Any = NOT_RETURNED
        self.loop_depth = 0
        self.live_out: frozenset[str] = frozenset()  # names read after the current statement

    # ---- dispatch ----
    def visit(self, node: ast.AST) -> Any:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, self.unsupported_message(node), UnsupportedLanguageConstruct)
        saved = self.builder.loc
        if hasattr(node, "lineno"):
            self.builder.loc = self.source.location(node)
        try:
            return method(node)
        except CompilationError:
            raise
        except Exception as error:  # noqa: BLE001 - every user error becomes a CompilationError
            raise self.error(node, error_message(error), _ERROR_CLASSES.get(type(error), CompilationError)) from None
        finally:
            self.builder.loc = saved

    def error(self, node: ast.AST, message: str, cls: type[CompilationError] = CompilationError) -> CompilationError:
        return self.error_at(self.source.location(node), message, cls)

    def error_at(self, loc: Location, message: str, cls: type[CompilationError] = CompilationError
                 ) -> CompilationError:
        return cls(message, loc, self.name, position=self.source.position(loc))

    def run_builtin(self, fn: Any, args: list, kwargs: dict) -> Any:
        """Call a language function (a builtin, a tensor method, a constexpr_function...) at the
        current node.  As in Triton, its error becomes a CompilationError at the call whose
        ``__cause__`` is the error the function raised (``tl.static_assert``'s failure and
        unsupported constructs excepted: those stand alone)."""
        try:
            return fn(*args, **kwargs)
        except CompilationError:
            raise
        except Exception as error:  # noqa: BLE001 - every user error becomes a CompilationError
            cls = _ERROR_CLASSES.get(type(error))
            if cls is not None:
                raise self.error_at(self.builder.loc, error_message(error), cls) from None
            raise self.error_at(self.builder.loc, error_message(error)) from error

    @staticmethod
    def unsupported_message(node: ast.AST) -> str:
        what, instead = UNSUPPORTED.get(type(node), (f"`{type(node).__name__}`", "rewrite it with supported syntax"))
        return f"{what} is not supported in kernels; {instead}"

    # ---- statements ----
    def visit_statements(self, body: list[ast.stmt], live_out: frozenset[str]) -> None:
        """Lower ``body``; ``live_out`` holds the names read after it.  Stops after a return."""
        saved = self.live_out
        try:
            for index, stmt in enumerate(body):
                if self.returned is not NOT_RETURNED:
                    return
                self.live_out = live_out | self.loads(body[index + 1:])
                self.visit(stmt)
        finally:
            self.live_out = saved

    def loads(self, nodes: list[ast.AST]) -> frozenset[str]:
        """Names read in ``nodes`` (memoized per node list)."""
        key = ("loads",) + tuple(id(n) for n in nodes)
        found = self.source.cache.get(key)
        if found is None:
            found = self.source.cache[key] = names_loaded(nodes)
        return found

    # ---- names ----
    def lookup(self, name: str) -> Any:
        if name in self.scope:
            return self.scope[name]
        if name in self.unavailable:
            raise SemanticError(self.unavailable[name])
        value = self.outer.lookup(name)
        if value is MISSING:
            raise NameError(undefined_name_message(name, self.scope, self.outer.candidates(), HANDLERS_NAMES))
        check_readable(name, value, self.outer.where(name))
        return wrap(value)

    def assign(self, name: str, value: Any) -> None:
        """Bind ``name``; a tensor without a name hint takes the variable's name."""
        if isinstance(value, tensor) and value.handle.name_hint is None:
            value.handle.name_hint = name
        self.scope[name] = value
        self.unavailable.pop(name, None)
        self.assigned_line[name] = self.builder.loc.line

    def forget(self, name: str, reason: str) -> None:
        """Make ``name`` unreadable from here on, saying why if it is read."""
        self.scope.pop(name, None)
        self.unavailable[name] = reason

    def line_of(self, node: ast.AST) -> int:
        return self.source.location(node).line


__all__ = ["LoweringBase", "NOT_RETURNED", "UNSUPPORTED", "error_message"]
