"""What a twenty-fourth walk in a real browser found wrong (a French household typing into the
Assist dialog: counts in brackets, locks named alike or with brackets, a no in a new dialog, a
second user).

- A lock named "Porte (entrée)" is said with its entity id, since its name holds marks of our
  sentences. After "oui", a lock that did not unlock was said "Je n'ai pas pu terminer :
  déverrouiller Porte (entrée) (lock.porte_entree), car Porte (entrée) (lock.porte_entree) est
  toujours verrouillé": the id twice in one sentence. The reason names the target again after
  the sentence that told it apart: its name alone.
"""

from __future__ import annotations

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import speech
from .scene import Scene
from .scene import tool_call


@pytest.mark.parametrize(
    ("language", "ask", "yes", "said"),
    [
        (
            "en",
            "unlock the door",
            "yes",
            "I could not finish: unlock Porte (entrée) (lock.stuck_door) "
            "\u2013 Porte (entrée): still locked.",
        ),
        (
            "fr",
            "déverrouille la porte",
            "oui",
            "Je n'ai pas pu terminer\u00a0: déverrouiller Porte (entrée) (lock.stuck_door) "
            "\u2013 Porte (entrée)\u00a0: toujours verrouillé.",
        ),
    ],
)
async def test_a_reason_after_a_name_told_apart_says_the_name_alone(
    hass: HomeAssistant,
    scene: Scene,
    quick_settle: None,
    language: str,
    ask: str,
    yes: str,
    said: str,
) -> None:
    er.async_get(hass).async_update_entity("lock.stuck_door", name="Porte (entrée)")
    async_expose_entity(hass, "conversation", "lock.stuck_door", True)
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("lock", action="unlock", entity_id="lock.stuck_door"))
    question = await agent.ask(ask, context=scene.person, language=language)
    assert "Porte (entrée) (lock.stuck_door)" in speech(question)

    done = await scene.reply(agent, question, yes, language=language)

    assert speech(done) == said
    # What the model and the audit read keeps the id: they tell targets apart by it.
    assert scene.audit[-1]["reason"] == "Porte (entrée) (lock.stuck_door) is still locked"
