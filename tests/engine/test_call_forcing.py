"""Jump-forward decoding: what the call grammar leaves the model no choice about."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
import re
from typing import Any

import pytest

from custom_components.local_agent.engine import call_forcing as call_forcing_module
from custom_components.local_agent.engine.call_forcing import CallForcing
from custom_components.local_agent.engine.grammar import build_tool_call_grammar
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.types import ToolSpec
from testing.gbnf_syntax import validate_grammar_syntax
from testing.stand_in import answer
from testing.steering import CallAfterReasoning
from testing.steering import ScriptedAnswers
from tests.engine.tool_specs import object_tool

from .runtime_support import TEST_SETTINGS
from .runtime_support import make_request
from .runtime_support import prompt_parts

LIGHT = object_tool(
    "light",
    "Control lights.",
    {
        "action": {"type": "string", "enum": ["toggle", "turn_off", "turn_on"]},
        "entity_id": {
            "anyOf": [
                {"type": "string", "enum": ["light.kitchen", "light.kitchen_2", "light.hall"]},
                {
                    "type": "array",
                    "items": {"type": "string", "enum": ["light.kitchen", "light.hall"]},
                },
            ]
        },
        "brightness_pct": {"type": "integer"},
        "flash": {"type": "boolean"},
    },
    required=["action", "entity_id"],
)
LOCK = object_tool(
    "lock",
    "Control locks.",
    {
        "action": {"type": "string", "enum": ["lock", "unlock"]},
        "entity_id": {"type": "string"},
    },
    required=["action", "entity_id"],
)
GET_STATE = object_tool("get_state", "Read a state.", {"entity_id": {"type": "string"}})
FORCING = CallForcing([LIGHT, LOCK, GET_STATE], max_calls=2)
LIGHT_CALL = "\n<function=light>\n<parameter=action>\n"


@pytest.mark.parametrize(
    ("text", "forced"),
    [
        # Markup around the name, up to the choice; no part of a name while two remain.
        ("", "\n<function="),
        ("\n<function=l", ""),  # light or lock
        ("\n<function=li", "ght>\n<parameter=action>\n"),  # the first parameter is required
        ("\n<function=g", "et_state>\n"),  # its only parameter is optional: the end may follow
        # The rest of an enum value once its start fits one, then the next required parameter.
        (LIGHT_CALL + "turn_", ""),
        (LIGHT_CALL + "turn_of", "f\n</parameter>\n<parameter=entity_id>\n"),
        (LIGHT_CALL + "to", "ggle\n</parameter>\n<parameter=entity_id>\n"),
        # An id that is the start of another is not complete: the model decides.
        (LIGHT_CALL + "toggle\n</parameter>\n<parameter=entity_id>\nlight.kitchen", ""),
        (
            LIGHT_CALL + "toggle\n</parameter>\n<parameter=entity_id>\nlight.h",
            "all\n</parameter>\n",
        ),
        # A list of ids, a free value: the model writes it; its end is fixed once it begins.
        (LIGHT_CALL + "toggle\n</parameter>\n<parameter=entity_id>\n", ""),
        (LIGHT_CALL + "toggle\n</parameter>\n<parameter=entity_id>\n[", ""),
        (
            LIGHT_CALL + 'toggle\n</parameter>\n<parameter=entity_id>\n["light.hall"]\n<',
            "/parameter>\n",
        ),
        # Optional parameters or the end: "<" alone is never forced.
        (
            LIGHT_CALL + "toggle\n</parameter>\n<parameter=entity_id>\nlight.hall\n</parameter>\n",
            "",
        ),
        (
            LIGHT_CALL
            + "toggle\n</parameter>\n<parameter=entity_id>\nlight.hall\n</parameter>\n</",
            "function>\n</tool_call>",
        ),
        (
            LIGHT_CALL
            + "toggle\n</parameter>\n<parameter=entity_id>\nlight.hall\n</parameter>\n<p",
            "arameter=",
        ),
        (
            LIGHT_CALL
            + "toggle\n</parameter>\n<parameter=entity_id>\nlight.hall\n</parameter>\n"
            + "<parameter=fl",
            "ash>\n",
        ),
        # Booleans are a choice of two literals.
        (
            LIGHT_CALL + "toggle\n</parameter>\n<parameter=entity_id>\nlight.hall\n</parameter>\n"
            "<parameter=flash>\nt",
            "rue\n</parameter>\n</function>\n</tool_call>",
        ),
        # After a call: the end or another; once another begins, its opening is fixed.
        ("\n<function=get_state>\n</function>\n</tool_call>", ""),
        ("\n<function=get_state>\n</function>\n</tool_call>\n", "<tool_call>\n<function="),
        # The last call allowed: only the end of the answer may follow.
        (
            "\n<function=get_state>\n</function>\n</tool_call>\n<tool_call>\n"
            "<function=get_state>\n</function>\n</tool_call>",
            "",
        ),
        # Text that does not follow the grammar forces nothing.
        ("\n<function=fan>", ""),
        (LIGHT_CALL + "dim", ""),
    ],
)
def test_forced_continuation(text: str, forced: str) -> None:
    assert FORCING.forced(text) == forced


def _doors(*ids: str) -> list[ToolSpec]:
    return [object_tool("door", "Doors.", {"entity_id": {"type": "string", "enum": list(ids)}})]


def test_the_same_tools_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command of a home asks for the same call tables: read once, not per turn."""
    read: list[str] = []
    function = call_forcing_module._function

    def counted(tool: ToolSpec) -> Any:
        read.append(tool.name)
        return function(tool)

    monkeypatch.setattr(call_forcing_module, "_recent_functions", ())
    monkeypatch.setattr(call_forcing_module, "_function", counted)
    CallForcing(_doors("lock.front", "lock.back"), max_calls=2)
    CallForcing(_doors("lock.front", "lock.back"), max_calls=3)
    assert read == ["door"]
    CallForcing(_doors("lock.front"), max_calls=2)
    assert read == ["door", "door"]


