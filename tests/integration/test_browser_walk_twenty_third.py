"""What a twenty-third walk in a real browser found wrong (a German and then a Portuguese
household in the develop house typing into the Assist dialog: everything downstairs, the blinds
upstairs, a light at 30 %, the thermostat, a light gone, a value out of range, the front door's
question, a timer, the calendar)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from custom_components.local_agent.const import ASSISTANT
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from testing.stand_in import StandInWorker
from testing.stand_in import answer
from testing.stand_in import call

from .conftest import speech
from .conftest import state
from .houses import FRONT_DOOR
from .scene import Scene
from .test_demo_model import demo_agent

CEILING: Final = "light.ceiling_lights"
# The develop house's ground floor lights (testing/develop_house.py), then the office's.
LIGHTS: Final = (
    CEILING,
    "light.entrance_color_white_lights",
    "light.kitchen_lights",
    "light.living_room_rgbww_lights",
    "light.office_rgbw_lights",
)


@pytest.mark.parametrize(
    ("language", "lights", "said"),
    [
        (
            "pt",
            LIGHTS[:4],
            "Não consegui desligar Ceiling Lights, Entrance Color + White Lights, Kitchen Lights "
            "e Living Room RGBWW Lights. Ceiling Lights: indisponível de momento.",
        ),
        (
            "de",
            LIGHTS,
            "Das ging nicht: Ceiling Lights, Entrance Color + White Lights, Kitchen Lights und "
            "2 weitere ausschalten. Ceiling Lights: gerade nicht erreichbar.",
        ),
    ],
)
async def test_a_refused_call_on_many_lights_never_ends_its_names_on_an_ellipsis(
    hass: HomeAssistant,
    demo_home: None,
    tmp_path: Path,
    person: Context,
    language: str,
    lights: tuple[str, ...],
    said: str,
) -> None:
    """With the ceiling light gone, "desliga tudo no rés do chão" had the Portuguese walk read
    "Não consegui desligar Ceiling Lights, Entrance Color + White Lights, Kitchen Lights e …":
    the fourth light was never said, and a voice reads "… e" and stops. A refused call now
    names its targets as a done answer does: all four, or three and how many more."""
    agent = await demo_agent(hass, tmp_path)
    for light in lights:
        async_expose_entity(hass, ASSISTANT, light, True)
    hass.states.async_set(CEILING, STATE_UNAVAILABLE, {"friendly_name": "Ceiling Lights"})
    engine = agent.entry.runtime_data.worker
    assert isinstance(engine, StandInWorker)
    engine.will_write(answer(call("light", action="turn_off", entity_id=list(lights))), answer(""))

    result = await agent.ask("desliga tudo no rés do chão", context=person, language=language)

    assert speech(result) == said
    assert state(hass, "light.kitchen_lights") == "on"


@pytest.mark.parametrize(
    ("language", "no", "yes", "cancelled"),
    [
        ("de", "nein", "ja", "Okay, das mache ich nicht."),
        ("pt", "não", "sim", "Está bem, não vou fazer isso."),
    ],
)
async def test_a_no_that_opens_a_new_conversation_cancels_the_question_waiting_elsewhere(
    scene: Scene, language: str, no: str, yes: str, cancelled: str
) -> None:
    """The walk asked to lock the front door, closed the dialog and answered "não" in the
    new one it opened: the no reached the model as a new request (the demo model answered
    its English help; a real one, anything, "OK" included) and the question still waited, so
    a "sim" in yet another dialog asked it again. A yes that opens a conversation brings the
    person's one waiting question there; their no now cancels it, and runs nothing."""
    agent = await scene.our_agent()
    question = await scene.ask_to_unlock(agent, language)
    asked = len(scene.worker.requests)

    here = await agent.ask(no, context=scene.person, language=language)

    assert here.conversation_id != question.conversation_id
    assert speech(here) == cancelled
    assert here.response.response_type is not intent.IntentResponseType.ERROR
    assert len(scene.worker.requests) == asked
    assert scene.outcomes() == ["proposed", "cancelled"]
    scene.worker.will_write(answer("?"))
    later = await agent.ask(yes, context=scene.person, language=language)
    assert speech(later) == "?"
    assert state(scene.hass, FRONT_DOOR) == "locked"
