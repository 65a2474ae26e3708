"""Streaming parser for the model's output: reasoning, visible text and Qwen3.5 tool calls.

The model writes `reasoning</think>visible text` and tool calls in Qwen3.5 XML, one tag a line:
`<tool_call>`, `<function=NAME>`, `<parameter=KEY>`, VALUE, `</parameter>`, ..., `</function>`,
`</tool_call>` (the newlines around VALUE belong to the format, not to the value).
`ToolCallStreamParser` turns a stream of text chunks, split anywhere, into events; parameter
values are typed by the tool's JSON schema with `coerce_value`. The markers, and
`format_tool_call` that renders a call back into the XML the model writes, are markup.py's.

Choices for what small models actually produce:
- Calls are parsed only outside reasoning, but a `<tool_call>` written inside the think block
  ends the reasoning implicitly (the model forgot `</think>`) and is parsed as a call.
- `<think>` in visible text starts reasoning again (a stray think block when thinking is off);
  stray closing tags (`</think>`, `</tool_call>`, `</function>`, `</parameter>`) are dropped
  and break the text like any other markup.
- Missing `</parameter>` (the next tag closes it), missing `</function>`, and missing
  `</tool_call>` once `</function>` was written (the text after it is visible text again) are
  tolerated. A `<function=...>` block without the wrapper is a call too, though `in_tool_call`
  stays False for it: the grammar that the engine switches on expects the wrapper's content.
  A second `<function=` or a new `<tool_call>` ends the call before it.
- Qwen2.5/3 JSON calls `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` are accepted.
- Every opened call ends in exactly one `ToolCallParsed` or `ToolCallFailed`. At `finish()` a
  call without `</function>` (or an incomplete JSON call) was cut off and fails.
- Text inside a call outside `<parameter=...>` blocks, a parameter given twice, unknown
  parameters and missing required ones are errors, all reported in one message per call.
- Visible text and reasoning lose leading and trailing whitespace at the edges of each stretch
  between markup; stretches after the first are joined with a blank line.

Typed values (see `coerce_value`): booleans accept true/false, on/off, 1/0 and yes/no in every
language of words.py (ja, oui, sí, ...) in any case; "null" (any case) is None wherever the
schema allows null, even before a string type; objects and arrays are JSON, or Python literals
(single quotes, True/None); a bare single value for an array becomes a one-item list; enums
match after stripping, then case-insensitively if that is unambiguous; type lists and
anyOf/oneOf are tried in order.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from enum import auto
import json
import math
import re
from typing import Any

from .markup import CALL_CLOSE
from .markup import CALL_OPEN
from .markup import FUNCTION_CLOSE
from .markup import FUNCTION_OPEN
from .markup import PARAMETER_CLOSE
from .markup import PARAMETER_OPEN
from .markup import THINK_CLOSE
from .markup import THINK_OPEN
from .markup import format_value
from .types import JsonSchema
from .types import ToolCall
from .types import ToolCallError
from .types import ToolSpec
from .words import BOOLEAN_WORDS
from .words import fold


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning."""

    text: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the visible answer."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallParsed:
    """A complete tool call with typed arguments."""

    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolCallFailed:
    """A tool call that could not be used; its message can go back to the model verbatim."""

    error: ToolCallError


type ParseEvent = ReasoningDelta | TextDelta | ToolCallParsed | ToolCallFailed


class _Mode(Enum):
    REASONING = auto()
    TEXT = auto()
    CALL = auto()
    BARE_CALL = auto()


