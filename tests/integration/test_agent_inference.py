"""End to end with real llama.cpp inference: sentence -> model -> call -> validation -> answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from testing.steering import CallAfterReasoning
from testing.steering import only_first
from testing.turn import chat_log_of
from testing.turn import check_calls_ran_or_were_refused

from .conftest import async_setup_agent


@pytest.fixture
def first_round_forces_a_call() -> CallAfterReasoning:
    """Make the random-weight model open a tool call in its first answer.

    The grammar then decides everything it writes inside the call. 160 tokens leave room for
    the reasoning and a call's name, not for the longest call the grammar allows (sampling under
    the demo home's grammar is slow): a call may be cut off, and is then refused.
    """
    return CallAfterReasoning(wants=only_first())


async def test_random_qwen35_model_call_is_parsed_validated_and_answered(
    hass: HomeAssistant,
    demo_home: None,
    qwen35_model_path: Path,
    first_round_forces_a_call: CallAfterReasoning,
) -> None:
    agent = await async_setup_agent(
        hass,
        qwen35_model_path,
        **{CONF_TEMPERATURE: 0.0, CONF_THINKING_BUDGET: 8, CONF_MAX_TOKENS: 160},
    )
    agent.steer(first_round_forces_a_call)

    result = await agent.ask("turn on the kitchen light")

    assert result.response.response_type is not None
    chat_log = chat_log_of(hass, result)
    check_calls_ran_or_were_refused(
        chat_log, {spec.name for spec in first_round_forces_a_call.steered[0].tools}
    )
    last = chat_log.content[-1]
    assert isinstance(last, conversation.AssistantContent)
    assert last.content


async def test_gemma_real_weights_answer_a_question(
    hass: HomeAssistant, demo_home: None, gemma_model_path: Path
) -> None:
    agent = await async_setup_agent(
        hass, gemma_model_path, **{CONF_TEMPERATURE: 0.0, "max_tokens": 24}
    )

    result = await agent.ask("What is the capital of France?")

    speech = result.response.speech["plain"]["speech"]
    assert isinstance(speech, str)
    assert speech.strip()
