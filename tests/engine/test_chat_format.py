"""Prompt rendering: golden prompts, template choice, and the static/dynamic split.

Regenerate the golden files after an intended change with:
    LOCAL_AGENT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/engine/test_chat_format.py
and review the diff.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
import os
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from custom_components.local_agent.engine.chat_format import ChatTemplate
from custom_components.local_agent.engine.chat_format import ChatTemplateError
from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.chat_format import compile_template
from custom_components.local_agent.engine.chat_format import load_template
from custom_components.local_agent.engine.chat_format import next_turn_start
from custom_components.local_agent.engine.chat_format import render_conversation
from custom_components.local_agent.engine.chat_format import render_prompt
from custom_components.local_agent.engine.chat_format import render_split
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.generation import AnswerEnd
from custom_components.local_agent.engine.markup import TURN_MARKERS
from custom_components.local_agent.engine.markup import escape_message
from custom_components.local_agent.engine.markup import escape_text
from custom_components.local_agent.engine.markup import escape_tools
from custom_components.local_agent.engine.markup import format_value
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import TextDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolCallError
from custom_components.local_agent.engine.types import ToolSpec
from tests.engine.tool_specs import object_tool

GOLDEN_DIR = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("LOCAL_AGENT_UPDATE_GOLDEN") == "1"

SYSTEM = "You are a voice assistant for a home. Answer briefly."
TURN_ON = object_tool(
    "HassTurnOn",
    "Turns on a device or entity — e.g. a light in the Küche",
    {
        "name": {"type": "string", "description": "Name of the entity"},
        "area": {"type": "string"},
        "domain": {"type": "array", "items": {"type": "string"}},
    },
    required=["name"],
)
SET_LIGHT = object_tool(
    "light.turn_on",
    "Set a light's brightness and colour",
    {
        "entity_id": {"type": "string", "enum": ["light.kitchen", "light.desk"]},
        "brightness_pct": {"type": "integer", "minimum": 0, "maximum": 100},
        "flash": {"type": "boolean"},
        "color": {"type": "object", "properties": {"r": {"type": "integer"}}},
    },
    required=["entity_id"],
)
TOOLS = [TURN_ON, SET_LIGHT]
TWO_CALLS = Message(
    "assistant",
    reasoning="The user wants both lights on; the desk one should flash.",
    tool_calls=[
        ToolCall("HassTurnOn", {"name": "Kitchen light", "domain": ["light"]}),
        ToolCall(
            "light.turn_on",
            {
                "entity_id": "light.desk",
                "brightness_pct": 40,
                "flash": True,
                "color": {"r": 255, "name": "rötlich", "alpha": None},
            },
        ),
    ],
)

CASES: dict[str, dict[str, Any]] = {
    "system_and_user": {
        "messages": [Message("system", SYSTEM), Message("user", "What can you do?")],
        "tools": [],
        "enable_thinking": True,
    },
    "user_with_tools": {
        "messages": [Message("system", SYSTEM), Message("user", "Turn on the kitchen light")],
        "tools": TOOLS,
        "enable_thinking": True,
    },
    "thinking_off": {
        "messages": [Message("system", SYSTEM), Message("user", "Turn on the kitchen light")],
        "tools": TOOLS,
        "enable_thinking": False,
    },
    "two_tool_calls_and_results": {
        "messages": [
            Message("system", SYSTEM),
            Message("user", "Kitchen light on, and make the desk lamp flash at 40%"),
            TWO_CALLS,
            Message("tool", '{"success": true}', tool_name="HassTurnOn"),
            Message("tool", '{"success": true, "state": "on"}', tool_name="light.turn_on"),
        ],
        "tools": TOOLS,
        "enable_thinking": True,
    },
    "reasoning_before_and_after_last_query": {
        "messages": [
            Message("system", SYSTEM),
            Message("user", "Hi"),
            Message("assistant", "<think>\nA greeting.\n</think>\n\nHello! How can I help?"),
            Message("user", "Is the kitchen light on?"),
            Message("assistant", "It is off.", reasoning="Dropped: before the last query."),
            Message("user", "Then turn it on"),
            Message(
                "assistant",
                reasoning="Kept: after the last query.",
                tool_calls=[ToolCall("HassTurnOn", {"name": "Kitchen light"})],
            ),
            Message("tool", '{"success": true}', tool_name="HassTurnOn"),
            Message("assistant", "Done, the kitchen light is on.", reasoning="It worked."),
        ],
        "tools": TOOLS,
        "enable_thinking": True,
        "add_generation_prompt": False,
    },
}


@pytest.fixture(scope="module")
def bundled() -> ChatTemplate:
    return load_template(None)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_prompt(bundled: ChatTemplate, name: str) -> None:
    case = CASES[name]
    prompt = render_prompt(
        bundled,
        case["messages"],
        case["tools"],
        enable_thinking=case["enable_thinking"],
        add_generation_prompt=case.get("add_generation_prompt", True),
    )
    golden = GOLDEN_DIR / f"{name}.txt"
    if UPDATE_GOLDEN:
        golden.write_text(prompt, encoding="utf-8", newline="")
    assert prompt == golden.read_text(encoding="utf-8", newline="")


def test_generation_prompt_follows_enable_thinking(bundled: ChatTemplate) -> None:
    messages = [Message("user", "hi")]
    on = render_prompt(bundled, messages, [], enable_thinking=True)
    off = render_prompt(bundled, messages, [], enable_thinking=False)
    assert on.endswith("<|im_start|>assistant\n<think>\n")
    assert off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    bare = render_prompt(bundled, messages, [], enable_thinking=True, add_generation_prompt=False)
    assert bare == "<|im_start|>user\nhi<|im_end|>\n"


def test_tool_arguments_rendered_as_the_model_writes_them(bundled: ChatTemplate) -> None:
    prompt = render_prompt(bundled, [Message("user", "go"), TWO_CALLS], TOOLS, enable_thinking=True)
    assert "<parameter=flash>\ntrue\n</parameter>" in prompt
    assert "<parameter=domain>\n" + '["light"]' + "\n</parameter>" in prompt
    assert '{"r": 255, "name": "rötlich", "alpha": null}' in prompt
    assert "True" not in prompt
    assert "None" not in prompt


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("a <b> & ü", "a <b> & ü"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (3, "3"),
        (2.5, "2.5"),
        (["x", 1], '["x", 1]'),
        ({"b": 1, "a": "é"}, '{"b": 1, "a": "é"}'),
    ],
)
def test_format_value(value: object, text: str) -> None:
    assert format_value(value) == text


def test_tojson_keeps_key_order_and_non_ascii() -> None:
    template = compile_template("{{ {'z': 'é<&>', 'a': 1} | tojson }}", "bundled")
    assert render_prompt(template, [], [], enable_thinking=True) == '{"z": "é<&>", "a": 1}'


def test_template_from_gguf_metadata_wins() -> None:
    metadata = {
        "general.architecture": "qwen35",
        "tokenizer.chat_template": "GGUF:{{ messages[0].content }}:{{ enable_thinking }}",
    }
    template = load_template(metadata)
    assert template.source == "gguf"
    prompt = render_prompt(template, [Message("user", "hi")], [], enable_thinking=False)
    assert prompt == "GGUF:hi:False"


@pytest.mark.parametrize("metadata", [None, {}, {"tokenizer.chat_template": "  \n"}])
def test_bundled_template_without_gguf_template(
    metadata: dict[str, str] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # load_template runs in the event loop (async_setup_entry): no file is read any more then.
    def no_file_access(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a file was read")

    monkeypatch.setattr(Path, "read_text", no_file_access)
    monkeypatch.setattr(Path, "open", no_file_access)
    template = load_template(metadata)
    assert template.source == "bundled"
    assert "<tool_call>" in template.text


def test_broken_gguf_template_is_a_clear_error() -> None:
    with pytest.raises(
        ChatTemplateError, match=r"gguf chat template is not valid Jinja \(line 1\)"
    ):
        load_template({"tokenizer.chat_template": "{% if %}"})


def test_template_exception_becomes_chat_template_error(bundled: ChatTemplate) -> None:
    with pytest.raises(ChatTemplateError, match="No user query found") as info:
        render_prompt(bundled, [Message("system", SYSTEM)], TOOLS, enable_thinking=True)
    assert isinstance(info.value, EngineError)


def test_sandbox_blocks_unsafe_access() -> None:
    template = compile_template("{{ messages.__class__.__mro__ }}", "gguf")
    with pytest.raises(ChatTemplateError):
        render_prompt(template, [Message("user", "x")], [], enable_thinking=True)


# --- static / dynamic split -------------------------------------------------------------------

SPLIT_HISTORY = [Message("user", "Turn on the kitchen light")]


def split(
    template: ChatTemplate,
    static_system: str,
    dynamic_system: str = "",
    history: Sequence[Message] = SPLIT_HISTORY,
    tools: Sequence[ToolSpec] = (),
) -> PromptParts:
    """render_split with thinking on: no tools and SPLIT_HISTORY unless given."""
    return render_split(
        template,
        static_system=static_system,
        dynamic_system=dynamic_system,
        history=history,
        tools=tools,
        enable_thinking=True,
    )


def test_split_cuts_right_after_static_system(bundled: ChatTemplate) -> None:
    parts = split(bundled, SYSTEM, dynamic_system="Time: 12:00\nkitchen light: off", tools=TOOLS)
    assert parts.static.startswith("<|im_start|>system\n# Tools")
    assert parts.static.endswith(SYSTEM + "\n\n")
    assert parts.dynamic.startswith("Time: 12:00\nkitchen light: off<|im_end|>\n<|im_start|>user")
    assert parts.text == parts.static + parts.dynamic


def test_split_rejects_blank_parts(bundled: ChatTemplate) -> None:
    with pytest.raises(ValueError, match="must contain text or be empty"):
        split(bundled, SYSTEM, dynamic_system=" ")
    with pytest.raises(ValueError, match="static_system must contain text"):
        split(bundled, " ")


def test_split_without_dynamic_system_keeps_the_whole_system_message_static(
    bundled: ChatTemplate,
) -> None:
    history = [
        Message("user", "Now: 18:30.\n\nturn on the light"),
        Message("assistant", "Done.", reasoning="The user wants light."),
        Message("user", "Now: 18:31.\n\nand off again"),
    ]
    parts = split(bundled, SYSTEM, history=history)
    assert parts.static.endswith(SYSTEM)
    assert parts.dynamic.startswith("<|im_end|>\n<|im_start|>user\nNow: 18:30.")
    assert parts.stable_end is not None
    stable, generation = parts.dynamic[: parts.stable_end], parts.dynamic[parts.stable_end :]
    assert stable.endswith("and off again<|im_end|>\n")
    assert generation == "<|im_start|>assistant\n<think>\n"
    # The next turn renders everything up to the stable end the same way, and goes on.
    answered = [*history, Message("assistant", "Off."), Message("user", "thanks")]
    later = split(bundled, SYSTEM, history=answered)
    assert later.static == parts.static
    assert later.dynamic.startswith(stable)
    assert not later.dynamic.startswith(parts.dynamic)


@pytest.mark.parametrize(
    "text",
    [
        "{{ messages[0].content | upper }}",
        "{% for m in messages[1:] %}{{ m.content }}{% endfor %}",
        "{{ messages[0].content }}|{{ messages[0].content }}",
        "{{ messages[0].content[:12] }}",
    ],
)
def test_split_refuses_templates_that_alter_the_system_text(text: str) -> None:
    template = compile_template(text, "gguf")
    with pytest.raises(ChatTemplateError, match="does not keep the system message text"):
        split(template, "static", dynamic_system="dynamic")


_text = st.text(st.characters(codec="utf-8"), max_size=30)
_nonblank = _text.filter(str.strip)
_history = st.builds(
    lambda earlier, last: [*earlier, Message("user", last)],
    st.lists(st.builds(Message, st.sampled_from(["user", "assistant"]), _text), max_size=3),
    _nonblank,
)


@settings(max_examples=150, deadline=None)
@given(
    static_system=_nonblank,
    dynamic_system=_nonblank,
    other_dynamic=_nonblank,
    history=_history,
    other_history=_history,
    tools=st.sampled_from([[], [TURN_ON], TOOLS]),
    enable_thinking=st.booleans(),
)
def test_split_invariant(
    bundled: ChatTemplate,
    *,
    static_system: str,
    dynamic_system: str,
    other_dynamic: str,
    history: list[Message],
    other_history: list[Message],
    tools: list[ToolSpec],
    enable_thinking: bool,
) -> None:
    def split(dynamic: str, messages: list[Message]) -> PromptParts:
        return render_split(
            bundled,
            static_system=static_system,
            dynamic_system=dynamic,
            history=messages,
            tools=tools,
            enable_thinking=enable_thinking,
        )

    parts = split(dynamic_system, history)
    # render_split escapes every text (markup.py) before it renders; render_prompt does not.
    system = Message("system", escape_text(static_system) + "\n\n" + escape_text(dynamic_system))
    messages = [system, *map(escape_message, history)]
    full = render_prompt(bundled, messages, escape_tools(tools), enable_thinking=enable_thinking)
    assert parts.static + parts.dynamic == full
    assert parts.static.endswith(escape_text(static_system).lstrip() + "\n\n")
    other = split(other_dynamic, other_history)
    assert other.static == parts.static


@pytest.mark.parametrize("static", ["Rules.\n", "Rules.\n\nHome:\n", "Rules. "])
def test_split_of_a_static_system_with_trailing_whitespace(
    bundled: ChatTemplate, static: str
) -> None:
    """The bundled template trims the system text: a home list ending in a newline still splits
    (an empty home made every turn fail with 'does not keep the system message contiguous')."""
    history = [Message("user", "hi")]
    parts = split(bundled, static, history=history)
    whole = render_prompt(bundled, [Message("system", static), *history], [], enable_thinking=True)
    assert parts.text == whole
    assert parts.static.endswith(static.rstrip())


def test_a_conversation_renders_with_its_system_context_after_the_reusable_part(
    bundled: ChatTemplate,
) -> None:
    conversation = Conversation(
        "You are a voice assistant.",
        (Message("user", "Hello"),),
        enable_thinking=True,
        system_context="It is 18:30.",
    )
    parts = render_conversation(bundled, conversation, ())
    assert parts.static.endswith("You are a voice assistant.\n\n")
    assert parts.dynamic.startswith("It is 18:30.<|im_end|>\n<|im_start|>user\nHello")
    assert parts.starts_in_reasoning
    assert parts.stop == TURN_MARKERS
    assert parts.stable_end == parts.dynamic.index("<|im_start|>assistant")


def test_the_next_turn_starts_with_this_turn_without_its_reasoning(bundled: ChatTemplate) -> None:
    conversation = Conversation(
        "You are a voice assistant.",
        (
            Message("user", "Turn on the light"),
            Message("assistant", "Done.", reasoning="The user wants the light on."),
        ),
    )
    start = next_turn_start(bundled, conversation, ())
    assert start is not None
    follow_up = render_conversation(
        bundled,
        Conversation(conversation.system, (*conversation.messages, Message("user", "Thanks"))),
        (),
    )
    assert start.static == follow_up.static
    assert start.dynamic.endswith("Done.<|im_end|>\n<|im_start|>user\n")
    assert follow_up.dynamic.startswith(start.dynamic)
    assert "The user wants the light on." not in start.dynamic


def test_the_next_turn_goes_on_into_the_start_its_message_surely_has(
    bundled: ChatTemplate,
) -> None:
    conversation = Conversation("You are a voice assistant.", next_message_start="Now: 07:41")
    start = next_turn_start(bundled, conversation, ())
    assert start is not None
    assert start.dynamic.endswith("<|im_start|>user\nNow: 07:41")
    assert start.dynamic[: start.stable_end].endswith("<|im_start|>user\n")
    command = render_conversation(
        bundled, replace(conversation, messages=(Message("user", "Now: 07:41.\n\nHi"),)), ()
    )
    assert command.dynamic.startswith(start.dynamic)

    # A start the template writes otherwise (it trims a message) is not prepared.
    trimmed = next_turn_start(bundled, replace(conversation, next_message_start="  Now"), ())
    plain = next_turn_start(bundled, replace(conversation, next_message_start=""), ())
    assert trimmed == plain
    assert plain is not None
    assert plain.stable_end is None
    assert plain.dynamic.endswith("<|im_start|>user\n")


@pytest.mark.parametrize(
    ("chunks", "answer"),
    [
        (["Hello.<|im_", "end|>\n<|im_start|>user\nunlock"], "Hello."),
        (["Hello", " <", "b>there</b>"], "Hello <b>there</b>"),
        (["Fine.<tool_", "response>{}"], "Fine."),
        (["Ends with <|im"], "Ends with <|im"),
    ],
)
def test_the_answer_ends_at_a_turn_marker_even_split_across_pieces(
    chunks: list[str], answer: str
) -> None:
    end = AnswerEnd(TURN_MARKERS)
    published: list[ParseEvent] = []
    for chunk in chunks:
        published += end.filter([TextDelta(chunk)])
    published += end.flush()
    assert "".join(e.text for e in published if isinstance(e, TextDelta)) == answer
    assert end.ended is ("<|im_end|>" in "".join(chunks) or "<tool_response>" in "".join(chunks))
    late = ToolCallFailed(ToolCallError("late", "<tool_call>"))
    assert end.filter([late]) == ([] if end.ended else [late])
