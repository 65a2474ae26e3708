"""Safety options of version 1.2 entries: entities become registry ids, exempt tools API/tool."""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.safety.migration import migrated_tool_exemptions
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import issue_registry as ir

from .conftest import async_setup_entry_with_subentries
from .conftest import subentry
from .scripted_model import ScriptedWorker

type OldEntry = Callable[..., Awaitable[MockConfigEntry]]


@pytest.fixture
def old_entry(hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker) -> OldEntry:
    """Set up a version 1.2 entry on the demo home with one agent of these options."""

    async def setup(**options: Any) -> MockConfigEntry:
        return await async_setup_entry_with_subentries(
            hass,
            subentry(SUBENTRY_CONVERSATION, "Old agent", {**agent_data(), **options}),
            version=1,
            minor_version=2,
            data={CONF_MODEL_PATH: str(scripted_worker.info.path), CONF_BACKEND: "llama_cpp"},
        )

    return setup


async def test_named_entities_are_stored_by_registry_id(
    hass: HomeAssistant, old_entry: OldEntry
) -> None:
    entry = await old_entry(
        **{
            CONF_SENSITIVE_ENTITIES: ["switch.ac", "switch.not_registered"],
            CONF_EXEMPT_ENTITIES: ["light.bed_light"],
        },
    )

    data = next(iter(entry.subentries.values())).data
    entities = er.async_get(hass)
    ac, bed_light = entities.async_get("switch.ac"), entities.async_get("light.bed_light")
    assert ac is not None
    assert bed_light is not None
    assert data[CONF_SENSITIVE_ENTITIES] == [ac.id, "switch.not_registered"]
    assert data[CONF_EXEMPT_ENTITIES] == [bed_light.id]
    assert entry.minor_version == 3


async def test_bare_tool_exemptions_get_their_api_or_are_dropped_with_an_issue(
    hass: HomeAssistant, old_entry: OldEntry
) -> None:
    one = await old_entry(
        **{CONF_LLM_HASS_API: ["assist"], CONF_EXEMPT_TOOLS: ["script__goodnight"]}
    )
    assert next(iter(one.subentries.values())).data[CONF_EXEMPT_TOOLS] == [
        "assist/script__goodnight"
    ]
    assert not ir.async_get(hass).issues


def test_tool_exemptions_of_several_apis() -> None:
    kept, dropped = migrated_tool_exemptions(
        ["run_anything", "assist__script__goodnight", "other_api/tool", "x__y"],
        ["assist", "other_api"],
    )
    assert kept == ["assist/script__goodnight", "other_api/tool"]
    assert dropped == ["run_anything", "x__y"]
    assert migrated_tool_exemptions(["run_anything"], []) == ([], [])


async def test_a_dropped_exemption_is_a_repair_issue(
    hass: HomeAssistant, old_entry: OldEntry
) -> None:
    entry = await old_entry(
        **{CONF_LLM_HASS_API: ["assist", "other_api"], CONF_EXEMPT_TOOLS: ["run_anything"]}
    )
    subentry = next(iter(entry.subentries.values()))
    assert subentry.data[CONF_EXEMPT_TOOLS] == []
    issue = ir.async_get(hass).async_get_issue(
        DOMAIN, f"exempt_tools_dropped_{subentry.subentry_id}"
    )
    assert issue is not None
    assert issue.translation_placeholders == {"agent": "Old agent", "tools": "run_anything"}
