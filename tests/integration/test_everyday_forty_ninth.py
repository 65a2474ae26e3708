"""Answers that must be ours (everyday48).

Fixed here (each row marked "before:" failed before):
- The model imitating our question: it answers "Unlock Front Door? Say yes to confirm." (or
  our question's words in another of our languages, with a PIN or not) without a call.
  Nothing is held, yet the person heard our question and said yes; that yes went to the
  model. Now the person hears after such an answer that nothing waits for a yes, and a yes
  right after it is told so in their language, without the model. A sensitive call the
  model writes after is still held with our own question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest

from homeassistant.core import HomeAssistant

from .agents import Talk
from .agents import state
from .conftest import Agent
from .conftest import speech
from .scripted_model import answer
from .scripted_model import call

DOOR: Final = "lock.front_door"


@dataclass(frozen=True, slots=True)
class Imitation:
    """The model writes `writes` (no call); the person hears `note`; their `yes` hears `told`."""

    language: str
    writes: str
    note: str
    yes: str
    told: str


IMITATIONS: Final[dict[str, Imitation]] = {
    "en (before: passed on)": Imitation(
        "en", "Unlock Front Door? Say yes to confirm.", "Nothing is waiting for a yes",
        "yes", "There is nothing waiting for your yes",
    ),
    "en pin (before: passed on)": Imitation(
        "en", "Unlock Front Door? Say your PIN to confirm.", "Nothing is waiting for a yes",
        "yes", "There is nothing waiting for your yes",
    ),
    "de (before: passed on)": Imitation(
        "de", "Front Door aufschließen? Sag „ja“ zum Bestätigen.", "Es wartet nichts auf ein Ja",
        "ja", "Es wartet nichts auf dein Ja",
    ),
    "fr (before: passed on)": Imitation(
        "fr", "Déverrouiller Front Door ? Dites « oui » pour confirmer.",
        "Rien n\u2019attend votre oui", "oui", "Rien n\u2019attend votre oui, donc",
    ),
    "es (before: passed on)": Imitation(
        "es", "¿Abrir Front Door? Di «sí» para confirmar.", "Nada espera tu sí",
        "sí", "No hay nada que espere tu sí",
    ),
    "it (before: passed on)": Imitation(
        "it", "Sbloccare Front Door? Di' \"sì\" per confermare.", "Niente aspetta un sì",
        "sì", "Non c\u2019è niente che aspetti il tuo sì",
    ),
    "nl (before: passed on)": Imitation(
        "nl", "Front Door ontgrendelen? Zeg 'ja' om te bevestigen.", "Er wacht niets op een ja",
        "ja", "Er wacht niets op je ja",
    ),
    "pt (before: passed on)": Imitation(
        "pt", "Destrancar Front Door? Diga sim para confirmar.", "Nada está à espera de um sim",
        "sim", "Não há nada à espera do seu sim",
    ),
}  # fmt: skip


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


@pytest.mark.parametrize("imitation", list(IMITATIONS.values()), ids=list(IMITATIONS))
async def test_the_models_question_is_not_ours_nor_is_the_yes_after_it(
    hass: HomeAssistant, talk: Talk, imitation: Imitation
) -> None:
    """The person hears nothing waits for a yes; their yes is told so, not given to the model."""
    language = imitation.language
    asked = await talk.ask(language, answer(imitation.writes))
    assert imitation.note in speech(asked)
    assert not asked.continue_conversation

    # The model would now unlock the door it asked about: it is not asked at all.
    unlock = call("lock", action="unlock", entity_id=DOOR)
    replied = await talk.reply(asked, imitation.yes, language, unlock)

    assert imitation.told in speech(replied)
    assert state(hass, DOOR) == "locked"


async def test_a_call_the_model_writes_after_its_question_is_held_with_ours(
    hass: HomeAssistant, talk: Talk
) -> None:
    """A reply that is more than a yes reaches the model: its unlock waits for our question."""
    asked = await talk.ask("en", answer("Unlock Front Door? Say yes to confirm."))

    replied = await talk.reply(
        asked, "yes, unlock the front door", "en", call("lock", action="unlock", entity_id=DOOR)
    )

    assert "Say yes to confirm" in speech(replied)
    assert replied.continue_conversation
    assert state(hass, DOOR) == "locked"
    confirmed = await talk.reply(replied, "yes", "en")
    assert "There is nothing waiting" not in speech(confirmed)
    assert state(hass, DOOR) == "unlocked"


async def test_an_answer_that_only_mentions_confirming_is_passed_on(talk: Talk) -> None:
    """Words near ours that ask for nothing are the model's answer as written."""
    written = "The front door is locked. To confirm a change, I will ask you first."
    asked = await talk.ask("en", answer(written))

    assert speech(asked) == written