# In prose modes: each tag and the mode it leads to (the same mode: a stray tag, dropped).
_TRANSITIONS: dict[_Mode, dict[str, _Mode]] = {
    _Mode.REASONING: {
        THINK_CLOSE: _Mode.TEXT,
        CALL_OPEN: _Mode.CALL,
        THINK_OPEN: _Mode.REASONING,
    },
    _Mode.TEXT: {
        CALL_OPEN: _Mode.CALL,
        FUNCTION_OPEN: _Mode.BARE_CALL,
        THINK_OPEN: _Mode.REASONING,
        THINK_CLOSE: _Mode.TEXT,
        CALL_CLOSE: _Mode.TEXT,
        FUNCTION_CLOSE: _Mode.TEXT,
        PARAMETER_CLOSE: _Mode.TEXT,
    },
}
_CALL_BOUNDARY = re.compile(
    "|".join(map(re.escape, (CALL_OPEN, CALL_CLOSE, FUNCTION_OPEN, FUNCTION_CLOSE)))
)
_NAME = r"([^>\n]*)>"
_FUNCTION_TAG = re.compile(re.escape(FUNCTION_OPEN) + _NAME)
_PARAMETER_TAG = re.escape(PARAMETER_OPEN) + _NAME
_PARAMETER_OR_END = re.compile(
    "|".join((_PARAMETER_TAG, re.escape(PARAMETER_CLOSE), re.escape(FUNCTION_CLOSE)))
)
_VALUE_END = re.compile(
    "|".join((re.escape(PARAMETER_CLOSE), _PARAMETER_TAG, re.escape(FUNCTION_CLOSE)))
)


class _Prose:
    """One kind of prose (reasoning or visible text), trimmed at the edges of each stretch."""

    def __init__(self, make: Callable[[str], ReasoningDelta | TextDelta]) -> None:
        self._make = make
        self._at_start = True
        self._emitted = False
        self._pending = ""  # whitespace held back until text follows it

    def write(self, text: str) -> list[ParseEvent]:
        if self._at_start:
            text = text.lstrip()
            if not text:
                return []
            self._at_start = False
            self._pending = "\n\n" if self._emitted else ""
        content = text.rstrip()
        if not content:
            self._pending += text
            return []
        delta = self._pending + content
        self._pending = text[len(content) :]
        self._emitted = True
        return [self._make(delta)]

    def end_stretch(self) -> None:
        self._at_start = True
        self._pending = ""


class ToolCallStreamParser:
    """Split model output, fed in arbitrary chunks, into reasoning, text and tool calls."""

    def __init__(self, tools: Sequence[ToolSpec], *, starts_in_reasoning: bool = True) -> None:
        """Parse calls against `tools`; the output starts inside `<think>` if so told."""
        self._tools = {tool.name: tool for tool in tools}
        self._mode = _Mode.REASONING if starts_in_reasoning else _Mode.TEXT
        self._prose = {_Mode.REASONING: _Prose(ReasoningDelta), _Mode.TEXT: _Prose(TextDelta)}
        self._buffer = ""

    @property
    def in_tool_call(self) -> bool:
        """Whether the output is between a `<tool_call>` and its end."""
        return self._mode is _Mode.CALL

    def feed(self, text: str) -> list[ParseEvent]:
        """Take the next chunk of output; return the events it completes."""
        self._buffer += text
        return self._run(final=False)

    def finish(self) -> list[ParseEvent]:
        """End the output: flush held-back text and fail a call that was cut off."""
        return self._run(final=True)

    def _run(self, *, final: bool) -> list[ParseEvent]:
        events: list[ParseEvent] = []
        while self._step(events, final=final):
            pass
        return events

    def _step(self, events: list[ParseEvent], *, final: bool) -> bool:
        """Consume what the current mode can; True if the mode changed and there may be more."""
        if self._mode in (_Mode.CALL, _Mode.BARE_CALL):
            return self._step_call(events, final=final)
        return self._step_prose(events, final=final)

    def _step_prose(self, events: list[ParseEvent], *, final: bool) -> bool:
        transitions = _TRANSITIONS[self._mode]
        prose = self._prose[self._mode]
        found = _earliest(self._buffer, transitions)
        if found is None:
            cut = len(self._buffer) if final else _safe_length(self._buffer, transitions)
            events += prose.write(self._buffer[:cut])
            self._buffer = self._buffer[cut:]
            return False
        index, tag = found
        events += prose.write(self._buffer[:index])
        # A bare call keeps its `<function=` tag: the call's text starts with it.
        self._buffer = self._buffer[index if tag == FUNCTION_OPEN else index + len(tag) :]
        prose.end_stretch()
        self._mode = transitions[tag]
        return True

    def _step_call(self, events: list[ParseEvent], *, final: bool) -> bool:
        wrapped = self._mode is _Mode.CALL
        end = _find_call_end(self._buffer, wrapped=wrapped, final=final)
        if end is None and not final:
            return False
        content_end, resume = end or (len(self._buffer), len(self._buffer))
        raw = (CALL_OPEN if wrapped else "") + self._buffer[:resume]
        events.append(self._parse_call(self._buffer[:content_end], raw, complete=end is not None))
        self._buffer = self._buffer[resume:]
        self._mode = _Mode.TEXT
        return True

    def _parse_call(self, content: str, raw: str, *, complete: bool) -> ParseEvent:
        is_json = content.lstrip().startswith("{")
        name, given, problems = (_read_json_call if is_json else read_xml_call)(content)
        if not complete and (problems or not is_json):
            return ToolCallFailed(ToolCallError(_cut_off_message(name), raw, name))
        arguments: dict[str, Any] = {}
        if name is not None:
            tool = self._tools.get(name)
            if tool is None:
                problems.append(_unknown_tool_message(name, self._tools))
            else:
                arguments, argument_problems = _bind_arguments(tool, given)
                problems += argument_problems
        if name is None or problems:
            written = dict(reversed(given))  # the first value of a parameter given twice
            return ToolCallFailed(ToolCallError(" ".join(problems), raw, name, written))
        return ToolCallParsed(ToolCall(name, arguments, raw))


