"""GBNF grammar that keeps the model's tool calls well-formed.

The grammar covers the text after `<tool_call>`: calls of known functions, each with its own
parameters in schema order and values shaped by their JSON schema, bounded in length so that
even a model with random weights finishes quickly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import json
import re
from typing import Any

from .errors import GrammarError
from .markup import (
    CALL_CLOSE,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
    format_value,
)
from .types import ToolSpec

MAX_STRING_CHARS = 120
MAX_JSON_CHARS = 240
MAX_DIGITS = 15

_VALUE_RULES = {
    "boolean": 'value-boolean ::= "true" | "false"',
    "integer": f'value-integer ::= "-"? [0-9]{{1,{MAX_DIGITS}}}',
    "number": (
        f'value-number ::= "-"? [0-9]{{1,{MAX_DIGITS}}} ("." [0-9]{{1,{MAX_DIGITS}}})?'
        # Two exponent digits: 1e99 is a float, while 1e999 overflows and the parser refuses it.
        " ([eE] [-+]? [0-9]{1,2})?"
    ),
    "string": f"value-string ::= [^<\\n] [^<]{{0,{MAX_STRING_CHARS - 1}}}",
    "object": f'value-object ::= "{{" [^<]{{0,{MAX_JSON_CHARS - 2}}} "}}"',
    "array": f'value-array ::= "[" [^<]{{0,{MAX_JSON_CHARS - 2}}} "]"',
    "null": 'value-null ::= "null"',
}

# Items of an array whose items are an enum (several entity ids, say).
MAX_ARRAY_ITEMS = 16


def _enum_literals(items: Any) -> list[str]:
    """GBNF literals of an array's enum items written as JSON, or [] when not an enum."""
    if not isinstance(items, Mapping):
        return []
    values = [items["const"]] if "const" in items else list(items.get("enum") or ())
    return list(dict.fromkeys(gbnf_literal(json.dumps(v, ensure_ascii=False)) for v in values))


def gbnf_literal(text: str) -> str:
    """Quote text as a GBNF string literal; the result is plain ASCII."""
    escaped = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            escaped.append("\\" + char)
        elif char in "\n\r\t":
            escaped.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char])
        elif code < 0x20 or code == 0x7F:
            escaped.append(f"\\x{code:02x}")
        elif code < 0x80:
            escaped.append(char)
        elif code <= 0xFFFF:
            escaped.append(f"\\u{code:04x}")
        else:
            escaped.append(f"\\U{code:08x}")
    return '"' + "".join(escaped) + '"'


class _RuleNames:
    """Turns arbitrary names into distinct GBNF rule names (letters, digits and dashes)."""

    def __init__(self) -> None:
        self._used: set[str] = set()

    def new(self, prefix: str, name: str) -> str:
        base = f"{prefix}-{re.sub(r'[^a-zA-Z0-9]+', '-', name).strip('-') or 'x'}"
        candidate, number = base, 2
        while candidate in self._used:
            candidate, number = f"{base}-{number}", number + 1
        self._used.add(candidate)
        return candidate


class _Builder:
    def __init__(self) -> None:
        self.names = _RuleNames()
        self.rules: list[str] = []
        self.value_rules: dict[str, str] = {}

    def value(self, schema: Any) -> str:
        """Return a GBNF expression for a value of this schema."""
        if not isinstance(schema, Mapping):  # `true` or malformed: any text will do
            schema = {}
        if "const" in schema:
            return gbnf_literal(format_value(schema["const"]))
        if schema.get("enum"):
            choices = dict.fromkeys(gbnf_literal(format_value(v)) for v in schema["enum"])
            return "(" + " | ".join(choices) + ")"
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        if alternatives:
            return "(" + " | ".join(dict.fromkeys(self.value(s) for s in alternatives)) + ")"
        kind = schema.get("type")
        if kind == "array" and (items := _enum_literals(schema.get("items"))):
            item = "(" + " | ".join(items) + ")"
            more = f'(", " {item}){{0,{MAX_ARRAY_ITEMS - 1}}}'
            return f'("[" {item} {more} "]")'
        kinds = kind if isinstance(kind, list) else [kind]
        references = list(dict.fromkeys(self._value_rule(k) for k in kinds))
        return references[0] if len(references) == 1 else "(" + " | ".join(references) + ")"

    def _value_rule(self, kind: Any) -> str:
        kind = kind if isinstance(kind, str) and kind in _VALUE_RULES else "string"
        self.value_rules[kind] = _VALUE_RULES[kind]
        return f"value-{kind}"

    def function(self, tool: ToolSpec) -> str:
        """Add the rules for one function and return the name of its rule."""
        rule = self.names.new("fn", tool.name)
        properties: Mapping[str, Any] = tool.parameters.get("properties") or {}
        required = set(tool.parameters.get("required") or ())
        parts = [gbnf_literal(f"{FUNCTION_OPEN}{tool.name}>\n")]
        parameter_rules = []
        for key, schema in properties.items():
            parameter = self.names.new(rule, key)
            opening = gbnf_literal(f"{PARAMETER_OPEN}{key}>\n")
            closing = gbnf_literal(f"\n{PARAMETER_CLOSE}\n")
            parameter_rules.append(f"{parameter} ::= {opening} {self.value(schema)} {closing}")
            parts.append(parameter if key in required else f"{parameter}?")
        parts.append(gbnf_literal(f"{FUNCTION_CLOSE}\n{CALL_CLOSE}"))
        self.rules += [f"{rule} ::= " + " ".join(parts), *parameter_rules]
        return rule


