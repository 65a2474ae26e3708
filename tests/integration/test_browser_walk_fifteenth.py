"""What a fifteenth walk in a real browser found wrong (the logbook, Italian, Portuguese)."""

from __future__ import annotations

import os
from pathlib import Path
import re
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import get_system_health_info

from custom_components.local_agent import logbook
from custom_components.local_agent import system_health
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_KEY_CACHE
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import EVENT_ACTION
from custom_components.local_agent.safety.audit import Outcome
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.setup import async_setup_component

from .audit_log import Describe
from .audit_log import describer
from .audit_log import fired
from .conftest import async_setup_agent
from .conftest import speech
from .flow_helpers import translation
from .scripted_model import answer
from .scripted_model import call
from .test_browser_walk_thirteenth import LANGUAGES
from .test_safety import FRONT_DOOR
from .test_safety import Scene
from .test_safety import locks_exposed
from .test_safety import make_scene
from .test_safety import scene

__all__ = ["Describe", "describer", "fired", "locks_exposed", "make_scene", "scene"]

# The logbook's words for each outcome: "{action}" is the action as the person was told it.
LOGBOOK_KEYS = tuple(f"logbook_{outcome.value}" for outcome in Outcome)


@pytest.mark.parametrize(
    ("language", "yes", "words"),
    [
        ("it", "sì", ["proposta", "confermata", "eseguita"]),
        ("pt", "sim", ["proposta", "confirmada", "executada"]),
    ],
)
async def test_the_logbook_says_each_step_in_the_persons_language_on_its_entity(
    hass: HomeAssistant, scene: Scene, language: str, yes: str, words: list[str]
) -> None:
    """The logbook showed "proposed: unlock Front Door" to an Italian house, on no entity.

    Each entry is now in the language the person was asked in (the words of the question
    itself), and it carries the entity it concerns, which the logbook shows (name, icon, a
    link to its dialog); the yes's entry carries the context of the person who said it (the
    logbook names them).
    """
    describe = describer(hass)
    events = fired(hass)
    scene.worker.will_write(answer(call("lock", action="unlock", entity_id=FRONT_DOOR)))

    question = await scene.agent.ask("apri", context=scene.person, language=language)
    said = speech(question).split("?")[0]
    await scene.agent.ask(
        yes, conversation_id=question.conversation_id, context=scene.person, language=language
    )
    await hass.async_block_till_done()

    entries = [describe(event) for event in events]
    action = said[0].lower() + said[1:]
    assert [entry["message"] for entry in entries] == [f"{word}: {action}" for word in words]
    assert "unlock" not in " ".join(entry["message"] for entry in entries)
    assert {entry["entity_id"] for entry in entries} == {FRONT_DOOR}
    assert {event.data["entity_id"] for event in events} == {FRONT_DOOR}
    assert events[1].context.user_id == scene.person.user_id


async def test_the_logbook_keeps_english_entries_and_old_events(
    hass: HomeAssistant, scene: Scene
) -> None:
    """English reads as before; an event recorded before this version still reads (no KeyError)."""
    describe = describer(hass)
    old_data: dict[str, Any] = {
        "agent_id": "conversation.x",
        "conversation_id": "c",
        "user_id": None,
        "device_id": None,
        "service": "lock.unlock",
        "targets": [FRONT_DOOR, "lock.back_door"],
        "description": "unlock Front Door and Back Door",
        "outcome": "refused",
        "reason": None,
        "time": "2026-01-01T00:00:00+00:00",
    }
    old: Event[Any] = Event(EVENT_ACTION, old_data)

    entry = describe(old)

    assert entry["message"] == "refused: unlock Front Door and Back Door"
    assert entry["entity_id"] == FRONT_DOOR


def test_every_language_names_every_logbook_outcome() -> None:
    """Seven files, seven outcomes, each with its {action} and none left in English."""
    english = translation("en")["exceptions"]
    for language in LANGUAGES:
        exceptions = translation(language)["exceptions"]
        for key in LOGBOOK_KEYS:
            message = exceptions[key]["message"]
            assert re.findall(r"{\w+}", message) == ["{action}"], (language, key)
            if language != "en":
                assert message != english[key]["message"], (language, key)


