"""What a thirteenth walk in a real browser found wrong (Assist after a failed load, flows)."""

from __future__ import annotations

from pathlib import Path
import shutil
from typing import Any

import pytest

from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.conversation import LocalAgentConversationEntity
from custom_components.local_agent.engine.server.errors import ServerUnreachableError
from custom_components.local_agent.engine.server.errors import Unreachable
from custom_components.local_agent.flows import server as server_flow
from homeassistant import config_entries
from homeassistant.components import conversation
from homeassistant.components.conversation.agent_manager import async_get_agent
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.helpers import issue_registry as ir
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai

from .conftest import async_setup_agent
from .conftest import entry_state
from .conftest import speech
from .flow_helpers import async_check_server_address
from .flow_helpers import async_through_progress
from .flow_helpers import suggested_values
from .flow_helpers import translation

LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt")


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
    assert said.endswith("existiert nicht.")  # short: no advice that may not apply
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


# A server that takes every connection and never says a word.


async def test_the_server_dialog_says_what_it_waits_for(
    hass: HomeAssistant, silent_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server form sat greyed out with a spinning button for 10 s, saying nothing.

    While the dialog asks a server for its models it now shows a progress step that says so
    (and for how long at most); then the form comes back with the error and what was typed.
    """
    monkeypatch.setattr(server_flow, "MODEL_LIST_TIMEOUT", 2.0)
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "server"}
    )
    typed = {CONF_SERVER_URL: silent_server, CONF_SERVER_MODE: "chat", CONF_MAX_CONCURRENT: 3}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], typed)

    assert result["type"] is FlowResultType.SHOW_PROGRESS
    assert result["step_id"] == "server_check"
    assert result["progress_action"] == "server_list"
    assert result["description_placeholders"] == {"url": silent_server, "seconds": "2"}
    result = await async_through_progress(hass, result)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "server"
    assert result["errors"] == {"base": "server_no_answer"}
    assert suggested_values(result["data_schema"]) == typed


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_server_progress_is_said_in_every_language(language: str) -> None:
    """Its title and both texts exist in every language, with the same placeholders."""
    config = translation(language)["config"]
    assert config["step"]["server_check"]["title"]
    assert "{url}" in config["progress"]["server_list"]
    assert "{seconds}" in config["progress"]["server_list"]
    assert "{url}" in config["progress"]["server_validate"]


async def test_a_refused_connection_is_said_in_the_dialogs_words(
    hass: HomeAssistant, socket_enabled: None
) -> None:
    """A German server form said "Home Assistant erreicht den Server nicht (Connect call
    failed ('127.0.0.1', 9))": asyncio's English words, and a Python tuple, in the sentence.

    Why the connection failed, where the system says it plainly (refused, an unknown host, no
    answer to the connection), is a sentence of its own in every language.
    """
    result = await async_check_server_address(hass, "http://127.0.0.1:9")
    assert result["errors"] == {"base": "cannot_connect_refused"}


@pytest.mark.parametrize("why", [why for why in Unreachable if why is not Unreachable.OTHER])
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_reason_a_connection_failed_has_its_sentence(why: Unreachable, language: str) -> None:
    """Each plain reason has its error in every language, without the system's words."""
    key = server_flow.error_key(ServerUnreachableError("http://h:1", "the system's words", why))
    text = translation(language)["config"]["error"][key]
    assert "{" not in text


async def test_the_repairs_file_form_starts_from_the_entrys_path(
    hass: HomeAssistant, tmp_path: Path, qwen35_model_path: Path, repairs: Any
) -> None:
    """The repair "The model file of … is missing" showed its file field empty.

    The path was only in the text above it, so a user whose file was back (a disk mounted
    again, a copy restored) had to type it out again, and got "Not all required fields are
    filled in" for a plain submit. The field now holds the entry's path.
    """
    model = tmp_path / "model.gguf"
    shutil.copy(qwen35_model_path, model)
    agent = await async_setup_agent(hass, model)
    model.unlink()
    await _async_reload(hass, agent.entry.entry_id)
    [issue] = [
        issue
        for issue in ir.async_get(hass).issues.values()
        if issue.domain == DOMAIN and issue.translation_key == "model_missing"
    ]

    result = await repairs.async_init(DOMAIN, context={"issue_id": issue.issue_id})
    assert result["step_id"] == "local_file"
    assert suggested_values(result["data_schema"]) == {CONF_MODEL_PATH: str(model)}

    shutil.copy(qwen35_model_path, model)  # the file is back: a submit is enough
    result = await repairs.async_configure(result["flow_id"], {CONF_MODEL_PATH: str(model)})
    await hass.async_block_till_done()
    assert result["type"] == "create_entry"
    assert entry_state(agent.entry) is ConfigEntryState.LOADED


async def test_a_server_that_lists_no_model_is_said_without_english(
    hass: HomeAssistant, socket_enabled: None
) -> None:
    """A server that listed no model showed "Der Server bietet an: none." (English "none")."""
    async with serve_fake_openai(FakeOpenAI(models=[])) as fake:
        result = await hass.config_entries.flow.async_init(
            DOMAIN, context={"source": config_entries.SOURCE_USER}
        )
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {"next_step_id": "server"}
        )
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_SERVER_URL: fake.url, CONF_SERVER_MODE: "completions"}
        )
        result = await async_through_progress(hass, result)

    assert result["step_id"] == "server_model"
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    assert placeholders["models"] == "—"
