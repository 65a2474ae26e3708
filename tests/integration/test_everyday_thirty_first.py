"""The agent in a house's scripts and automations: what `conversation.process` gives back.

"At sunset, turn on the bed light and lock up" written as one sentence to the agent: the model
turns the bed light on and tries to unlock (or lock) the front door. With no person to confirm
it the unlock is refused, but the script read only the refusal, as an error: nothing said the
bed light had gone on, and `data.success` was gone. Now the speech says what ran first, and the
response is `action_done` with what changed in `data.success` and the door in `data.failed`, as
core's intents answer a request done in part.
Real YAML scripts through `async_setup_component`, run as a person's dashboard button or an
automation runs them; the scripted model writes the calls.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.turn.defaults import ai_task_data
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.setup import async_setup_component

from .conftest import Agent
from .conftest import async_setup_entry_with_subentries
from .conftest import entity_of
from .conftest import generate_data
from .conftest import state
from .conftest import subentry
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call
from .test_redteam import event_trigger

BED_LIGHT_AND_UNLOCK: Final = answer(
    call("light", action="turn_on", entity_id="light.bed_light")
    + "\n"
    + call("lock", action="unlock", entity_id="lock.front_door")
)


async def set_up_the_ask_script(hass: HomeAssistant, agent: Agent) -> None:
    """A script that says its `text` to the agent in its `language` and returns the reply."""
    assert await async_setup_component(hass, "conversation", {})
    process = {
        "action": "conversation.process",
        "data": {"text": "{{ text }}", "agent_id": agent.entity_id, "language": "{{ language }}"},
        "response_variable": "reply",
    }
    sequence = [process, {"stop": "replied", "response_variable": "reply"}]
    assert await async_setup_component(hass, "script", {"script": {"ask": {"sequence": sequence}}})
    await hass.services.async_call("light", "turn_off", {"entity_id": "all"}, blocking=True)


async def ask_through_the_script(hass: HomeAssistant, text: str, language: str) -> dict[str, Any]:
    """Run the script as an automation does; what `conversation.process` answered."""
    reply = await hass.services.async_call(
        "script", "ask", {"text": text, "language": language}, blocking=True, return_response=True
    )
    assert reply is not None
    response = reply["response"]
    assert isinstance(response, dict)
    return response


REFUSED: Final = {
    "en": (
        "I did not unlock Front Door: this needs a person to confirm it, and this request came "
        "from an automation."
    ),
    "de": (
        "Nicht ausgeführt: Front Door aufschließen. Das muss eine Person bestätigen, und diese "
        "Anfrage kam von einer Automatisierung."
    ),
}
SAID: Final = {
    "en": f"Turned on Bed Light. {REFUSED['en']}",
    "de": f"Erledigt: Bed Light einschalten. {REFUSED['de']}",
}


@pytest.mark.parametrize("language", list(SAID))
async def test_a_script_hears_what_ran_beside_an_unlock_it_may_not_do(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, language: str
) -> None:
    """Before: only "I did not unlock Front Door: ..." while the bed light went on."""
    await set_up_the_ask_script(hass, scripted_agent)
    scripted_worker.will_write(BED_LIGHT_AND_UNLOCK)

    response = await ask_through_the_script(hass, "bed light on and unlock", language)

    assert response["speech"]["plain"]["speech"] == SAID[language]
    assert response["language"] == language
    assert (state(hass, "light.bed_light"), state(hass, "lock.front_door")) == ("on", "locked")


async def test_a_scripts_reply_lists_what_changed_beside_a_refused_unlock(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Before: `error` / `failed_to_handle`, with no `data.success` or `data.failed` to read."""
    await set_up_the_ask_script(hass, scripted_agent)
    scripted_worker.will_write(BED_LIGHT_AND_UNLOCK)

    response = await ask_through_the_script(hass, "bed light on and unlock", "en")

    assert response["response_type"] == "action_done"
    assert [target["id"] for target in response["data"]["success"]] == ["light.bed_light"]
    assert response["data"]["failed"] == [
        {"name": "Front Door", "type": "entity", "id": "lock.front_door"}
    ]


