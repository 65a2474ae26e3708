"""A conversation of many turns, as the model sees it.

- Thirty commands in one conversation: once the history filled its room, the oldest turn went
  at every turn, so the history began somewhere else each time and the engine read all of it
  again (about 2,100 tokens a command instead of 19: seconds on a small CPU). Now the oldest
  turns go several at a time, down to half the room, and the start stays put for the turns
  that follow: whole turns still, the newest kept, the cost per command flat between drops.
- "Turn on every light", the kitchen bulb dead: the model read only {"error": "Kitchen Lights
  is still off"} for its call on six lights, as if none had gone on. Now the result lists the
  five that did beside the error, as a done call's result lists them.
- Checked and fine, pinned: two tabs at once, and a PIN question asked twice, as the next
  turn reads them.
"""

from __future__ import annotations

import json
from typing import Any
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scene import PIN
from .scene import Scene
from .scene import unlock
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_twenty_sixth import LIGHTS

KITCHEN: Final = "light.kitchen_lights"
# About four characters a token, as the stand-in counts them.
CHARS_PER_TOKEN: Final = 4


def read_anew(seen: SeenRequest, prepared: tuple[str, str]) -> int:
    """Tokens of the request the engine had not evaluated ahead of it (what it prepared)."""
    text, ahead = seen.prompt.text, "".join(prepared)
    shared = next(
        (
            i
            for i, (read, evaluated) in enumerate(zip(text, ahead, strict=False))
            if read != evaluated
        ),
        min(len(text), len(ahead)),
    )
    return (len(text) - shared) // CHARS_PER_TOKEN


async def test_thirty_commands_cost_the_same_after_the_history_is_full(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Before: from the 16th command on, each one read the whole history again (15 of 30)."""
    conversation_id: str | None = None
    costs: list[int] = []
    prepared: tuple[str, str] | None = None
    for turn in range(30):
        percent = 10 + 3 * turn
        scripted_worker.will_write(
            answer(call("light", action="turn_on", entity_id=KITCHEN, brightness_pct=percent))
        )
        result = await scripted_agent.ask(
            f"kitchen light to {percent} percent", conversation_id=conversation_id, context=person
        )
        conversation_id = result.conversation_id
        if prepared is not None:
            costs.append(read_anew(scripted_worker.requests[-1], prepared))
        await hass.async_block_till_done()
        prepared = scripted_worker.prepared[-1]

    rereads = [cost for cost in costs if cost > 200]
    assert len(rereads) <= 3, costs
    last = scripted_worker.requests[-1].dynamic_prompt
    # Bounded, the newest kept, the oldest gone first, each call with its result.
    assert "kitchen light to 97 percent" in last
    assert "kitchen light to 94 percent" in last
    assert "kitchen light to 10 percent" not in last
    assert last.count("<tool_call>") == last.count("<tool_response>") > 0
    assert len(last) < len(scripted_worker.requests[14].dynamic_prompt)


def last_tool_response(seen: SeenRequest) -> dict[str, Any]:
    """The last tool result the model read in this request, as it read it."""
    text = seen.dynamic_prompt.rsplit("<tool_response>\n", 1)[1].split("\n</tool_response>")[0]
    result = json.loads(text)
    assert isinstance(result, dict)
    return result


@pytest.mark.usefixtures("dead_bulb")
async def test_a_partly_done_call_shows_the_model_what_did_go_on(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Before: the model read only {"error": "Kitchen Lights is still off"} for its call on six
    lights, five of which went on: as if none had, for its next round and the next turn."""
    for light in LIGHTS:
        async_expose_entity(hass, "conversation", light, True)
        await hass.services.async_call("light", "turn_off", {"entity_id": light}, blocking=True)
    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id=list(LIGHTS))), answer("")
    )

    result = await scripted_agent.ask("turn on every light", context=person)

    assert speech(result) == "Turned on 5 lights. I could not turn on Kitchen Lights."
    read = last_tool_response(scripted_worker.requests[-1])
    assert read["error"] == "Kitchen Lights is still off"
    assert {entity["entity_id"]: entity["state"] for entity in read["entities"]} == {
        light: "on" for light in LIGHTS if light != KITCHEN
    }


async def test_two_tabs_keep_their_own_history_and_each_learns_the_others_change_once(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Checked and fine: tab B never reads tab A's words, and reads the light A turned off
    once, in its next message's changed states; A, which read it in its call's result, not."""

    async def say(text: str, conversation_id: str | None, write: str) -> str:
        scripted_worker.will_write(write)
        result = await scripted_agent.ask(text, conversation_id=conversation_id, context=person)
        await hass.async_block_till_done()
        assert result.conversation_id is not None
        return result.conversation_id

    tab_a = await say("hello from tab A", None, answer("Hi."))
    tab_b = await say("hello from tab B", None, answer("Hi."))
    await say(
        "turn off the kitchen light",
        tab_a,
        answer(call("light", action="turn_off", entity_id=KITCHEN)),
    )
    await say("is the kitchen light on?", tab_b, answer("No."))
    await say("and the bed light?", tab_b, answer("No."))
    b_read = scripted_worker.requests[-1].dynamic_prompt
    await say("what did you do?", tab_a, answer("I turned it off."))
    a_read = scripted_worker.requests[-1].dynamic_prompt

    assert "tab A" not in b_read
    assert "turn off the kitchen light" not in b_read
    assert b_read.count(f"- {KITCHEN}: off") == 1
    assert b_read.index(f"- {KITCHEN}: off") < b_read.index("is the kitchen light on?")
    assert "tab B" not in a_read
    assert f"- {KITCHEN}: off" not in a_read


async def test_a_pin_question_asked_twice_reads_true_in_the_next_turn_and_no_pin_leaks(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Checked and fine: a wrong PIN, the question asked again, the right PIN: the next turn
    reads each answer once, as the agent's, the door's new state, and never a digit said."""
    agent, question = await scene.pin_question()
    await scene.reply(agent, question, "1234")
    scene.worker.will_write(unlock())
    again = await scene.reply(agent, question, "unlock the front door")
    await scene.reply(agent, again, PIN)
    scene.worker.will_write(answer("I unlocked the front door."))
    await scene.reply(agent, again, "what did you just do?")

    read = scene.worker.requests[-1].dynamic_prompt
    assert state(hass, "lock.front_door") == "unlocked"
    assert "1234" not in read
    assert PIN not in read
    for said in ("That PIN is not right, so I did nothing.", "Done: unlock Front Door."):
        assert read.count(f"<|im_start|>assistant\n{said}<|im_end|>") == 1, read
    assert read.count("Unlock Front Door? Say your PIN to confirm.") == 2
    assert read.count("- lock.front_door: unlocked") == 1
