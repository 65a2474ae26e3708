"""What core's own intents say through the agent, and everyday answers in the published homes.

- A timer intent that found no timer to cancel or to ask about: core refuses it with a
  sentence of its own ("Sorry, I couldn't find that timer"), and its own agent says that
  sentence in the person's language. The agent said "the model's call did not go through",
  which tells the person nothing. Now it says core's sentence, once.
- "How long is left on my timer?" with none running, the model silent: "Sorry, I have no
  answer to that", where core's agent says the intent's answer ("No timers."). Now ours too.
- Two lights of one name in two areas, turned on together, were said "Lamp and Lamp". Now
  each is said with its area: "Lamp (Kitchen) and Lamp (Bedroom)".
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from testing.home_builder import async_add_fixture_home
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_floor
from testing.home_builder import async_place_entity

from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_assist_everyday import timer_device
from .test_voice_twenty_eighth import assist_agent

NO_TIMER = {
    "en": "Sorry, I couldn't find that timer.",
    "de": "Diesen Timer konnte ich nicht finden.",
    "fr": "Désolé, je n'ai pas trouvé ce minuteur.",
    "es": "Lo siento, no se pudo encontrar ese temporizador.",
}


@pytest.mark.parametrize("tool", ["HassCancelTimer", "HassIncreaseTimer", "HassPauseTimer"])
@pytest.mark.parametrize("language", list(NO_TIMER))
async def test_a_timer_intent_that_found_no_timer_says_why_in_the_persons_language(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    tool: str,
) -> None:
    agent = await assist_agent(hass, scripted_worker)
    arguments = {"minutes": 5} if tool == "HassIncreaseTimer" else {}
    scripted_worker.will_write(answer(call(f"intent__{tool}", **arguments)), answer(""))

    result = await agent.ask(
        "cancel the timer", device_id=timer_device(hass), context=person, language=language
    )

    assert speech(result) == NO_TIMER[language]
    # The model reads core's error as core wrote it.
    assert "Timer not found" in scripted_worker.requests[-1].dynamic_prompt


# A home of the published evaluation's kind: areas on floors, a name with a number, a light
# named as its area, a light whose name starts with its area, two lights of one name.
HOME: Final = [
    ("light.kuchenlampe", "Küchenlampe", "Küche", "Erdgeschoss", "on"),
    ("light.lampe_2", "Lampe 2", "Salon", "Rez-de-chaussée", "on"),
    ("light.cocina", "Cocina", "Cocina", None, "off"),
    ("light.kitchen_light", "Kitchen Light", "Kitchen", "Ground", "off"),
    ("light.kitchen_lamp", "Lamp", "Kitchen", "Ground", "off"),
    ("light.bedroom_lamp", "Lamp", "Bedroom", "Upstairs", "off"),
    ("cover.finestra_1", "Finestra 1", "Camera", "Primo piano", "open"),
]


@pytest.fixture
async def published_home(hass: HomeAssistant) -> None:
    entities = [
        {"entity_id": entity_id, "name": name, "state": now}
        | ({"attributes": {"device_class": "window"}} if entity_id.startswith("cover.") else {})
        for entity_id, name, _area, _floor, now in HOME
    ]
    await async_add_fixture_home(hass, "Published home", entities)
    for entity_id, _name, area, floor, _now in HOME:
        floor_id = async_floor(hass, floor) if floor else None
        async_place_entity(hass, entity_id, async_area(hass, area, floor_id))
    async_expose_only(hass, [entity_id for entity_id, *_ in HOME])


EVERYDAY: Final = [
    ("de", "light", "turn_off", ["light.kuchenlampe"], "Erledigt: Küchenlampe ausschalten."),
    ("fr", "light", "turn_off", ["light.lampe_2"], "C'est fait\u00a0: éteindre Lampe 2."),
    ("es", "light", "turn_on", ["light.cocina"], "Hecho: encender Cocina."),
    ("en", "light", "turn_on", ["light.kitchen_light"], "Turned on Kitchen Light."),
    ("it", "cover", "close_cover", ["cover.finestra_1"], "Fatto: chiudere Finestra 1."),
    (
        "en",
        "light",
        "turn_on",
        ["light.kitchen_lamp", "light.bedroom_lamp"],
        "Turned on Lamp (Kitchen) and Lamp (Bedroom).",
    ),
    (
        "nl",
        "light",
        "turn_on",
        ["light.kitchen_lamp", "light.bedroom_lamp", "light.kitchen_light"],
        "Klaar: Lamp (Kitchen), Lamp (Bedroom) en Kitchen Light inschakelen.",
    ),
]


@pytest.mark.parametrize(
    ("language", "domain", "action", "targets", "said"), EVERYDAY, ids=[c[4] for c in EVERYDAY]
)
async def test_an_everyday_request_in_a_published_home_is_said_short_in_its_language(
    hass: HomeAssistant,
    published_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    domain: str,
    action: str,
    targets: list[str],
    said: str,
) -> None:
    """Two lights of one name were said "Lamp and Lamp": now each with its area."""
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    entity_id: str | list[str] = targets if len(targets) > 1 else targets[0]
    scripted_worker.will_write(answer(call(domain, action=action, entity_id=entity_id)))

    result = await agent.ask("…", context=person, language=language)

    assert speech(result) == said


FLOORS: Final = ("Ground", "First", "Attic")
FORTY_LIGHTS: Final = [f"light.light_{n}" for n in range(40)]
FORTY_OFF: Final = {
    "en": "Turned off 40 lights.",
    "de": "Erledigt: 40 Lichter ausschalten.",
    "fr": "C'est fait\u00a0: éteindre 40 lumières.",
    "es": "Hecho: apagar 40 luces.",
}


@pytest.mark.parametrize("language", list(FORTY_OFF))
async def test_all_the_lights_of_three_floors_are_counted_not_named(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, person: Context, language: str
) -> None:
    """A guard (it passed before this session): "turn off all the lights" in a house of 40
    lights in 8 rooms on 3 floors is one short sentence, in the person's plural."""
    lights = [
        {"entity_id": light, "name": f"Light {n}", "state": "on"}
        for n, light in enumerate(FORTY_LIGHTS)
    ]
    await async_add_fixture_home(hass, "Forty lights", lights)
    for n, light in enumerate(FORTY_LIGHTS):
        async_place_entity(
            hass, light, async_area(hass, f"Room {n % 8}", async_floor(hass, FLOORS[n % 3]))
        )
    async_expose_only(hass, FORTY_LIGHTS)
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    scripted_worker.will_write(answer(call("light", action="turn_off", entity_id=FORTY_LIGHTS)))

    result = await agent.ask("turn off all the lights", context=person, language=language)

    assert speech(result) == FORTY_OFF[language]
    assert {state(hass, light) for light in FORTY_LIGHTS} == {"off"}


NO_TIMERS_RUNNING: Final = {
    "en": "No timers.",
    "de": "Es laufen keine Timer.",
    "fr": "Il n'y a aucun minuteur.",
    "es": "No hay temporizadores.",
}


@pytest.mark.parametrize("language", list(NO_TIMERS_RUNNING))
async def test_a_timer_status_the_model_did_not_say_is_said_as_cores_agent_says_it(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
) -> None:
    """ "How long is left on my timer?" with none running, and the model wrote nothing: the
    agent said "Sorry, I have no answer to that". The intent answered with its data, and core's
    own agent says the intent's response for it: so does ours now."""
    agent = await assist_agent(hass, scripted_worker)
    scripted_worker.will_write(answer(call("intent__HassTimerStatus")), answer(""))

    result = await agent.ask(
        "how long is left?", device_id=timer_device(hass), context=person, language=language
    )

    assert speech(result) == NO_TIMERS_RUNNING[language]
