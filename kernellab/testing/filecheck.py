"""A small FileCheck (after LLVM's tool) for tests that check printed IR (kernellab's own, and
Triton's through the alias: ``triton._filecheck`` is this module, with Triton's helpers
:func:`run_filecheck`, :func:`run_parser`, :func:`run_filecheck_test` and :func:`filecheck_test`).

    filecheck(printed, '''
        CHECK: func @kernel
        CHECK: [[X:%\\w+]] = load
        CHECK-NOT: load
        CHECK: add([[X]], {{%\\w+}})
        CHECK-SAME: : tile<128xf32>
        CHECK-NEXT: store
    ''')

Directives (any text may precede them on a line, e.g. ``# CHECK:``):

* ``CHECK:``       matches at or after the end of the previous match;
* ``CHECK-NEXT:``  matches on the line right after the previous match;
* ``CHECK-SAME:``  matches on the same line as the previous match, after it;
* ``CHECK-EMPTY:`` the line right after the previous match is empty;
* ``CHECK-NOT:``   does not occur between the previous match and the next match (or the end);
* ``CHECK-DAG:``   a run of these matches in any order (without overlapping), after the
  previous match; the next directive continues after the furthest of them;
* ``CHECK-LABEL:`` like ``CHECK:`` (kept for familiarity);
* ``CHECK-COUNT-N:`` ``CHECK:`` N times in a row.

Patterns are literal text, except ``{{regex}}``, ``[[NAME:regex]]`` (match and capture into
NAME) and ``[[NAME]]`` (the text NAME captured last).  A run of spaces matches any run of
spaces or tabs; a pattern never matches across a newline.  A failure raises
:class:`FileCheckError` naming the directive, its line and the input where matching stood.
"""

from __future__ import annotations

import bisect
import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..ir.core import Module

_KINDS = ("NEXT", "NOT", "SAME", "DAG", "LABEL", "EMPTY", r"COUNT-\d+")


class FileCheckError(AssertionError):
    """The input does not match the directives."""


@dataclass(frozen=True)
class Directive:
    kind: str  # CHECK, NEXT, NOT, SAME, DAG, LABEL, EMPTY
    pattern: str
    line: int  # in the check text, 1-based

    def __str__(self) -> str:
        name = "CHECK" if self.kind == "CHECK" else f"CHECK-{self.kind}"
        return f"{name}: {self.pattern} (check line {self.line})"


