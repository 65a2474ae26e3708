"""What a nineteenth walk in a real browser found wrong (a new household's first evening, in
Italian and then in Portuguese: the integration added, the Assist dialog, the integration's
pages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from testing import demo_model

from .conftest import speech
from .conftest import state
from .scene import ask_to_unlock
from .scripted_model import answer
from .scripted_model import call
from .test_demo_model import demo_agent
from .test_safety import FRONT_DOOR
from .test_safety import GARAGE
from .test_safety import Scene
from .test_safety import locks_exposed
from .test_safety import make_scene
from .test_safety import scene

__all__ = ["locks_exposed", "make_scene", "scene"]

OPEN_GARAGE = answer(call("cover", action="open_cover", entity_id=GARAGE))
UNLOCK = answer(call("lock", action="unlock", entity_id=FRONT_DOOR))


@pytest.mark.parametrize(
    ("language", "model_said", "reply", "entity_id", "done"),
    [
        ("pt", OPEN_GARAGE, "sim, abre", GARAGE, "Feito: abrir Garage Door."),
        ("pt-BR", OPEN_GARAGE, "Sim, abra.", GARAGE, "Feito: abrir Garage Door."),
        ("pt", UNLOCK, "sim, destranca", FRONT_DOOR, "Feito: destrancar Front Door."),
        ("it", UNLOCK, "sì, sblocca", FRONT_DOOR, "Fatto: sbloccare Front Door."),
        ("it", OPEN_GARAGE, "Sì, apri!", GARAGE, "Fatto: aprire Garage Door."),
        ("es", OPEN_GARAGE, "sí, abre", GARAGE, "Hecho: abrir Garage Door."),
        (
            "fr",
            UNLOCK,
            "oui, déverrouille",
            FRONT_DOOR,
            "C'est fait\xa0: déverrouiller Front Door.",
        ),
        ("nl", UNLOCK, "ja, ontgrendel", FRONT_DOOR, "Klaar: Front Door ontgrendelen."),
    ],
)
async def test_yes_with_the_held_verb_alone_does_it(
    scene: Scene, language: str, model_said: str, reply: str, entity_id: str, done: str
) -> None:
    """The Portuguese walk answered "Abrir Garage Door? Diga «sim» para confirmar." with
    "sim, abre" (yes, open), as one answers in Portuguese: the door stayed shut and the answer
    was "não o fiz, porque a sua resposta não foi um simples sim", though "sim, abre-a" and
    English "yes, open" did it. The held verb alone, without its pronoun, now reads as the
    held action said again in each language the agent speaks."""
    scene.worker.will_write(model_said)
    question = await scene.agent.ask("…", context=scene.person, language=language)
    asked = len(scene.worker.requests)

    result = await scene.reply(question, reply, language=language)

    assert speech(result) == done
    assert len(scene.worker.requests) == asked
    assert scene.state(entity_id) in {"open", "opening", "unlocked", "unlocking"}
    assert scene.outcomes() == ["proposed", "confirmed", "executed"]


@pytest.mark.parametrize(
    ("language", "model_said", "reply"),
    [
        ("pt", UNLOCK, "sim, tranca"),  # another verb
        ("it", UNLOCK, "sì, blocca"),
        ("pt", OPEN_GARAGE, "sim, abre a janela"),  # more than the held action
        ("it", OPEN_GARAGE, "sì, apri anche la finestra"),
        ("es", OPEN_GARAGE, "sí, cierra"),
    ],
)
async def test_another_verb_or_more_words_alone_still_confirm_nothing(
    scene: Scene, language: str, model_said: str, reply: str
) -> None:
    scene.worker.will_write(model_said, answer("…"))
    question = await scene.agent.ask("…", context=scene.person, language=language)

    await scene.reply(question, reply, language=language)

    assert scene.state(FRONT_DOOR) == "locked"
    assert scene.state(GARAGE) == "closed"
    assert "executed" not in scene.outcomes()


@pytest.mark.parametrize(
    ("language", "reply", "state", "outcomes"),
    [
        ("pt", "Sim, faz isso.", "unlocked", ["proposed", "confirmed", "executed"]),
        ("pt", "faça isso, por favor", "unlocked", ["proposed", "confirmed", "executed"]),
        ("pt", "avança", "unlocked", ["proposed", "confirmed", "executed"]),
        ("it", "assolutamente sì", "unlocked", ["proposed", "confirmed", "executed"]),
        ("pt", "não, deixa estar", "locked", ["proposed", "cancelled"]),
        ("it", "certo che no", "locked", ["proposed", "cancelled"]),
    ],
)
async def test_everyday_portuguese_and_italian_answers_are_read(
    scene: Scene, language: str, reply: str, state: str, outcomes: list[str]
) -> None:
    """The walk answered the held question as people do: "sim, faz isso" (yes, do it) and
    "avança" (go ahead) were "não o fiz, porque a sua resposta não foi um simples sim", where
    Italian "fallo" and English "do it" do it; "não, deixa estar" (no, leave it) was no plain
    no either, and its words went on to the model as a new request. They are read now."""
    question = await ask_to_unlock(scene.agent, scene.worker, scene.person, language)
    asked = len(scene.worker.requests)

    await scene.reply(question, reply, language=language)

    assert len(scene.worker.requests) == asked
    assert scene.state(FRONT_DOOR) == state
    assert scene.outcomes() == outcomes


async def test_the_demo_knows_an_italian_and_a_portuguese_household(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """The walk's stand-in model knew no Italian or Portuguese command and took "accendi"
    for the AC ("xq!! ;; accendi ???" read "AC: off")."""
    agent = await demo_agent(hass, tmp_path)

    dimmed = await agent.ask("abbassa Kitchen Lights del 20 %", context=person, language="it")
    lit = await agent.ask("liga Bed Light", context=person, language="pt")
    garbled = await agent.ask("xq!! ;; accendi ???", context=person, language="it")

    assert speech(dimmed) == "Fatto: abbassare la luminosità di Kitchen Lights del 20%."
    assert speech(lit) == "Feito: ligar Bed Light."
    assert state(hass, "light.bed_light") == "on"
    assert speech(garbled) == demo_model.HELP
