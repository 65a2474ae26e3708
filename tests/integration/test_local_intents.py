"""'Prefer handling commands locally' skips the agent's questions: a repair issue says so.

Assist pipelines are real (assist_pipeline's store); the checks follow its changes, exposure
and the entity registry, never a timer.
"""

from __future__ import annotations

from typing import Any

import pytest

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.runtime.issues import PREFER_LOCAL_ISSUE as ISSUE_ID
from homeassistant.components.assist_pipeline import async_get_pipelines
from homeassistant.components.assist_pipeline.pipeline import KEY_ASSIST_PIPELINE
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component

from .conftest import Agent
from .conftest import async_setup_agent
from .scripted_model import ScriptedWorker


@pytest.fixture
async def pipelines(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "assist_pipeline", {})


async def add_pipeline(
    hass: HomeAssistant, name: str, engine: str, *, prefer_local: bool = True
) -> str:
    store = hass.data[KEY_ASSIST_PIPELINE].pipeline_store
    pipeline = await store.async_create_item(
        {
            "conversation_engine": engine,
            "conversation_language": "en",
            "language": "en",
            "name": name,
            "stt_engine": None,
            "stt_language": None,
            "tts_engine": None,
            "tts_language": None,
            "tts_voice": None,
            "wake_word_entity": None,
            "wake_word_id": None,
            "prefer_local_intents": prefer_local,
        }
    )
    await hass.async_block_till_done()
    return str(pipeline.id)


def issue(hass: HomeAssistant) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID)


def prefers_local(hass: HomeAssistant, pipeline_id: str) -> bool:
    return next(p for p in async_get_pipelines(hass) if p.id == pipeline_id).prefer_local_intents


@pytest.fixture
async def agent(
    hass: HomeAssistant, pipelines: None, demo_home: None, scripted_worker: ScriptedWorker
) -> Agent:
    """An agent on the demo home: the front door lock is exposed."""
    return await async_setup_agent(hass, scripted_worker.info.path)


async def test_a_pipeline_that_prefers_local_intents_raises_the_issue(
    hass: HomeAssistant, agent: Agent
) -> None:
    await add_pipeline(hass, "Kitchen voice", agent.entity_id)

    raised = issue(hass)
    assert raised is not None
    assert raised.is_fixable
    assert raised.translation_placeholders is not None
    assert "Kitchen voice" in raised.translation_placeholders["pipelines"]
    assert "Front Door" in raised.translation_placeholders["entities"]


async def test_no_issue_without_the_option_another_agent_or_a_sensitive_entity(
    hass: HomeAssistant, agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    await add_pipeline(hass, "Off", agent.entity_id, prefer_local=False)
    await add_pipeline(hass, "Core's agent", "conversation.home_assistant")
    assert issue(hass) is None

    relaxed = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_EXEMPT_ENTITIES: ["lock.front_door"]}
    )
    await add_pipeline(hass, "Relaxed", relaxed.entity_id)
    assert issue(hass) is None


async def test_exposure_changes_raise_and_clear_the_issue(
    hass: HomeAssistant, agent: Agent
) -> None:
    await add_pipeline(hass, "Hall", agent.entity_id)
    assert issue(hass) is not None

    async_expose_entity(hass, "conversation", "lock.front_door", False)
    await hass.async_block_till_done()
    assert issue(hass) is None

    async_expose_entity(hass, "conversation", "lock.front_door", True)
    await hass.async_block_till_done()
    assert issue(hass) is not None


async def test_the_fix_turns_the_option_off_in_those_pipelines(
    hass: HomeAssistant, agent: Agent, repairs: Any
) -> None:
    first = await add_pipeline(hass, "Hall", agent.entity_id)
    second = await add_pipeline(hass, "Garage", agent.entity_id)
    other = await add_pipeline(hass, "Core's", "conversation.home_assistant")

    result = await repairs.async_init(DOMAIN, context={"issue_id": ISSUE_ID})
    assert result["type"] == "menu"
    assert "Hall" in result["description_placeholders"]["pipelines"]
    result = await repairs.async_configure(result["flow_id"], {"next_step_id": "turn_off"})
    await hass.async_block_till_done()

    assert result["type"] == "create_entry"
    assert not prefers_local(hass, first)
    assert not prefers_local(hass, second)
    assert prefers_local(hass, other)  # not one of ours: left alone
    assert issue(hass) is None


async def test_keeping_it_on_knowingly_is_remembered_until_it_was_off(
    hass: HomeAssistant, agent: Agent, repairs: Any
) -> None:
    pipeline_id = await add_pipeline(hass, "Hall", agent.entity_id)
    result = await repairs.async_init(DOMAIN, context={"issue_id": ISSUE_ID})
    await repairs.async_configure(result["flow_id"], {"next_step_id": "keep_on"})
    await hass.async_block_till_done()
    assert issue(hass) is None
    assert prefers_local(hass, pipeline_id)

    # Still accepted after any other change...
    async_expose_entity(hass, "conversation", "light.bed_light", False)
    await hass.async_block_till_done()
    assert issue(hass) is None

    # ...but a pipeline switched off and on again is asked about again.
    store = hass.data[KEY_ASSIST_PIPELINE].pipeline_store
    item = next(p for p in async_get_pipelines(hass) if p.id == pipeline_id)
    for value in (False, True):
        updates = {**item.to_json(), "prefer_local_intents": value}
        updates.pop("id")
        await store.async_update_item(pipeline_id, updates)
        await hass.async_block_till_done()
    assert issue(hass) is not None


async def test_unloading_the_last_entry_drops_the_issue(hass: HomeAssistant, agent: Agent) -> None:
    await add_pipeline(hass, "Hall", agent.entity_id)
    assert issue(hass) is not None

    assert await hass.config_entries.async_unload(agent.entry.entry_id)
    await hass.async_block_till_done()

    assert issue(hass) is None


async def test_pipelines_set_up_after_the_agent_are_followed(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    assert await async_setup_component(hass, "assist_pipeline", {})
    await hass.async_block_till_done()

    await add_pipeline(hass, "Late", agent.entity_id)

    assert issue(hass) is not None
