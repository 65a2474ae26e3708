"""What a twelfth walk in a real browser found wrong (Assist, options, AI task, error paths)."""

from __future__ import annotations

from pathlib import Path
import re
import time
from typing import Any

import pytest

from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.server.settings import DEFAULT_READ_TIMEOUT
from custom_components.local_agent.flows import progress
from custom_components.local_agent.flows import server as server_flow
from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from custom_components.local_agent.safety.confirmation import Reply
from custom_components.local_agent.safety.confirmation import classify_reply
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant import config_entries
from homeassistant.const import CONF_NAME
from homeassistant.const import CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from testing import demo_model
from testing.stand_in import stand_in_engines

from .conftest import async_setup_agent
from .conftest import async_setup_entry_with_agent
from .conftest import generate_data
from .flow_helpers import agent_form
from .flow_helpers import async_add_subentry
from .flow_helpers import suggested_values
from .flow_helpers import translation
from .scripted_model import ScriptedWorker
from .scripted_model import answer


@pytest.mark.parametrize(
    ("language", "reply"),
    [
        ("en", "maybe later"),
        ("de", "vielleicht später"),
        ("fr", "peut-être plus tard"),
        ("es", "quizás más tarde"),
        ("it", "forse più tardi"),
        ("nl", "misschien later"),
        ("pt", "talvez mais tarde"),
    ],
)
def test_maybe_later_is_a_no_in_every_language(language: str, reply: str) -> None:
    """In English "maybe later" got "Okay, I won't do that."; "vielleicht später" did not.

    A German or French held question answered "maybe later" was read as something else: the
    answer said the action was not done "since your answer was not a plain yes" and passed
    the reply to the model, which answered it too. The everyday no is a no in each language.
    """
    assert classify_reply(reply, language) is Reply.NO


