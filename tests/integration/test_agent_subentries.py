"""Agents are subentries: adding, changing or removing one leaves the model and the others be."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import probatio
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.conversation import LocalAgentConversationEntity
from custom_components.local_agent.flows.subentry import default_agent_name
from custom_components.local_agent.flows.subentry_forms import SECRET_KEPT
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.components.conversation.const import DATA_COMPONENT as CONVERSATION_COMPONENT
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import CONF_NAME
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.data_entry_flow import section
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.json import json_dumps

from .conftest import async_remove_subentry
from .conftest import async_setup_agent
from .conftest import async_setup_entry_with_subentries
from .conftest import entity_of
from .conftest import friendly_name
from .conftest import subentry
from .flow_helpers import agent_form
from .flow_helpers import async_add_subentry
from .flow_helpers import suggested_values
from .scripted_model import ScriptedWorker


def agent_subentry(title: str) -> ConfigSubentryData:
    return subentry(SUBENTRY_CONVERSATION, title, agent_data())


def agent_of(hass: HomeAssistant, subentry_id: str) -> str:
    return entity_of(hass, "conversation", subentry_id)


def conversation_entity(hass: HomeAssistant, entity_id: str) -> LocalAgentConversationEntity:
    entity = hass.data[CONVERSATION_COMPONENT].get_entity(entity_id)
    assert isinstance(entity, LocalAgentConversationEntity)
    return entity


async def test_agents_change_without_reloading_the_model(
    hass: HomeAssistant, qwen35_model_path: Path, model_loads: list[Path]
) -> None:
    entry = await async_setup_entry_with_subentries(
        hass,
        agent_subentry("Kitchen"),
        agent_subentry("Hall"),
        title=qwen35_model_path.name,
        data={CONF_MODEL_PATH: str(qwen35_model_path)},
        unique_id=str(qwen35_model_path),
    )
    assert len(model_loads) == 1
    kitchen_id, hall_id = list(entry.subentries)
    kitchen, hall = agent_of(hass, kitchen_id), agent_of(hass, hall_id)
    worker = entry.runtime_data.worker
    seen: list[tuple[str, str | None]] = []

    @callback
    def record(event: Event[Any]) -> None:
        if event.data["entity_id"] in (kitchen, hall):
            new = event.data["new_state"]
            seen.append((event.data["entity_id"], new.state if new is not None else None))

    hass.bus.async_listen(EVENT_STATE_CHANGED, record)

    # Add a third agent.
    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)
    form = {**agent_data(), CONF_NAME: "Office"}
    form.pop(CONF_LLM_HASS_API)
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, form)
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    office_id = next(sid for sid, sub in entry.subentries.items() if sub.title == "Office")
    office = agent_of(hass, office_id)
    assert hass.states.get(office) is not None
    assert conversation_entity(hass, office).agent is not None

    # Change the first one: new name, thinking off.
    result = await entry.start_subentry_reconfigure_flow(hass, kitchen_id)
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        agent_form(hass, {**form, CONF_NAME: "Kitchen helper", CONF_THINKING: False}),
    )
    await hass.async_block_till_done()
    assert result["reason"] == "reconfigure_successful"
    agent = conversation_entity(hass, kitchen).agent
    assert agent is not None
    assert agent.options.thinking is False
    assert friendly_name(hass, kitchen) == "Kitchen helper"

    # Remove the second one.
    await async_remove_subentry(hass, entry, hall_id, hall)

    assert len(model_loads) == 1
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.worker is worker
    # The agents were never unavailable; the only state change is the rename.
    assert (kitchen, "unavailable") not in seen
    assert (hall, "unavailable") not in seen
    assert [entity for entity, _ in seen if entity == hall] == [hall]  # its removal

    # An engine option is a change of the model: that one reloads it.
    result = await hass.config_entries.options.async_init(entry.entry_id)
    await hass.config_entries.options.async_configure(
        result["flow_id"], {CONF_CONTEXT_SIZE: 2048, CONF_THREADS: 1, CONF_FLASH_ATTENTION: "off"}
    )
    await hass.async_block_till_done()
    assert len(model_loads) == 2


async def test_default_agent_names_are_unique_and_name_the_model(hass: HomeAssistant) -> None:
    assert default_agent_name(hass, "botpsy-0.8b-q8_0.gguf") == "Local Agent (botpsy-0.8b-q8_0)"
    for title, agents in (("BotPsy-0.8B Q8_0", ["Local Agent (BotPsy-0.8B Q8_0)"]), ("x", [])):
        MockConfigEntry(
            domain=DOMAIN,
            title=title,
            subentries_data=[agent_subentry(name) for name in agents],
        ).add_to_hass(hass)

    assert default_agent_name(hass, "BotPsy-0.8B Q8_0") == "Local Agent (BotPsy-0.8B Q8_0) 2"
    assert default_agent_name(hass, "Qwen3.5-2B Q4_K_M") == "Local Agent (Qwen3.5-2B Q4_K_M)"


async def test_new_agent_form_suggests_a_name_not_taken(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    entry = await async_setup_entry_with_subentries(
        hass,
        agent_subentry("Local Agent (Tiny Qwen)"),
        title="Tiny Qwen",
        data={CONF_MODEL_PATH: str(qwen35_model_path)},
        unique_id=str(qwen35_model_path),
    )

    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)

    assert result["type"] is FlowResultType.FORM
    suggested = suggested_values(result["data_schema"])
    assert suggested[CONF_NAME] == "Local Agent (Tiny Qwen) 2"


async def test_agent_form_has_sections_and_stores_flat_data(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    entry = (await async_setup_agent(hass, qwen35_model_path)).entry
    agent = {
        "prompt": "Be brief.",
        "home_tools": False,
        "llm_hass_api": ["assist"],
        "max_tool_rounds": 3,
        "model_phrases_answers": True,
    }
    model = {
        "thinking": False,
        "thinking_budget": 128,
        "temperature": 0.7,
        "top_p": 0.9,
        "top_k": 40,
        "min_p": 0.05,
        "presence_penalty": 1.0,
        "max_tokens": 512,
        "history_tokens": 2000,
    }
    safety = {
        "sensitive_domains": ["lock", "valve"],
        "sensitive_cover_classes": ["garage"],
        "sensitive_entities": ["switch.front_door"],
        "exempt_entities": ["script.goodnight"],
        "exempt_tools": ["assist/script__goodnight"],
        "confirmation_pin": "1234",
        "allow_unattended": True,
        "confirmation_timeout": 60,
    }

    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)
    assert result["type"] is FlowResultType.FORM
    sections = {
        str(key): sorted(str(field) for field in value.schema.schema)
        for key, value in result["data_schema"].schema.items()
        if isinstance(value, section)
    }
    assert sections == {"agent": sorted(agent), "model": sorted(model), "safety": sorted(safety)}
    # A new agent's form shows the defaults, each in its section.
    shown = suggested_values(result["data_schema"])
    defaults = agent_data()
    assert shown["model"] == {key: defaults[key] for key in model}
    assert shown["safety"]["sensitive_domains"] == defaults["sensitive_domains"]

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {CONF_NAME: "Sectioned", "agent": agent, "model": model, "safety": safety},
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    subentry = next(sub for sub in entry.subentries.values() if sub.title == "Sectioned")
    # Stored flat, exactly as submitted: the agent and older subentries never see a section.
    assert dict(subentry.data) == {**agent, **model, **safety}

    # Reconfiguring shows the stored values in their sections (the PIN masked).
    result = await entry.start_subentry_reconfigure_flow(hass, subentry.subentry_id)
    masked = {**safety, "confirmation_pin": SECRET_KEPT}
    assert suggested_values(result["data_schema"]) == {
        CONF_NAME: "Sectioned",
        "agent": agent,
        "model": model,
        "safety": masked,
    }
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_NAME: "Sectioned",
            "agent": agent,
            "model": {**model, "top_k": 10.0},
            "safety": masked,
        },
    )
    await hass.async_block_till_done()
    assert result["reason"] == "reconfigure_successful"
    stored = entry.subentries[subentry.subentry_id].data
    assert stored == {**agent, **model, "top_k": 10, **safety}
    assert isinstance(stored["top_k"], int)


async def test_the_form_stores_entities_by_registry_id_and_refuses_a_bare_tool_name(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    entry = (await async_setup_agent(hass, scripted_worker.info.path)).entry
    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)
    flat = {
        **agent_data(),
        CONF_NAME: "Guarded",
        "sensitive_entities": ["switch.ac"],
        "exempt_tools": ["script__goodnight"],
    }

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, flat)
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "exempt_tool_format"}
    # The safety section with the field at fault is open, not folded away again.
    form = result["data_schema"]
    assert form is not None
    sections = {str(key): value for key, value in form.schema.items() if isinstance(value, section)}
    assert sections["safety"].options["collapsed"] is False
    # Nothing typed is lost.
    assert suggested_values(result["data_schema"])["safety"]["exempt_tools"] == [
        "script__goodnight"
    ]

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, {**flat, "exempt_tools": ["assist/script__goodnight"]})
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    subentry = next(sub for sub in entry.subentries.values() if sub.title == "Guarded")
    registered = er.async_get(hass).async_get("switch.ac")
    assert registered is not None
    assert subentry.data["sensitive_entities"] == [registered.id]
    assert subentry.data["exempt_tools"] == ["assist/script__goodnight"]


def as_sent_to_the_browser(result: Mapping[str, Any]) -> str:
    """The form as Home Assistant's flow views send it (helpers/data_entry_flow.py: the schema
    as a field list, suggested values included), not Python's repr with its memory addresses."""
    sent = dict(result)
    sent["data_schema"] = probatio.to_field_list(
        result["data_schema"], custom_serializer=cv.custom_serializer
    )
    return json_dumps(sent)