def test_remembered_tables_follow_the_tools_as_they_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An id no longer offered is never forced, even when its schema changed in place."""
    monkeypatch.setattr(call_forcing_module, "_recent_functions", ())
    tools: Sequence[ToolSpec] = _doors("lock.front", "lock.vault")
    start = "\n<function=door>\n<parameter=entity_id>\nlock.v"
    assert CallForcing(tools, max_calls=1).forced(start).startswith("ault\n")
    tools[0].parameters["properties"]["entity_id"]["enum"].remove("lock.vault")
    assert CallForcing(tools, max_calls=1).forced(start) == ""
    front = "\n<function=door>\n<parameter=entity_id>\nlock.f"
    assert CallForcing(tools, max_calls=1).forced(front).startswith("ront\n")


def test_free_string_value_is_the_models_until_its_end_begins() -> None:
    start = "\n<function=lock>\n<parameter=action>\nunlock\n</parameter>\n<parameter=entity_id>\n"
    assert FORCING.forced("\n<function=lo") == "ck>\n<parameter=action>\n"
    assert FORCING.forced(start) == ""
    assert FORCING.forced(start + "lock.front\nand more") == ""
    assert FORCING.forced(start + "lock.front\n<") == "/parameter>\n</function>\n</tool_call>"


KITCHEN_IDS = [
    "light.kitchen_ceiling_light",
    "light.kitchen_ceiling_light_2",
    "light.kitchen_lamp",
    "light.hall_lamp",
]
KITCHEN = object_tool(
    "light",
    "Control lights.",
    {"entity_id": {"type": "string", "enum": KITCHEN_IDS}},
    required=["entity_id"],
)
KITCHEN_CALL = "\n<function=light>\n<parameter=entity_id>\n"


def words(text: str) -> list[bytes]:
    """A tokenizer that splits as Qwen's pre-tokenizer does: a word with the mark before it."""
    return [piece.encode() for piece in re.findall(r"[._]?[a-z]+|.", text, re.DOTALL)]


