"""What a walk at phone size (390 by 844, the Assist dialog and the integration's pages in all
seven languages) found: a time said with its zero seconds, two colons in one sentence."""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.engine.words import LANGUAGES
from custom_components.local_agent.engine.words import YES_WORD
from custom_components.local_agent.home.call_texts import call_words
from custom_components.local_agent.home.call_texts import verb
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import Agent
from .conftest import speech
from .scene import Scene
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .scripted_model import call
from .test_everyday_twenty_second import WAKE_UP
from .test_everyday_twenty_second import a_morning_at_wake_up_time
from .test_everyday_twenty_second import a_wake_up_time
from .test_redteam import UNLOCK_FRONT_DOOR

DONE_AT_HALF_PAST_SEVEN: Final = {
    "en": "Set Wake up to 07:30.",
    "de": "Erledigt: Wake up auf 07:30 einstellen.",
    "fr": "C'est fait\xa0: régler Wake up sur 07:30.",
    "es": "Hecho: ajustar Wake up a las 07:30.",
    "it": "Fatto: impostare Wake up alle 07:30.",
    "nl": "Klaar: Wake up op 07:30 instellen.",
    "pt": "Feito: definir Wake up para as 07:30.",
}


CHRISTMAS_EVE_AT_SEVEN: Final = {
    "en": "Set Wake up to December 24, 2026 at 07:15.",
    "de": "Erledigt: Wake up auf 24. Dezember 2026 um 07:15 einstellen.",
    "fr": "C'est fait\xa0: régler Wake up sur 24 décembre 2026 à 07:15.",
    "es": "Hecho: ajustar Wake up al 24 de diciembre de 2026 a las 07:15.",
    "it": "Fatto: impostare Wake up al 24 dicembre 2026 alle 07:15.",
    "nl": "Klaar: Wake up op 24 december 2026 om 07:15 instellen.",
    "pt": "Feito: definir Wake up para 24 de dezembro de 2026 às 07:15.",
}


CHRISTMAS_EVE: Final = {"date": "2026-12-24", "time": "07:15:00"}
MAY_DAY: Final = {"date": "2027-05-01"}


@pytest.mark.parametrize(
    ("fields", "language", "done"),
    [
        *(
            ({"time": "07:30:00"}, language, done)
            for language, done in DONE_AT_HALF_PAST_SEVEN.items()
        ),
        ({"time": "07:30:15"}, "en", "Set Wake up to 07:30:15."),
        (
            {"date": "2026-12-24", "time": "07:30:00"},
            "it",
            "Fatto: impostare Wake up al 24 dicembre 2026 alle 07:30.",
        ),
        (
            {"date": "2026-12-24", "time": "07:30:00"},
            "pt",
            "Feito: definir Wake up para 24 de dezembro de 2026 às 07:30.",
        ),
        # A date as each language says one, not "2026-12-24" (a voice reads numbers).
        *((CHRISTMAS_EVE, language, done) for language, done in CHRISTMAS_EVE_AT_SEVEN.items()),
        # The first of a month as its language says it: "1er mai", "1º maggio".
        (MAY_DAY, "en", "Set Wake up to May 1, 2027."),
        (MAY_DAY, "fr", "C'est fait\xa0: régler Wake up sur 1er mai 2027."),
        (MAY_DAY, "it", "Fatto: impostare Wake up al 1º maggio 2027."),
    ],
)
async def test_a_wake_up_time_and_date_are_said_as_people_say_them(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    fields: dict[str, str],
    language: str,
    done: str,
) -> None:
    """The walk said "pon Despertador a las 7:30": the answer read "ajustar Despertador a las
    07:30:00" (English "set Wake-up to 07:30:00"), seconds nobody says. Said only when they
    are not zero; Italian and Portuguese say the hour as they do ("alle", "às"). A date by its
    month's name in the language's order, not "2026-12-24 07:15" (the twenty-fifth round)."""
    await a_wake_up_time(hass)
    scripted_worker.will_write(
        call("input_datetime", action="set_datetime", entity_id=WAKE_UP, **fields)
    )

    result = await scripted_agent.ask("…", context=person, language=language)

    assert speech(result) == done


QUESTION_DONE: Final = {
    "en": "Done: set Wake up to 07:30 (this may unlock Front Door).",
    "de": "Erledigt: Wake up auf 07:30 einstellen (das kann Front Door aufschließen).",
    "fr": "C'est fait\xa0: régler Wake up sur 07:30 (cela peut déverrouiller Front Door).",
    "es": "Hecho: ajustar Wake up a las 07:30 (esto puede desbloquear Front Door).",
    "it": "Fatto: impostare Wake up alle 07:30 (questo può sbloccare Front Door).",
    "nl": "Klaar: Wake up op 07:30 instellen (dit kan Front Door ontgrendelen).",
    "pt": "Feito: definir Wake up para as 07:30 (isto pode destrancar Front Door).",
}


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_question_for_a_wake_up_time_says_it_without_zero_seconds(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """Setting the time an automation unlocks the door at is asked: the question and the
    answer to its yes say the time as the plain answer does."""
    await a_morning_at_wake_up_time(hass, WAKE_UP, UNLOCK_FRONT_DOOR)
    agent = await scene.our_agent()
    scene.worker.will_write(
        tool_call("input_datetime", action="set_datetime", entity_id=WAKE_UP, time="07:30:00")
    )
    question = await agent.ask("…", context=scene.person, language=language)
    done = await scene.reply(agent, question, YES_WORD[language], language=language)

    assert "07:30" in speech(question)
    assert "07:30:00" not in speech(question)
    assert speech(done) == QUESTION_DONE[language]


@pytest.mark.parametrize("language", ["de", "fr", "es", "it", "nl", "pt"])
def test_a_service_without_words_of_its_own_is_said_without_a_second_colon(
    language: str,
) -> None:
    """ "Erledigt: Front Door: open latch." read as two sentences run together; the service
    a language has no words for now follows the names after a dash."""
    said = verb("lock", "open_latch", call_words(language)).format(names="Front Door")
    assert said == "Front Door \u2013 open latch"  # an en dash
