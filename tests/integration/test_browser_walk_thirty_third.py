"""What a thirty-third walk in a real browser found wrong (a new user in English, then German
and Dutch: adding a model file, the engine options, a new agent and an AI task, Assist).

- **Hole.** A number typed outside its field's range (999 threads where the box goes to
  256, a context of 300000, 3 seconds to answer a confirmation question, a temperature of 3) was
  refused by Home Assistant's own number selector before the flow saw it: the German dialog
  showed "Value 999.0 is too large" at the field, in English and with a ".0" nobody typed, and
  every other error of the form (a fixed context below 2048 typed with it) was not said.
  **Found.** Every number box of every form (engine options, server and its options, agent,
  AI task) takes any number; the form checks the range itself and says, in the dialog's
  language, "999 liegt außerhalb dessen, was dieses Feld annimmt: von 0 bis 256." at the field
  (in the agent form, whose fields are in sections, at the top with the sections open;
  checked again in the browser, German). The
  form keeps what was typed and saves nothing. The engine options say their own words first:
  999 threads is "Home Assistant can use N CPU cores here", next to the context's error.
- **Guards (passed at once).** The walk's other stops said what they should: a missing path is
  named at the field and the path stays; a PIN of letters is refused with every typed value
  kept; Assist asks "Unlock Front Door? Say yes to confirm." and "yes" unlocks it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import probatio
import pytest

from custom_components.local_agent.const import CONF_CONFIRMATION_TIMEOUT
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_KEY_CACHE
from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_READ_TIMEOUT
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.flows import server as server_flow
from custom_components.local_agent.flows.selectors import OUT_OF_RANGE
from custom_components.local_agent.flows.selectors import NumberBox
from custom_components.local_agent.flows.subentry_forms import SECTION_SAFETY
from custom_components.local_agent.flows.subentry_forms import agent_schema
from custom_components.local_agent.flows.subentry_forms import ai_task_schema
from homeassistant import config_entries
from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.data_entry_flow import section
from homeassistant.helpers.selector import NumberSelector
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai

from .conftest import async_setup_agent
from .flow_helpers import async_add_subentry
from .flow_helpers import suggested_values
from .flow_helpers import translation
from .server.conftest import async_setup_server_agent


def said(language: str, where: tuple[str, ...], result: Any) -> str:
    """The out-of-range error as the dialog shows it in `language` (`where`: its flow's part
    of the translation file)."""
    texts: Any = translation(language)
    for key in where:
        texts = texts[key]
    return str(texts["error"][OUT_OF_RANGE]).format(**result["description_placeholders"])


def number_fields(schema: probatio.Schema) -> list[tuple[str, object]]:
    """Every number field of a form, in its sections too."""
    found: list[tuple[str, object]] = []
    for key, value in schema.schema.items():
        if isinstance(value, section):
            found += number_fields(value.schema)
        elif isinstance(value, NumberSelector):
            found.append((str(key), value))
    return found


def test_every_number_field_leaves_its_range_to_the_form(hass: HomeAssistant) -> None:
    """Core's number selector says "Value 3.0 is too small" in English, before any flow."""
    forms = (
        agent_schema(hass),
        ai_task_schema(hass),
        server_flow.SERVER_SCHEMA,
        server_flow.OPTIONS_SCHEMA,
    )
    fields = [field for form in forms for field in number_fields(form)]

    assert fields
    assert [name for name, field in fields if not isinstance(field, NumberBox)] == []


