"""Answers that must be ours (everyday48).

Fixed here (each row marked "before:" failed before):
- The model imitating our question: it answers "Unlock Front Door? Say yes to confirm." (or
  our question's words in another of our languages, with a PIN or not) without a call.
  Nothing is held, yet the person heard our question and said yes; that yes went to the
  model. Now the person hears after such an answer that nothing waits for a yes, and a yes
  right after it is told so in their language, without the model. A sensitive call the
  model writes after is still held with our own question. (mend65) The imitating tail is
  held back: neither shown as the answer streams nor said; what came before it is.
- A sweep of requests whose calls change nothing, in the seven languages: each answer is ours,
  true and in the request's language. A player switched off while off, or paused while
  paused, was said to be "Turned off"/"Paused" (done); it is now "Walkman: already off",
  "Walkman: schon pausiert".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .agents import Talk
from .agents import state
from .conftest import Agent
from .conftest import Assist
from .conftest import speech
from .scene import Home
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_slow_turns import final_speech
from .test_slow_turns import streamed_text

DOOR: Final = "lock.front_door"
# What a model may claim after a call that changed nothing: never what the person hears.
CLAIM: Final = "I did it."


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
    # (mend65) Nor is the question itself said: before, it was, with the note after it.
    question, _, ask = imitation.writes.partition("?")
    assert question not in speech(asked)
    assert ask.strip() not in speech(asked)

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


async def test_the_models_question_is_never_streamed_what_it_said_before_is(
    assist: Assist, scripted_worker: ScriptedWorker
) -> None:
    """(mend65) Before: the Assist dialog showed "… Unlock Front Door? Say yes to confirm." as
    it streamed, our note after it. Now the imitating tail is held back: never shown."""
    scripted_worker.will_write(
        answer("The front door is locked. Unlock Front Door? Say yes to confirm. I will wait.")
    )

    events = await assist("is the front door locked?")

    shown = streamed_text(events) + final_speech(events)
    assert "The front door is locked." in shown
    assert "Nothing is waiting for a yes" in final_speech(events)
    for imitating in ("Unlock Front Door?", "Say yes to confirm", "I will wait"):
        assert imitating not in shown, shown


async def test_an_answer_that_only_mentions_confirming_is_passed_on(talk: Talk) -> None:
    """Words near ours that ask for nothing are the model's answer as written."""
    written = "The front door is locked. To confirm a change, I will ask you first."
    asked = await talk.ask("en", answer(written))

    assert speech(asked) == written


@dataclass(frozen=True, slots=True)
class Unchanged:
    """`before` (domain, service, data) on `entity_id`; then the model calls `service` with
    `data` on it, changing nothing; the person hears `said`."""

    language: str
    entity_id: str
    before: tuple[str, str, dict[str, Any]]
    service: str
    data: dict[str, Any]
    said: str


def again(language: str, entity_id: str, service: str, said: str, **data: Any) -> Unchanged:
    """The same call twice: the second changes nothing."""
    domain = entity_id.split(".", 1)[0]
    return Unchanged(language, entity_id, (domain, service, data), service, data, said)


