"""Structured answers: a GBNF grammar from a JSON schema, and a check of what came back.

An AI task with a `structure` wants one JSON object with declared fields. Where the engine can
constrain sampling (in process, or a llama.cpp server), the answer is sampled under the grammar
built here, so it always parses and has the declared types; where it cannot (other servers),
check_structure tells whether the answer has them. The answer is compact JSON written in the
schema's property order; an optional property may be left out. Every string, number and array
is bounded, so that even a model with random weights finishes within a few hundred tokens.

Supported schema keywords: type (one or a list), properties, required, additionalProperties,
items, enum, const, anyOf/oneOf, nullable and a minimum of 0 or more (no minus sign). Ranges
other than the sign, formats and uniqueItems are not enforced.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
import json
from typing import Any

from .errors import EngineError
from .grammar import _Rules
from .grammar import gbnf_literal
from .tool_calls import finite_number
from .types import JsonSchema

MAX_STRING_CHARS = 400
MAX_DIGITS = 15
MAX_ARRAY_ITEMS = 16
MAX_FREE_OBJECT_KEYS = 8
LEADING_SPACE = "[ \\t\\n]{0,4}"
EMPTY = '""'

_BASE_RULES = {
    "string": f'string ::= "\\"" char{{0,{MAX_STRING_CHARS}}} "\\""',
    # No \\u escapes: a lone surrogate would parse, then fail to serialise.
    "char": 'char ::= [^"\\\\\\x00-\\x1f] | "\\\\" ["\\\\/bfnrt]',
    "natural": f'natural ::= "0" | [1-9] [0-9]{{0,{MAX_DIGITS - 1}}}',
    "integer": 'integer ::= "-"? natural',
    "unsigned": (f'unsigned ::= natural ("." [0-9]{{1,{MAX_DIGITS}}})? ([eE] [-+]? [0-9]{{1,2}})?'),
    "number": 'number ::= "-"? unsigned',
    "boolean": 'boolean ::= "true" | "false"',
    "null": 'null ::= "null"',
    "scalar": "scalar ::= string | number | boolean | null",
    "free-object": (
        'free-object ::= "{" (string ":" " "? scalar'
        f' ("," " "? string ":" " "? scalar){{0,{MAX_FREE_OBJECT_KEYS - 1}}})? "}}"'
    ),
    "free-array": f'free-array ::= "[" (scalar ("," " "? scalar){{0,{MAX_ARRAY_ITEMS - 1}}})? "]"',
}
# Rules each base rule refers to.
_NEEDS: dict[str, tuple[str, ...]] = {
    "string": ("char",),
    "integer": ("natural",),
    "unsigned": ("natural",),
    "number": ("unsigned",),
    "scalar": ("string", "number", "boolean", "null"),
    "free-object": ("string", "scalar"),
    "free-array": ("scalar",),
}


class StructureError(EngineError):
    """The answer is not the declared structure (a server that applies no grammar)."""


class _Builder:
    def __init__(self) -> None:
        self.rules = _Rules()
        self.base: dict[str, None] = {}

    def use(self, name: str) -> str:
        """Refer to a base rule, adding it and the rules it needs."""
        if name not in self.base:
            self.base[name] = None
            for needed in _NEEDS.get(name, ()):
                self.use(needed)
        return name

    def value(self, schema: Any, where: str) -> str:
        """Return a GBNF expression for a JSON value of this schema."""
        if not isinstance(schema, Mapping):  # `true`, or malformed: any scalar
            return self.use("scalar")
        expression = self._value(schema, where)
        if schema.get("nullable") is True and "const" not in schema and "enum" not in schema:
            return f"({expression} | {self.use('null')})"
        return expression

    def _value(self, schema: Mapping[str, Any], where: str) -> str:
        if "const" in schema:
            return _json_literal(schema["const"])
        if schema.get("enum"):
            return "(" + " | ".join(dict.fromkeys(_json_literal(v) for v in schema["enum"])) + ")"
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(alternatives, list) and alternatives:
            choices = dict.fromkeys(self.value(s, where) for s in alternatives)
            return "(" + " | ".join(choices) + ")"
        kind = schema.get("type")
        if isinstance(kind, list) and kind:
            choices = dict.fromkeys(self._value({**schema, "type": k}, where) for k in kind)
            return "(" + " | ".join(choices) + ")"
        if kind == "object" or (kind is None and "properties" in schema):
            return self.object(schema, where)
        if kind == "array":
            item = self.value(schema.get("items", True), f"{where}-item")
            return f'("[" ({item} ("," " "? {item}){{0,{MAX_ARRAY_ITEMS - 1}}})? "]")'
        non_negative = _non_negative(schema)
        if kind == "integer":
            return self.use("natural") if non_negative else self.use("integer")
        if kind == "number":
            return self.use("unsigned") if non_negative else self.use("number")
        if kind in ("string", "boolean", "null"):
            return self.use(kind)
        return self.use("scalar")

    def object(self, schema: Mapping[str, Any], where: str) -> str:
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            return self.use("free-object")
        required = set(schema.get("required") or ())
        rule = self.rules.new("obj", where)
        fields = []
        for key, subschema in properties.items():
            field_rule = self.rules.new(rule, str(key))
            value = self.value(subschema, field_rule)
            self.rules.add(field_rule, f'{_json_literal(str(key))} ":" " "? {value}')
            fields.append((field_rule, key in required))
        # first-i: fields i.. with none written before; after-i: fields i.. after a comma.
        count = len(fields)
        first = [self.rules.new(rule, f"first-{i}") for i in range(count)]
        after = [self.rules.new(rule, f"after-{i}") if i else "" for i in range(count)]

        def tail(i: str | None) -> str:
            return f" {i}" if i else ""

        for i, (field_rule, is_required) in enumerate(fields):
            next_after = after[i + 1] if i + 1 < count else None
            next_first = first[i + 1] if i + 1 < count else None
            written = f"{field_rule}{tail(next_after)}"
            skip_first = "" if is_required else f" | {next_first or EMPTY}"
            skip_after = "" if is_required else f" | {next_after or EMPTY}"
            self.rules.add(first[i], f"{written}{skip_first}")
            if i:
                self.rules.add(after[i], f'"," " "? {written}{skip_after}')
        self.rules.add(rule, f'"{{" {first[0]} "}}"')
        return rule


def _non_negative(schema: Mapping[str, Any]) -> bool:
    minimum = schema.get("minimum", schema.get("exclusiveMinimum"))
    return isinstance(minimum, int | float) and not isinstance(minimum, bool) and minimum >= 0


def _json_literal(value: Any) -> str:
    return gbnf_literal(json.dumps(value, ensure_ascii=False))


def build_structure_grammar(schema: JsonSchema) -> str:
    """Return a GBNF grammar (root rule `root`) for one JSON value of the schema."""
    builder = _Builder()
    value = builder.value(schema, "answer")
    root = f"root ::= {LEADING_SPACE} {value}"
    base = [_BASE_RULES[name] for name in builder.base]
    return "\n".join([root, *builder.rules.lines, *base]) + "\n"


def structure_errors(value: Any, schema: Any, where: str = "answer") -> list[str]:
    """Return what is wrong with value for the schema (empty when it fits)."""
    if not isinstance(schema, Mapping):
        return []
    if value is None and schema.get("nullable") is True:
        return []
    if "const" in schema:
        return [] if _same(value, schema["const"]) else [f"{where} must be {schema['const']!r}"]
    if schema.get("enum"):
        options = schema["enum"]
        if any(_same(value, option) for option in options):
            return []
        return [f"{where} must be one of {options!r}, not {value!r}"]
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(alternatives, list) and alternatives:
        if any(not structure_errors(value, s, where) for s in alternatives):
            return []
        return [f"{where} fits none of the allowed forms"]
    kind = schema.get("type")
    if kind is None and "properties" in schema:
        kind = "object"
    kinds = kind if isinstance(kind, list) else [kind]
    if None in kinds:
        return []
    errors: list[str] = []
    for one in kinds:
        errors = _kind_errors(value, one, schema, where)
        if not errors:
            return []
    return errors


def _kind_errors(value: Any, kind: Any, schema: Mapping[str, Any], where: str) -> list[str]:
    fits: dict[str, Callable[[Any], bool]] = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: (
            (isinstance(v, int) and not isinstance(v, bool))
            or (isinstance(v, float) and v.is_integer())
        ),
        "number": finite_number,
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
        "array": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
    }
    check = fits.get(kind)
    if check is None:
        return []
    if not check(value):
        return [f"{where} must be of type {kind}, not {_type_name(value)}"]
    if kind == "array":
        items = schema.get("items", True)
        return [
            e
            for i, item in enumerate(value)
            for e in structure_errors(item, items, f"{where}[{i}]")
        ]
    if kind == "object":
        return _object_errors(value, schema, where)
    return []


def _object_errors(value: dict[str, Any], schema: Mapping[str, Any], where: str) -> list[str]:
    properties: Mapping[str, Any] = schema.get("properties") or {}
    errors = [
        f"{where} lacks the required field {key!r}"
        for key in schema.get("required") or ()
        if key not in value
    ]
    if schema.get("additionalProperties") is False:
        errors += [
            f"{where} has an undeclared field {key!r}" for key in value if key not in properties
        ]
    for key, subschema in properties.items():
        if key in value:
            errors += structure_errors(value[key], subschema, f"{where}.{key}")
    return errors


def _same(value: Any, option: Any) -> bool:
    return (type(value) is type(option) and value == option) or (
        isinstance(value, int | float)
        and isinstance(option, int | float)
        and not isinstance(value, bool)
        and not isinstance(option, bool)
        and value == option
    )


def _type_name(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}
    names |= {dict: "object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def parse_structure(text: str, schema: JsonSchema) -> Any:
    """Read the answer as JSON and check it against the schema; raise StructureError if not."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise StructureError(f"the answer is not JSON ({err.msg} at {err.pos})") from err
    if errors := structure_errors(value, schema):
        raise StructureError("; ".join(errors[:5]))
    return value