# A visible answer that is only a code fence: its language tag, then its content.
_FENCED = re.compile(r"```[\w-]*[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL)
_JSON_CALL_KEYS = frozenset({"name", "arguments", "parameters"})


def calls_written_as_text(text: str, tools: Sequence[ToolSpec]) -> list[ToolCallFailed]:
    """Return failed calls if the visible answer is only JSON calls to some of `tools`.

    A model that writes `{"name": "lock", "arguments": {...}}` (or a list of them; alone, or
    alone in a code fence) as its answer meant calls in the wrong form: they are neither read
    out to the person nor run (written as text, they may as well be an example), and the
    model is told the form. JSON that names no offered tool, or a call among words, stays the
    model's answer (an empty list).
    """
    body = text.strip()
    if (fenced := _FENCED.fullmatch(body)) is not None:
        body = fenced.group(1).strip()
    if not body.startswith(("{", "[")):
        return []
    loaded = _load_json(body)
    written = loaded if isinstance(loaded, list) else [loaded]
    names = {tool.name for tool in tools}
    if not written or not all(_is_json_call(call, names) for call in written):
        return []
    return [_written_as_text(call, text) for call in written]


def _is_json_call(call: Any, names: Collection[str]) -> bool:
    return (
        isinstance(call, dict)
        and call.keys() <= _JSON_CALL_KEYS
        and isinstance(call.get("name"), str)
        and call["name"] in names
    )


def _written_as_text(call: dict[str, Any], text: str) -> ToolCallFailed:
    name: str = call["name"]
    arguments = call.get("arguments", call.get("parameters"))
    message = (
        f"The call to tool '{name}' was written as text and was not run. Write a tool call as "
        f"{CALL_OPEN}{FUNCTION_OPEN}NAME>{PARAMETER_OPEN}KEY>VALUE{PARAMETER_CLOSE}"
        f"{FUNCTION_CLOSE}{CALL_CLOSE}."
    )
    written = dict(arguments) if isinstance(arguments, dict) else {}
    return ToolCallFailed(ToolCallError(message, text, name, written))


def coerce_value(text: str, schema: JsonSchema) -> Any:
    """Type a parameter's text by its JSON schema; raise ValueError saying what was expected.

    The message is a lowercase phrase such as "expected an integer, got '3.5'", meant to follow
    the name of the parameter. Without a type (or with an unknown one) the text stays a string.
    """
    return _coerce(text, schema)


def _earliest(text: str, tags: Iterable[str]) -> tuple[int, str] | None:
    found = [(index, tag) for tag in tags if (index := text.find(tag)) >= 0]
    return min(found) if found else None


def _safe_length(text: str, tags: Iterable[str]) -> int:
    """Length of the prefix of `text` that cannot be the start of a tag still arriving."""
    start = text.rfind("<")
    if start >= 0 and any(tag.startswith(text[start:]) for tag in tags):
        return start
    return len(text)


def _find_call_end(body: str, *, wrapped: bool, final: bool) -> tuple[int, int] | None:
    """Where a call's content ends and where the text after it resumes, or None if not yet."""
    function_seen = False
    for tag in _CALL_BOUNDARY.finditer(body):
        if tag.group() == CALL_CLOSE:
            return tag.start(), tag.end()
        if tag.group() == CALL_OPEN or (tag.group() == FUNCTION_OPEN and function_seen):
            return tag.start(), tag.start()
        if tag.group() == FUNCTION_OPEN:
            function_seen = True
            continue
        if not wrapped:
            return tag.end(), tag.end()
        rest = body[tag.end() :].lstrip()
        if rest.startswith(CALL_CLOSE):
            return tag.end(), len(body) - len(rest) + len(CALL_CLOSE)
        if CALL_CLOSE.startswith(rest):  # only whitespace or part of `</tool_call>` so far
            return (tag.end(), len(body)) if final else None
        return tag.end(), tag.end()
    return None


type _Given = list[tuple[str, Any]]


def read_xml_call(content: str) -> tuple[str | None, _Given, list[str]]:
    """Read the function name and the raw parameter texts of an XML call."""
    function = _FUNCTION_TAG.search(content)
    if function is None:
        return None, [], ["Malformed tool call: expected <function=NAME> after <tool_call>."]
    gaps = [content[: function.start()]]
    given: _Given = []
    position = function.end()
    while (tag := _PARAMETER_OR_END.search(content, position)) is not None:
        gaps.append(content[position : tag.start()])
        position = tag.end()
        if tag.group() == FUNCTION_CLOSE:
            break
        if tag.group(1) is None:  # a stray </parameter>
            continue
        end = _VALUE_END.search(content, position)
        stop = len(content) if end is None else end.start()
        value = content[position:stop].removeprefix("\n").removesuffix("\n")
        given.append((tag.group(1).strip(), value))
        position = end.end() if end is not None and end.group() == PARAMETER_CLOSE else stop
    gaps.append(content[position:])
    problems = [
        f"Unexpected text {_show(gap.strip())} in the tool call; "
        "arguments go in <parameter=NAME>...</parameter> blocks."
        for gap in gaps
        if gap.strip()
    ]
    return function.group(1).strip(), given, problems


def _read_json_call(content: str) -> tuple[str | None, _Given, list[str]]:
    """Read a Qwen2.5-style `{"name": ..., "arguments": {...}}` call."""
    call = _load_structured(content)
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        message = 'Malformed tool call: expected {"name": ..., "arguments": {...}} in JSON.'
        return None, [], [message]
    name: str = call["name"]
    arguments = call.get("arguments", call.get("parameters", {}))
    if isinstance(arguments, str):
        arguments = _load_structured(arguments)
    if not isinstance(arguments, dict):
        return name, [], [f"The arguments of tool '{name}' must be a JSON object."]
    return name, list(arguments.items()), []


def _bind_arguments(tool: ToolSpec, given: _Given) -> tuple[dict[str, Any], list[str]]:
    """Type each given value by the tool's schema; report every problem of the call.

    The schema is the one the call grammar enforces, so a call read from a server without
    the grammar is held to the same values (the exposed entity ids, say).
    """
    schema_of_tool = tool.enforced_parameters
    properties: Mapping[str, JsonSchema] = schema_of_tool.get("properties") or {}
    extra = schema_of_tool.get("additionalProperties", False)
    arguments: dict[str, Any] = {}
    problems: list[str] = []
    seen: set[str] = set()
    unknown: list[str] = []
    required = schema_of_tool.get("required", [])
    for key, value in given:
        if key in seen:
            problems.append(f"Tool '{tool.name}' got parameter '{key}' more than once.")
            continue
        seen.add(key)
        if _is_null(value) and key not in required:
            continue  # an optional parameter written as null is one not given
        if key in properties:
            schema = properties[key]
        elif extra is True or isinstance(extra, dict):
            schema = extra if isinstance(extra, dict) else {}
        else:
            unknown.append(key)
            continue
        try:
            arguments[key] = _coerce(value, schema)
        except ValueError as err:
            if key in tool.checked_by_tool:
                arguments[key] = value
                continue
            problems.append(f"Parameter '{key}' of tool '{tool.name}': {err}.")
    if unknown:
        problems.append(_unknown_parameters_message(tool.name, unknown, properties))
    missing = [key for key in required if key not in seen]
    if missing:
        noun = "parameter" if len(missing) == 1 else "parameters"
        names = ", ".join(f"'{key}'" for key in missing)
        problems.append(f"Tool '{tool.name}' is missing the required {noun} {names}.")
    return arguments, problems


def _unknown_tool_message(name: str, tools: Mapping[str, ToolSpec]) -> str:
    if not tools:
        return f"There is no tool named '{name}'; no tools are available."
    return f"There is no tool named '{name}'. The available tools are: {', '.join(tools)}."


def _unknown_parameters_message(tool: str, unknown: list[str], known: Iterable[str]) -> str:
    noun = "parameter" if len(unknown) == 1 else "parameters"
    names = ", ".join(f"'{key}'" for key in unknown)
    allowed = ", ".join(known)
    hint = f"Its parameters are: {allowed}." if allowed else "It takes no parameters."
    return f"Tool '{tool}' has no {noun} {names}. {hint}"


def _cut_off_message(name: str | None) -> str:
    target = f" to '{name}'" if name else ""
    return f"The tool call{target} was cut off before it was complete."


# Typed values. `value` is the model's text, or a native JSON value (JSON calls, nested items).

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DESCRIPTIONS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
    "object": "a JSON object",
    "array": "a JSON array",
}


