"""What a sentence repeats of a call: what ran, and only values we can say (said63).

- A done answer said the values as the model wrote them, while the runner ran them as the
  tools planned them: a colour written "RED" ran as "red" and was said "(RED)". It now says
  the planned action's data, the values that ran.
- A question said a select's option by its key ("Set Speed to ridiculous_speed (this may
  unlock Front Door)?") while the done answer said "Ridiculous speed": the question now says
  the words the done answer says (said64).
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.home.call_texts import said_fields
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scene import Home
from .scripted_model import answer
from .scripted_model import call

BED_LIGHT: Final = "light.bed_light"
SPEED: Final = "select.speed"
FRONT_DOOR: Final = "lock.front_door"


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


async def speed_lets_in(hass: HomeAssistant) -> None:
    """Speed exposed, and an automation that unlocks Front Door when it goes ridiculous."""
    async_expose_entity(hass, "conversation", SPEED, True)
    automation = {
        "id": "speed_lets_in",
        "alias": "Speed lets in",
        "triggers": [{"trigger": "state", "entity_id": SPEED, "to": "ridiculous_speed"}],
        "actions": [{"action": "lock.unlock", "target": {"entity_id": FRONT_DOOR}}],
    }
    assert await async_setup_component(hass, "automation", {"automation": [automation]})
    assert await async_setup_component(hass, "timer", {})


async def test_a_colour_is_said_as_the_colour_that_ran(hass: HomeAssistant, talk: Talk) -> None:
    """Before: "Turned on Bed Light (RED)."; the light was set to the colour "red"."""
    result = await talk.ask(
        "en", call("light", action="turn_on", entity_id=BED_LIGHT, color_name="RED")
    )

    assert speech(result) == "Turned on Bed Light (red)."


async def test_a_question_says_an_option_as_the_done_answer_does(
    hass: HomeAssistant, demo_house: Home, talk: Talk
) -> None:
    """Before: "Set Speed to ridiculous_speed (this may unlock Front Door)? Say yes to confirm." """
    await speed_lets_in(hass)
    before = state(hass, SPEED)

    result = await talk.say(
        "…",
        "en",
        call("select", action="select_option", entity_id=SPEED, option="ridiculous_speed"),
    )

    assert speech(result) == (
        "Set Speed to Ridiculous speed (this may unlock Front Door (lock.front_door))? "
        "Say yes to confirm."
    )
    assert state(hass, SPEED) == before


async def test_a_question_in_german_says_the_option_in_german(
    hass: HomeAssistant, demo_house: Home, talk: Talk
) -> None:
    """Before: "Speed auf ridiculous_speed einstellen (…)?": the words in German were never
    loaded where the gate asks."""
    await speed_lets_in(hass)

    result = await talk.say(
        "…",
        "de",
        call("select", action="select_option", entity_id=SPEED, option="ridiculous_speed"),
    )

    assert "Speed auf Lächerliche Geschwindigkeit " in speech(result)


async def test_questions_done_answers_and_refusals_repeat_values_by_one_rule(
    hass: HomeAssistant,
) -> None:
    """Before: questions and done answers repeated "open the back door" as a mode and
    "bright" as a brightness; only refusals left them out. An option the entity offers is
    said in full in every sentence; a PIN, markup and a word where a number goes never."""
    hass.states.async_set(
        "climate.hall", "heat", {"preset_modes": ["eco", "away from home"], "fan_modes": ["low"]}
    )
    written = [
        ("preset_mode", "away from home"),
        ("fan_mode", "open the back door"),
        ("swing_mode", "on"),
        ("brightness_pct", "bright"),
        ("temperature", "21.5"),
        ("code", "1234"),
        ("message", "{{ states('lock.front_door') }}"),
    ]

    said = said_fields(hass, written, ["climate.hall"])

    assert said == {"preset_mode": "away from home", "swing_mode": "on", "temperature": "21.5"}


async def test_a_light_already_on_changed_nothing_so_the_unexposed_one_is_named(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Before: "Bed Light: already on." alone. The runner said the call changed nothing, but
    the turn counted any run of our tools as done: the hint for what the person named and
    cannot be reached (nothing was done for them) was left out, and an automation's response
    said action_done with Bed Light among what changed."""
    await hass.services.async_call("light", "turn_on", {"entity_id": BED_LIGHT}, blocking=True)

    result = await talk.say(
        "turn on the bed light and the ceiling lights",
        "en",
        answer(call("light", action="turn_on", entity_id=BED_LIGHT)),
        answer(""),
    )

    assert speech(result) == (
        "Bed Light: already on. I cannot see or control Ceiling Lights: not exposed to Assist. "
        "To let me, change that under Settings > Voice assistants > Expose."
    )
    # An automation reading the response is told nothing was changed, as the sentence says.
    assert result.response.response_type is intent.IntentResponseType.QUERY_ANSWER
