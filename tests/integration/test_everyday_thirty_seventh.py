"""What counts as done, and sentences that read right around any name.

- Whether anything was done (which decides if the person hears that what they named is not
  exposed) was told by the keys of a result: another integration's tool answering
  {"success": true} or {"entities": …} hid the hint, a read of something else hid it, and core's
  intents (whose "success" sits under "data") never counted, so "Done." came with a hint after
  Assist turned the lights off. It is now told by what produced the result: our runner's
  states after an action, or a core intent's response of an action.
- A reason an integration or another part wrote goes inside a sentence of ours ("I could not
  finish: unlock Front Door - {reason}."): its own full stop ended up in the middle of the
  list ("jammed.; unlock …"), a space before it survived ("jammed ."), and a reason of only a
  full stop was said as one. Such a text now loses its closing full stops and spaces (its
  "!", "?" or "…" stay), and one of nothing but a full stop is said as an unknown error.
- "Ceiling Lights: it is not exposed", "Luces del techo: no está expuesto", "Nudeln läuft
  nicht": sentences with a name as their subject agreed with a name whose gender and number
  the agent cannot know. They now say the name as a label or as no subject at all.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from custom_components.local_agent.home.call_texts import async_said
from homeassistant.components.demo.lock import DemoLock
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er
from homeassistant.util.json import JsonValueType

from .conftest import speech
from .conftest import state
from .other_integrations import offer_answering_tool
from .scene import Scene
from .scene import tool_call
from .scene import tool_calls
from .scripted_model import Script
from .scripted_model import answer
from .scripted_model import call

NOT_EXPOSED_HINT: Final = (
    "I cannot see or control Ceiling Lights: not exposed to Assist. "
    "To let me, change that under Settings > Voice assistants > Expose."
)


@pytest.mark.parametrize(
    "data",
    [
        {"success": True},
        {"entities": [{"entity_id": "light.ceiling_lights", "state": "off"}]},
    ],
)
async def test_another_tools_keys_do_not_hide_that_a_name_is_not_exposed(
    hass: HomeAssistant, scene: Scene, data: dict[str, JsonValueType]
) -> None:
    """Before: its "success" or "entities" counted as done, and the person heard only "Done."."""
    offer_answering_tool(hass, "tidy_up", data)
    agent = await scene.our_agent(
        **{CONF_LLM_HASS_API: ["other_api"], CONF_EXEMPT_TOOLS: ["other_api/tidy_up"]}
    )
    scene.worker.will_write(answer(call("tidy_up")), answer("Done."))

    result = await agent.ask("turn off the ceiling lights", context=scene.person)

    assert speech(result).endswith(NOT_EXPOSED_HINT), speech(result)


async def test_a_read_of_something_else_does_not_hide_that_a_name_is_not_exposed(
    scene: Scene,
) -> None:
    """Before: the read's states counted as done: "It is on." about another light, and no word
    that the one named cannot be seen."""
    agent = await scene.our_agent()
    scene.worker.will_write(
        answer(call("get_state", entity_id="light.kitchen_lights")), answer("It is on.")
    )

    result = await agent.ask("is the ceiling lights on?", context=scene.person)

    assert speech(result) == f"It is on. {NOT_EXPOSED_HINT}"


@pytest.mark.parametrize(
    ("tools", "turn_off"),
    [
        ("our tools", tool_call("light", action="turn_off", entity_id="light.kitchen_lights")),
        ("assist", tool_call("HassTurnOff", name="Kitchen Lights")),
    ],
)
async def test_an_action_done_by_either_tool_set_counts_as_done(
    hass: HomeAssistant, scene: Scene, tools: str, turn_off: Script
) -> None:
    """Before: core's intent keeps "success" under "data", so Assist's turn-off did not count
    and "Done." came with the hint our own tools leave out."""
    agent = await scene.agent_with(tools)
    scene.worker.will_write(turn_off, answer("Done."))

    result = await agent.ask(
        "turn off the kitchen lights but leave the ceiling lights", context=scene.person
    )

    assert state(hass, "light.kitchen_lights") == "off"
    assert NOT_EXPOSED_HINT not in speech(result)


def jam_demo_locks(monkeypatch: pytest.MonkeyPatch, error: str) -> None:
    """Demo locks refuse to unlock with template's translated error, saying `error`."""

    async def jammed(lock: DemoLock, **kwargs: Any) -> None:
        raise HomeAssistantError(
            translation_domain="template",
            translation_key="failed_to_reload_template_entities",
            translation_placeholders={"error": error},
        )

    monkeypatch.setattr(DemoLock, "async_unlock", jammed)


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            "Motor jammed.",
            "I could not finish: unlock Front Door \u2013 Error reloading template entities: "
            "Motor jammed; unlock Openable Lock \u2013 Error reloading template entities: "
            "Motor jammed.",
        ),
        (
            "Motor jammed !",
            "I could not finish: unlock Front Door \u2013 Error reloading template entities: "
            "Motor jammed !; unlock Openable Lock \u2013 Error reloading template entities: "
            "Motor jammed !",
        ),
    ],
)
async def test_an_integrations_reason_ends_once_inside_our_sentence(
    scene: Scene, monkeypatch: pytest.MonkeyPatch, error: str, said: str
) -> None:
    """Before: "… Motor jammed.; unlock Openable Lock - … Motor jammed." (the reason's end in
    the middle of the list). Guard: an end of its own ("!") stays, once."""
    jam_demo_locks(monkeypatch, error)
    agent = await scene.our_agent()
    scene.worker.will_write(
        tool_calls(
            ("lock", {"action": "unlock", "entity_id": "lock.front_door"}),
            ("lock", {"action": "unlock", "entity_id": "lock.openable_lock"}),
        )
    )
    question = await agent.ask("unlock both", context=scene.person)
    assert question.continue_conversation is True, speech(question)

    done = await scene.reply(agent, question, "yes")

    assert speech(done) == said


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "en",
            "I could not finish: unlock Front Door \u2013 Error reloading template entities: x.",
        ),
        (
            "fr",
            "Je n'ai pas pu terminer\u00a0: déverrouiller Front Door \u2013 Erreur lors du "
            "rechargement des entités modèles\u00a0: x.",
        ),
    ],
)
async def test_a_reason_ending_in_a_spaced_full_stop_is_said_with_one(
    hass: HomeAssistant, scene: Scene, monkeypatch: pytest.MonkeyPatch, language: str, said: str
) -> None:
    """Before: "… entities: x .." became "… entities: x ." (a space, then a full stop)."""
    jam_demo_locks(monkeypatch, "x .")
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("lock", action="unlock", entity_id="lock.front_door"))
    question = await agent.ask("unlock", context=scene.person, language=language)

    yes = {"en": "yes", "fr": "oui"}[language]
    done = await scene.reply(agent, question, yes, language=language)

    assert speech(done) == said