def _coerce(value: Any, schema: JsonSchema) -> Any:
    if "enum" in schema or "const" in schema:
        return _match_option(value, schema["enum"] if "enum" in schema else [schema["const"]])
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        return _first_fitting(value, alternatives)
    declared = schema.get("type")
    if declared is None:
        return value
    types = [declared] if isinstance(declared, str) else list(declared)
    if schema.get("nullable") is True:
        types.append("null")
    if "null" in types and _is_null(value):
        return None
    if len(types) == 1:
        return _convert(types[0], value, schema)
    for type_name in types:
        try:
            return _convert(type_name, value, schema)
        except ValueError:
            continue
    raise _expected(" or ".join(_DESCRIPTIONS.get(t, str(t)) for t in types), value)


def _convert(type_name: str, value: Any, schema: JsonSchema) -> Any:
    converter = _CONVERTERS.get(type_name)
    return value if converter is None else converter(value, schema)


def _match_option(value: Any, options: Sequence[Any]) -> Any:
    for option in options:
        if _same(value, option):
            return option
    if isinstance(value, str):
        folded = value.strip().casefold()
        matches = [o for o in options if isinstance(o, str) and o.strip().casefold() == folded]
        if len(matches) == 1:
            return matches[0]
    shown = ", ".join(map(_show, options[:SHOWN_OPTIONS]))
    if len(options) > SHOWN_OPTIONS:
        shown += f", … ({len(options)} in all)"
    raise ValueError(f"expected one of {shown}, got {_show(value)}")


