"""The path of "unlock the front door" -> "yes" through the product: few files, never back up.

The path starts where the agent gets the model's calls (and asks its question) and where it
gets the person's reply; the prompt and the model of the first turn are not part of it.
"""

from __future__ import annotations

from custom_components.local_agent.home.runner import async_turn_context
from custom_components.local_agent.safety.gate import SafetyGate
from custom_components.local_agent.turn.agent import ConversationAgent
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context, HomeAssistant

from .call_path import traced
from .conftest import Agent, speech, state
from .scripted_model import ScriptedWorker, answer, call

ROOTS = (
    async_turn_context,  # who asks
    ConversationAgent._async_run_calls,  # the model's calls: validated, decided, run or held
    SafetyGate.async_hold,  # the question
    ConversationAgent._async_reply,  # the person's answer, and running what it confirms
)


async def test_unlock_then_yes_crosses_few_files_and_never_comes_back_up(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    async_expose_entity(hass, "conversation", "lock.front_door", True)
    # A first turn builds what every later turn reuses (the service catalog, the home list).
    await scripted_agent.ask("hello", context=person)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))

    with traced(ROOTS) as path:
        question = await scripted_agent.ask("unlock the front door", context=person)
        done = await scripted_agent.ask(
            "yes", conversation_id=question.conversation_id, context=person
        )

    assert speech(question) == "Unlock Front Door? Say yes to confirm."
    assert speech(done) == "Done: unlock Front Door."
    assert state(hass, "lock.front_door") == "unlocked"
    print("files:", path.files)
    print("main line:", path.main_line)
    print("calls:", {k: sorted(v) for k, v in path.calls.items()})
    assert path.from_below == []
    assert len(path.files) <= 15
    assert len(path.main_line) <= 5