@pytest.mark.parametrize(
    ("text", "forced"),
    [
        # Every id left goes on with "itchen_": its first token is theirs, "_" is not.
        (KITCHEN_CALL + "light.k", "itchen"),
        # Both ceiling lights go on with the tokens "eiling" and "_light"; then they part.
        (KITCHEN_CALL + "light.kitchen_c", "eiling_light"),
        (KITCHEN_CALL + "light.kitchen_ceiling_light", ""),
        # Ids that part at their first character share no token.
        (KITCHEN_CALL + "light.", ""),
        # Once one is left, all of it (as without a tokenizer).
        (KITCHEN_CALL + "light.h", "all_lamp\n</parameter>\n</function>\n</tool_call>"),
    ],
)
def test_tokens_every_id_left_starts_with_are_forced(text: str, forced: str) -> None:
    assert CallForcing([KITCHEN], max_calls=1, split=words).forced(text) == forced


def test_without_a_tokenizer_shared_text_stops_at_a_tag() -> None:
    assert CallForcing([KITCHEN], max_calls=1).forced(KITCHEN_CALL + "light.k") == ""


# --- With llama.cpp -------------------------------------------------------------------------

MANY = [f"light.room_{n}_lamp" for n in range(1000)]
_ONE_OF_MANY = {"type": "string", "enum": MANY}
BIG_LIGHT = ToolSpec(
    name="light",
    description="Control lights.",
    parameters={
        "type": "object",
        "properties": {
            "entity_id": {
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
            }
        },
        "required": ["entity_id"],
    },
    grammar_parameters={
        "type": "object",
        "properties": {
            "entity_id": {"anyOf": [_ONE_OF_MANY, {"type": "array", "items": _ONE_OF_MANY}]}
        },
        "required": ["entity_id"],
    },
)


def test_a_large_enum_is_a_trie_and_its_ids_are_exact(qwen35_model_path: Path) -> None:
    """1000 ids, one or a list: the grammar writes their shared beginnings once (in a rule of
    its own, so a list does not copy it), llama.cpp takes it, and every sampled id is one."""
    grammar = build_tool_call_grammar([BIG_LIGHT], max_calls=4)
    validate_grammar_syntax(grammar)
    assert grammar.count("light.room_") == 2  # the id, and the id quoted as a list item
    model = LoadedModel(qwen35_model_path, TEST_SETTINGS)
    model.steering = CallAfterReasoning()
    try:
        for seed in range(3):
            request = make_request(
                prompt_parts("turn on a lamp", tools=(BIG_LIGHT,)),
                tools=(BIG_LIGHT,),
                sampling=SamplingSettings(seed=seed, temperature=1.0),
                thinking_budget=0,
                max_tokens=400,  # a list of 16 ids, sampled, fits
            )
            output = model.generate(request)
            calls = [e.call for e in output.events if isinstance(e, ToolCallParsed)]
            assert calls, output.text
            chosen = calls[0].arguments["entity_id"]
            assert set(chosen if isinstance(chosen, list) else [chosen]) <= set(MANY)
            # The markup around the id, and its end once its number is unique: not sampled.
            assert output.stats.call_forced_tokens > 0
    finally:
        model.close()


def test_the_shared_tokens_of_the_ids_left_are_not_sampled(qwen35_model_path: Path) -> None:
    """A call to one of several kitchen lights: the model chooses where the ids part; the
    tokens every remaining id starts with are appended in the batch of the token before them."""
    call = "<tool_call>" + KITCHEN_CALL + "light.kitchen_ceiling_light\n</parameter>\n"
    model = LoadedModel(qwen35_model_path, TEST_SETTINGS)
    model.steering = ScriptedAnswers(lambda _request: answer(call + "</function>\n</tool_call>"))
    try:
        output = model.generate(
            make_request(
                prompt_parts("turn on the ceiling light", tools=(KITCHEN,)),
                tools=(KITCHEN,),
                max_tokens=200,
            )
        )
    finally:
        model.close()
    calls = [e.call for e in output.events if isinstance(e, ToolCallParsed)]
    assert [c.arguments for c in calls] == [{"entity_id": "light.kitchen_ceiling_light"}]
    # One token where the ids part: kitchen or hall, ceiling or lamp, the end or "_2" (10
    # when every token of the id was sampled).
    assert output.stats.call_sampled_tokens == 3
