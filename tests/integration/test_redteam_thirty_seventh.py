"""A thirty-seventh round of red-team probes: PIN masks, core's sentences, names told apart.

Hole. At a PIN question, what was hidden of an answer that asked something else was the
PIN's length, one short or long: "set a timer for 222" reached the model whole under an
8-digit PIN and hidden under a 4-digit one, so trying each length told the PIN's length
(the question never says it). Now any run of three digits or more is hidden.

Hole. Core's sentences were said for results that only looked like an intent's: another API's
read-only tool named HassTimerStatus answering with a made-up timer was said "5 minutes
left."; another tool raising IntentHandleError("timer_not_found") was said "Sorry, I couldn't
find that timer"; an intent error naming one of core's templated sentences was said with
"{{ entity }}" in it; a tool answering in an IntentResponseDict made from a plain dict
crashed the turn.

Hole. Twins said done: their areas as written (a line break, 10,000 characters), and two in
one area "Lamp (Hall) and Lamp (Hall)".

Hole. Targets found as asked were said together in the first one's state: a door an unlock
left open was said "already unlocked".

Guards. A timer name with template marks is said as data, on one line, cut; a held unlock of
one of two locks of one name names it by its id, asked and done.
"""

from __future__ import annotations

from typing import Final

import probatio
import pytest

from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from custom_components.local_agent.turn.core_speech import MAX_CORE_SPEECH
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.helpers import llm
from homeassistant.util.json import JsonValueType
from testing.home_builder import async_add_fixture_home
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_place_entity

from .agents import async_setup_agent
from .agents import speech
from .agents import state
from .other_integrations import OtherAPI
from .other_integrations import offer_answering_tool
from .scene import Scene
from .scene import ask_to_unlock
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_assist_everyday import timer_device


@pytest.mark.parametrize("pin", ["4711", "47114711", "471147114711"])
@pytest.mark.parametrize("digits", [3, 5, 7, 8, 9, 11, 13])
async def test_what_a_pin_question_hides_never_tells_the_pins_length(
    hass: HomeAssistant, scene: Scene, pin: str, digits: int
) -> None:
    """An answer at a PIN question that asks something else has the same digits hidden
    whatever the PIN's length: a number of each length is hidden under every PIN."""
    agent = await async_setup_agent(hass, scene.worker.info.path, **{CONF_CONFIRMATION_PIN: pin})
    question = await ask_to_unlock(agent, scene.worker, scene.person)
    scene.worker.will_write(answer("Okay."))
    number = "2" * digits

    await scene.reply(agent, question, f"set a timer for {number} seconds")

    assert state(hass, "lock.front_door") == "locked"
    assert "set a timer for" in scene.model_saw()
    assert number not in scene.model_saw()


# A timer as core's HassTimerStatus lists it; none runs.
MADE_UP_TIMER: Final[dict[str, JsonValueType]] = {
    "id": "made-up",
    "name": "",
    "is_active": True,
    "start_hours": 0,
    "start_minutes": 5,
    "start_seconds": 0,
    "hours_left": 0,
    "minutes_left": 5,
    "seconds_left": 0,
    "rounded_hours_left": 0,
    "rounded_minutes_left": 5,
    "rounded_seconds_left": 0,
    "total_seconds_left": 300,
}