# Options an error names before it says how many there are (a home's entity ids, say).
SHOWN_OPTIONS = 25


def _same(value: Any, option: Any) -> bool:
    if isinstance(value, str):
        if isinstance(option, str):
            return value.strip() == option.strip()
        value = _load_json(value)
        if value is _INVALID:
            return False
    return bool(value == option) and isinstance(value, bool) == isinstance(option, bool)


def _first_fitting(value: Any, alternatives: Sequence[JsonSchema]) -> Any:
    errors: list[str] = []
    for alternative in alternatives:
        try:
            return _coerce(value, alternative)
        except ValueError as err:
            errors.append(str(err))
    raise ValueError(f"fits none of the allowed forms ({'; '.join(errors)})")


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() == "null")


def _to_string(value: Any, schema: JsonSchema) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return format_value(value)
    raise _expected("a string", value)


def _to_integer(value: Any, schema: JsonSchema) -> int:
    number = _number_or_none(value)
    if isinstance(number, int):
        return number
    if isinstance(number, float) and number.is_integer():
        return int(number)
    raise _expected("an integer", value)


def _to_number(value: Any, schema: JsonSchema) -> int | float:
    number = _number_or_none(value)
    if number is None:
        raise _expected("a number", value)
    return number


def _number_or_none(value: Any) -> int | float | None:
    if isinstance(value, str):
        text = value.strip()
        if _INTEGER.fullmatch(text):
            try:
                value = int(text)
            except ValueError:  # more digits than Python converts
                return None
        elif _DECIMAL.fullmatch(text):
            value = float(text)
        else:
            return None
    return value if finite_number(value) else None


