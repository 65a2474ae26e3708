"""Structured answers: the grammar built from a schema, and real sampling under it.

The test model has random weights: whatever it writes under the grammar must still parse as
JSON of the declared types, for many seeds, with and without reasoning before it.
"""

from __future__ import annotations

from collections.abc import Iterator
import json
from pathlib import Path
from typing import Any

import pytest

from custom_components.local_agent.engine.chat_format import load_template
from custom_components.local_agent.engine.chat_format import render_split
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.structure import StructureError
from custom_components.local_agent.engine.structure import build_structure_grammar
from custom_components.local_agent.engine.structure import parse_structure
from custom_components.local_agent.engine.structure import structure_errors
from custom_components.local_agent.engine.types import Message
from testing.gbnf_syntax import validate_grammar_syntax

from .runtime_support import TEST_SETTINGS

# What Home Assistant's ai_task sends for a structure of every selector kind (probatio's
# to_openapi with llm.selector_serializer).
NOTIFICATION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "urgent": {"type": "boolean"},
        "room": {"type": "string"},
        "count": {"type": "number", "minimum": 0.0, "maximum": 10.0},
        "kind": {"type": "string", "enum": ["alarm", "info"]},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["x", "y"]},
            "uniqueItems": True,
        },
        "extra": {"type": "object", "additionalProperties": True},
    },
    "required": ["urgent", "room", "count"],
    "additionalProperties": False,
}


def test_grammar_is_well_formed_for_every_selector_kind() -> None:
    grammar = build_structure_grammar(NOTIFICATION)
    validate_grammar_syntax(grammar)
    assert grammar.startswith("root ::= ")
    # Required fields come in order; the minimum of 0 leaves out the minus sign.
    assert '"\\"urgent\\"" ":" " "? boolean' in grammar
    assert 'count\\"" ":" " "? unsigned' in grammar


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"urgent": True, "room": "hall", "count": 2}, None),
        ({"urgent": "yes", "room": "hall", "count": 2}, "urgent must be of type boolean"),
        ({"urgent": True, "count": 2}, "lacks the required field 'room'"),
        ({"urgent": True, "room": "x", "count": 1, "kind": "spam"}, "kind must be one of"),
        ({"urgent": True, "room": "x", "count": 1, "other": 1}, "undeclared field 'other'"),
        ({"urgent": True, "room": "x", "count": True}, "count must be of type number"),
        ({"urgent": True, "room": "x", "count": 1, "tags": ["x", 3]}, "tags[1] must be one of"),
    ],
)
def test_structure_errors_name_the_field(value: Any, problem: str | None) -> None:
    errors = structure_errors(value, NOTIFICATION)
    if problem is None:
        assert errors == []
    else:
        assert any(problem in error for error in errors), errors


def test_parse_structure_refuses_text_that_is_not_json() -> None:
    with pytest.raises(StructureError, match="not JSON"):
        parse_structure("Sure! Here it is: {", NOTIFICATION)
    assert parse_structure(' {"urgent": false, "room": "", "count": 0}', NOTIFICATION) == {
        "urgent": False,
        "room": "",
        "count": 0,
    }


@pytest.fixture(scope="module")
def runtime(qwen35_model_path: Path) -> Iterator[LoadedModel]:
    opened = LoadedModel(qwen35_model_path, TEST_SETTINGS)
    yield opened
    opened.close()


def _request(
    runtime: LoadedModel, *, thinking: bool, seed: int, **fields: Any
) -> GenerationRequest:
    parts = render_split(
        load_template(runtime.info.metadata),
        static_system="Answer with the requested data.",
        dynamic_system="Fill in the fields.",
        history=[Message("user", "Classify: smoke detected in the kitchen")],
        tools=(),
        enable_thinking=thinking,
    )
    return GenerationRequest(
        parts,
        sampling=SamplingSettings(temperature=1.0, seed=seed),
        thinking_budget=12 if thinking else None,
        **{"max_tokens": 1500, **fields},
    )


@pytest.mark.parametrize("thinking", [False, True])
def test_random_weights_write_the_declared_structure_under_the_grammar(
    runtime: LoadedModel, thinking: bool
) -> None:
    for seed in range(6):
        request = _request(runtime, thinking=thinking, seed=seed, answer_schema=NOTIFICATION)
        output = runtime.generate(request)
        assert output.stats.finish_reason == "stop", output.text
        answer = output.text.partition("</think>")[2] if thinking else output.text
        value = parse_structure(answer, NOTIFICATION)
        assert {"urgent", "room", "count"} <= value.keys()
        if thinking:
            assert output.stats.reasoning_tokens > 0


def test_without_the_grammar_the_same_model_writes_no_json(runtime: LoadedModel) -> None:
    """The grammar is what makes the answers above parse."""
    request = _request(runtime, thinking=False, seed=1, max_tokens=40)
    output = runtime.generate(request)
    with pytest.raises(json.JSONDecodeError):
        json.loads(output.text)
