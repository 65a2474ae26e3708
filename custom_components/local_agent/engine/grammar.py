"""GBNF grammar that keeps the model's tool calls well-formed.

The grammar covers the text after `<tool_call>`: calls of known functions, each with its own
parameters in schema order and values shaped by their JSON schema, bounded in length so that
even a model with random weights finishes quickly.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
import json
import re
from typing import Any
from typing import Final

from .markup import CALL_CLOSE
from .markup import CALL_OPEN
from .markup import FUNCTION_CLOSE
from .markup import FUNCTION_OPEN
from .markup import PARAMETER_CLOSE
from .markup import PARAMETER_OPEN
from .markup import format_value
from .types import ToolSpec

MAX_STRING_CHARS = 120
MAX_JSON_CHARS = 240
MAX_DIGITS = 15
# Tool-call grammars remembered (agents with homes of their own each ask for theirs).
RECENT_GRAMMARS = 4
_recent_grammars: tuple[tuple[str, str], ...] = ()

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


@dataclass(frozen=True, slots=True)
class ValueShape:
    """What the grammar lets a parameter's value be, as text (for call_forcing.py).

    literals: the exact texts allowed; free_starts: for each free form allowed (a string, a
    number, JSON, a list of enum items), the text it must start with ("" for any). None of
    the free forms can contain "<", so a free value ends where its parameter's end begins.
    """

    literals: tuple[str, ...] = ()
    free_starts: tuple[str, ...] = ()


def value_shape(schema: Any) -> ValueShape:
    """Return the shape of the values _Builder.value allows for this schema (same branches)."""
    if not isinstance(schema, Mapping):
        return ValueShape(free_starts=("",))
    if "const" in schema:
        return ValueShape(literals=(format_value(schema["const"]),))
    if schema.get("enum"):
        return ValueShape(literals=tuple(dict.fromkeys(format_value(v) for v in schema["enum"])))
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        shapes = [value_shape(s) for s in alternatives]
        return ValueShape(
            literals=tuple(dict.fromkeys(text for s in shapes for text in s.literals)),
            free_starts=tuple(dict.fromkeys(start for s in shapes for start in s.free_starts)),
        )
    kind = schema.get("type")
    if kind == "array" and _enum_literals(schema.get("items")):
        return ValueShape(free_starts=("[",))
    kinds = kind if isinstance(kind, list) else [kind]
    literals: list[str] = []
    starts: list[str] = []
    for one in kinds:
        known = one if isinstance(one, str) and one in _VALUE_RULES else "string"
        if known in _LITERAL_KINDS:
            literals += _LITERAL_KINDS[known]
        else:
            starts.append(_FREE_STARTS.get(known, ""))
    return ValueShape(literals=tuple(dict.fromkeys(literals)), free_starts=tuple(starts))


# The value rules above that are a choice of literals, and the start of the free ones.
_LITERAL_KINDS: Final = {"boolean": ("true", "false"), "null": ("null",)}
_FREE_STARTS: Final = {"object": "{", "array": "["}


def _enum_literals(items: Any) -> list[str]:
    """Return an array's enum items written as JSON, or [] when it is not an enum."""
    if not isinstance(items, Mapping):
        return []
    values = [items["const"]] if "const" in items else list(items.get("enum") or ())
    return list(dict.fromkeys(json.dumps(v, ensure_ascii=False) for v in values))


# From this many choices on, an enum is written as a trie of its texts: llama.cpp's grammar
# then follows one path per distinct next character instead of one per choice (a large home's
# entity ids would otherwise slow every sampled token of a call).
TRIE_FROM: Final = 25


def _trie(texts: Sequence[str]) -> str:
    """Return a GBNF expression for exactly these texts, shared beginnings written once."""
    root: dict[str, Any] = {}
    for text in texts:
        node = root
        for char in text:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie_node(root)


def _trie_node(node: dict[str, Any]) -> str:
    alternatives = []
    ends_here = "" in node
    for char in sorted(key for key in node if key):
        run, child = char, node[char]
        while len(child) == 1 and "" not in child:
            ((next_char, child),) = child.items()
            run += next_char
        rest = _trie_node(child) if set(child) != {""} else ""
        alternatives.append(f"{gbnf_literal(run)} {rest}".rstrip())
    if not alternatives:
        return '""'
    body = alternatives[0] if len(alternatives) == 1 else "(" + " | ".join(alternatives) + ")"
    if ends_here:
        return f"({body})?"
    return body if len(alternatives) > 1 or " " not in body else f"({body})"


# The call markup the grammar writes around names and values (call_forcing.py reads it too).
CALL_START: Final = "\n" + FUNCTION_OPEN  # after <tool_call>
NAME_END: Final = ">\n"
PARAMETER_END: Final = f"\n{PARAMETER_CLOSE}\n"
CALL_END: Final = f"{FUNCTION_CLOSE}\n{CALL_CLOSE}"
NEXT_CALL: Final = "\n" + CALL_OPEN


def function_header(name: str) -> str:
    """Return the text that opens a call of this function, after <tool_call>."""
    return f"{CALL_START}{name}{NAME_END}"


def parameter_header(key: str) -> str:
    """Return the text that opens a parameter's value."""
    return f"{PARAMETER_OPEN}{key}{NAME_END}"


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


