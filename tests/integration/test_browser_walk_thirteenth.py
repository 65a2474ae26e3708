"""What a thirteenth walk in a real browser found wrong (Assist after a failed load, flows)."""

from __future__ import annotations

import json
from pathlib import Path
import shutil
from typing import Any

from custom_components.local_agent.conversation import LocalAgentConversationEntity
from homeassistant.components import conversation
from homeassistant.components.conversation.agent_manager import async_get_agent
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent

from .conftest import async_setup_agent
from .conftest import entry_state
from .conftest import speech

TRANSLATIONS = Path(__file__).resolve().parents[2] / "custom_components/local_agent/translations"
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt")


def translation(language: str) -> dict[str, Any]:
    """One language's translation file."""
    loaded: dict[str, Any] = json.loads(
        (TRANSLATIONS / f"{language}.json").read_text(encoding="utf-8")
    )
    return loaded


async def _async_reload(hass: HomeAssistant, entry_id: str) -> None:
    await hass.config_entries.async_reload(entry_id)
    await hass.async_block_till_done()


async def test_an_agent_whose_model_file_is_gone_says_why_in_the_users_language(
    hass: HomeAssistant, tmp_path: Path, qwen35_model_path: Path
) -> None:
    """The model file removed, the entry reloaded: Assist showed "Oops, an error has occurred".

    The entry waits for its file (setup retry), so its agent's entity was gone, the pipeline
    found no agent and the frontend could only say core's generic "Oops". The agent now says
    that its model is not loaded and why, in the dialog's language, until the entry loads.
    """
    model = tmp_path / "model.gguf"
    shutil.copy(qwen35_model_path, model)
    agent = await async_setup_agent(hass, model)
    entity_id = agent.entity_id
    model.unlink()
    await _async_reload(hass, agent.entry.entry_id)
    assert entry_state(agent.entry) is ConfigEntryState.SETUP_RETRY

    # What the Assist pipeline asks before it runs: before, None ("engine … is not found").
    assert conversation.async_get_agent_info(hass, entity_id) is not None
    result = await conversation.async_converse(
        hass, "Schalte das Licht in der Küche ein", None, Context(), "de", agent_id=entity_id
    )
    said = speech(result)
    assert result.response.response_type is intent.IntentResponseType.ERROR
    title = agent.entry.title
    assert said.startswith(f"Ich kann nicht antworten: Das Modell {title} ist nicht geladen.")
    assert f"Die Modelldatei {model} existiert nicht." in said
    assert "Einstellungen → Reparaturen" in said
    state = hass.states.get(entity_id)
    assert state is not None
    assert state.state == STATE_UNAVAILABLE
    # Still the entry's own registered entity and device: nothing new was registered.
    registered = er.async_get(hass).async_get(entity_id)
    assert registered is not None
    assert registered.config_entry_id == agent.entry.entry_id
    assert registered.device_id is not None

    # The file is back: the entry loads, and its own agent takes the same entity id again.
    shutil.copy(qwen35_model_path, model)
    await _async_reload(hass, agent.entry.entry_id)
    assert entry_state(agent.entry) is ConfigEntryState.LOADED
    assert isinstance(async_get_agent(hass, entity_id), LocalAgentConversationEntity)
    assert len(er.async_entries_for_config_entry(er.async_get(hass), agent.entry.entry_id)) == 1


async def test_an_agent_that_stands_in_goes_with_its_entry(
    hass: HomeAssistant, tmp_path: Path, qwen35_model_path: Path
) -> None:
    """Removing (or disabling) an entry that waits for its file leaves no agent behind."""
    model = tmp_path / "model.gguf"
    shutil.copy(qwen35_model_path, model)
    agent = await async_setup_agent(hass, model)
    model.unlink()
    await _async_reload(hass, agent.entry.entry_id)
    assert conversation.async_get_agent_info(hass, agent.entity_id) is not None

    assert await hass.config_entries.async_remove(agent.entry.entry_id)
    await hass.async_block_till_done()

    assert conversation.async_get_agent_info(hass, agent.entity_id) is None
    assert hass.states.get(agent.entity_id) is None
