"""What a twentieth walk in a real browser found wrong (a German and then a French household:
a timer, the date and time helpers, a notification, the calendar, the shopping list, the
vacuum's rooms, a light effect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .home import async_setup_demo
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_demo_model import demo_agent
from .test_everyday_twenty_third import DATED
from .test_everyday_twenty_third import DISPLAY


@pytest.mark.parametrize(
    ("language", "message", "title", "said"),
    [
        (
            "de",
            "Das Essen ist fertig",
            "Küche",
            "Erledigt: „Das Essen ist fertig“ an Notifier senden (Küche).",
        ),
        (
            "fr",
            "Le dîner est prêt",
            "Cuisine",
            "C'est fait\xa0: envoyer «\xa0Le dîner est prêt\xa0» à Notifier (Cuisine).",
        ),
        ("es", "La cena", "Cocina", "Hecho: enviar «La cena» a Notifier (Cocina)."),
        ("nl", "Het eten", "Keuken", "Klaar: „Het eten” naar Notifier sturen (Keuken)."),
        ("pt", "O jantar", "Cozinha", "Feito: enviar «O jantar» para Notifier (Cozinha)."),
    ],
)
async def test_a_message_sent_is_quoted_as_the_language_quotes(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    message: str,
    title: str,
    said: str,
) -> None:
    """The German walk sent „Das Essen ist fertig“ and heard it back in English quotes:
    'Erledigt: "Das Essen ist fertig" an Notifier senden', the French one 'envoyer "Le dîner
    est prêt" à Notifier', where the agent's own questions say „ja“ and «\xa0oui\xa0». The
    message is now quoted as the language quotes (as the question quotes its yes)."""
    await async_setup_demo(hass, DATED)
    async_expose_entity(hass, "conversation", DISPLAY, True)
    scripted_worker.will_write(
        answer(
            call("notify", action="send_message", entity_id=DISPLAY, message=message, title=title)
        )
    )

    result = await scripted_agent.ask("…", context=person, language=language)

    assert speech(result) == said


async def test_the_demo_knows_a_german_and_a_french_households_timer(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """The walk's stand-in model knew no timer, and "Wann endet der Kitchen Timer?" read the
    player "Kitchen" ("Kitchen: playing"): it now starts the timer said in German or French
    and reads the entity with the longest name the words hold."""
    assert await async_setup_component(
        hass, "timer", {"timer": {"kitchen_timer": {"name": "Kitchen Timer"}}}
    )
    async_expose_entity(hass, "conversation", "timer.kitchen_timer", True)
    agent = await demo_agent(hass, tmp_path)

    started = await agent.ask(
        "Starte den Kitchen Timer für 10 Minuten", context=person, language="de"
    )
    read = await agent.ask("Wann endet der Kitchen Timer?", context=person, language="de")
    paused = await agent.ask("Mets en pause le Kitchen Timer", context=person, language="fr")

    assert speech(started) == "Erledigt: Kitchen Timer für 10 Minuten starten."
    assert speech(read).startswith("Kitchen Timer: active")
    assert speech(paused) == "C'est fait\xa0: mettre en pause Kitchen Timer."
    assert state(hass, "timer.kitchen_timer") == "paused"