class _Rules:
    """The GBNF rules a builder writes, each under a distinct name (letters, digits and dashes)."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self.lines: list[str] = []

    def new(self, prefix: str, name: str) -> str:
        """Return a rule name not used yet, made of the prefix and any text."""
        base = f"{prefix}-{re.sub(r'[^a-zA-Z0-9]+', '-', name).strip('-') or 'x'}"
        candidate, number = base, 2
        while candidate in self._used:
            candidate, number = f"{base}-{number}", number + 1
        self._used.add(candidate)
        return candidate

    def add(self, rule: str, body: str) -> None:
        """Write a rule after those written so far."""
        self.lines.append(f"{rule} ::= {body}")


class _Builder:
    def __init__(self) -> None:
        self.rules = _Rules()
        self.value_rules: dict[str, str] = {}

    def value(self, schema: Any) -> str:
        """Return a GBNF expression for a value of this schema."""
        if not isinstance(schema, Mapping):  # `true` or malformed: any text will do
            schema = {}
        if "const" in schema:
            return gbnf_literal(format_value(schema["const"]))
        if schema.get("enum"):
            texts = list(dict.fromkeys(format_value(v) for v in schema["enum"]))
            if len(texts) > TRIE_FROM:
                return self._trie_rule(texts)
            return "(" + " | ".join(gbnf_literal(text) for text in texts) + ")"
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        if alternatives:
            return "(" + " | ".join(dict.fromkeys(self.value(s) for s in alternatives)) + ")"
        kind = schema.get("type")
        if kind == "array" and (items := _enum_literals(schema.get("items"))):
            item = (
                self._trie_rule(items)
                if len(items) > TRIE_FROM
                else "(" + " | ".join(gbnf_literal(text) for text in items) + ")"
            )
            more = f'(", " {item}){{0,{MAX_ARRAY_ITEMS - 1}}}'
            return f'("[" {item} {more} "]")'
        kinds = kind if isinstance(kind, list) else [kind]
        references = list(dict.fromkeys(self._value_rule(k) for k in kinds))
        return references[0] if len(references) == 1 else "(" + " | ".join(references) + ")"

    def _trie_rule(self, texts: Sequence[str]) -> str:
        """Name a rule for a large enum, so that repeating it (a list) copies no trie."""
        rule = self.rules.new("enum", texts[0])
        self.rules.add(rule, _trie(texts))
        return rule

    def _value_rule(self, kind: Any) -> str:
        kind = kind if isinstance(kind, str) and kind in _VALUE_RULES else "string"
        self.value_rules[kind] = _VALUE_RULES[kind]
        return f"value-{kind}"

    def function(self, tool: ToolSpec) -> str:
        """Add the rules for one function and return the name of its rule."""
        rule = self.rules.new("fn", tool.name)
        schema = tool.enforced_parameters
        properties: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        parts = [gbnf_literal(function_header(tool.name).removeprefix("\n"))]
        parameters: dict[str, str] = {}
        for key, schema in properties.items():
            parameter = self.rules.new(rule, key)
            opening = gbnf_literal(parameter_header(key))
            parameters[parameter] = f"{opening} {self.value(schema)} {gbnf_literal(PARAMETER_END)}"
            parts.append(parameter if key in required else f"{parameter}?")
        parts.append(gbnf_literal(CALL_END))
        self.rules.add(rule, " ".join(parts))  # before its parameters' rules
        for parameter, body in parameters.items():
            self.rules.add(parameter, body)
        return rule


def build_tool_call_grammar(tools: Sequence[ToolSpec], *, max_calls: int = 1) -> str:
    """Return a GBNF grammar (root rule `root`) for what the model writes after `<tool_call>`.

    With max_calls > 1, up to that many calls may follow one another, each further one
    introduced by a newline and `<tool_call>` as the chat template writes them.

    The last few grammars are remembered by what they are built from (names and enforced
    schemas, as text: a schema changed in place is another key): every command of a home
    asks for the same one, and building it took 16 ms of the time to the first token at
    1000 entities.
    """
    global _recent_grammars  # noqa: PLW0603 - a memo shared by every loaded model
    if not tools:
        raise ValueError("A tool-call grammar needs at least one tool")
    if max_calls < 1:
        raise ValueError("max_calls must be at least 1")
    key = f"{max_calls} {tools_key(tools)}"
    for built_from, grammar in _recent_grammars:
        if built_from == key:
            return grammar
    grammar = _call_grammar(tools, max_calls)
    _recent_grammars = (*_recent_grammars, (key, grammar))[-RECENT_GRAMMARS:]
    return grammar


def tools_key(tools: Sequence[ToolSpec]) -> str:
    """Return what a call grammar is built from, as text: names and enforced schemas."""
    return json.dumps([(tool.name, tool.enforced_parameters) for tool in tools], default=repr)


def _call_grammar(tools: Sequence[ToolSpec], max_calls: int) -> str:
    builder = _Builder()
    functions = [builder.function(tool) for tool in tools]
    more = f" ({gbnf_literal(NEXT_CALL)} call){{0,{max_calls - 1}}}" if max_calls > 1 else ""
    header = [f"root ::= call{more}", 'call ::= "\\n" (' + " | ".join(functions) + ")"]
    return "\n".join([*header, *builder.rules.lines, *builder.value_rules.values()]) + "\n"