async def test_a_logbook_entry_in_a_language_without_a_file_is_in_its_base_language(
    hass: HomeAssistant, hass_admin_user: Any
) -> None:
    """A record asked in "pt-BR" (no file of its own) reads in Portuguese, not English."""
    describe = describer(hass)
    await logbook.async_load_words(hass)
    data: dict[str, Any] = {
        "service": "lock.unlock",
        "targets": [FRONT_DOOR],
        "description": "unlock Front Door",
        "said": "desbloquear Porta da frente",
        "language": "pt-BR",
        "outcome": "expired",
    }
    event: Event[Any] = Event(EVENT_ACTION, data)

    assert describe(event)["message"] == "expirada: desbloquear Porta da frente"


def engine_options(context_size: float, threads: float) -> dict[str, Any]:
    """The engine options form as the dialog sends it (numbers as floats)."""
    return {
        CONF_CONTEXT_SIZE: context_size,
        CONF_THREADS: threads,
        CONF_FLASH_ATTENTION: "auto",
        CONF_KEY_CACHE: "auto",
    }


async def test_the_engine_options_refuse_a_context_too_small_and_too_many_threads(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    """A context of 256 tokens and 200 threads on a 2-core machine were saved without a word.

    The model then reloaded, and every request failed ("This request is too long for me"), or
    200 threads fought over 2 cores. The form now says so at the field, keeps what was typed
    and saves nothing; 0 (automatic) and the machine's own numbers are taken.
    """
    agent = await async_setup_agent(hass, qwen35_model_path)
    before = dict(agent.entry.options)
    cores = os.process_cpu_count() or os.cpu_count() or 1
    result = await hass.config_entries.options.async_init(agent.entry.entry_id)

    result = await hass.config_entries.options.async_configure(
        result["flow_id"], engine_options(256.0, cores + 1.0)
    )

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {
        CONF_CONTEXT_SIZE: "context_too_small",
        CONF_THREADS: "too_many_threads",
    }
    placeholders = result["description_placeholders"] or {}
    assert placeholders["minimum_context"] == "2048"
    assert placeholders["cores"] == str(cores)
    assert agent.entry.options == before
    schema = result["data_schema"]
    assert schema is not None
    suggested = {
        str(key): key.description["suggested_value"]
        for key in schema.schema
        if key.description and "suggested_value" in key.description
    }
    assert suggested[CONF_CONTEXT_SIZE] == 256
    assert suggested[CONF_THREADS] == cores + 1

    result = await hass.config_entries.options.async_configure(
        result["flow_id"], engine_options(2048.0, float(cores))
    )
    assert result["type"] is not FlowResultType.FORM


def test_every_language_says_why_an_engine_option_is_refused() -> None:
    """Both errors in the options form's own words, with their numbers, in all seven files."""
    english = translation("en")["options"]["error"]
    for language in LANGUAGES:
        errors = translation(language)["options"]["error"]
        assert "{minimum_context}" in errors["context_too_small"], language
        assert "{cores}" in errors["too_many_threads"], language
        if language != "en":
            assert errors["context_too_small"] != english["context_too_small"], language
            assert errors["too_many_threads"] != english["too_many_threads"], language


@pytest.mark.parametrize(
    ("language", "none", "no_turns", "missing"),
    [
        ("it", "nessuno", "nessun turno ancora", "non installato"),
        ("pt", "nenhum", "ainda sem interações", "não instalado"),
    ],
)
async def test_system_health_says_none_in_the_houses_language(
    hass: HomeAssistant,
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    none: str,
    no_turns: str,
    missing: str,
) -> None:
    """System information said "none", "no turns yet", "not installed" in an Italian house.

    Its labels are translated by the frontend; its values are written here, in the server's
    language (the only one Home Assistant gives a backend text).
    """
    assert await async_setup_component(hass, "system_health", {})
    assert await async_setup_component(hass, DOMAIN, {})
    hass.config.language = language
    monkeypatch.setattr(system_health, "llama_cpp_version", lambda: None)

    info = await get_system_health_info(hass, DOMAIN)

    assert (info["runtime"], info["models_loaded"], info["generation_speed"]) == (
        missing,
        none,
        no_turns,
    )