async def test_the_saved_pin_never_goes_back_to_the_browser(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    entry = (await async_setup_agent(hass, scripted_worker.info.path)).entry
    flat = {**agent_data(), CONF_NAME: "Pinned", "confirmation_pin": "8351"}
    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)
    await hass.config_entries.subentries.async_configure(result["flow_id"], agent_form(hass, flat))
    pinned = next(sub for sub in entry.subentries.values() if sub.title == "Pinned")

    async def reconfigure(**changes: Any) -> dict[str, Any]:
        """Submit the form as shown, with `changes`; return the stored data."""
        shown = await entry.start_subentry_reconfigure_flow(hass, pinned.subentry_id)
        sent = as_sent_to_the_browser(shown)
        assert "8351" not in sent
        assert SECRET_KEPT in sent  # what the field shows instead
        form = suggested_values(shown["data_schema"])
        form["safety"] = {**form["safety"], **changes}
        result = await hass.config_entries.subentries.async_configure(shown["flow_id"], form)
        await hass.async_block_till_done()
        assert result["reason"] == "reconfigure_successful"
        return dict(entry.subentries[pinned.subentry_id].data)

    # The form as shown keeps the PIN; a new one replaces it; an emptied field clears it.
    assert (await reconfigure())["confirmation_pin"] == "8351"
    assert (await reconfigure(confirmation_pin="2468"))["confirmation_pin"] == "2468"
    assert (await reconfigure(confirmation_pin=""))["confirmation_pin"] == ""

    # A new PIN typed along a mistake is masked when the form comes back, and kept.
    shown = await entry.start_subentry_reconfigure_flow(hass, pinned.subentry_id)
    form = suggested_values(shown["data_schema"])
    form["safety"] = {**form["safety"], "confirmation_pin": "9753", "exempt_tools": ["bare"]}
    again = await hass.config_entries.subentries.async_configure(shown["flow_id"], form)
    assert again["errors"] == {"base": "exempt_tool_format"}
    assert "9753" not in as_sent_to_the_browser(again)
    form = suggested_values(again["data_schema"])
    assert form["safety"]["confirmation_pin"] == SECRET_KEPT
    form["safety"]["exempt_tools"] = []
    done = await hass.config_entries.subentries.async_configure(again["flow_id"], form)
    assert done["reason"] == "reconfigure_successful"
    assert entry.subentries[pinned.subentry_id].data["confirmation_pin"] == "9753"


async def test_a_pin_that_could_never_be_said_is_refused_and_nothing_is_lost(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    """A PIN is said digit by digit: letters or a too short one get a clear error."""
    entry = (await async_setup_agent(hass, scripted_worker.info.path)).entry
    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)
    flat = {**agent_data(), CONF_NAME: "Pinned"}

    for wrong in ("abcd", "12", "12 34", "1234567890123"):
        result = await hass.config_entries.subentries.async_configure(
            result["flow_id"], agent_form(hass, {**flat, "confirmation_pin": wrong})
        )
        assert result["type"] is FlowResultType.FORM
        assert result["errors"] == {"base": "pin_format"}
        shown = suggested_values(result["data_schema"])
        # The name stays; the refused PIN is not shown back (test_browser_walk_fixes.py).
        assert (shown[CONF_NAME], shown["safety"]["confirmation_pin"]) == ("Pinned", "")
    assert not [sub for sub in entry.subentries.values() if sub.title == "Pinned"]

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, {**flat, "confirmation_pin": "4821"})
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    pinned = next(sub for sub in entry.subentries.values() if sub.title == "Pinned")
    assert pinned.data["confirmation_pin"] == "4821"