def build_tool_call_grammar(tools: Sequence[ToolSpec], *, max_calls: int = 1) -> str:
    """Return a GBNF grammar (root rule `root`) for what the model writes after `<tool_call>`.

    With max_calls > 1, up to that many calls may follow one another, each further one
    introduced by a newline and `<tool_call>` as the chat template writes them.
    """
    if not tools:
        raise ValueError("A tool-call grammar needs at least one tool")
    if max_calls < 1:
        raise ValueError("max_calls must be at least 1")
    builder = _Builder()
    functions = [builder.function(tool) for tool in tools]
    more = f' ("\\n<tool_call>" call){{0,{max_calls - 1}}}' if max_calls > 1 else ""
    header = [f"root ::= call{more}", 'call ::= "\\n" (' + " | ".join(functions) + ")"]
    return "\n".join([*header, *builder.rules, *builder.value_rules.values()]) + "\n"


_ESCAPE = r'\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[nrt\\"\[\]])'
_TOKEN = re.compile(
    rf"""
    (?P<space>[ \t\r\n]+)
    | (?P<comment>\#[^\n]*)
    | (?P<define>::=)
    | (?P<name>[a-zA-Z0-9-]+)
    | (?P<literal>"(?:[^"\\\n]|{_ESCAPE})*")
    | (?P<charclass>\[(?:[^\]\\\n]|{_ESCAPE})*\])
    | (?P<open>\()
    | (?P<close>\))
    | (?P<operator>[|*+?.])
    | (?P<repeat>\{{[ ]*\d+[ ]*(?:,[ ]*\d*[ ]*)?\}})
    """,
    re.VERBOSE,
)


def _tokens(grammar: str) -> list[tuple[str, str, int]]:
    tokens = []
    position = 0
    while position < len(grammar):
        match = _TOKEN.match(grammar, position)
        line = grammar.count("\n", 0, position) + 1
        if match is None:
            what = {'"': "string literal", "[": "character class"}.get(grammar[position])
            if what:
                raise GrammarError(f"unterminated {what} or bad escape on line {line}")
            raise GrammarError(f"unexpected {grammar[position]!r} on line {line}")
        kind = match.lastgroup or ""
        if kind not in {"space", "comment"}:
            tokens.append((kind, match.group(), line))
        position = match.end()
    return tokens


def validate_grammar_syntax(grammar: str) -> None:
    """Check a GBNF grammar's shape: tokens, brackets, rule definitions and references."""
    tokens = _tokens(grammar)
    defined: set[str] = set()
    referenced: dict[str, int] = {}
    depth = 0
    for index, (kind, text, line) in enumerate(tokens):
        next_kind = tokens[index + 1][0] if index + 1 < len(tokens) else ""
        if kind == "name" and next_kind == "define":
            if depth:
                raise GrammarError(f"unclosed '(' before rule {text!r} on line {line}")
            if text in defined:
                raise GrammarError(f"rule {text!r} is defined twice (line {line})")
            defined.add(text)
        elif kind == "name":
            referenced.setdefault(text, line)
        elif kind == "define" and (index == 0 or tokens[index - 1][0] != "name"):
            raise GrammarError(f"'::=' without a rule name on line {line}")
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth < 0:
                raise GrammarError(f"unmatched ')' on line {line}")
    if depth:
        raise GrammarError("unclosed '(' at the end of the grammar")
    if "root" not in defined:
        raise GrammarError("no 'root' rule")
    for name, line in referenced.items():
        if name not in defined:
            raise GrammarError(f"rule {name!r} is used on line {line} but never defined")
