"""Parsing Tile IR's printed form back into a :class:`~kernellab.ir.core.Module`.

The parser reads exactly the grammar in :mod:`kernellab.ir.printer`'s docstring, so print ->
parse -> print is the identity.  Newlines carry no meaning; ``//`` starts a comment that runs
to the end of the line (handy in hand-edited IR).  Values keep their printed names as
``name_hint`` unless the name is purely numeric.  Names are scoped like the IR: a value is
visible in the block that defines it and in the regions nested in that block.

Attribute literals take their kind from the op's declaration (``AttrSpec``): ``1`` read for a
``float`` attribute is ``1.0``, a list for an ``ints`` attribute is a tuple of ints.  Function,
argument and module attributes are free-form literals.

Any error raises :class:`ParseError` with the line and column and what was expected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .core import UNKNOWN_LOC, Block, Function, Location, Module, Op, Value
from .ops import OPS, Arity, AttrKind, OpDef
from .types import Type, parse_type
from .verifier import attr_fits


class ParseError(ValueError):
    """The text is not valid printed Tile IR.  ``line`` and ``col`` are 1-based."""

    def __init__(self, message: str, line: int, col: int, source_line: str = ""):
        self.message = message
        self.line = line
        self.col = col
        text = f"line {line}, column {col}: {message}"
        if source_line:
            text += f"\n    {source_line}\n    {' ' * (col - 1)}^"
        super().__init__(text)


@dataclass(frozen=True)
class Token:
    kind: str  # value symbol fileref string number type ident punct eof
    text: str
    line: int
    col: int


_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+|//[^\n]*)
  | (?P<value>%[\w.]+)
  | (?P<symbol>@[\w.$]+)
  | (?P<fileref>\#f\d+)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|-inf)
  | (?P<ident>[^\W\d]\w*(?:\.[^\W\d]\w*)*)  # dotted: a backend's own ops (gpu.async_copy)
  | (?P<punct>->|[(){}\[\],:=^])
""", re.VERBOSE)


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; a name directly followed by ``<`` is a type (``tile<4xf32>``)."""
    tokens: list[Token] = []
    pos, line, line_start = 0, 1, 0
    while pos < len(text):
        col = pos - line_start + 1
        match = _TOKEN.match(text, pos)
        if match is None:
            _lex_error(text, pos, line, col)
        kind, end = match.lastgroup, match.end()
        if kind == "ident" and text.startswith("<", end):
            kind, end = "type", _type_end(text, end, line, col)
        if kind != "space":
            tokens.append(Token(kind, text[pos:end], line, col))
        newlines = text.count("\n", pos, end)
        if newlines:
            line += newlines
            line_start = text.rindex("\n", pos, end) + 1
        pos = end
    tokens.append(Token("eof", "", line, pos - line_start + 1))
    return tokens


def _source_line(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _lex_error(text: str, pos: int, line: int, col: int) -> None:
    if text.startswith("%<undefined>", pos):
        message = "use of a value that was never defined (printed as %<undefined>)"
    else:
        message = f"unexpected character {text[pos]!r}"
    raise ParseError(message, line, col, _source_line(text, line))


def _type_end(text: str, pos: int, line: int, col: int) -> int:
    depth = 0
    for end in range(pos, len(text)):
        if text[end] == "<":
            depth += 1
        elif text[end] == ">":
            depth -= 1
            if depth == 0:
                return end + 1
        elif text[end] == "\n":
            break
    raise ParseError("unclosed '<' in a type", line, col, _source_line(text, line))


_KIND_WORDS = {
    AttrKind.INT: "an int", AttrKind.FLOAT: "a float", AttrKind.NUMBER: "a number or true/false",
    AttrKind.BOOL: "true or false", AttrKind.STR: "a string", AttrKind.TYPE: "a type",
    AttrKind.INTS: "a list of ints", AttrKind.STRS: "a list of strings",
}


class Parser:
    """Recursive descent over the token list; one instance parses one text."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.files: dict[int, str] = {}
        self.scopes: list[dict[str, Value]] = []

    # ---- tokens ----
    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def at(self, kind: str, text: str | None = None, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token.kind == kind and (text is None or token.text == text)

    def accept(self, kind: str, text: str | None = None) -> Token | None:
        if not self.at(kind, text):
            return None
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, kind: str, text: str | None = None, what: str | None = None) -> Token:
        token = self.accept(kind, text)
        if token is None:
            wanted = what or (repr(text) if text else kind)
            raise self.error(f"expected {wanted}, got {self.describe(self.peek())}")
        return token

    @staticmethod
    def describe(token: Token) -> str:
        return "the end of the text" if token.kind == "eof" else repr(token.text)

    def error(self, message: str, token: Token | None = None) -> ParseError:
        token = token or self.peek()
        return ParseError(message, token.line, token.col, _source_line(self.text, token.line))

    def items(self, open_: str, close: str, item: Callable[[], Any], what: str | None = None) -> list:
        """``open [item ("," item)*] close``: the items' results."""
        self.expect("punct", open_, what=what)
        results: list = []
        while not self.accept("punct", close):
            if results:
                self.expect("punct", ",", what=f"',' or '{close}'")
            results.append(item())
        return results

    def separated(self, item: Callable[[], Any]) -> list:
        """``item ("," item)*``."""
        results = [item()]
        while self.accept("punct", ","):
            results.append(item())
        return results

    # ---- scopes ----
    def declare(self, token: Token, value: Value) -> None:
        """Bind the printed name to ``value`` (its name hint unless purely numeric)."""
        name = token.text[1:]
        if any(name in scope for scope in self.scopes):
            raise self.error(f"value %{name} is defined twice", token)
        value.name_hint = None if name.isdigit() else name
        self.scopes[-1][name] = value

    def use(self) -> Value:
        token = self.expect("value", what="a value (%name)")
        name = token.text[1:]
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise self.error(f"use of undefined value %{name}", token)

    # ---- module and functions ----
    def module(self) -> Module:
        module = Module()
        while self.at("fileref"):
            self.file_entry()
        if self.accept("ident", "module"):
            self.expect("ident", "attributes")
            module.attrs = self.attr_dict()
        while not self.at("eof"):
            token = self.expect("ident", "func", what="'func' or the end of the text")
            function = self.function()
            if function.name in module.functions:
                raise self.error(f"function @{function.name} is defined twice", token)
            module.add(function)
        return module

    def file_entry(self) -> None:
        token = self.expect("fileref")
        self.expect("punct", "=")
        self.files[int(token.text[2:])] = self.string()

    def function(self) -> Function:
        name = self.expect("symbol", what="a function name (@name)").text[1:]
        self.scopes = [{}]
        args = self.items("(", ")", self.function_arg)
        arg_tokens, arg_types, arg_attrs = (list(column) for column in zip(*args)) if args else ([], [], [])
        result_types = self.type_list_in_parens() if self.accept("punct", "->") else []
        attrs = self.attr_dict() if self.accept("ident", "attributes") else {}
        body = Block(arg_types)
        for token, value in zip(arg_tokens, body.args):
            self.declare(token, value)
        self.expect("punct", "{")
        self.ops_until_close(body)
        loc = self.location()
        self.scopes = []
        return Function(name, arg_types, result_types, body, attrs, arg_attrs, loc)

    def function_arg(self) -> tuple[Token, Type, dict[str, Any]]:
        token, ty = self.typed_name("an argument (%name)")
        return token, ty, self.attr_dict() if self.at("punct", "{") else {}

    def typed_name(self, what: str) -> tuple[Token, Type]:
        token = self.expect("value", what=what)
        self.expect("punct", ":")
        return token, self.type()

    def type_list_in_parens(self) -> list[Type]:
        return self.items("(", ")", self.type)

    def ops_until_close(self, block: Block) -> None:
        while not self.accept("punct", "}"):
            if self.at("eof"):
                raise self.error("expected '}' to close the block, got the end of the text")
            block.append(self.op())

    # ---- ops ----
    def op(self) -> Op:
        result_tokens = self.result_names()
        name_token = self.expect("ident", what="an op name")
        opdef = OPS.get(name_token.text)
        if opdef is None:
            raise self.error(f"unknown op {name_token.text!r}", name_token)
        operands, segments = self.operands(opdef) if self.at("punct", "(") else self.no_operands(opdef)
        attrs = self.attr_dict(opdef) if self.at_attr_dict() else {}
        missing = [a.name for a in opdef.attrs if a.required and a.name not in attrs]
        if missing:
            raise self.error(f"op {opdef.name} needs attribute(s) {', '.join(missing)}", name_token)
        types = self.result_types()
        if len(types) != len(result_tokens):
            raise self.error(f"op {opdef.name} names {len(result_tokens)} result(s) but gives "
                             f"{len(types)} result type(s)", name_token)
        regions = self.regions()
        op = Op(opdef.name, operands, types, opdef.filled_attrs(attrs), regions, self.location(), segments)
        for token, value in zip(result_tokens, op.results):
            self.declare(token, value)
        return op

    def result_names(self) -> list[Token]:
        if not self.at("value"):
            return []
        tokens = self.separated(lambda: self.expect("value", what="a result name (%name)"))
        self.expect("punct", "=", what="'=' after the result names")
        return tokens

    def result_types(self) -> list[Type]:
        if not self.accept("punct", ":"):
            return []
        return self.separated(self.type)

    def no_operands(self, opdef: OpDef) -> tuple[list[Value], tuple[int, ...]]:
        required = [spec.name for spec in opdef.operands if spec.arity is Arity.ONE]
        if required:
            raise self.error(f"op {opdef.name} needs operand(s) {', '.join(required)} in parentheses")
        return [], (0,) * len(opdef.operands)

    def operands(self, opdef: OpDef) -> tuple[list[Value], tuple[int, ...]]:
        """``(%a, %b, name=%v, group=[%c, %d])`` assigned to the op's declared groups."""
        open_token = self.peek()
        positional: list[Value] = []
        named: dict[str, Value | list[Value]] = {}

        def operand() -> None:
            if self.at("ident") and self.at("punct", "=", ahead=1):
                self.named_operand(opdef, named)
            elif named:
                raise self.error("positional operands must come before named ones")
            else:
                positional.append(self.use())

        self.items("(", ")", operand)
        specs = opdef.operands
        if len(specs) == 1 and specs[0].arity is Arity.VARIADIC and not named:
            return positional, (len(positional),)
        return self.assign_groups(opdef, positional, named, open_token)

    def named_operand(self, opdef: OpDef, named: dict) -> None:
        token = self.expect("ident")
        self.expect("punct", "=")
        spec = next((s for s in opdef.operands if s.name == token.text and s.arity is not Arity.ONE), None)
        if spec is None:
            allowed = [s.name for s in opdef.operands if s.arity is not Arity.ONE] or ["none"]
            raise self.error(f"op {opdef.name} has no optional or variadic operand {token.text!r} "
                             f"(it has: {', '.join(allowed)})", token)
        if token.text in named:
            raise self.error(f"operand {token.text} is given twice", token)
        if spec.arity is Arity.OPTIONAL:
            named[token.text] = self.use()
            return
        named[token.text] = self.items("[", "]", self.use, what=f"'[' to open the operand group {token.text}")

    def assign_groups(self, opdef: OpDef, positional: list[Value], named: dict,
                      token: Token) -> tuple[list[Value], tuple[int, ...]]:
        required = [s.name for s in opdef.operands if s.arity is Arity.ONE]
        if len(positional) != len(required):
            raise self.error(f"op {opdef.name} takes {len(required)} positional operand(s) "
                             f"({', '.join(required) or 'none'}), got {len(positional)}", token)
        flat: list[Value] = []
        segments = []
        remaining = iter(positional)
        for spec in opdef.operands:
            if spec.arity is Arity.ONE:
                group = [next(remaining)]
            elif spec.arity is Arity.OPTIONAL:
                group = [named[spec.name]] if spec.name in named else []
            else:
                group = list(named.get(spec.name, []))
            flat.extend(group)
            segments.append(len(group))
        return flat, tuple(segments)

    # ---- regions ----
    def at_attr_dict(self) -> bool:
        return self.at("punct", "{") and self.at("ident", ahead=1) and self.at("punct", "=", ahead=2)

    def regions(self) -> list[Block]:
        if not self.at("punct", "{"):
            return []
        return self.separated(self.region)

    def region(self) -> Block:
        self.expect("punct", "{", what="'{' to open a region")
        args: list[tuple[Token, Type]] = []
        if self.accept("punct", "^"):
            args = self.items("(", ")", lambda: self.typed_name("a region argument (%name)"))
            self.expect("punct", ":", what="':' after the region arguments")
        self.scopes.append({})
        block = Block([ty for _, ty in args])
        for (token, _), value in zip(args, block.args):
            self.declare(token, value)
        self.ops_until_close(block)
        self.scopes.pop()
        return block

    def location(self) -> Location:
        if not self.accept("ident", "loc"):
            return UNKNOWN_LOC
        self.expect("punct", "(")
        file_token = self.expect("fileref", what="a file reference (#fN)")
        index = int(file_token.text[2:])
        if index not in self.files:
            known = ", ".join(f"#f{i}" for i in self.files) or "none"
            raise self.error(f"file {file_token.text} is not in the file table (defined: {known})", file_token)
        self.expect("punct", ":")
        line = int(self.expect("number", what="a line number").text)
        self.expect("punct", ":")
        col = int(self.expect("number", what="a column number").text)
        self.expect("punct", ")")
        return Location(self.files[index], line, col)

    # ---- types and literals ----
    def type(self) -> Type:
        token = self.peek()
        if token.kind not in ("type", "ident"):
            raise self.error(f"expected a type, got {self.describe(token)}")
        self.pos += 1
        try:
            return parse_type(token.text)
        except (ValueError, TypeError) as exc:
            message = str(exc) if token.text in str(exc) else f"bad type {token.text!r}: {exc}"
            raise self.error(message, token) from None

    def string(self) -> str:
        token = self.expect("string", what="a string")
        return json.loads(token.text)

    def attr_dict(self, opdef: OpDef | None = None) -> dict[str, Any]:
        """``{name = literal, ...}``; with ``opdef`` the names and kinds come from the op."""
        attrs: dict[str, Any] = {}
        self.items("{", "}", lambda: self.attr_entry(opdef, attrs))
        return attrs

    def attr_entry(self, opdef: OpDef | None, attrs: dict[str, Any]) -> None:
        token = self.expect("ident", what="an attribute name")
        self.expect("punct", "=")
        if token.text in attrs:
            raise self.error(f"attribute {token.text} is given twice", token)
        if opdef is None:
            attrs[token.text] = self.literal()
            return
        spec = opdef.attr_spec(token.text)
        if spec is None:
            allowed = ", ".join(a.name for a in opdef.attrs) or "none"
            raise self.error(f"op {opdef.name} has no attribute {token.text!r} (it has: {allowed})", token)
        attrs[token.text] = self.typed_literal(spec.kind, f"attribute {token.text} of op {opdef.name}")

    def literal(self) -> Any:
        """A free-form literal: int, float, true/false, string, type or ``[literal, ...]``."""
        token = self.peek()
        if token.kind == "number":
            self.pos += 1
            is_float = any(c in token.text for c in ".eEi")
            return float(token.text) if is_float else int(token.text)
        if token.kind == "string":
            return self.string()
        if self.at("punct", "["):
            return tuple(self.items("[", "]", self.literal))
        words = {"true": True, "false": False, "inf": float("inf"), "nan": float("nan")}
        if token.kind == "ident" and token.text in words:
            self.pos += 1
            return words[token.text]
        if token.kind in ("type", "ident"):
            return self.type()
        raise self.error(f"expected a literal (int, float, true/false, string, type or [...]), "
                         f"got {self.describe(token)}")

    def typed_literal(self, kind: AttrKind, what: str) -> Any:
        token = self.peek()
        value = self.literal()
        if kind is AttrKind.FLOAT and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not attr_fits(kind, value):
            raise self.error(f"{what} takes {_KIND_WORDS[kind]}, got {token.text}", token)
        return value


def parse_module(text: str) -> Module:
    """The module printed as ``text`` (see :mod:`kernellab.ir.printer` for the grammar)."""
    return Parser(text).module()


def parse_function(text: str) -> Function:
    """The one function printed as ``text`` (as ``print_with_locations(function)`` prints it)."""
    parser = Parser(text)
    module = parser.module()
    if len(module.functions) != 1:
        raise ParseError(f"expected exactly one function, got {len(module.functions)}", 1, 1,
                         _source_line(text, 1))
    return next(iter(module.functions.values()))


__all__ = ["ParseError", "parse_module", "parse_function", "tokenize"]
