"""Replies to the agent's question that only look like a yes or a PIN, and yeses as people say them.

The reader (`classify_reply`, `classify_pin_reply`) is attacked directly, a few replies end to
end. What confirmed wrongly before: a yes asked as a question ("yes?"), two phrases read as
one across a pause ("Why? Not now." as "why not" and "now"), a sarcastic "Yeah, right.", a
yes with an emoji or a struck-through "y̶e̶s̶", and a no word that is also the held action's
verb ("stop" when the question is "Stop Garage Door?").
"""

from __future__ import annotations

import pytest

from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.home.call_texts import restatements
from custom_components.local_agent.safety.confirmation import PinReply
from custom_components.local_agent.safety.confirmation import Reply
from custom_components.local_agent.safety.confirmation import classify_pin_reply
from custom_components.local_agent.safety.confirmation import classify_reply
from custom_components.local_agent.safety.confirmation import pin_matches
from homeassistant.core import HomeAssistant

from .conftest import state
from .scene import PIN
from .scene import Scene
from .scripted_model import answer

OTHER, YES, NO = Reply.OTHER, Reply.YES, Reply.NO

# Held actions the replies answer.
UNLOCK = PlannedAction("lock", "lock", "unlock", ("lock.front_door",))
STOP = PlannedAction("cover", "cover", "stop_cover", ("cover.garage_door",))
CANCEL = PlannedAction("timer", "timer", "cancel", ("timer.door",))
OPEN_GARAGE = PlannedAction("cover", "cover", "open_cover", ("cover.garage_door",))
AC_OFF = PlannedAction("switch", "switch", "turn_off", ("switch.ac",))
ARRIVE = PlannedAction("scene", "scene", "turn_on", ("scene.arrive",))


def reads_as(said: str, language: str, *held: PlannedAction) -> Reply:
    """How the reader takes `said` as the reply to the question about the held actions."""
    return classify_reply(said, language, restatements(list(held), language))


# Each confirmed before the fix.
CONFIRMED_WRONGLY: list[tuple[str, str, Reply]] = [
    ("yes?", "en", OTHER),
    ("OK?", "en", OTHER),
    ("¿Sí?", "es", OTHER),
    ("Ja\uff1f", "de", OTHER),  # a full-width question mark
    ("Why? Not now.", "en", OTHER),  # "why not" + "now" when the pause is not heard
    ("Why... not sure.", "en", OTHER),
    ("why, not right now", "en", OTHER),
    ("Yeah, right.", "en", OTHER),  # "yeah" + "right" when it is
    ("yeah right", "en", NO),
    ("yes \u274c", "en", OTHER),  # ❌
    ("yes \U0001f44e", "en", OTHER),  # 👎
    ("y\u0336e\u0336s\u0336", "en", OTHER),  # struck through
    ("Ja\u20e0", "de", OTHER),  # a prohibition sign over it
    ("~~yes~~", "en", OTHER),  # struck through in Markdown
]

# Read right before; covered by no other test.
ALREADY_HELD: list[tuple[str, str, Reply]] = [
    ("yeah no", "en", OTHER),
    ("Ja... nein", "de", OTHER),
    ("oui enfin non", "fr", OTHER),
    ("never mind, yes", "en", OTHER),
    ("is it safe? yes", "en", OTHER),
    ("should I say yes?", "en", OTHER),
    ("he said yes", "en", OTHER),
    ("say yes", "en", OTHER),
    ("yes, the back door", "en", OTHER),
    ("yes 5 minutes", "en", OTHER),
    ("\u0443\u0435\u0455", "en", OTHER),  # Cyrillic look-alikes of "yes"
    ("ye\u200bs", "en", OTHER),  # a zero-width space inside
    ("\U0001f44d", "en", OTHER),  # 👍: no word at all
    ("y", "en", OTHER),
    ("absolutely not", "en", OTHER),
    ("claro que no", "es", OTHER),
    ("bien sûr que non", "fr", OTHER),
    ("ja niet", "nl", OTHER),  # Dutch for "don't you dare"
    ("oui", "de", OTHER),  # another language's yes: only the conversation's and English
    ("yes", "fr", YES),
    ("\uff59\uff45\uff53", "en", YES),  # full-width "yes"
    ("Yes!!! yes", "en", YES),
    ("vas\u2011y", "fr", YES),  # a non-breaking hyphen joins as "-" does
    ("Sure, why not?", "en", YES),  # a question mark that asks nothing
    ("Ich bin nicht sicher", "de", OTHER),
]

