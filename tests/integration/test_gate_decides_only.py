"""The gate decides and the agent runs: a held tool asks the turn for its LLM API at the yes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest.mock import patch

from pytest_homeassistant_custom_component.common import MockUser

from custom_components.local_agent.const import CONF_HOME_TOOLS
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call


def offered(suffix: str, **arguments: Any) -> Callable[[SeenRequest], str]:
    """Write a call of the offered tool whose name ends with `suffix` (Assist's are prefixed)."""

    def write(request: SeenRequest) -> str:
        name = next(spec.name for spec in request.tools if spec.name.endswith(suffix))
        return answer(call(name, **arguments))

    return write


async def test_a_yes_to_a_tool_whose_api_is_gone_fails_and_says_why(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    audit: list[dict[str, Any]],
) -> None:
    async_expose_entity(hass, "conversation", "lock.front_door", True)
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_HOME_TOOLS: False, CONF_LLM_HASS_API: ["assist"]}
    )
    scripted_worker.will_write(offered("HassTurnOff", name="Front Door"))
    question = await agent.ask("unlock the front door", context=person)
    assert speech(question).endswith("Say yes to confirm.")

    with patch(
        "homeassistant.helpers.llm.async_get_api",
        side_effect=HomeAssistantError("API assist not found"),
    ):
        done = await agent.ask("yes", conversation_id=question.conversation_id, context=person)

    assert state(hass, "lock.front_door") == "locked"
    assert "API assist not found" in speech(done)
    assert [(record["outcome"], record.get("reason")) for record in audit][-2:] == [
        ("confirmed", None),
        ("failed", "API assist not found"),
    ]


async def test_a_sensitive_call_the_person_may_not_make_is_refused_never_asked(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    audit: list[dict[str, Any]],
) -> None:
    """The agent checks with the runner before the gate's question: a refusal, recorded."""
    async_expose_entity(hass, "conversation", "lock.front_door", True)
    user = MockUser().add_to_hass(hass)
    user.mock_policy({"entities": {"entity_ids": {"light.bed_light": True}}})
    scripted_worker.will_write(
        answer(call("lock", action="unlock", entity_id="lock.front_door")), answer("Sorry.")
    )

    result = await scripted_agent.ask("unlock the front door", context=Context(user_id=user.id))

    assert not result.continue_conversation
    assert "Say yes to confirm" not in speech(result)
    assert state(hass, "lock.front_door") == "locked"
    assert [(record["outcome"], record.get("reason")) for record in audit] == [
        ("refused", "You are not allowed to control Front Door.")
    ]