async def test_an_unlock_alone_is_still_an_error_the_script_can_read(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The neighbour: nothing ran, so the refusal is the whole reply, an error in German."""
    await set_up_the_ask_script(hass, scripted_agent)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))

    response = await ask_through_the_script(hass, "schließ die Haustür auf", "de")

    assert response["response_type"] == "error"
    assert response["data"] == {"code": "failed_to_handle"}
    assert response["speech"]["plain"]["speech"] == REFUSED["de"]
    assert state(hass, "lock.front_door") == "locked"


SPEECH: Final = "{{ reply.response.speech.plain.speech }}"


def listen_to_tell(hass: HomeAssistant) -> list[str]:
    """Register `test.tell` (a phone's notify, as an automation uses it); what it was told."""
    told: list[str] = []
    hass.services.async_register("test", "tell", lambda call: told.append(call.data["message"]))
    return told


async def test_an_automation_tells_the_answer_and_goes_on_when_the_model_fails(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The neighbours, as they were: a question's answer reaches the phone from
    `reply.response.speech.plain.speech`, and a model that fails is a reply of type `error`
    saying why, in the request's language, not an exception that stops the automation."""
    told = listen_to_tell(hass)
    ask = {
        "action": "conversation.process",
        "data": {"text": "{{ trigger.event.data.text }}", "agent_id": scripted_agent.entity_id},
        "response_variable": "reply",
    }
    tell = {
        "action": "test.tell",
        "data": {"message": "{{ reply.response.response_type }}: " + SPEECH},
    }
    automation = {"triggers": [event_trigger("door_check")], "actions": [ask, tell]}
    assert await async_setup_component(hass, "automation", {"automation": [automation]})

    def fails(_seen: SeenRequest) -> str:
        raise EngineError("the model went away")

    scripted_worker.will_write(
        answer(call("get_state", entity_id="lock.front_door")), answer("It is locked."), fails
    )
    for text in ("is the front door locked?", "is the front door still locked?"):
        hass.bus.async_fire("door_check", {"text": text})
        await hass.async_block_till_done()

    assert told == [
        "query_answer: It is locked.",
        "error: Sorry, the language model failed: the model went away",
    ]


# --- An AI task whose instructions read like a command --------------------------------------


async def set_up_a_task(hass: HomeAssistant, worker: ScriptedWorker) -> str:
    """An AI task on the scripted model; its entity id."""
    entry = await async_setup_entry_with_subentries(
        hass,
        subentry(SUBENTRY_AI_TASK, "Task", ai_task_data()),
        data={CONF_MODEL_PATH: str(worker.info.path)},
        unique_id=str(worker.info.path),
    )
    [task] = entry.subentries
    return entity_of(hass, "ai_task", task)


async def test_a_task_told_to_unlock_says_it_never_acts_and_unlocks_nothing(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    """Before: "The model wrote no answer to this task. If it thinks, give it a thinking
    budget", advice that cannot help: the model wrote a call. A real automation asks."""
    task = await set_up_a_task(hass, scripted_worker)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))
    told = listen_to_tell(hass)
    generate = {
        "action": "ai_task.generate_data",
        "data": {"task_name": "door", "entity_id": task, "instructions": "unlock the front door"},
        "response_variable": "result",
        "continue_on_error": True,
    }
    tell = {"action": "test.tell", "data": {"message": "{{ result | default('no result') }}"}}
    automation = {"triggers": [event_trigger("door_check")], "actions": [generate, tell]}
    assert await async_setup_component(hass, "automation", {"automation": [automation]})

    with pytest.raises(HomeAssistantError) as raised:
        await generate_data(hass, task, instructions="unlock the front door")
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))
    hass.bus.async_fire("door_check")
    await hass.async_block_till_done()

    assert raised.value.translation_key == "task_tool_call"
    assert str(raised.value).startswith("The model wrote a call to act on the home")
    assert told == ["no result"]
    assert state(hass, "lock.front_door") == "locked"
