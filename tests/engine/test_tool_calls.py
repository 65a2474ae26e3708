"""Tests for the streaming tool-call parser and schema-typed values."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from custom_components.local_agent.engine.markup import format_tool_call
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import TextDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.tool_calls import ToolCallStreamParser
from custom_components.local_agent.engine.tool_calls import coerce_value
from custom_components.local_agent.engine.types import JsonSchema
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolCallError
from custom_components.local_agent.engine.types import ToolSpec
from tests.engine.tool_specs import object_tool

LIGHT = object_tool(
    "light",
    "Control a light.",
    {
        "entity_id": {"type": "string"},
        "action": {"type": "string", "enum": ["turn_on", "turn_off", "toggle"]},
        "brightness_pct": {"type": "integer"},
    },
    required=["entity_id", "action"],
)
WEATHER = object_tool(
    "get_weather", "Current weather.", {"city": {"type": "string"}}, required=["city"]
)
TIME = object_tool("get_time", "Current time.", {})
TOOLS = [LIGHT, WEATHER, TIME]


def xml_call(name: str, **params: str) -> str:
    return format_tool_call(ToolCall(name, dict(params)))


KITCHEN_ON = xml_call("light", entity_id="light.kitchen", action="turn_on")
KITCHEN_ON_ARGS = {"entity_id": "light.kitchen", "action": "turn_on"}


def merged(events: list[ParseEvent]) -> list[ParseEvent]:
    """Join consecutive deltas of the same kind."""
    out: list[ParseEvent] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + event.text)
        elif isinstance(event, ReasoningDelta) and isinstance(last, ReasoningDelta):
            out[-1] = ReasoningDelta(last.text + event.text)
        else:
            out.append(event)
    return out


def parse(
    output: str,
    *,
    chunks: list[int] | None = None,
    starts_in_reasoning: bool = True,
    tools: list[ToolSpec] = TOOLS,
) -> list[ParseEvent]:
    """Feed `output` whole, or cut at the given lengths, then finish; merge the deltas."""
    parser = ToolCallStreamParser(tools, starts_in_reasoning=starts_in_reasoning)
    events: list[ParseEvent] = []
    position = 0
    for size in chunks or []:
        events += parser.feed(output[position : position + size])
        position += size
    events += parser.feed(output[position:])
    events += parser.finish()
    return merged(events)


def raw_of(event: ParseEvent) -> str | None:
    """The raw text of a call event, None for deltas."""
    if isinstance(event, ToolCallParsed):
        return event.call.raw
    if isinstance(event, ToolCallFailed):
        return event.error.raw
    return None


def summary(events: list[ParseEvent]) -> list[tuple[Any, ...]]:
    """Events as plain tuples, without the raw text of calls."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        match event:
            case ReasoningDelta(text):
                out.append(("reasoning", text))
            case TextDelta(text):
                out.append(("text", text))
            case ToolCallParsed(call):
                out.append(("call", call.name, call.arguments))
            case ToolCallFailed(error):
                out.append(("error", error.name, error.message))
    return out