LIGHT: Final = "light.kitchen_lights"
AC: Final = "switch.ac"
WINDOW: Final = "cover.kitchen_window"
PLAYER: Final = "media_player.walkman"
FAN: Final = "fan.living_room_fan"
HVAC: Final = "climate.hvac"
NBSP: Final = "\u00a0"
UNCHANGED: Final[dict[str, Unchanged]] = {
    "en light on": again("en", LIGHT, "turn_on", "Kitchen Lights: already on"),
    "de light on": again("de", LIGHT, "turn_on", "Kitchen Lights: schon eingeschaltet"),
    "fr light on": again("fr", LIGHT, "turn_on", f"Kitchen Lights{NBSP}: déjà allumé"),
    "es light on": again("es", LIGHT, "turn_on", "Kitchen Lights: ya encendido"),
    "it light on": again("it", LIGHT, "turn_on", "Kitchen Lights: già acceso"),
    "nl light on": again("nl", LIGHT, "turn_on", "Kitchen Lights: al aan"),
    "pt light on": again("pt", LIGHT, "turn_on", "Kitchen Lights: já ligado"),
    "en light off": again("en", LIGHT, "turn_off", "Kitchen Lights: already off"),
    "fr light off": again("fr", LIGHT, "turn_off", f"Kitchen Lights{NBSP}: déjà éteint"),
    "nl light off": again("nl", LIGHT, "turn_off", "Kitchen Lights: al uit"),
    "en switch off": again("en", AC, "turn_off", "AC: already off"),
    "de switch on": again("de", AC, "turn_on", "AC: schon eingeschaltet"),
    "fr switch off": again("fr", AC, "turn_off", f"AC{NBSP}: déjà désactivé"),
    "it switch on": again("it", AC, "turn_on", "AC: già acceso"),
    "en window closed": again("en", WINDOW, "close_cover", "Kitchen Window: already closed"),
    "de window open": again("de", WINDOW, "open_cover", "Kitchen Window: schon geöffnet"),
    "pt window closed": again("pt", WINDOW, "close_cover", "Kitchen Window: já fechado"),
    "en fan off": again("en", FAN, "turn_off", "Living Room Fan: already off"),
    "es fan off": again("es", FAN, "turn_off", "Living Room Fan: ya apagado"),
    "en player off (before: done)": again("en", PLAYER, "turn_off", "Walkman: already off"),
    "de player off (before: done)": again("de", PLAYER, "turn_off", "Walkman: schon ausgeschaltet"),
    "fr player off (before: done)": again("fr", PLAYER, "turn_off", f"Walkman{NBSP}: déjà éteint"),
    "es player off (before: done)": again("es", PLAYER, "turn_off", "Walkman: ya apagado"),
    "it player off (before: done)": again("it", PLAYER, "turn_off", "Walkman: già spento"),
    "nl player off (before: done)": again("nl", PLAYER, "turn_off", "Walkman: al uit"),
    "pt player off (before: done)": again("pt", PLAYER, "turn_off", "Walkman: já desligado"),
    "en paused (before: done)": again("en", PLAYER, "media_pause", "Walkman: already paused"),
    "de paused (before: done)": again("de", PLAYER, "media_pause", "Walkman: schon pausiert"),
    "fr paused (before: done)": again("fr", PLAYER, "media_pause", f"Walkman{NBSP}: déjà en pause"),
    "es paused (before: done)": again("es", PLAYER, "media_pause", "Walkman: ya en pausa"),
    "it paused (before: done)": again("it", PLAYER, "media_pause", "Walkman: già in pausa"),
    "nl paused (before: done)": again("nl", PLAYER, "media_pause", "Walkman: al gepauzeerd"),
    "pt paused (before: done)": again("pt", PLAYER, "media_pause", "Walkman: já pausado"),
    # A value set to the one it has: the setting is what was asked, and is said so.
    "en temperature": again("en", HVAC, "set_temperature", "Hvac to 21°", temperature=21),
    "es temperature": again("es", HVAC, "set_temperature", "Hecho: ajustar", temperature=21),
    "nl mode": again("nl", HVAC, "set_hvac_mode", "Hvac op koelen", hvac_mode="cool"),
    "en speed": again("en", FAN, "set_percentage", "Fan to 100%", percentage=100),
    "it speed": again("it", FAN, "set_percentage", "Fan al 66%", percentage=66),
    "de volume": again("de", PLAYER, "volume_set", "Walkman auf 50 %", volume_level=0.5),
    "pt brightness": again("pt", LIGHT, "turn_on", "Lights a 50%", brightness_pct=50),
}  # fmt: skip


@pytest.mark.parametrize("unchanged", list(UNCHANGED.values()), ids=list(UNCHANGED))
async def test_a_call_that_changes_nothing_is_said_by_us_truly(
    hass: HomeAssistant, demo_house: Home, talk: Talk, unchanged: Unchanged
) -> None:
    """Ours, in the request's language: "already" when nothing moved, never the model's claim."""
    entity_id = unchanged.entity_id
    domain, service, data = unchanged.before
    async_expose_entity(hass, "conversation", entity_id, True)
    await hass.services.async_call(domain, service, {"entity_id": entity_id, **data}, blocking=True)
    await hass.async_block_till_done()
    writes = call(domain, action=unchanged.service, entity_id=entity_id, **unchanged.data)

    said = speech(await talk.say("…", unchanged.language, writes, answer(CLAIM)))

    assert unchanged.said in said
    assert CLAIM not in said