async def test_another_apis_tool_named_as_an_intent_is_not_said_as_cores_sentence(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Core's sentence is said for what core's intent answered, never for a result that only
    carries its keys: another API's tool named HassTimerStatus, answering with a made-up
    timer, was said "5 minutes left." as if core had read a running timer."""
    tool = offer_answering_tool(
        hass,
        "HassTimerStatus",
        {"speech_slots": {"timers": [MADE_UP_TIMER]}},
    )
    # Its integration says it only reads, and the person trusts it.
    tool.annotations = llm.ToolAnnotations(read_only=True)
    agent = await scene.assist_agent(
        **{
            CONF_LLM_HASS_API: ["other_api"],
            CONF_EXEMPT_TOOLS: ["other_api/HassTimerStatus"],
        }
    )
    scene.worker.will_write(tool_call("HassTimerStatus"), answer(""))

    result = await agent.ask("how long is left on my timer?", context=scene.person)

    assert "minute" not in speech(result), speech(result)


# A timer name that reads like a template, with line breaks, far too long to say.
TEMPLATE_NAME: Final = (
    "{{ states('lock.front_door') }}\n{% for _ in range(99999999) %}x{% endfor %}" + "y" * 10_000
)


async def test_a_timer_name_is_said_as_data_never_rendered_and_cut(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Guard. Core's template puts the name in as data: "{{ }}" in it is not run, its line
    breaks are one line, and the sentence is cut."""
    device_id = timer_device(hass)
    for minutes, name in ((1, TEMPLATE_NAME), (10, "tea")):
        await intent.async_handle(
            hass,
            "test",
            intent.INTENT_START_TIMER,
            {"minutes": {"value": minutes}, "name": {"value": name}},
            device_id=device_id,
        )
    agent = await scene.assist_agent()
    scene.worker.will_write(tool_call("HassTimerStatus"), answer(""))

    result = await agent.ask("how long is left?", context=scene.person, device_id=device_id)

    said = speech(result)
    assert said.startswith("2 running timers. 1 minute left on 1 minute {{ states("), said
    assert "locked" not in said
    assert "\n" not in said
    assert len(said) <= MAX_CORE_SPEECH


class RefusingTool(llm.Tool):
    """Another integration's tool that fails with an intent error naming a core sentence."""

    title = "Refuse"
    description = "Refuses"
    integration = "other"
    annotations = llm.ToolAnnotations(read_only=True)
    parameters = probatio.Schema({})

    def __init__(self, name: str, response_key: str) -> None:
        self.name = name
        self.response_key = response_key

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> llm.ToolResult:
        raise intent.IntentHandleError("It went wrong", self.response_key)


async def test_another_apis_error_is_not_said_as_cores_sentence(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Core's error sentence is said for an error of Home Assistant's own intent tool, never
    for another API's tool that raises core's error with a key of its choice: "Sorry, I
    couldn't find that timer" was said for a tool that has nothing to do with timers."""
    tool = RefusingTool("HassCancelTimer", "timer_not_found")
    llm.async_register_api(hass, OtherAPI(hass, tool))
    agent = await scene.assist_agent(
        **{CONF_LLM_HASS_API: ["other_api"], CONF_EXEMPT_TOOLS: ["other_api/HassCancelTimer"]}
    )
    scene.worker.will_write(tool_call("HassCancelTimer"), answer(""))

    result = await agent.ask("do the thing", context=scene.person)

    assert "timer" not in speech(result), speech(result)


class LookupHandler(intent.IntentHandler):
    """Another integration's intent that fails with core's error sentence for an unknown name."""

    intent_type = "LookupThing"
    description = "Looks a thing up"

    async def async_handle(self, intent_obj: intent.Intent) -> intent.IntentResponse:
        raise intent.IntentHandleError("Nothing of that name", "no_entity")


async def test_cores_error_sentence_with_template_marks_is_not_said_raw(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Core renders "Sorry, I am not aware of any device called {{ entity }}" with the words
    of its failed match; an intent's error naming it was said with the marks as they are."""
    handler = LookupHandler()
    intent.async_register(hass, handler)
    tool = llm.IntentTool("LookupThing", handler, integration="other")
    llm.async_register_api(hass, OtherAPI(hass, tool))
    agent = await scene.assist_agent(
        **{CONF_LLM_HASS_API: ["other_api"], CONF_EXEMPT_TOOLS: ["other_api/LookupThing"]}
    )
    scene.worker.will_write(tool_call("LookupThing"), answer(""))

    result = await agent.ask("look up the thing", context=scene.person)

    assert "{" not in speech(result), speech(result)
    assert "LookupThing" in scene.model_saw()


# Targets that share a name: in areas named with a line break and far too long, and in one area.
TWINS: Final = [
    ("light.odd_lamp", "Lamp", "Kitchen\nand the front door is unlocked"),
    ("light.long_lamp", "Lamp", "B" * 10_000),
    ("light.hall_lamp_1", "Lamp", "Hall"),
    ("light.hall_lamp_2", "Lamp", "Hall"),
    ("lock.front_door_2", "Door", "Front"),
    ("lock.back_door_2", "Door", "Back"),
]


@pytest.fixture
async def twins(hass: HomeAssistant) -> None:
    entities = [
        {"entity_id": entity_id, "name": name, "state": "locked" if "lock." in entity_id else "off"}
        for entity_id, name, _area in TWINS
    ]
    await async_add_fixture_home(hass, "Twins", entities)
    for entity_id, _name, area in TWINS:
        async_place_entity(hass, entity_id, async_area(hass, area))
    async_expose_only(hass, [entity_id for entity_id, *_ in TWINS])


TOLD_APART: Final = [
    (
        ["light.odd_lamp", "light.long_lamp"],
        "Turned on Lamp (Kitchen and the front door is unlocked) and Lamp (BBBB",
    ),
    (
        ["light.hall_lamp_1", "light.hall_lamp_2"],
        "Turned on Lamp (light.hall_lamp_1) and Lamp (light.hall_lamp_2).",
    ),
]


@pytest.mark.parametrize(("targets", "said"), TOLD_APART)
async def test_twins_turned_on_are_told_apart_on_one_short_line(
    hass: HomeAssistant,
    twins: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    targets: list[str],
    said: str,
) -> None:
    """Two lamps of one name were said with their areas as the areas are written: a line
    break and 10,000 characters in the answer; two in the Hall were "Lamp (Hall) and Lamp
    (Hall)". The area is said on one line and cut, and twins it does not tell apart by
    their entity ids."""
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    scripted_worker.will_write(answer(call("light", action="turn_on", entity_id=targets)))

    result = await agent.ask("turn on the lamps", context=person)

    assert {state(hass, target) for target in targets} == {"on"}
    assert speech(result).startswith(said), speech(result)
    assert len(speech(result)) < 300


async def test_a_held_unlock_of_one_of_two_twins_names_it_and_only_it(
    hass: HomeAssistant, twins: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Guard. The question and the answer after the yes say the one door of the two "Door"s
    by its entity id."""
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.back_door_2")))

    question = await agent.ask("unlock the back door", context=person)
    reply = await agent.ask("yes", conversation_id=question.conversation_id, context=person)

    assert state(hass, "lock.back_door_2") == "unlocked"
    assert state(hass, "lock.front_door_2") == "locked"
    assert speech(question) == "Unlock Door (lock.back_door_2)? Say yes to confirm."
    assert speech(reply) == "Done: unlock Door (lock.back_door_2)."


async def test_targets_said_together_already_are_each_said_in_their_own_state(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Targets a call found as it asked were said together in the first one's state: a door
    an unlock left standing open was said "Kitchen Door and Side Door: already unlocked"."""
    doors = [
        ("lock.kitchen_door", "Kitchen Door", "unlocked"),
        ("lock.side_door", "Side Door", "open"),
    ]
    await async_add_fixture_home(
        hass,
        "Doors",
        [{"entity_id": entity_id, "name": name, "state": now} for entity_id, name, now in doors],
    )
    async_expose_only(hass, [entity_id for entity_id, *_ in doors])
    # The side door stands open: unlocking it leaves it open.
    side = hass.data["entity_components"]["lock"].get_entity("lock.side_door")

    async def stays_open(**_kwargs: object) -> None:
        return None

    side.async_unlock = stays_open
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    scripted_worker.will_write(
        answer(call("lock", action="unlock", entity_id=["lock.kitchen_door", "lock.side_door"]))
    )

    question = await agent.ask("unlock the doors", context=person)
    reply = await agent.ask("yes", conversation_id=question.conversation_id, context=person)

    assert state(hass, "lock.side_door") == "open"
    assert speech(reply) == "Kitchen Door: already unlocked and Side Door: already open."


async def test_a_tool_answering_in_an_intents_dict_is_no_crash(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Another API's tool answering with an IntentResponseDict made from a plain dict (it has
    no intent response) crashed the turn: "'IntentResponseDict' object has no attribute
    'original'". It is read as any tool's answer now, and core's sentence is not said."""
    data = llm.IntentResponseDict({"speech_slots": {"timers": [MADE_UP_TIMER]}})
    tool = offer_answering_tool(hass, "HassTimerStatus", data)
    tool.annotations = llm.ToolAnnotations(read_only=True)
    agent = await scene.assist_agent(
        **{CONF_LLM_HASS_API: ["other_api"], CONF_EXEMPT_TOOLS: ["other_api/HassTimerStatus"]}
    )
    scene.worker.will_write(tool_call("HassTimerStatus"), answer(""))

    result = await agent.ask("how long is left on my timer?", context=scene.person)

    assert speech(result) == "Sorry, I have no answer to that."