# Clear answers misread before: hesitation, and thanks said at length.
SAID_AS_PEOPLE_SAY_IT: list[tuple[str, str, Reply]] = [
    ("uh, yes", "en", YES),
    ("Um, OK.", "en", YES),
    ("Äh, ja", "de", YES),
    ("Euh, oui", "fr", YES),
    ("Pues sí", "es", YES),
    ("Ehm, sì", "it", YES),
    ("Nou, ja", "nl", YES),
    ("Hum, sim", "pt", YES),
    ("Yes, thank you very much", "en", YES),
    ("Ja, vielen Dank", "de", YES),
    ("Oui, merci beaucoup", "fr", YES),
    ("Sí, muchas gracias", "es", YES),
    ("Sì, grazie mille", "it", YES),
    ("Ja, dank je wel", "nl", YES),
    ("Sim, muito obrigado", "pt", YES),
    ("Ouais", "fr", YES),
    ("Ja, ich bin sicher", "de", YES),
    ("Oui, j\u2019en suis sûre", "fr", YES),
    ("Sim, tenho certeza", "pt", YES),
    ("Nee", "de", NO),
    ("uh-uh", "en", NO),
    ("Uh, no.", "en", NO),
]


@pytest.mark.parametrize(
    ("said", "language", "reads"),
    [*CONFIRMED_WRONGLY, *ALREADY_HELD, *SAID_AS_PEOPLE_SAY_IT],
)
def test_a_reply_reads_as_what_it_says(said: str, language: str, reads: Reply) -> None:
    assert reads_as(said, language, UNLOCK) is reads


@pytest.mark.parametrize(
    ("action", "said", "language", "reads"),
    [
        (STOP, "stop", "en", NO),
        (STOP, "stop it", "en", NO),
        (STOP, "yes, stop it", "en", OTHER),
        (STOP, "yes, stop", "en", OTHER),
        (CANCEL, "cancel", "en", NO),
        (CANCEL, "cancel it", "en", NO),
        (CANCEL, "abbrechen", "de", NO),
        (UNLOCK, "don't unlock it", "en", OTHER),
        (UNLOCK, "unlock it later", "en", OTHER),
    ],
)
def test_a_no_is_never_read_as_the_held_action_said_again(
    action: PlannedAction, said: str, language: str, reads: Reply
) -> None:
    """ "Stop Garage Door?" "Stop!" is not a clear yes; its verb is also a no."""
    assert reads_as(said, language, action) is reads