def parse_directives(checks: str, prefix: str = "CHECK") -> list[Directive]:
    """The directives in ``checks`` (lines without ``PREFIX...:`` are ignored)."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(prefix)}(?:-({'|'.join(_KINDS)}))?:(.*)$")
    directives = []
    for number, line in enumerate(checks.splitlines(), 1):
        match = pattern.search(line)
        if not match:
            continue
        kind, text = match.group(1) or "CHECK", match.group(2).strip()
        if kind.startswith("COUNT-"):
            count = int(kind[len("COUNT-"):])
            if count < 1:
                raise ValueError(f"CHECK-COUNT-{count} (check line {number}): the count must be at least 1")
            directives.extend(Directive("CHECK", text, number) for _ in range(count))
        else:
            directives.append(Directive(kind, text, number))
    if not directives:
        raise ValueError(f"no {prefix}: directives in the check text")
    return directives


def compile_pattern(pattern: str, variables: dict[str, str]) -> tuple[re.Pattern, list[str]]:
    """The regex for ``pattern`` given the captured ``variables``; also the names it defines."""
    parts: list[str] = []
    defined: list[str] = []
    pos = 0
    while pos < len(pattern):
        regex_at, var_at = pattern.find("{{", pos), pattern.find("[[", pos)
        starts = [i for i in (regex_at, var_at) if i >= 0]
        stop = min(starts) if starts else len(pattern)
        parts.append(_literal(pattern[pos:stop]))
        if stop == len(pattern):
            break
        if stop == regex_at:
            end = _closing(pattern, "}}", stop)
            parts.append(f"(?:{pattern[stop + 2:end]})")
        else:
            end = _closing(pattern, "]]", stop)
            parts.append(_variable(pattern[stop + 2:end], variables, defined))
        pos = end + 2
    try:
        return re.compile("".join(parts)), defined
    except re.error as error:
        raise ValueError(f"bad regex in pattern {pattern!r}: {error}") from None


def _literal(text: str) -> str:
    return "[ \t]+".join(re.escape(piece) for piece in re.split(r"[ \t]+", text))


def _closing(pattern: str, closer: str, start: int) -> int:
    end = pattern.find(closer, start + 2)
    if end < 0:
        raise ValueError(f"unclosed {pattern[start:start + 2]!r} in pattern {pattern!r}")
    return end


def _variable(body: str, variables: dict[str, str], defined: list[str]) -> str:
    name, colon, regex = body.partition(":")
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise ValueError(f"bad variable name {name!r} (use letters, digits and _)")
    if colon:
        if name in defined:
            raise ValueError(f"variable {name} is defined twice in one pattern")
        defined.append(name)
        return f"(?P<{name}>{regex})"
    if name in defined:
        return f"(?P={name})"
    if name not in variables:
        raise FileCheckError(f"variable [[{name}]] is used before it is captured")
    return re.escape(variables[name])


class _Matcher:
    def __init__(self, text: str):
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.pos = 0
        self.variables: dict[str, str] = {}
        self.pending_not: list[Directive] = []

    # ---- positions ----
    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def line_end(self, offset: int) -> int:
        end = self.text.find("\n", offset)
        return len(self.text) if end < 0 else end

    def fail(self, directive: Directive, problem: str, at: int | None = None) -> FileCheckError:
        at = self.pos if at is None else at
        first = self.line_of(at)
        shown = self.text.splitlines()[first - 1:first + 4]
        excerpt = "\n".join(f"  {first + i:4d} | {line}" for i, line in enumerate(shown))
        variables = f"\nvariables: {self.variables}" if self.variables else ""
        return FileCheckError(f"{directive}: {problem}\ninput from line {first}:\n{excerpt}{variables}")

    # ---- matching ----
    def search(self, directive: Directive, start: int, end: int | None = None) -> re.Match | None:
        regex, _ = compile_pattern(directive.pattern, self.variables)
        return regex.search(self.text, start, len(self.text) if end is None else end)

    def accept(self, match: re.Match) -> None:
        self.variables.update({k: v for k, v in match.groupdict().items() if v is not None})

    def check_nots(self, start: int, end: int) -> None:
        for directive in self.pending_not:
            regex, defined = compile_pattern(directive.pattern, self.variables)
            if defined:
                raise ValueError(f"{directive}: CHECK-NOT cannot capture variables")
            found = regex.search(self.text, start, end)
            if found:
                raise self.fail(directive, f"found {found.group(0)!r}, which must not occur here", found.start())
        self.pending_not = []

    def positive(self, directive: Directive) -> None:
        if directive.kind == "EMPTY":
            self.empty(directive)
            return
        start, end = self.pos, None
        if directive.kind == "SAME":
            end = self.line_end(self.pos)
        elif directive.kind == "NEXT":
            start = min(self.line_end(self.pos) + 1, len(self.text))
            end = self.line_end(start)
        match = self.search(directive, start, end)
        if match is None:
            raise self.fail(directive, self.miss_reason(directive))
        self.check_nots(self.pos, match.start())
        self.accept(match)
        self.pos = match.end()

    def miss_reason(self, directive: Directive) -> str:
        if directive.kind in ("SAME", "NEXT"):
            later = self.search(directive, self.pos)
            where = "the same line" if directive.kind == "SAME" else "the next line"
            if later is not None:
                return f"not on {where}; the first match is on line {self.line_of(later.start())}"
            return f"not on {where}, nor anywhere after it"
        return "no match"

    def empty(self, directive: Directive) -> None:
        next_line = self.line_end(self.pos) + 1
        if next_line > len(self.text) or self.line_end(next_line) != next_line:
            raise self.fail(directive, "the next line is not empty", min(next_line, len(self.text)))
        self.check_nots(self.pos, next_line)
        self.pos = next_line

    def dag_group(self, group: list[Directive]) -> None:
        taken: list[tuple[int, int]] = []
        for directive in group:
            start = self.pos
            while True:
                match = self.search(directive, start)
                if match is None:
                    raise self.fail(directive, "no match that does not overlap the other CHECK-DAG matches")
                if not any(match.start() < e and s < match.end() for s, e in taken):
                    break
                start = match.start() + 1
            self.accept(match)
            taken.append(match.span())
        self.check_nots(self.pos, min(s for s, _ in taken))
        self.pos = max(e for _, e in taken)

    def run(self, directives: list[Directive]) -> None:
        if directives[0].kind in ("NEXT", "SAME", "EMPTY"):
            raise ValueError(f"{directives[0]}: needs a previous CHECK to be relative to")
        index = 0
        while index < len(directives):
            directive = directives[index]
            if directive.kind == "NOT":
                self.pending_not.append(directive)
                index += 1
            elif directive.kind == "DAG":
                end = index
                while end < len(directives) and directives[end].kind == "DAG":
                    end += 1
                self.dag_group(directives[index:end])
                index = end
            else:
                self.positive(directive)
                index += 1
        self.check_nots(self.pos, len(self.text))


def filecheck(text: str, checks: str, prefix: str = "CHECK") -> None:
    """Raise :class:`FileCheckError` unless ``text`` matches the directives in ``checks``."""
    _Matcher(text).run(parse_directives(checks, prefix))


def run_filecheck(name: str, module_str: str, check_template: str) -> None:
    """Triton's ``triton._filecheck.run_filecheck``: ``check_template``'s ``CHECK`` directives
    against ``module_str``; a ``ValueError`` (as from Triton's, which runs LLVM's FileCheck)
    when they do not match."""
    try:
        filecheck(module_str, check_template)
    except FileCheckError as error:
        raise ValueError(f"{name}: {error}") from None


# ---- Triton's frontend-test helpers (``triton._filecheck``) ----

def run_parser(kernel_fn: Any, args: tuple = (), kwargs: dict | None = None, target: Any = None) -> Module:
    """The Tile IR module the frontend builds for ``kernel_fn`` (a ``@jit`` function) called with
    ``args`` and ``kwargs`` (specialized as a launch would: constexprs, ints equal to 1...;
    keywords that are not parameters are compile options, ``sanitize_overflow`` off unless given),
    before any pass runs; ``target`` is kernellab's target name or Triton's ``GPUTarget``
    (default: the target a launch picks here).  An invalid kernel raises ``CompilationError``.
    Triton's function returns its MLIR module; this is kernellab's IR, printed by
    ``print_module`` (``locations=False`` is Triton's ``str_nodebug``)."""
    from .. import backends
    from ..frontend import lower
    from ..runtime import specialize
    from ..runtime.ast_source import target_name
    from ..runtime.compiler import default_target, resolve_options, semantic_options

    named, options = _bind_arguments(kernel_fn, args, dict(kwargs or {}))
    target = target_name(target) or default_target()
    sanitize = options.pop("sanitize_overflow", False)
    resolved = {**resolve_options(target, backends.get(target), options), "sanitize_overflow": sanitize}
    spec = specialize.from_arguments(kernel_fn, named)
    return lower(kernel_fn, spec.signature, spec.constexprs, spec.arg_attrs, semantic_options(target, resolved))


def _bind_arguments(kernel_fn: Any, args: tuple, kwargs: dict) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(arguments by parameter name, compile options)`` of a call of ``kernel_fn``."""
    names = list(kernel_fn.arg_names)
    if len(args) > len(names):
        raise TypeError(f"`{kernel_fn.__name__}` takes {len(names)} arguments ({', '.join(names)}), "
                        f"{len(args)} were given")
    named = dict(zip(names, args))
    twice = sorted(set(named) & set(kwargs))
    if twice:
        raise TypeError(f"`{kernel_fn.__name__}` got {', '.join(twice)} both by position and by name")
    named.update({k: v for k, v in kwargs.items() if k in names})
    return named, {k: v for k, v in kwargs.items() if k not in names}


def run_filecheck_test(kernel_fn: Any) -> None:
    """FileCheck the IR :func:`run_parser` builds for ``kernel_fn`` (called without arguments)
    against the ``CHECK`` directives in its source (Triton's helper of that name)."""
    from ..ir.printer import print_module
    from ..runtime.jit import JITFunction

    if not isinstance(kernel_fn, JITFunction):
        raise TypeError(f"run_filecheck_test takes a @jit function, not {kernel_fn!r}")
    check_template = inspect.getsource(kernel_fn.fn)
    module = run_parser(kernel_fn)
    run_filecheck("placeholder", print_module(module, locations=False), check_template)


def filecheck_test(kernel_fn: Any) -> Callable[[], None]:
    """Decorate a ``@jit`` function whose source holds ``CHECK`` directives: the result is a test
    (no arguments) that runs :func:`run_filecheck_test` on it."""

    @functools.wraps(kernel_fn)
    def test_fn() -> None:
        run_filecheck_test(kernel_fn)

    return test_fn


__all__ = ["filecheck", "run_filecheck", "FileCheckError", "parse_directives", "compile_pattern", "Directive",
           "run_parser", "run_filecheck_test", "filecheck_test"]