# (id, starts_in_reasoning, output, expected summary)
CORPUS: list[tuple[str, bool, str, list[tuple[Any, ...]]]] = [
    (
        "reasoning then answer",
        True,
        "The user greets me.\n</think>\n\nHello! How can I help?\n",
        [("reasoning", "The user greets me."), ("text", "Hello! How can I help?")],
    ),
    (
        "reasoning then call",
        True,
        f"Turn on the kitchen light.</think>\n\n{KITCHEN_ON}",
        [("reasoning", "Turn on the kitchen light."), ("call", "light", KITCHEN_ON_ARGS)],
    ),
    (
        "two calls in a row",
        True,
        f"Two things.</think>\n\n{KITCHEN_ON}\n{xml_call('get_weather', city='Paris')}\n",
        [
            ("reasoning", "Two things."),
            ("call", "light", KITCHEN_ON_ARGS),
            ("call", "get_weather", {"city": "Paris"}),
        ],
    ),
    (
        "text before and after a call",
        True,
        f"ok</think>\n\nSure, turning it on.\n{KITCHEN_ON}\nDone.",
        [
            ("reasoning", "ok"),
            ("text", "Sure, turning it on."),
            ("call", "light", KITCHEN_ON_ARGS),
            ("text", "\n\nDone."),
        ],
    ),
    (
        "multi-line visible text kept intact",
        True,
        "</think>\n\nLine one.\n\n  Indented line two.\n",
        [("text", "Line one.\n\n  Indented line two.")],
    ),
    (
        "typed values",
        True,
        "</think>"
        + xml_call("light", entity_id="light.a", action=" Turn_On ", brightness_pct=" 40 "),
        [("call", "light", {"entity_id": "light.a", "action": "turn_on", "brightness_pct": 40})],
    ),
    (
        "multi-line string value keeps inner newlines",
        True,
        "</think>" + xml_call("get_weather", city="New\nYork"),
        [("call", "get_weather", {"city": "New\nYork"})],
    ),
    (
        "inline parameter without newlines",
        True,
        "</think><tool_call><function=get_weather><parameter=city>Oslo</parameter>"
        "</function></tool_call>",
        [("call", "get_weather", {"city": "Oslo"})],
    ),
    (
        "tool without parameters",
        True,
        "</think>" + xml_call("get_time"),
        [("call", "get_time", {})],
    ),
    (
        "missing </parameter> closed by the next parameter and by </function>",
        True,
        "</think><tool_call>\n<function=light>\n<parameter=entity_id>\nlight.a\n"
        "<parameter=action>\nturn_off\n</function>\n</tool_call>",
        [("call", "light", {"entity_id": "light.a", "action": "turn_off"})],
    ),
    (
        "missing </function>",
        True,
        "</think><tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n"
        "</tool_call>",
        [("call", "get_weather", {"city": "Rome"})],
    ),
    (
        "missing </tool_call> before visible text",
        True,
        "</think><tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n"
        "</function>\nChecking the weather.",
        [("call", "get_weather", {"city": "Rome"}), ("text", "Checking the weather.")],
    ),
    (
        "missing </tool_call> at the end of the output",
        True,
        "</think><tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n"
        "</function>\n",
        [("call", "get_weather", {"city": "Rome"})],
    ),
    (
        "missing </function> and </tool_call> before the next call",
        True,
        "</think><tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n"
        + KITCHEN_ON,
        [("call", "get_weather", {"city": "Rome"}), ("call", "light", KITCHEN_ON_ARGS)],
    ),
    (
        "two functions inside one wrapper",
        True,
        "</think><tool_call>\n<function=get_time>\n</function>\n"
        "<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>",
        [("call", "get_time", {}), ("call", "get_weather", {"city": "Rome"})],
    ),
    (
        "function block without the wrapper",
        True,
        "</think>Let me check.\n<function=get_weather>\n<parameter=city>\nLima\n</parameter>\n"
        "</function>\n</tool_call>\n",
        [("text", "Let me check."), ("call", "get_weather", {"city": "Lima"})],
    ),
    (
        "call inside reasoning ends the reasoning",
        True,
        f"I will turn it on.\n{KITCHEN_ON}\n</think>\n\nDone.",
        [
            ("reasoning", "I will turn it on."),
            ("call", "light", KITCHEN_ON_ARGS),
            ("text", "Done."),
        ],
    ),
    (
        "JSON call",
        True,
        '</think>\n<tool_call>\n{"name": "light", "arguments": {"entity_id": "light.a", '
        '"action": "toggle", "brightness_pct": "20"}}\n</tool_call>',
        [("call", "light", {"entity_id": "light.a", "action": "toggle", "brightness_pct": 20})],
    ),
    (
        "JSON call with string-encoded arguments, never closed",
        True,
        '</think><tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Kyiv\\"}"}',
        [("call", "get_weather", {"city": "Kyiv"})],
    ),
    (
        "thinking off",
        False,
        "\nThe light is on.",
        [("text", "The light is on.")],
    ),
    (
        "thinking off with a stray think block",
        False,
        "<think>\nhmm\n</think>\n\nIt is 5 pm.",
        [("reasoning", "hmm"), ("text", "It is 5 pm.")],
    ),
    (
        "a doubled <think> in reasoning is dropped",
        True,
        "<think>\nhmm</think>ok",
        [("reasoning", "hmm"), ("text", "ok")],
    ),
    (
        "a stray </think> in text breaks the text",
        False,
        "Checking.</think>The light is off.",
        [("text", "Checking.\n\nThe light is off.")],
    ),
    (
        "stray closing tags in text are dropped",
        False,
        "All done.</tool_call>\n</function></parameter></think>",
        [("text", "All done.")],
    ),
    (
        "angle brackets that are not tags stay",
        False,
        "3 < 4 and <b>bold</b> <tool and <",
        [("text", "3 < 4 and <b>bold</b> <tool and <")],
    ),
    (
        "reasoning never closed",
        True,
        "Let me think about this for a while",
        [("reasoning", "Let me think about this for a while")],
    ),
    (
        "empty output",
        True,
        "",
        [],
    ),
    # Failures.
    (
        "unknown tool",
        True,
        "</think>" + xml_call("fan", entity_id="fan.a"),
        [
            (
                "error",
                "fan",
                "There is no tool named 'fan'. The available tools are: light, get_weather, "
                "get_time.",
            )
        ],
    ),
    (
        "unknown parameter",
        True,
        "</think>" + xml_call("light", entity_id="light.a", action="turn_on", colour="red"),
        [
            (
                "error",
                "light",
                "Tool 'light' has no parameter 'colour'. "
                "Its parameters are: entity_id, action, brightness_pct.",
            )
        ],
    ),
    (
        "parameter of a tool that takes none",
        True,
        "</think>" + xml_call("get_time", zone="UTC"),
        [("error", "get_time", "Tool 'get_time' has no parameter 'zone'. It takes no parameters.")],
    ),
    (
        "missing required parameter",
        True,
        "</think>" + xml_call("light", entity_id="light.a"),
        [("error", "light", "Tool 'light' is missing the required parameter 'action'.")],
    ),
    (
        "every problem of a call in one message",
        True,
        "</think>" + xml_call("light", brightness_pct="3.5", colour="red", size="XL"),
        [
            (
                "error",
                "light",
                "Parameter 'brightness_pct' of tool 'light': expected an integer, got '3.5'. "
                "Tool 'light' has no parameters 'colour', 'size'. "
                "Its parameters are: entity_id, action, brightness_pct. "
                "Tool 'light' is missing the required parameters 'entity_id', 'action'.",
            )
        ],
    ),
    (
        "enum value not allowed",
        True,
        "</think>" + xml_call("light", entity_id="light.a", action="dim"),
        [
            (
                "error",
                "light",
                "Parameter 'action' of tool 'light': expected one of 'turn_on', 'turn_off', "
                "'toggle', got 'dim'.",
            )
        ],
    ),
    (
        "parameter given twice",
        True,
        "</think><tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n"
        "<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
        [("error", "get_weather", "Tool 'get_weather' got parameter 'city' more than once.")],
    ),
    (
        "text outside parameter blocks",
        True,
        "</think><tool_call>\n<function=light>\nentity_id=light.a\n</function>\n</tool_call>",
        [
            (
                "error",
                "light",
                "Unexpected text 'entity_id=light.a' in the tool call; arguments go in "
                "<parameter=NAME>...</parameter> blocks. "
                "Tool 'light' is missing the required parameters 'entity_id', 'action'.",
            )
        ],
    ),
    (
        "empty call",
        True,
        "</think><tool_call>\n</tool_call>\nSorry.",
        [
            ("error", None, "Malformed tool call: expected <function=NAME> after <tool_call>."),
            ("text", "Sorry."),
        ],
    ),
    (
        "malformed JSON call",
        True,
        '</think><tool_call>{"tool": "light"}</tool_call>',
        [
            (
                "error",
                None,
                'Malformed tool call: expected {"name": ..., "arguments": {...}} in JSON.',
            )
        ],
    ),
    (
        "JSON call whose arguments are not an object",
        True,
        '</think><tool_call>{"name": "get_time", "arguments": [1]}</tool_call>',
        [("error", "get_time", "The arguments of tool 'get_time' must be a JSON object.")],
    ),
    (
        "output cut off inside a value",
        True,
        "</think><tool_call>\n<function=light>\n<parameter=brightness_pct>\n10",
        [("error", "light", "The tool call to 'light' was cut off before it was complete.")],
    ),
    (
        "output cut off right after <tool_call>",
        True,
        "Calling.</think>\n<tool_call>\n",
        [
            ("reasoning", "Calling."),
            ("error", None, "The tool call was cut off before it was complete."),
        ],
    ),
    (
        "JSON call cut off",
        True,
        '</think><tool_call>{"name": "get_weather", "arguments": {"ci',
        [("error", None, "The tool call was cut off before it was complete.")],
    ),
    (
        "bare function block cut off",
        False,
        "<function=get_weather>\n<parameter=city>\nRo",
        [
            (
                "error",
                "get_weather",
                "The tool call to 'get_weather' was cut off before it was complete.",
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("starts_in_reasoning", "output", "expected"),
    [case[1:] for case in CORPUS],
    ids=[case[0] for case in CORPUS],
)
def test_corpus(starts_in_reasoning: bool, output: str, expected: list[tuple[Any, ...]]) -> None:
    assert summary(parse(output, starts_in_reasoning=starts_in_reasoning)) == expected
    one_char_chunks = [1] * len(output)
    assert (
        summary(parse(output, chunks=one_char_chunks, starts_in_reasoning=starts_in_reasoning))
        == expected
    )


def test_raw_text_of_calls() -> None:
    output = f"</think>\n{KITCHEN_ON}\n<tool_call>\n<function=nope>\n</function>\n</tool_call>"
    events = parse(output)
    assert events == [
        ToolCallParsed(ToolCall("light", KITCHEN_ON_ARGS, KITCHEN_ON)),
        ToolCallFailed(
            ToolCallError(
                "There is no tool named 'nope'. The available tools are: light, get_weather, "
                "get_time.",
                "<tool_call>\n<function=nope>\n</function>\n</tool_call>",
                "nope",
            )
        ),
    ]


def test_raw_text_of_cut_off_and_bare_calls() -> None:
    bare = "<function=get_time>\n</function>"
    cut = "<tool_call>\n<function=light>\n<parameter=entity_id>\nlig"
    events = parse(f"{bare}\n{cut}", starts_in_reasoning=False)
    assert [raw_of(e) for e in events] == [bare, cut]


def test_visible_text_streams_promptly() -> None:
    parser = ToolCallStreamParser(TOOLS)
    assert parser.feed("Thinking") == [ReasoningDelta("Thinking")]
    assert parser.feed(" more</th") == [ReasoningDelta(" more")]
    assert parser.feed("ink>\n\nThe ans") == [TextDelta("The ans")]
    assert parser.feed("wer is 4 <tool_c") == [TextDelta("wer is 4")]
    assert parser.feed("all>\n") == []
    inside = [parser.in_tool_call]
    assert parser.feed("<function=get_time>\n</function>\n</tool_call>\n") == [
        ToolCallParsed(
            ToolCall("get_time", {}, "<tool_call>\n<function=get_time>\n</function>\n</tool_call>")
        )
    ]
    inside.append(parser.in_tool_call)
    assert inside == [True, False]
    assert parser.feed("\n") == []
    assert parser.finish() == []


def test_in_tool_call_and_the_calls_ended() -> None:
    parser = ToolCallStreamParser(TOOLS, starts_in_reasoning=False)
    ended = 0
    states = []

    def take(events: list[ParseEvent]) -> None:
        nonlocal ended
        ended += sum(isinstance(e, ToolCallParsed | ToolCallFailed) for e in events)
        states.append((parser.in_tool_call, ended))

    for piece in ["<tool_call>", "\n<function=get_time>\n", "</function>\n", "</tool_call>"]:
        take(parser.feed(piece))
    assert states == [(True, 0), (True, 0), (True, 0), (False, 1)]
    # A bare function block does not switch the grammar on.
    for piece in ["<function=get_time>\n", "</function>", "<tool_call>\n<function=get_time>"]:
        take(parser.feed(piece))
    last = parser.finish()
    assert isinstance(last[0], ToolCallFailed)
    take(last)
    assert states[4:] == [(False, 1), (False, 2), (True, 2), (False, 3)]


# Typed values.

NULLABLE_INT = {"type": ["integer", "null"]}

COERCIONS: list[tuple[JsonSchema, str, Any]] = [
    ({"type": "string"}, " keep  spaces ", " keep  spaces "),
    ({"type": "string"}, "null", "null"),
    ({}, "anything", "anything"),
    ({"type": "color"}, "red", "red"),
    ({"type": "integer"}, "3", 3),
    ({"type": "integer"}, " -12 ", -12),
    ({"type": "integer"}, "+7", 7),
    ({"type": "integer"}, "3.0", 3),
    ({"type": "integer"}, "1e3", 1000),
    ({"type": "number"}, "3", 3),
    ({"type": "number"}, "2.5", 2.5),
    ({"type": "number"}, "-.5", -0.5),
    ({"type": "number"}, "1E-2", 0.01),
    ({"type": "boolean"}, "true", True),
    ({"type": "boolean"}, "False", False),
    ({"type": "boolean"}, " TRUE ", True),
    ({"type": "boolean"}, "yes", True),
    ({"type": "boolean"}, "off", False),
    ({"type": "boolean"}, "1", True),
    ({"type": "null"}, "null", None),
    (NULLABLE_INT, "NULL", None),
    (NULLABLE_INT, "8", 8),
    ({"type": ["string", "null"]}, "null", None),
    ({"type": "string", "nullable": True}, "null", None),
    ({"type": ["integer", "string"]}, "5", 5),
    ({"type": ["string", "integer"]}, "5", "5"),
    ({"enum": ["low", "high"]}, " high ", "high"),
    ({"enum": ["low", "high"]}, "HIGH", "high"),
    ({"enum": ["a", "A"]}, "A", "A"),
    ({"enum": [1, 2, 3]}, "2", 2),
    ({"enum": [1, 2, 3]}, "2.0", 2),
    ({"enum": [True, None]}, "null", None),
    ({"const": "x"}, "x", "x"),
    ({"type": "object"}, '{"a": 1}', {"a": 1}),
    ({"type": "object"}, "{'a': True, 'b': None}", {"a": True, "b": None}),
    ({"type": "object", "properties": {"n": {"type": "integer"}}}, '{"n": "4"}', {"n": 4}),
    ({"type": "array"}, "[1, 2]", [1, 2]),
    ({"type": "array"}, "['a', 'b']", ["a", "b"]),
    ({"type": "array", "items": {"type": "string"}}, "light.a", ["light.a"]),
    ({"type": "array", "items": {"type": "integer"}}, '["1", 2]', [1, 2]),
    ({"type": "array", "items": {"type": "string"}}, "[1, true]", ["1", "true"]),
    ({"anyOf": [{"type": "integer"}, {"enum": ["max"]}]}, "max", "max"),
    ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, "12", 12),
    ({"anyOf": [{"type": "string"}, {"type": "array"}]}, "[1]", "[1]"),
]


@pytest.mark.parametrize(("schema", "text", "expected"), COERCIONS)
def test_coerce_value(schema: JsonSchema, text: str, expected: Any) -> None:
    result = coerce_value(text, schema)
    assert result == expected
    assert type(result) is type(expected)


COERCION_ERRORS: list[tuple[JsonSchema, str, str]] = [
    ({"type": "integer"}, "3.5", "expected an integer, got '3.5'"),
    ({"type": "integer"}, "50%", "expected an integer, got '50%'"),
    ({"type": "integer"}, "true", "expected an integer, got 'true'"),
    ({"type": "integer"}, "1" * 5000, "expected an integer, got '" + "1" * 57 + "...'"),
    ({"type": "number"}, "nan", "expected a number, got 'nan'"),
    ({"type": "number"}, "1e999", "expected a number, got '1e999'"),
    ({"type": "number"}, "1_000", "expected a number, got '1_000'"),
    ({"type": "number"}, "٣", "expected a number, got '٣'"),
    ({"type": "boolean"}, "maybe", "expected true or false, got 'maybe'"),
    ({"type": "null"}, "None", "expected null, got 'None'"),
    (NULLABLE_INT, "x", "expected an integer or null, got 'x'"),
    ({"enum": ["low", "high"]}, "mid", "expected one of 'low', 'high', got 'mid'"),
    ({"enum": [1, 2]}, "3", "expected one of 1, 2, got '3'"),
    ({"enum": [True, False]}, "1", "expected one of true, false, got '1'"),
    ({"type": "object"}, "[1]", "expected a JSON object, got '[1]'"),
    ({"type": "object"}, "{'a': {1, 2}}", "expected a JSON object, got \"{'a': {1, 2}}\""),
    ({"type": "object"}, "x=1", "expected a JSON object, got 'x=1'"),
    ({"type": "array"}, "[1,", "expected a JSON array, got '[1,'"),
    ({"type": "array"}, " ", "expected a JSON array, got ' '"),
    ({"type": "array"}, "[" * 5000, "expected a JSON array, got '" + "[" * 57 + "...'"),
    (
        {"type": "array", "items": {"type": "integer"}},
        "[1, 'x']",
        "item 2: expected an integer, got 'x'",
    ),
    (
        {"type": "object", "properties": {"n": {"type": "boolean"}}},
        '{"n": 3}',
        "property 'n': expected true or false, got 3",
    ),
    (
        {"anyOf": [{"type": "integer"}, {"enum": ["max"]}]},
        "min",
        "fits none of the allowed forms "
        "(expected an integer, got 'min'; expected one of 'max', got 'min')",
    ),
]


@pytest.mark.parametrize(("schema", "text", "message"), COERCION_ERRORS)
def test_coerce_value_errors(schema: JsonSchema, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        coerce_value(text, schema)


def test_json_call_values_are_checked_by_type() -> None:
    output = (
        '<tool_call>{"name": "light", "arguments": {"entity_id": ["light.a"], '
        '"action": "turn_on", "brightness_pct": 2.5}}</tool_call>'
    )
    assert summary(parse(output, starts_in_reasoning=False)) == [
        (
            "error",
            "light",
            "Parameter 'entity_id' of tool 'light': expected a string, got [\"light.a\"]. "
            "Parameter 'brightness_pct' of tool 'light': expected an integer, got 2.5.",
        )
    ]


def test_additional_properties_allow_unknown_names() -> None:
    tool = ToolSpec(
        "set",
        "",
        {"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}},
    )
    output = xml_call("set", level="4")
    assert summary(parse(output, starts_in_reasoning=False, tools=[tool])) == [
        ("call", "set", {"level": 4})
    ]


def test_no_tools_available() -> None:
    assert summary(parse(xml_call("light"), starts_in_reasoning=False, tools=[])) == [
        ("error", "light", "There is no tool named 'light'; no tools are available.")
    ]


# format_tool_call


def test_format_tool_call() -> None:
    call = ToolCall(
        "climate",
        {"entity_id": "climate.hall", "on": True, "mode": None, "t": 21.5, "n": 3, "x": {"a": [1]}},
    )
    assert format_tool_call(call) == (
        "<tool_call>\n<function=climate>\n"
        "<parameter=entity_id>\nclimate.hall\n</parameter>\n"
        "<parameter=on>\ntrue\n</parameter>\n"
        "<parameter=mode>\nnull\n</parameter>\n"
        "<parameter=t>\n21.5\n</parameter>\n"
        "<parameter=n>\n3\n</parameter>\n"
        # JSON as the chat template's tojson writes it: one formatter for every prompt.
        '<parameter=x>\n{"a": [1]}\n</parameter>\n'
        "</function>\n</tool_call>"
    )
    assert format_tool_call(ToolCall("get_time", {})) == xml_call("get_time")


# Property-based tests.

FRAGMENTS = [
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<function=light>",
    "<function=get_time>",
    "<function=",
    "</function>",
    "<parameter=entity_id>",
    "<parameter=action>",
    "<parameter=",
    "</parameter>",
    "turn_on",
    "light.a",
    "{",
    '{"name": "get_time", "arguments": {}}',
    "<",
    ">",
    "/",
    "\n",
    " ",
    "=",
    '"',
]
fragment_texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=30
).map("".join)
outputs = st.one_of(st.sampled_from([case[2] for case in CORPUS]), fragment_texts)


@settings(max_examples=300, deadline=None)
@given(output=outputs, starts_in_reasoning=st.booleans(), data=st.data())
def test_any_chunking_gives_the_same_events(
    output: str, starts_in_reasoning: bool, data: st.DataObject
) -> None:
    whole = parse(output, starts_in_reasoning=starts_in_reasoning)
    chunked = parse(
        output,
        chunks=data.draw(st.lists(st.integers(1, 12), max_size=len(output))),
        starts_in_reasoning=starts_in_reasoning,
    )
    assert chunked == whole


@settings(max_examples=300, deadline=None)
@given(output=fragment_texts, starts_in_reasoning=st.booleans())
def test_every_opened_call_ends_in_one_event(output: str, starts_in_reasoning: bool) -> None:
    parser = ToolCallStreamParser(TOOLS, starts_in_reasoning=starts_in_reasoning)
    events: list[ParseEvent] = []
    for char in output:
        events += parser.feed(char)
    events += parser.finish()
    assert not parser.in_tool_call
    for event in merged(events):
        if isinstance(event, TextDelta | ReasoningDelta):
            assert event.text.strip()
    if not starts_in_reasoning and "<think>" not in output:
        raws = [raw_of(e) for e in parse(output, starts_in_reasoning=False)]
        wrapped = [raw for raw in raws if raw is not None and raw.startswith("<tool_call>")]
        assert len(wrapped) == output.count("<tool_call>")


@settings(max_examples=200, deadline=None)
@given(output=fragment_texts)
def test_markup_never_leaks_into_text(output: str) -> None:
    text = "".join(
        e.text for e in parse(output, starts_in_reasoning=False) if isinstance(e, TextDelta)
    )
    for tag in ("<tool_call>", "</tool_call>", "<function=", "</function>", "<think>", "</think>"):
        assert tag not in text


names = st.from_regex(r"[a-z][a-z_]{0,9}", fullmatch=True)
plain_text = st.text(st.characters(exclude_characters="<", exclude_categories=["Cs"]), max_size=20)
SCHEMAS_AND_VALUES: list[tuple[JsonSchema, st.SearchStrategy[Any]]] = [
    ({"type": "string"}, plain_text),
    ({"type": "integer"}, st.integers(-(10**12), 10**12)),
    ({"type": "number"}, st.floats(allow_nan=False, allow_infinity=False)),
    ({"type": "boolean"}, st.booleans()),
    ({"type": ["integer", "null"]}, st.none() | st.integers(-100, 100)),
    ({"enum": ["low", "mid", "high"]}, st.sampled_from(["low", "mid", "high"])),
    ({"type": "array", "items": {"type": "integer"}}, st.lists(st.integers(-9, 9), max_size=4)),
    ({"type": "object"}, st.dictionaries(plain_text, st.integers() | plain_text, max_size=3)),
]


@st.composite
def tools_and_calls(draw: st.DrawFn) -> tuple[ToolSpec, ToolCall]:
    keys = draw(st.lists(names, unique=True, max_size=5))
    properties: dict[str, JsonSchema] = {}
    arguments: dict[str, Any] = {}
    for key in keys:
        schema, values = draw(st.sampled_from(SCHEMAS_AND_VALUES))
        properties[key] = schema
        arguments[key] = draw(values)
    name = draw(names)
    tool = ToolSpec(name, "", {"type": "object", "properties": properties, "required": keys})
    return tool, ToolCall(name, arguments)


@settings(max_examples=300, deadline=None)
@given(tool_and_call=tools_and_calls(), reasoning=plain_text)
def test_format_then_parse_round_trips(
    tool_and_call: tuple[ToolSpec, ToolCall], reasoning: str
) -> None:
    tool, call = tool_and_call
    rendered = format_tool_call(call)
    events = parse(f"{reasoning}</think>\n\n{rendered}", tools=[tool])
    parsed = [e for e in events if not isinstance(e, ReasoningDelta)]
    assert parsed == [ToolCallParsed(ToolCall(call.name, call.arguments, rendered))]
