"""Hints that fit any name, late replies after a wrong PIN, and reads in a house.

- "Garden lights, party mode has no name … find it": the hint about entities Assist cannot
  find by name agreed with one name of one number, whatever it named. It now says the names
  as a label and speaks of "an entity" after it.
- A question closed after a wrong PIN answered every reply of its person in the next 5
  minutes that the PIN reading took for an answer: "thanks", "ok" or "yes" (courtesy and
  assent framing no digits) heard "That question was closed after a wrong PIN, so I did not
  unlock Front Door". Only a reply that could be a PIN (digits, number words) hears it now;
  the rest goes on as any message does, and a "no" is told nothing will be done.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.conversation import ConversationResult
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .houses import set_up
from .scene import Scene
from .scripted_model import answer

ASSIST: Final = "assist"
NAMELESS: Final = ("input_button.garden_lights", "input_button.party_mode")


@pytest.mark.parametrize(
    ("language", "said", "heard"),
    [
        (
            "en",
            "press garden lights and party mode",
            "Garden lights, party mode: no name in Home Assistant, and Assist finds entities by"
            " their names only. To let me control an entity, give it a name under",
        ),
        (
            "de",
            "drücke garden lights und party mode",
            "Garden lights, party mode: kein Name in Home Assistant, und Assist findet Entitäten"
            " nur über ihre Namen. Damit ich eine Entität steuern kann, gib ihr unter",
        ),
        (
            "fr",
            "appuie sur garden lights et party mode",
            "Garden lights, party mode\u00a0: aucun nom dans Home Assistant, et Assist ne trouve"
            " les entités que par leur nom. Pour me permettre de contrôler une entité,"
            " donnez-lui un nom",
        ),
        (
            "es",
            "pulsa garden lights y party mode",
            "Garden lights, party mode: sin nombre en Home Assistant, y Assist solo encuentra"
            " las entidades por su nombre. Para que pueda controlar una entidad, dale un nombre",
        ),
        (
            "it",
            "premi garden lights e party mode",
            "Garden lights, party mode: nessun nome in Home Assistant, e Assist trova le entità"
            " solo per nome. Per permettermi di controllare un'entità, dalle un nome",
        ),
        (
            "nl",
            "druk op garden lights en party mode",
            "Garden lights, party mode: geen naam in Home Assistant, en Assist vindt entiteiten"
            " alleen op hun naam. Geef een entiteit een naam via",
        ),
        (
            "pt",
            "carrega em garden lights e party mode",
            "Garden lights, party mode: sem nome no Home Assistant, e o Assist só encontra"
            " entidades pelo nome. Para que possa controlar uma entidade, dê-lhe um nome",
        ),
    ],
)
async def test_entities_without_a_name_are_said_in_words_that_fit_any_number(
    hass: HomeAssistant, scene: Scene, language: str, said: str, heard: str
) -> None:
    """Before: "Garden lights, party mode has no name …, so Assist cannot find it" (one verb
    and one pronoun for two entities, or for one whose name is a plural)."""
    await set_up(hass, "input_button", {"garden_lights": None, "party_mode": None})
    for entity_id in NAMELESS:
        async_expose_entity(hass, "conversation", entity_id, True)
    agent = await scene.agent_with(ASSIST)
    scene.worker.will_write(answer("…"))

    result = await agent.ask(said, context=scene.person, language=language)

    assert heard in speech(result), speech(result)


WRONG_PIN_CLOSED: Final = (
    "That question was closed after a wrong PIN, so I did not unlock Front Door. "
    "Ask again if you still want it."
)


async def reply_after_a_wrong_pin(scene: Scene, reply: str, *model: str) -> ConversationResult:
    """Ask to unlock, answer the PIN question with a wrong PIN, then say reply: the model
    writes `model` after the wrong PIN."""
    agent, question = await scene.pin_question()
    await scene.reply(agent, question, "4712")
    scene.worker.will_write(*model)
    return await scene.reply(agent, question, reply)


@pytest.mark.parametrize("reply", ["thanks", "ok", "yes", "thank you, okay"])
async def test_a_courtesy_after_a_wrong_pin_goes_on_as_any_message(
    hass: HomeAssistant, scene: Scene, reply: str
) -> None:
    """Before: "thanks" after "That PIN is not right" heard that the question was closed."""
    later = await reply_after_a_wrong_pin(scene, reply, answer("You're welcome."))

    assert speech(later) == "You're welcome."
    assert state(hass, "lock.front_door") == "locked"


async def test_a_no_after_a_wrong_pin_is_a_plain_no(hass: HomeAssistant, scene: Scene) -> None:
    later = await reply_after_a_wrong_pin(scene, "no")

    assert speech(later) == "Okay, I won't do that."
    assert state(hass, "lock.front_door") == "locked"


@pytest.mark.parametrize("reply", ["4713", "four seven one three", "it is 4 7 1 3, thanks"])
async def test_a_second_try_after_a_wrong_pin_still_hears_the_question_closed(
    hass: HomeAssistant, scene: Scene, reply: str
) -> None:
    """Guard: what could be a PIN is still told the question closed, and runs nothing."""
    later = await reply_after_a_wrong_pin(scene, reply)

    assert speech(later) == WRONG_PIN_CLOSED
    assert state(hass, "lock.front_door") == "locked"
