"""A conversation of many turns, as the model sees it.

- Thirty commands in one conversation: once the history filled its room, the oldest turn went
  at every turn, so the history began somewhere else each time and the engine read all of it
  again (about 2,100 tokens a command instead of 19: seconds on a small CPU). Now the oldest
  turns go several at a time, down to half the room, and the start stays put for the turns
  that follow: whole turns still, the newest kept, the cost per command flat between drops.
"""

from __future__ import annotations

from os.path import commonprefix
from typing import Final

from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import Agent
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call

KITCHEN: Final = "light.kitchen_lights"
# About four characters a token, as the stand-in counts them.
CHARS_PER_TOKEN: Final = 4


def read_anew(seen: SeenRequest, prepared: tuple[str, str]) -> int:
    """Tokens of the request the engine had not evaluated ahead of it (what it prepared)."""
    text = seen.prompt.text
    return (len(text) - len(commonprefix([text, "".join(prepared)]))) // CHARS_PER_TOKEN


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