async def test_a_silent_server_is_named_soon_and_in_the_dialogs_words(
    hass: HomeAssistant, silent_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server address that takes the connection and never answers spun for 60 s.

    The dialog showed its spinner (and the previous error) for the whole read timeout, then
    said in French "Home Assistant ne peut pas joindre le serveur (nothing received for
    60 s)": untrue (it was reached) and with English in it. The list of models comes at once
    from any model server, so the dialog waits a short time for it, and says in its own words
    that the server took the connection and did not answer.
    """
    assert server_flow.MODEL_LIST_TIMEOUT <= 10 < DEFAULT_READ_TIMEOUT
    monkeypatch.setattr(server_flow, "MODEL_LIST_TIMEOUT", 0.3)
    # The answer is awaited in the step, not behind a progress step, however busy the machine.
    monkeypatch.setattr(progress, "PROGRESS_GRACE", DEFAULT_READ_TIMEOUT)
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "server"}
    )
    started = time.monotonic()
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        {CONF_SERVER_URL: silent_server, CONF_SERVER_MODE: "completions", CONF_MAX_CONCURRENT: 1},
    )
    # Not the read timeout's wait; a busy machine may take seconds for the rest of the step.
    assert time.monotonic() - started < DEFAULT_READ_TIMEOUT / 2
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "server_no_answer"}
    for language in ("en", "de", "fr", "es", "it", "nl", "pt"):
        text = translation(language)["config"]["error"]["server_no_answer"]
        assert "{" not in text  # nothing English put in by a placeholder


async def test_a_local_models_answer_without_the_structure_gives_no_servers_advice(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    """A "Generate data" action with a structure on a local model told the user to use a server.

    The demo model wrote no JSON, and the error read "The model server returned data … Use a
    llama.cpp server in completions mode": there was no server. A local model's answer that
    misses the structure says so without advice that does not apply.
    """
    agent = await async_setup_entry_with_agent(
        hass,
        {},
        subentry_type=SUBENTRY_AI_TASK,
        data={CONF_MODEL_PATH: str(scripted_worker.info.path)},
        unique_id=str(scripted_worker.info.path),
    )
    scripted_worker.will_write(answer("Blue, I think."))
    structure = {"color": {"selector": {"text": {}}, "required": True}}
    with pytest.raises(HomeAssistantError) as caught:
        await generate_data(hass, agent.entity_id, instructions="A color", structure=structure)
    assert caught.value.translation_key == "structure_invalid_local"
    for language in ("en", "de", "fr", "es", "it", "nl", "pt"):
        text = translation(language)["exceptions"]["structure_invalid_local"]["message"]
        assert "server" not in text.casefold().replace("serveur", "server")
        assert "servidor" not in text


@pytest.mark.parametrize("language", ["de", "fr", "es", "it", "nl", "pt"])
async def test_the_context_size_in_the_engine_options_has_no_english_thousands_comma(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, language: str
) -> None:
    """The French engine options read "Le contexte du modèle contient actuellement 8,192 jetons".

    A comma is the decimal mark in most of these languages ("8,192" reads as eight point
    something). The dialog does not know the user's language, so the number has no separator.
    """
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    result = await hass.config_entries.options.async_init(agent.entry.entry_id)
    assert result["step_id"] == "init"
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    shown = placeholders["context_now"]
    assert shown == str(agent.entry.runtime_data.worker.info.n_ctx)
    assert "{context_now}" in translation(language)["options"]["step"]["init"]["description"]


@pytest.mark.parametrize("language", ["en", "fr", "de"])
async def test_instructions_that_fail_to_render_are_named_in_the_conversations_language(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, language: str
) -> None:
    """A prompt that passes the form's syntax check and fails when rendered ({{ 1/0 }}).

    Every sentence to the agent then got core's "Sorry, I had a problem with my template",
    in English in a French conversation, with nothing about what to fix. The agent says in
    the conversation's language that its instructions fail and where to fix them.
    """
    agent = await async_setup_agent(hass, scripted_worker.info.path, prompt="You help. {{ 1 / 0 }}")
    result = await agent.ask("turn on the light", language=language)
    speech = agent.chat_log_text(result)
    assert "Sorry, I had a problem" not in speech
    strings = translation(language)["exceptions"]["prompt_render_failed"]["message"]
    assert speech == strings
    assert not scripted_worker.requests  # the model never saw a half-made prompt


async def test_a_missing_llm_api_is_named_in_the_conversations_language(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    """An LLM API that is gone (its integration removed) gave "Error preparing LLM API"."""
    agent = await async_setup_agent(hass, scripted_worker.info.path, llm_hass_api=["gone_api"])
    result = await agent.ask("allume la lumière", language="fr")
    speech = agent.chat_log_text(result)
    assert speech == translation("fr")["exceptions"]["llm_api_unavailable"]["message"]


@pytest.mark.parametrize("thinking", [True, False])
async def test_the_demo_model_writes_a_generate_data_structure(
    hass: HomeAssistant, tmp_path: Path, thinking: bool
) -> None:
    """With --demo-model, "Generate data" with a structure always failed (the demo wrote prose).

    The walk's AI task could show only an error; a model in process writes under the
    structure's grammar, so the demo writes the plainest data of the structure.
    """
    model = tmp_path / "demo.gguf"
    await hass.async_add_executor_job(demo_model.write_demo_model, model)
    engine = demo_model.demo_engine(model)
    engine.thinking_seconds = 0
    hass.data[LOCAL_ENGINES] = stand_in_engines(engine)
    task = await async_setup_entry_with_agent(
        hass,
        {"thinking": thinking},
        subentry_type=SUBENTRY_AI_TASK,
        data={CONF_MODEL_PATH: str(model)},
        unique_id=str(model),
    )
    structure = {
        "urgent": {"selector": {"boolean": {}}, "required": True},
        "room": {"selector": {"text": {}}, "required": True},
        "count": {"selector": {"number": {"min": 1, "max": 10}}, "required": True},
        "kind": {"selector": {"select": {"options": ["alarm", "info"]}}, "required": True},
    }
    result = await generate_data(hass, task.entity_id, instructions="Smoke!", structure=structure)
    assert result["data"] == {"urgent": False, "room": "demo", "count": 1, "kind": "alarm"}


def test_french_punctuation_keeps_its_space_on_the_line() -> None:
    """A French bubble broke "Déverrouiller Front Door" from ": pas fait, car …".

    French sets a space before ":", ";", "?" and "!"; the file writes it as a no-break space
    (as in "Déverrouiller Front Door ?"), but a few sentences had a plain one, which a narrow
    Assist bubble may break at, leaving the mark alone at the start of a line.
    """

    def texts(tree: dict[str, Any]) -> list[str]:
        found: list[str] = []
        for value in tree.values():
            found.extend(texts(value) if isinstance(value, dict) else [str(value)])
        return found

    loose = [text for text in texts(translation("fr")) if re.search(r"\S [:;?!](\s|$)", text)]
    assert not loose


async def test_instructions_that_are_no_template_are_refused_in_the_dialogs_words(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    """A German agent form said "invalid template (TemplateAssertionError: No filter named
    'nosuchfilter'.) at 'agent.prompt'": core's message, English, with the field's path.

    The form refuses such instructions with its own translated error, and keeps everything
    typed (the instructions too, to be corrected).
    """
    entry = (await async_setup_agent(hass, scripted_worker.info.path)).entry
    typed = "You help. {{ 1 | nosuchfilter }}"
    flat = {**agent_data(), CONF_NAME: "Templated", CONF_PROMPT: typed}
    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, flat)
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "prompt_invalid"}
    shown = suggested_values(result["data_schema"])
    assert shown["agent"][CONF_PROMPT] == typed
    assert shown[CONF_NAME] == "Templated"
    for language in ("en", "de", "fr", "es", "it", "nl", "pt"):
        errors = translation(language)["config_subentries"]["conversation"]["error"]
        assert "{" not in errors["prompt_invalid"]  # the frontend would read it as a placeholder
    # Corrected, it is kept; a template that renders is still a template.
    shown["agent"][CONF_PROMPT] = "You help {{ ha_name }}."
    done = await hass.config_entries.subentries.async_configure(result["flow_id"], shown)
    assert done["type"] is FlowResultType.CREATE_ENTRY