@pytest.mark.parametrize(
    ("actions", "said", "language", "reads"),
    [
        # The held action said again with a pronoun, in each language the agent speaks.
        ([UNLOCK], "Ja, schließ sie auf", "de", YES),
        ([UNLOCK], "schließen Sie sie auf, bitte", "de-CH", YES),
        ([AC_OFF], "mach es aus", "de", YES),
        ([AC_OFF], "Oui, éteins-la", "fr", YES),
        ([UNLOCK], "déverrouillez-la", "fr", YES),
        ([OPEN_GARAGE], "sí, ábrela", "es", YES),
        ([AC_OFF], "apágalo", "es", YES),
        ([UNLOCK], "sì, sbloccala", "it", YES),
        ([AC_OFF], "spegnilo", "it", YES),
        ([UNLOCK], "ja, ontgrendel hem", "nl", YES),
        ([AC_OFF], "zet hem uit", "nl", YES),
        ([UNLOCK], "sim, destranca-a", "pt", YES),
        ([AC_OFF], "desliga-o", "pt-BR", YES),
        # Another action said with a pronoun is no yes: the question waits for its own.
        ([UNLOCK], "schließ sie ab", "de", OTHER),
        ([UNLOCK], "mach sie aus", "de", OTHER),
        ([UNLOCK], "verrouille-la", "fr", OTHER),
        ([AC_OFF], "allume-la", "fr", OTHER),
        ([OPEN_GARAGE], "ciérrala", "es", OTHER),
        ([UNLOCK], "bloccala", "it", OTHER),
        ([AC_OFF], "zet hem aan", "nl", OTHER),
        ([UNLOCK], "tranca-a", "pt", OTHER),
        # Held actions with different verbs: a pronoun cannot say which (fail safe).
        ([UNLOCK, OPEN_GARAGE], "schließ sie auf", "de", OTHER),
        ([UNLOCK, OPEN_GARAGE], "ouvre-les", "fr", OTHER),
        # A scene reads with its own verb; the words of another are no yes.
        ([ARRIVE], "mach es an", "de", OTHER),
        # A pronoun with more after it asks for more.
        ([UNLOCK], "schließ sie auf und mach das Licht an", "de", OTHER),
        ([UNLOCK], "déverrouille-la demain", "fr", OTHER),
    ],
)
def test_the_held_action_said_again_with_a_pronoun_is_a_yes_in_every_language(
    actions: list[PlannedAction], said: str, language: str, reads: Reply
) -> None:
    assert reads_as(said, language, *actions) is reads


@pytest.mark.parametrize(
    ("said", "language", "reads", "matches"),
    [
        # Confirmed before the fix (the first two with the right PIN).
        ("4711?", "en", PinReply.OTHER, True),
        ("the PIN is 4711, right?", "en", PinReply.OTHER, True),
        ("4711 \u274c", "en", PinReply.OTHER, True),
        ("4711, yeah right", "en", PinReply.NO, True),
        # Read right before.
        ("47110", "en", PinReply.PIN, False),
        ("4711 4711", "en", PinReply.PIN, False),
        ("4711, set 20 degrees", "en", PinReply.OTHER, False),
        ("not 4711", "en", PinReply.OTHER, True),
        ("4711 nicht", "de", PinReply.NO, True),
        # A hesitation before the PIN is no digit ("um" is a Portuguese one).
        ("Um, 4711.", "en", PinReply.PIN, True),
        ("uh, 4711", "en", PinReply.PIN, True),
        ("Äh, vier sieben eins eins", "de", PinReply.PIN, True),
    ],
)
def test_a_pin_reply_reads_as_what_it_says(
    said: str, language: str, reads: PinReply, matches: bool
) -> None:
    assert classify_pin_reply(said, language) is reads
    assert pin_matches(said, PIN) is matches


@pytest.mark.parametrize(
    "said", ["Why? Not now.", "yes?", "yes \u274c", "Yeah, right.", "y\u0336e\u0336s\u0336"]
)
async def test_a_reply_that_only_looks_like_a_yes_unlocks_nothing(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    agent = await scene.our_agent()

    await scene.refuse_unlock(agent, said, answer("OK."))


async def test_the_right_pin_asked_as_a_question_unlocks_nothing_and_is_no_failure(
    hass: HomeAssistant, scene: Scene
) -> None:
    agent, question = await scene.pin_question()
    scene.worker.will_write(answer("OK."))

    await scene.reply(agent, question, "the PIN is 4711, right?")

    assert state(hass, "lock.front_door") == "locked"
    assert [(r["outcome"], r["reason"]) for r in scene.audit][1:] == [
        ("cancelled", "the user asked something else")
    ]
    assert PIN not in scene.model_saw()


@pytest.mark.parametrize(
    ("said", "language"),
    [("Äh, ja, vielen Dank", "de"), ("Uh, yes, thank you very much.", "en")],
)
async def test_a_hesitant_yes_with_thanks_confirms(scene: Scene, said: str, language: str) -> None:
    await scene.confirm_unlock(await scene.our_agent(), said, language)


async def test_a_hesitant_pin_confirms(scene: Scene) -> None:
    await scene.confirm_unlock(await scene.pin_agent(), "Um, 4711.", "en")
