"""State words that agree with nothing the product cannot know.

- A call that found its target already as it asked was said "Guirlande était déjà allumé",
  "Luces del salón ya estaba encendido", "Kitchen Lights was already on": a verb and a state
  word that agree with a name whose gender and number the product cannot know. Home Assistant's
  state words are labels (its frontend shows "Allumé" beside any name; some are even written
  "Bloccato/a"), so a target and its state are now said as a label: "Guirlande : déjà allumé".
- The same for a state a confirmed action left ("car Porte est toujours verrouillé"), which
  now follows the action after a dash.
"""

from __future__ import annotations

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scene import Scene
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

KITCHEN_LIGHTS = "light.kitchen_lights"


@pytest.mark.parametrize(
    ("language", "name", "said"),
    [
        ("en", "Kitchen Lights", "Kitchen Lights: already on."),
        ("de", "Küchenlichter", "Küchenlichter: schon eingeschaltet."),
        ("fr", "Guirlande", "Guirlande\u00a0: déjà allumé."),
        ("es", "Luces del salón", "Luces del salón: ya encendido."),
        ("it", "Luci della cucina", "Luci della cucina: già acceso."),
        ("nl", "Keukenlampen", "Keukenlampen: al aan."),
        ("pt", "Luzes da cozinha", "Luzes da cozinha: já ligado."),
    ],
)
async def test_a_target_found_as_asked_is_said_as_a_label_whatever_its_name(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    name: str,
    said: str,
) -> None:
    """Before: "Guirlande était déjà allumé", "Luces del salón ya estaba encendido",
    "Kitchen Lights was already on" (a plural name, a feminine one, a singular verb)."""
    er.async_get(hass).async_update_entity(KITCHEN_LIGHTS, name=name)
    assert state(hass, KITCHEN_LIGHTS) == "on"
    scripted_worker.will_write(answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHTS)))

    result = await scripted_agent.ask(name, context=person, language=language)

    assert speech(result) == said


@pytest.mark.parametrize(
    ("language", "ask", "yes", "said"),
    [
        (
            "en",
            "unlock the doors",
            "yes",
            "I could not finish: unlock Back Doors \u2013 Back Doors: still locked.",
        ),
        (
            "fr",
            "déverrouille la porte",
            "oui",
            "Je n'ai pas pu terminer\u00a0: déverrouiller Porte "
            "\u2013 Porte\u00a0: toujours verrouillé.",
        ),
        (
            "es",
            "abre las puertas",
            "sí",
            "No he podido terminar: desbloquear Puertas \u2013 Puertas: todavía bloqueado.",
        ),
    ],
)
async def test_a_state_a_confirmed_action_left_is_said_as_a_label(
    hass: HomeAssistant,
    scene: Scene,
    quick_settle: None,
    language: str,
    ask: str,
    yes: str,
    said: str,
) -> None:
    """Before: "…, car Porte est toujours verrouillé", "…, porque Puertas sigue bloqueado",
    "…, because Back Doors is still locked"."""
    name = {"en": "Back Doors", "fr": "Porte", "es": "Puertas"}[language]
    er.async_get(hass).async_update_entity("lock.stuck_door", name=name)
    async_expose_entity(hass, "conversation", "lock.stuck_door", True)
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("lock", action="unlock", entity_id="lock.stuck_door"))
    question = await agent.ask(ask, context=scene.person, language=language)
    assert question.continue_conversation is True, speech(question)

    done = await scene.reply(agent, question, yes, language=language)

    assert speech(done) == said
    assert scene.audit[-1]["reason"] == f"{name} is still locked"
