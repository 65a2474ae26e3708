"""What a twenty-ninth walk in a real browser found wrong (an English and then a German
household's evening in one Assist dialog, after the session that changed how values are said).

- The English "Run Good Night" was held ("Run Good Night? Say yes to confirm."); the German
  speaker who took the dialog next asked for something else in the same conversation, and the
  question was set aside with "Run Good Night: nicht erledigt, denn deine Antwort war kein
  einfaches Ja.": the held action in the language it was asked in, inside a German sentence.
  It is now said in the language of the answer, as a question asked again elsewhere is.
"""

from __future__ import annotations

from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call


async def test_a_question_set_aside_in_another_language_says_the_action_in_that_language(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Before: "Unlock Front Door: nicht erledigt, denn deine Antwort war kein einfaches Ja."."""
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))
    asked = await scripted_agent.ask("Unlock the Front Door", context=person, language="en")
    assert speech(asked) == "Unlock Front Door? Say yes to confirm."

    scripted_worker.will_write(answer("Gern."))
    other = await scripted_agent.ask(
        "Wie spät ist es?",
        conversation_id=asked.conversation_id,
        context=person,
        language="de",
    )
    await hass.async_block_till_done()

    said = speech(other)
    assert said.startswith("Front Door aufschließen: nicht erledigt, denn deine Antwort"), said
    assert "Unlock" not in said
    assert state(hass, "lock.front_door") == "locked"