@pytest.mark.parametrize("language", ["de", "nl"])
async def test_the_engine_options_say_a_number_out_of_range_in_the_dialogs_language(
    hass: HomeAssistant, qwen35_model_path: Path, language: str
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path)
    before = dict(agent.entry.options)
    cores = os.process_cpu_count() or os.cpu_count() or 1
    result = await hass.config_entries.options.async_init(agent.entry.entry_id)
    form = {CONF_FLASH_ATTENTION: "auto", CONF_KEY_CACHE: "auto"}

    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {**form, CONF_CONTEXT_SIZE: 1000.0, CONF_THREADS: 999.0}
    )

    assert result["errors"] == {
        CONF_CONTEXT_SIZE: "context_too_small",
        CONF_THREADS: "too_many_threads",
    }
    assert result["description_placeholders"]
    assert result["description_placeholders"]["cores"] == str(cores)

    # (Below the range: a context above it is past the model's training context, which the
    # form names in its own words, mend65.)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {**form, CONF_CONTEXT_SIZE: -256.0, CONF_THREADS: 0.0}
    )

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_CONTEXT_SIZE: OUT_OF_RANGE}
    text = said(language, ("options",), result)
    assert "-256" in text
    assert "262144" in text
    assert ".0" not in text
    assert suggested_values(result["data_schema"])[CONF_CONTEXT_SIZE] == -256
    assert agent.entry.options == before


@pytest.mark.parametrize(
    ("language", "told"),
    [("de", "3 liegt außerhalb"), ("nl", "3 valt buiten")],
)
async def test_a_new_agent_says_a_number_out_of_range_and_keeps_the_form(
    hass: HomeAssistant, qwen35_model_path: Path, language: str, told: str
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path)
    result = await async_add_subentry(hass, agent.entry.entry_id, SUBENTRY_CONVERSATION)
    form = suggested_values(result["data_schema"])
    form[CONF_NAME] = "Küche"
    form[SECTION_SAFETY][CONF_CONFIRMATION_TIMEOUT] = 3.0

    result = await hass.config_entries.subentries.async_configure(result["flow_id"], form)

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": OUT_OF_RANGE}
    text = said(language, ("config_subentries", "conversation"), result)
    assert text.startswith(told)
    assert "von 5 bis 300" in text or "van 5 tot 300" in text
    shown = suggested_values(result["data_schema"])
    assert shown[CONF_NAME] == "Küche"
    assert shown[SECTION_SAFETY][CONF_CONFIRMATION_TIMEOUT] == 3
    assert len(agent.entry.subentries) == 1


async def test_a_new_ai_task_says_a_temperature_out_of_range_at_its_field(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path)
    result = await async_add_subentry(hass, agent.entry.entry_id, SUBENTRY_AI_TASK)
    form = {**suggested_values(result["data_schema"]), CONF_TEMPERATURE: 3.0}

    result = await hass.config_entries.subentries.async_configure(result["flow_id"], form)

    assert result["errors"] == {CONF_TEMPERATURE: OUT_OF_RANGE}
    text = said("de", ("config_subentries", "ai_task_data"), result)
    assert text == "3 liegt außerhalb dessen, was dieses Feld annimmt: von 0 bis 2."
    assert len(agent.entry.subentries) == 1


async def test_the_server_form_says_a_number_out_of_range(hass: HomeAssistant) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "server"}
    )
    typed = {
        CONF_SERVER_URL: "http://192.0.2.1:8080",
        CONF_SERVER_MODE: "completions",
        CONF_MAX_CONCURRENT: 100.0,
    }

    result = await hass.config_entries.flow.async_configure(result["flow_id"], typed)

    assert result["errors"] == {CONF_MAX_CONCURRENT: OUT_OF_RANGE}
    assert said("nl", ("config",), result) == (
        "100 valt buiten wat dit veld aanneemt: van 1 tot 64."
    )
    assert suggested_values(result["data_schema"])[CONF_SERVER_URL] == typed[CONF_SERVER_URL]


async def test_the_server_options_say_a_number_out_of_range(
    hass: HomeAssistant, socket_enabled: None
) -> None:
    async with serve_fake_openai(FakeOpenAI()) as server:
        agent = await async_setup_server_agent(hass, server.url, "fake-model")
        before = dict(agent.entry.options)
        result = await hass.config_entries.options.async_init(agent.entry.entry_id)
        form = {**suggested_values(result["data_schema"]), CONF_READ_TIMEOUT: 1.0}

        result = await hass.config_entries.options.async_configure(result["flow_id"], form)

    assert result["errors"] == {CONF_READ_TIMEOUT: OUT_OF_RANGE}
    assert said("de", ("options",), result).startswith("1 liegt außerhalb")
    assert agent.entry.options == before