@pytest.mark.parametrize(
    ("parts", "said"),
    [
        (["."], "Home Assistant reported an error"),
        ([" . "], "Home Assistant reported an error"),
        (["Jammed. "], "Jammed"),
        (["Jammed!"], "Jammed!"),
        (["Jammed\u2026"], "Jammed\u2026"),
        ([".", "Jammed."], "Jammed"),
    ],
)
async def test_a_text_another_part_wrote_goes_inside_our_sentence_without_its_end(
    hass: HomeAssistant, parts: list[str], said: str
) -> None:
    """Before: "." was said as a reason ("unlock Front Door - ."), "Jammed. " kept its end."""
    assert await async_said(hass, "en", parts) == said


@pytest.mark.parametrize(
    ("language", "name", "said"),
    [
        ("en", "Ceiling Lights", "I cannot see or control Ceiling Lights: not exposed to Assist."),
        (
            "de",
            "Deckenlichter",
            "Ich kann Deckenlichter nicht sehen oder steuern: für Assist nicht verfügbar.",
        ),
        (
            "fr",
            "Guirlandes",
            "Je ne peux ni voir ni contrôler Guirlandes\u00a0: sans exposition à Assist.",
        ),
        (
            "es",
            "Luces del techo",
            "No puedo ver ni controlar Luces del techo: sin exponer a Assist.",
        ),
        (
            "it",
            "Luci del soffitto",
            "Non posso vedere né controllare Luci del soffitto: nessuna esposizione ad Assist.",
        ),
        (
            "nl",
            "Plafondlampen",
            "Ik kan Plafondlampen niet zien of bedienen: niet ontsloten voor Assist.",
        ),
        (
            "pt",
            "Luzes do teto",
            "Não consigo ver nem controlar Luzes do teto: sem exposição ao Assist.",
        ),
    ],
)
async def test_a_name_not_exposed_is_said_in_words_that_fit_any_name(
    hass: HomeAssistant, scene: Scene, language: str, name: str, said: str
) -> None:
    """Before: "Ceiling Lights: it is not exposed", "Luces del techo: no está expuesto" (a
    pronoun and a state word that agree with a name whose number and gender nobody knows)."""
    er.async_get(hass).async_update_entity("light.ceiling_lights", name=name)
    agent = await scene.our_agent()
    scene.worker.will_write(answer("…"))

    result = await agent.ask(name, context=scene.person, language=language)

    assert said in speech(result), speech(result)