def finite_number(value: Any) -> bool:
    """Whether a value is a number a float holds (an integer of 400 digits is none).

    No bool, NaN or infinity either; every float conversion of 10**400 raises.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _to_boolean(value: Any, schema: JsonSchema) -> bool:
    word = BOOLEAN_WORDS.get(fold(value)) if isinstance(value, str) else value
    if isinstance(word, bool):
        return word
    raise _expected("true or false", value)


def _to_null(value: Any, schema: JsonSchema) -> None:
    if not _is_null(value):
        raise _expected("null", value)


def _to_object(value: Any, schema: JsonSchema) -> dict[str, Any]:
    loaded = _load_structured(value)
    if not isinstance(loaded, dict):
        raise _expected("a JSON object", value)
    properties: Mapping[str, JsonSchema] = schema.get("properties") or {}
    return {
        key: _nested(item, properties[key], f"property '{key}'") if key in properties else item
        for key, item in loaded.items()
    }


def _to_array(value: Any, schema: JsonSchema) -> list[Any]:
    if isinstance(value, str) and value.strip() and not value.strip().startswith("["):
        items: Any = [value]  # a bare single value stands for a one-item list
    else:
        items = _load_structured(value)
    if not isinstance(items, list):
        raise _expected("a JSON array", value)
    item_schema = schema.get("items")
    if not isinstance(item_schema, dict):
        return items
    return [_nested(item, item_schema, f"item {i}") for i, item in enumerate(items, 1)]


def _nested(value: Any, schema: JsonSchema, where: str) -> Any:
    try:
        return _coerce(value, schema)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


_CONVERTERS: dict[str, Callable[[Any, JsonSchema], Any]] = {
    "string": _to_string,
    "integer": _to_integer,
    "number": _to_number,
    "boolean": _to_boolean,
    "null": _to_null,
    "object": _to_object,
    "array": _to_array,
}

_INVALID = object()


def _load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError, RecursionError:
        return _INVALID


def _load_structured(value: Any) -> Any:
    """Load JSON (or a Python literal) text as plain JSON data; None if it is neither."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    loaded = _load_json(text)
    if loaded is _INVALID:
        try:
            loaded = ast.literal_eval(text)
        except ValueError, TypeError, SyntaxError, MemoryError, RecursionError:
            return None
    try:  # normalise tuples to lists; reject sets, bytes, NaN and the like
        return json.loads(json.dumps(loaded, allow_nan=False))
    except ValueError, TypeError, RecursionError:
        return None


def _show(value: Any) -> str:
    """Render a value briefly for messages."""
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    text = format_value(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected(description: str, value: Any) -> ValueError:
    return ValueError(f"expected {description}, got {_show(value)}")
