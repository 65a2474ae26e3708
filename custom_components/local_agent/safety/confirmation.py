"""Confirming a held action: what is pending, how the person's reply reads, the PIN guard.

Only the user's own next turn can confirm: nothing the model writes and no tool result is ever
read here.

A reply confirms when it is a yes with nothing but politeness or assent around it ("Yes, go
ahead", "yes please, do it", "OK, do it"), in the conversation's language or English; a no
with politeness cancels; anything that asks for more ("yes, and turn on the light"), mixes yes
and no, or carries digits is something else. The words are engine/words.py's, the one table.
A reply must read the same with its punctuation heard as pauses and without ("Why? Not
now." is no yes, nor is "Yeah, right."); a yes asked as a question ("yes?") or said with what
no table reads (an emoji, a struck-through "y̶e̶s̶") is no yes, and no PIN answer either. A
restatement of the held action that is also a no ("cancel", "stop it") is a no.

A PIN is read from digits in any script (full-width, Arabic-Indic, ...) whatever separates
them ("1-2-3-4", "1 2 3 4") and from digit words of every language the table knows; every
such form, and a number said in words ("forty seven eleven", never read as a PIN: the person
is asked for its digits), is what `mask_digits` hides. A PIN answer has nothing around its
digits but words that frame a PIN ("my code is"), assent and politeness: one that asks for
more ("4711 and turn on the light") is something else, and one that says no cancels, as for
a yes.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
import hmac
import re
import time
from typing import Any
from typing import Final
import unicodedata
import weakref

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.words import DIGIT_WORDS
from custom_components.local_agent.engine.words import LANGUAGES
from custom_components.local_agent.engine.words import NUMBER_JOINERS
from custom_components.local_agent.engine.words import RIGHT_QUOTE
from custom_components.local_agent.engine.words import asked_yes_phrases
from custom_components.local_agent.engine.words import courtesy_phrases
from custom_components.local_agent.engine.words import fold
from custom_components.local_agent.engine.words import is_number_word
from custom_components.local_agent.engine.words import joining_phrases
from custom_components.local_agent.engine.words import no_phrases
from custom_components.local_agent.engine.words import pin_framing_phrases
from custom_components.local_agent.engine.words import words
from custom_components.local_agent.engine.words import yes_phrases
from custom_components.local_agent.home.actions import Call
from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.safety.number_shapes import is_date
from custom_components.local_agent.safety.number_shapes import is_month
from custom_components.local_agent.safety.number_shapes import is_unit
from custom_components.local_agent.safety.number_shapes import names_a_code
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers.chat_session import CONVERSATION_TIMEOUT
from homeassistant.helpers.event import async_call_later
from homeassistant.helpers.storage import Store
from homeassistant.util.hass_dict import HassKey

CONFIRMATIONS: HassKey[ConfirmationStore] = HassKey(f"{DOMAIN}_confirmations")
# Wrong PINs in a row (per agent) before PIN confirmation is locked, and for how long.
MAX_PIN_FAILURES = 3
PIN_LOCKOUT_SECONDS = 300.0
# What a held action's target is: its registry entry's id, else its entity object.
type Identity = str | weakref.ref[Any]


@dataclass(frozen=True, slots=True)
class PendingAction:
    """One sensitive action held back, exactly as it will run if confirmed.

    `service`, `targets` and the English `description` are what the audit records; `call` is
    what runs; `spoken` describes it in the conversation's language when that is not English;
    `identities` are what the targets are (registry entries, else entity objects), which a yes
    must still find behind them; `sensitive` the targets the description names as sensitive;
    `heard_places` the description as a device said it (spoken_names: a look-alike named by
    its place), which a yes must still hear the same way, or "" when the question was typed.
    """

    service: str
    targets: tuple[str, ...]
    description: str
    call: Call
    spoken: str = ""
    identities: tuple[Identity, ...] = ()
    sensitive: tuple[str, ...] = ()
    heard_places: str = ""

    @property
    def said(self) -> str:
        """How the action is named to the person: in the conversation's language."""
        return self.spoken or self.description


class Ending(Enum):
    """Why a question closed without an answer; its value is what a late answer is told."""

    TIMED_OUT = "confirmation_expired"
    SETTINGS_CHANGED = "confirmation_dropped_settings"
    RESTARTED = "confirmation_dropped_restart"
    MOVED = "confirmation_moved"  # asked again in a new conversation of its person's
    WRONG_PIN = "confirmation_closed_wrong_pin"  # answered with a wrong PIN: retried later


@dataclass(slots=True)
class PendingConfirmation:
    """Sensitive actions of one turn, waiting for the same user's yes.

    `with_pin`: the question asked for the PIN. `asked_in` is the id of the context the
    question was asked in: a script's steps all run in the context of its run, so an answer
    in it (or in a context it set off) is the run answering itself, never a person. `said`:
    the turn that asked has ended, so the question was said (before that, a yes answers
    nothing it heard). `created` is set by the store when it holds them, on the store's clock;
    `ended` and `ended_at` when it closes them unanswered. `device_id` and `satellite_id` are
    the asking turn's, as Home Assistant gave them (the audit names both).
    """

    agent_id: str
    conversation_id: str
    user_id: str | None
    device_id: str | None
    satellite_id: str | None
    language: str
    actions: list[PendingAction]
    with_pin: bool = False
    asked_in: str = ""
    said: bool = False
    created: float = 0.0
    timeout: float = 0.0
    cancel_timer: CALLBACK_TYPE | None = None
    ended: Ending | None = None
    ended_at: float = 0.0

    def expired(self, now: float) -> bool:
        """Whether the question is older than its timeout."""
        return now - self.created > self.timeout

    @property
    def answering_device(self) -> str | None:
        """The device that heard the question, and only whose answer may count."""
        return self.device_id or self.satellite_id


def monotonic_clock() -> float:
    """Seconds on the system's monotonic clock, read when asked (so tests may move it)."""
    return time.monotonic()


# How long after its timeout a question is still recognised, to say a late yes came too late.
LATE_ANSWER_SECONDS: Final = 300.0
# Where the questions closed unanswered outlive a restart of Home Assistant (late answers only).
UNANSWERED_STORAGE_KEY: Final = f"{DOMAIN}.unanswered"
UNANSWERED_STORAGE_VERSION: Final = 1


class ConfirmationStore:
    """Holds at most one pending confirmation per agent and conversation.

    `clock` is what every age here is measured with: a question's, a PIN lock-out's. A
    question that closed unanswered (it timed out, or its agent's settings changed or the agent
    restarted) is kept a while longer, never to be confirmed: a late yes is then told what
    became of it instead of reaching the model as a new request.
    """

    def __init__(self, clock: Callable[[], float] = monotonic_clock) -> None:
        """Start empty."""
        self._pending: dict[tuple[str, str], PendingConfirmation] = {}
        self._expired: dict[tuple[str, str], PendingConfirmation] = {}
        self._on_expired: dict[tuple[str, str], Callable[[PendingConfirmation], None]] = {}
        self.clock = clock
        self.pin_guard = PinGuard()
        self.owners = ConversationOwners()
        self._storage: Store[dict[str, Any]] | None = None

    @callback
    def async_hold(
        self,
        hass: HomeAssistant,
        pending: PendingConfirmation,
        timeout: float,
        on_expired: Callable[[PendingConfirmation], None],
    ) -> bool:
        """Hold actions until the user answers or the timeout passes; False: another waits.

        A question in time is never replaced (its person may hear it last and answer it):
        the new one is not held, and whoever asked it must not ask it. One past its timeout
        is expired first, as its timer would.
        """
        key = (pending.agent_id, pending.conversation_id)
        if self.async_question_waits(pending.agent_id, pending.conversation_id):
            return False
        self._expired.pop(key, None)

        @callback
        def expire(_now: Any) -> None:
            if self._pending.get(key) is pending:
                del self._pending[key]
                self._on_expired.pop(key, None)
                self._remember_ended(key, pending, Ending.TIMED_OUT)
                on_expired(pending)

        pending.created = self.clock()
        pending.timeout = timeout
        pending.cancel_timer = async_call_later(hass, timeout, expire)
        self._pending[key] = pending
        self._on_expired[key] = on_expired
        return True

    @callback
    def async_peek(self, agent_id: str, conversation_id: str) -> PendingConfirmation | None:
        """Return what waits in this conversation, leaving it there."""
        return self._pending.get((agent_id, conversation_id))

    @callback
    def async_asks(self, agent_id: str, conversation_id: str, asked_in: str) -> bool:
        """Whether the question waiting in this conversation is the one context `asked_in` held."""
        pending = self._pending.get((agent_id, conversation_id))
        return pending is not None and pending.asked_in == asked_in

    @callback
    def async_question_waits(self, agent_id: str, conversation_id: str) -> bool:
        """Whether a question in time waits in this conversation (one past it is expired here).

        Two turns of one conversation may run at once (Home Assistant 2026.10 lets them): the
        question one of them holds must not take the place of the other's, which its person
        may hear last and answer.
        """
        pending = self._pending.get((agent_id, conversation_id))
        if pending is None:
            return False
        if pending.expired(self.clock()):
            self.async_take(agent_id, conversation_id)  # expires it, as its timer would
            return False
        return True

    @callback
    def async_said(self, agent_id: str, conversation_id: str, asked_in: str) -> None:
        """Mark the question the turn of context `asked_in` held here as said: it ended."""
        pending = self._pending.get((agent_id, conversation_id))
        if pending is not None and pending.asked_in == asked_in:
            pending.said = True

    @callback
    def async_withdraw(
        self, agent_id: str, conversation_id: str, asked_in: str
    ) -> PendingConfirmation | None:
        """Remove and return the question a turn held here and never said (it was stopped)."""
        pending = self._pending.get((agent_id, conversation_id))
        if pending is None or pending.said or pending.asked_in != asked_in:
            return None
        return self.async_take(agent_id, conversation_id)

    @callback
    def async_take(self, agent_id: str, conversation_id: str) -> PendingConfirmation | None:
        """Remove and return what waits in this conversation; it can be answered only once.

        A question older than its timeout is expired here, whether or not its timer has run.
        """
        key = (agent_id, conversation_id)
        pending = self._pending.pop(key, None)
        on_expired = self._on_expired.pop(key, None)
        if pending is None:
            return None
        if pending.cancel_timer is not None:
            pending.cancel_timer()
            pending.cancel_timer = None
        if pending.expired(self.clock()):
            self._remember_ended(key, pending, Ending.TIMED_OUT)
            if on_expired is not None:
                on_expired(pending)
            return None
        return pending

    def _remember_ended(
        self, key: tuple[str, str], pending: PendingConfirmation, ending: Ending
    ) -> None:
        """Keep a question closed unanswered a while; forget those of conversations long over."""
        now = self.clock()
        pending.ended = ending
        pending.ended_at = (
            min(now, pending.created + pending.timeout) if ending is Ending.TIMED_OUT else now
        )
        for old in [k for k, p in self._expired.items() if not self._recent(p, now)]:
            del self._expired[old]
        self._expired[key] = pending
        self._async_save()

    @staticmethod
    def _recent(pending: PendingConfirmation, now: float) -> bool:
        return now - pending.ended_at <= LATE_ANSWER_SECONDS

    @callback
    def async_take_expired(
        self,
        agent_id: str,
        conversation_id: str,
        answerable: Callable[[PendingConfirmation], bool],
    ) -> PendingConfirmation | None:
        """Remove and return the question of this conversation that closed lately unanswered.

        Only for whom `answerable` says may hear of it: another's message leaves it there.
        """
        key = (agent_id, conversation_id)
        pending = self._expired.get(key)
        if pending is None or not answerable(pending):
            return None
        del self._expired[key]
        self._async_save()
        if not self._recent(pending, self.clock()):
            return None
        return pending

    @callback
    def async_move(self, agent_id: str, conversation_id: str) -> PendingConfirmation | None:
        """Take what waits in this conversation to ask it in another; a yes here is told so."""
        pending = self.async_take(agent_id, conversation_id)
        if pending is not None:
            self._remember_ended((agent_id, conversation_id), pending, Ending.MOVED)
        return pending

    @callback
    def async_close(self, pending: PendingConfirmation, ending: Ending) -> None:
        """Keep a question taken to be answered, and answered in vain, as closed unanswered."""
        self._remember_ended((pending.agent_id, pending.conversation_id), pending, ending)

    @callback
    def async_keep_closed(self, pending: PendingConfirmation) -> None:
        """Put back a closed question taken for a message that was no answer to it, as it was."""
        self._expired[(pending.agent_id, pending.conversation_id)] = pending
        self._async_save()

    @callback
    def async_take_expired_for(
        self, agent_id: str, answerable: Callable[[PendingConfirmation], bool]
    ) -> PendingConfirmation | None:
        """Remove and return the agent's latest question closed lately unanswered (anywhere).

        Only one that `answerable` admits; another's stays.
        """
        found = [(k, p) for k, p in self._expired.items() if k[0] == agent_id and answerable(p)]
        if not found:
            return None
        (agent, conversation_id), _pending = max(found, key=lambda item: item[1].ended_at)
        return self.async_take_expired(agent, conversation_id, answerable)

    @callback
    def async_waiting_for(
        self, agent_id: str, answerable: Callable[[PendingConfirmation], bool]
    ) -> list[PendingConfirmation]:
        """Return the agent's questions, in any conversation, in time and `answerable`."""
        now = self.clock()
        return [
            pending
            for (agent, _conversation), pending in self._pending.items()
            if agent == agent_id and not pending.expired(now) and answerable(pending)
        ]

    async def async_load(self, hass: HomeAssistant) -> None:
        """Read back the questions that closed unanswered before Home Assistant restarted.

        Its stop closes every question ("I restarted before your answer came"), and the
        person's yes then opens a new conversation (Home Assistant no longer knows theirs):
        without them it would reach the model as a new request. Only what a late answer is
        told comes back (the actions as said, who was asked where): nothing here can ever run.
        Once per start.
        """
        if self._storage is not None:
            return
        self._storage = Store(hass, UNANSWERED_STORAGE_VERSION, UNANSWERED_STORAGE_KEY)
        saved = await self._storage.async_load()
        questions = saved.get("questions", []) if isinstance(saved, dict) else []
        wall, now = time.time(), self.clock()
        for item in questions if isinstance(questions, list) else []:
            try:
                pending = _unanswered_from_dict(item, wall, now)
            except KeyError, TypeError, ValueError:
                continue  # a record this version cannot read: its answer is a new request
            if pending is not None and self._recent(pending, now):
                self._expired.setdefault((pending.agent_id, pending.conversation_id), pending)

    @callback
    def _async_save(self) -> None:
        """Write the questions closed unanswered (before a restart, at the latest)."""
        if self._storage is not None:
            self._storage.async_delay_save(self._unanswered, 1)

    def _unanswered(self) -> dict[str, Any]:
        wall, now = time.time(), self.clock()
        return {
            "questions": [
                _unanswered_to_dict(pending, wall - (now - pending.ended_at))
                for pending in self._expired.values()
                if self._recent(pending, now)
            ]
        }

    @callback
    def async_clear(self, agent_id: str, ending: Ending) -> list[PendingConfirmation]:
        """Close every question an agent holds, unanswered (its settings changed, it stopped)."""
        dropped = [p for key, p in self._pending.items() if key[0] == agent_id]
        for pending in dropped:
            key = (agent_id, pending.conversation_id)
            self._pending.pop(key, None)
            self._on_expired.pop(key, None)
            if pending.cancel_timer is not None:
                pending.cancel_timer()
                pending.cancel_timer = None
            self._remember_ended(key, pending, ending)
        return dropped


def _unanswered_to_dict(pending: PendingConfirmation, ended_wall: float) -> dict[str, Any]:
    return {
        "agent_id": pending.agent_id,
        "conversation_id": pending.conversation_id,
        "user_id": pending.user_id,
        "device_id": pending.device_id,
        "satellite_id": pending.satellite_id,
        "language": pending.language,
        "with_pin": pending.with_pin,
        "ended": (pending.ended or Ending.TIMED_OUT).value,
        "ended_wall": ended_wall,
        "actions": [
            {
                "service": action.service,
                "targets": list(action.targets),
                "description": action.description,
                "spoken": action.spoken,
            }
            for action in pending.actions
        ],
    }


def _unanswered_from_dict(
    item: dict[str, Any], wall: float, now: float
) -> PendingConfirmation | None:
    """Read a saved question closed unanswered, dated on this start's clock (None: future)."""
    age = wall - float(item["ended_wall"])
    if age < 0:
        return None
    actions = []
    for saved in item["actions"]:
        service, targets = str(saved["service"]), tuple(str(t) for t in saved["targets"])
        domain, _, name = service.partition(".")
        # What a restatement ("unlock it") is read against; it is never run.
        said = PlannedAction(domain, domain or None, name or None, targets)
        actions.append(
            PendingAction(service, targets, str(saved["description"]), said, str(saved["spoken"]))
        )
    return PendingConfirmation(
        agent_id=str(item["agent_id"]),
        conversation_id=str(item["conversation_id"]),
        user_id=item["user_id"],
        device_id=item["device_id"],
        # Saved by an earlier version: its device_id is the one that answers.
        satellite_id=item.get("satellite_id"),
        language=str(item["language"]),
        actions=actions,
        with_pin=bool(item["with_pin"]),
        ended=Ending(item["ended"]),
        ended_at=now - age,
    )


# How long a conversation lasts after its last message: Home Assistant's chat session.
CONVERSATION_SECONDS: Final = CONVERSATION_TIMEOUT.total_seconds()


class ConversationOwners:
    """The user who started each conversation the agents answered, while it lasts.

    Home Assistant 2026.11 refuses another user's message in a chat session before any agent
    sees it; 2026.10 lets anyone who knows (or picks) a conversation's id into it, where the
    owner's model would later read their words as the owner's own. A conversation started
    without a user (an automation, a voice satellite) is nobody's. A claim lasts as Home
    Assistant's chat session does: CONVERSATION_SECONDS after the end of the conversation's
    last turn (`renew`).
    """

    def __init__(self) -> None:
        """Start with no conversations."""
        self._owners: dict[str, tuple[str | None, float]] = {}

    def admits(self, conversation_id: str, user_id: str | None, now: float) -> bool:
        """Whether this user may talk in the conversation; the first one to talk owns it.

        A message without a user (an automation's) is no other user's; each admitted message
        keeps the conversation going.
        """
        for old in [
            c for c, (_, last) in self._owners.items() if now - last > CONVERSATION_SECONDS
        ]:
            del self._owners[old]
        owner, _last = self._owners.get(conversation_id, (user_id, now))
        if owner is not None and user_id is not None and user_id != owner:
            return False
        self._owners[conversation_id] = (owner, now)
        return True

    def renew(self, conversation_id: str, now: float) -> None:
        """Keep a conversation its owner's from the end of a turn in it.

        As Home Assistant keeps the conversation itself: a turn may last minutes after its
        message came.
        """
        if (claim := self._owners.get(conversation_id)) is not None:
            self._owners[conversation_id] = (claim[0], max(claim[1], now))


class PinGuard:
    """Counts wrong PINs per agent; too many lock PIN confirmation for a while.

    Per agent, not per conversation or device: a new conversation does not buy new guesses.
    """

    def __init__(self) -> None:
        """Start with no failures."""
        self._failures: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}

    def locked_for(self, agent_id: str, now: float) -> float:
        """Seconds the agent's PIN confirmation stays locked; 0 when it is not locked."""
        until = self._locked_until.get(agent_id, 0.0)
        if until <= now:
            self._locked_until.pop(agent_id, None)
            return 0.0
        return until - now

    def failed(self, agent_id: str, now: float) -> bool:
        """Count a wrong PIN; True when this failure starts a lock-out."""
        count = self._failures.get(agent_id, 0) + 1
        if count >= MAX_PIN_FAILURES:
            self._failures.pop(agent_id, None)
            self._locked_until[agent_id] = now + PIN_LOCKOUT_SECONDS
            return True
        self._failures[agent_id] = count
        return False

    def succeeded(self, agent_id: str) -> None:
        """Clear the count after a right PIN."""
        self._failures.pop(agent_id, None)


@callback
def async_get_confirmations(hass: HomeAssistant) -> ConfirmationStore:
    """Return the store shared by every agent."""
    return hass.data.setdefault(CONFIRMATIONS, ConfirmationStore())


async def async_load_confirmations(hass: HomeAssistant) -> None:
    """Read back, once per start, what a late answer after a restart is told."""
    await async_get_confirmations(hass).async_load(hass)


# How a reply reads ------------------------------------------------------------------------

APOSTROPHES = ("'", RIGHT_QUOTE)


class Reply(Enum):
    """How a user answered a confirmation question."""

    YES = "yes"
    NO = "no"
    OTHER = "other"


def classify_reply(text: str, language: str, restating: Iterable[str] = ()) -> Reply:
    """Read a yes/no reply; anything that asks for more, or says both, is something else.

    restating: phrases that say the held action again ("unlock it"), which read as a yes;
    never one that is a no ("cancel", "stop it"). A yes asked as a question ("yes?") or said
    with what no table reads (an emoji, a struck-through "y̶e̶s̶") is no yes.
    """
    readings = [_phrase_kinds(parts, language, restating=restating) for parts in _readings(text)]
    if all(kinds in ({Reply.NO}, {Reply.NO, None}) for kinds in readings):
        return Reply.NO
    yes = all(kinds in ({Reply.YES}, {Reply.YES, None}) for kinds in readings)
    return (
        Reply.YES
        if yes and _plain(text, language) and not _cut_off(text, language)
        else Reply.OTHER
    )


class PinReply(Enum):
    """How a user answered a question that asks for the PIN."""

    # Digits (or none) with nothing but words framing a PIN, assent or politeness around them.
    PIN = "pin"
    NO = "no"
    OTHER = "other"


def classify_pin_reply(text: str, language: str, restating: Iterable[str] = ()) -> PinReply:
    """Read a reply to the PIN question; one that asks for more, or says no, confirms nothing.

    "my code is 4 7 1 1, ok" is a PIN answer (its digits are then compared); "4711 and turn
    on the light", "4711, no wait" or "4711?" is not, whatever its digits.
    """
    # A PIN said as a number ("forty seven eleven") frames like one, and is never read.
    number = said_as_number(text)
    readings = [
        _phrase_kinds(
            [
                [
                    word
                    for word in part
                    if not word.isdigit()
                    and word not in DIGIT_WORDS
                    and not is_number_word(word)
                    and not (number and word in NUMBER_JOINERS)
                ]
                for part in parts
            ],
            language,
            framing=True,
            restating=restating,
        )
        for parts in _readings(text)
    ]
    if any(Reply.NO in kinds for kinds in readings):
        return PinReply.NO
    if (
        _plain(text, language)
        and not _cut_off(text, language)
        and all(kinds <= {Reply.YES, None} for kinds in readings)
    ):
        return PinReply.PIN
    return PinReply.OTHER


# What joins the words of a part, though punctuation: an apostrophe ("d'accord"), a hyphen.
_JOINERS: Final = ("'", "\u2010")


def _readings(text: str) -> tuple[list[list[str]], list[list[str]]]:
    """Return a reply's words in parts between its pauses (punctuation), and in one part.

    A reply must say the same both ways: "Why? Not now." reads "why not" and "now" when its
    pause is not heard, "Yeah, right." reads "yeah" and "right" when it is; neither is a yes.
    """
    parts: list[list[str]] = []
    part = ""
    for ch in [*fold(text), "."]:
        if ch not in _JOINERS and unicodedata.category(ch).startswith("P"):
            if found := words(part):
                parts.append(found)
            part = ""
        else:
            part += ch
    return parts, [[word for found in parts for word in found]]


# Marks that make a reply a question ("yes?", "¿sí?"), as `fold` leaves them.
_QUESTION_MARKS: Final = frozenset("?¿؟‽⸮")
# Marks a reply goes on after ("yes, …", "yes &"); any dash too. "…" is "..." (NFKC).
_GOES_ON: Final = frozenset(",;:&/([{、")
# What closes a quote or a bracket, and a format character (a zero-width space).
_CLOSING: Final = frozenset({"Pe", "Pf", "Cf"})
# Words in the Unicode name of a punctuation mark that goes on as a comma or dash does (the
# Arabic comma, a reversed comma, a swung dash).
_GOING_ON_NAMES: Final = frozenset({"COMMA", "SEMICOLON", "COLON", "AMPERSAND", "DASH"})


def _goes_on(mark: str) -> bool:
    """Whether a reply that ends on this mark goes on after it (a comma, a dash, "&")."""
    category = unicodedata.category(mark)
    return (
        mark in _GOES_ON
        or category == "Pd"
        or (
            category.startswith("P")
            and not _GOING_ON_NAMES.isdisjoint(unicodedata.name(mark, "").split())
        )
    )


# Tag characters spell letters and digits that no one sees and the model reads: "yes" with a
# hidden "and unlock the back door" written after it.
_TAGS: Final = range(0xE0000, 0xE0080)


def _plain(text: str, language: str) -> bool:
    """Whether a reply is words alone: it asks nothing and carries nothing no table reads.

    A symbol or emoji ("yes ❌"), a mark on no letter (a struck-through "y̶e̶s̶"), a private
    character or hidden text (tag characters) may say anything. "Why not?" asks nothing.
    """
    for ch in unicodedata.normalize("NFC", text):
        category = unicodedata.category(ch)
        if category[0] in "MS" or category in ("Co", "Cn") or ord(ch) in _TAGS:
            return False
    folded = fold(text)
    asked = frozenset().union(*(asked_yes_phrases(lang) for lang in (language, "en")))
    for at, ch in enumerate(folded):
        if ch not in _QUESTION_MARKS:
            continue
        before = " ".join(words(folded[:at]))
        if ch != "?" or not any(before == p or before.endswith(f" {p}") for p in asked):
            return False
    return True


def _cut_off(text: str, language: str) -> bool:
    """Whether a reply ends on what joins more to it ("yes, and ..."): the rest was not heard.

    In the conversation's language and English, as the other phrases are read; "&" is "and".
    A mark that a reply goes on after (a comma, a dash, "…", "&") cuts it off as a word does.
    """
    written = unicodedata.normalize("NFKC", text).rstrip()
    # What closes a quote or a bracket ('"yes, and"', "(yes, —)") closes no thought, and an
    # invisible character (a zero-width space, a direction mark) shows nothing.
    ends = written
    while ends and (
        ends[-1] in "\"'" or ends[-1].isspace() or unicodedata.category(ends[-1]) in _CLOSING
    ):
        ends = ends[:-1]
    if ends.endswith("..") or (ends and _goes_on(ends[-1])):
        return True
    said = " ".join(words(written.replace("&", " and ")))
    joining = frozenset().union(*(joining_phrases(lang) for lang in (language, "en")))
    return any(said == phrase or said.endswith(f" {phrase}") for phrase in joining)


def _phrase_kinds(
    parts: list[list[str]],
    language: str,
    *,
    framing: bool = False,
    restating: Iterable[str] = (),
) -> set[Reply | None]:
    """Kinds of the phrases each part splits into (None: courtesy); {OTHER} if one cannot.

    framing: words that frame a PIN count as courtesy. A restatement that is a no ("cancel"
    when the question is "Cancel Door Timer?") reads as the no.
    """
    languages = tuple(dict.fromkeys((language, "en")))
    noes = frozenset().union(*(no_phrases(lang) for lang in languages))
    tables: list[tuple[frozenset[str], Reply | None]] = [
        (frozenset(" ".join(words(phrase)) for phrase in restating) - noes, Reply.YES)
    ]
    for lang in languages:
        tables += [
            (yes_phrases(lang), Reply.YES),
            (no_phrases(lang), Reply.NO),
            (courtesy_phrases(lang), None),
        ]
        if framing:
            tables.append((pin_framing_phrases(lang), None))
    longest = max(len(phrase.split()) for table, _kind in tables for phrase in table)
    kinds: set[Reply | None] = set()
    for said in parts:
        if not said:
            continue
        # best[i]: the kinds of the shortest splits of the first i words (None: no split),
        # of all of them: "yeah right now" splits as "yeah" + "right now" and as the
        # sarcastic "yeah right" + "now", and says both.
        best: list[tuple[int, frozenset[Reply | None]] | None] = [None] * (len(said) + 1)
        best[0] = (0, frozenset())
        for end in range(1, len(said) + 1):
            for start in range(max(0, end - longest), end):
                before = best[start]
                if before is None:
                    continue
                phrase = " ".join(said[start:end])
                for table, kind in tables:
                    if phrase in table:
                        candidate = (before[0] + 1, before[1] | {kind})
                        current = best[end]
                        if current is None or candidate[0] < current[0]:
                            best[end] = candidate
                        elif candidate[0] == current[0]:
                            best[end] = (current[0], current[1] | candidate[1])
        found = best[-1]
        if found is None:
            return {Reply.OTHER}
        kinds |= found[1]
    return kinds


def spoken_pin(text: str) -> str:
    """Digits in a reply, number words included ("one two 3-4" -> "1234"; full-width too).

    An "oh" or "um" before a pause and before any digit is a sigh, not a zero or a Portuguese
    one ("Oh, 4711" -> "4711", "Um, 4711" -> "4711").
    """
    while (sigh := _SIGH.search(text)) and not _digits(text[: sigh.start()]):
        text = text[: sigh.start()] + text[sigh.end() :]
    return _digits(text)


_SIGH: Final = re.compile(r"\b(?:oh|um)\b(?=\s*[,!.;:?…])", re.IGNORECASE)


def _digits(text: str) -> str:
    return "".join(
        word if word.isdigit() else DIGIT_WORDS[word]
        for word in words(text)
        if word.isdigit() or word in DIGIT_WORDS
    )


def said_as_number(text: str) -> bool:
    """Whether a reply says a number beyond the digits ("forty seven eleven", "onze").

    A code said as a number is not read as one: "forty seven eleven" may be 4711 or 40711, a
    code with a leading zero cannot be said so, and every other reading would be one more
    guess per answer. The person is asked for the digits one by one instead.
    """
    return any(is_number_word(word) for word in words(text))


def said_pin_words(text: str) -> bool:
    """Whether an answer to a PIN question says digits or a number: what it hides in the log."""
    return bool(spoken_pin(text)) or said_as_number(text)


def pin_matches(text: str, pin: str) -> bool:
    """Compare the spoken PIN in constant time.

    Of the two readings of a leading "oh," (a sigh, or a zero: "Oh, 471"), the one as long as
    the PIN is compared; so each answer still tries one PIN, never two.
    """
    expected = spoken_pin(pin)
    if not expected:
        return False
    readings = (spoken_pin(text), _digits(text))
    said = next((r for r in readings if len(r) == len(expected)), readings[0])
    return hmac.compare_digest(said.encode(), expected.encode())


def mask_digits(text: str) -> str:
    """Replace every digit (any script) and every number word of a message by asterisks."""
    return "".join("*" * len(token) if kind else token for token, kind in _number_tokens(text))


# A guess one digit short of the shortest PIN may be a near miss: a run of three or more.
GUESS_DIGITS: Final = 3
# The fewest digits a PIN has (the settings accept 4 to 12).
SHORTEST_PIN: Final = 4


def mask_pin_guesses(text: str) -> str:
    """Hide what may be a PIN guess in an answer that asks something else; keep the rest.

    A guess is what the gate would read as one: digits and digit words, whatever is no word
    between them, and the words a PIN answer may carry ("and then", "my code is") between
    its parts ("47 and then 12"). It is hidden when its digits could be any PIN's, or one
    short of the shortest (a near miss tells the PIN): never by the configured PIN's length,
    which a person trying numbers of each length would read off what the model echoes.
    "wake me at 10:30" (a time, never a PIN) and "40 percent" are kept whole. A number said
    in words counts two digits ("forty-seven twelve" may be a guess, "twenty one degrees" is
    none).
    """
    return _mask_said_digits(text, GUESS_DIGITS, None)


def mask_possible_pins(text: str) -> str:
    """Hide what could be any PIN in a message that answers no PIN question; keep the rest.

    Its shape decides, never the PIN: a stretch the gate would read as one code with as many
    digits as a PIN has at least, "unlock the door, pin 4711" and "set a timer for 4712"
    alike. Times and shorter numbers ("wake me at 10:30", "21 degrees", "100 percent") stay.
    """
    return _mask_said_digits(text, SHORTEST_PIN, None, keep_everyday=True)


def _mask_said_digits(text: str, low: int, high: int | None, *, keep_everyday: bool = False) -> str:
    """Hide each stretch of digits that says `low` to `high` digits and is no time of day.

    keep_everyday: a quantity with its unit or a date is kept too (number_shapes).
    """
    tokens = _number_tokens(text)
    hidden = [False] * len(tokens)
    for group in _guess_groups(tokens):
        digits = _said_digits([tokens[index] for index in group])
        if (
            digits >= low
            and (high is None or digits <= high)
            and not _clock_time(tokens, group)
            and not (keep_everyday and _everyday_number(tokens, group))
        ):
            for index in group:
                hidden[index] = bool(tokens[index][1])
    return "".join(
        "*" * len(token) if hide else token
        for (token, _kind), hide in zip(tokens, hidden, strict=True)
    )


def _everyday_number(tokens: list[tuple[str, int]], group: list[int]) -> bool:
    """Whether a stretch of digits is a quantity with its unit or a date.

    "1500 seconds", "24, 2026" after "December"; never in a message that names a code ("pin
    4711 seconds", "my code is 4711 minutes").
    """
    if any(names_a_code(token) for token, kind in tokens if not kind):
        return False
    before = _token_beside(tokens, group[0], -1)
    written = "".join(tokens[index][0] for index in group)
    after = _token_beside(tokens, group[-1], 1)
    return is_unit(after) or is_date(written, is_month(before) or is_month(after))


def _token_beside(tokens: list[tuple[str, int]], index: int, step: int) -> str:
    """Return the first token that is no space before (step -1) or after (step 1) `index`."""
    index += step
    while 0 <= index < len(tokens) and tokens[index][0].isspace():
        index += step
    return tokens[index][0] if 0 <= index < len(tokens) else ""


def _guess_groups(tokens: list[tuple[str, int]]) -> list[list[int]]:
    """Indexes of each stretch of a message the gate would read as one PIN answer's digits.

    Digits and number words, with what is no word, a joining word or a word that frames a PIN
    between them; a stretch ends at any other word.
    """
    groups: list[list[int]] = []
    group: list[int] = []
    between: list[int] = []
    for index, (token, kind) in enumerate(tokens):
        if kind:
            group += [*between, index] if group else [index]
            between = []
        elif group and (token.isspace() or _joins_numbers(token) or fold(token) in _PIN_WORDS):
            between.append(index)
        elif group:
            groups.append(group)
            group, between = [], []
    if group:
        groups.append(group)
    return groups


def _said_digits(tokens: list[tuple[str, int]]) -> int:
    """How many digits a stretch says: a number word two, a digit word after one none.

    "forty-seven" is 47: two digits.
    """
    count, after_number = 0, False
    for _token, kind in tokens:
        if kind == _DIGIT:
            count += 0 if after_number else 1
            after_number = False
        elif kind == _NUMBER:
            count += 2
            after_number = True
    return count


def _clock_time(tokens: list[tuple[str, int]], group: list[int]) -> bool:
    """Whether a stretch is a time of day ("10:30", "7:05"): a PIN is never written so."""
    written = "".join(tokens[index][0] for index in group)
    hours, colon, minutes = written.partition(":")
    return (
        bool(colon)
        and hours.isdecimal()
        and minutes.isdecimal()
        and len(hours) <= 2
        and len(minutes) == 2
        and int(hours) < 24
        and int(minutes) < 60
    )


_DIGIT: Final = 1
_NUMBER: Final = 2


def _joins_numbers(token: str) -> bool:
    """Whether a token may stand inside one number: a joining word, or no word at all.

    The PIN's digits are read whatever separates them ("4:7:1:1", "4·7·1·1", an en dash, a
    zero-width space), so a guess is too.
    """
    return fold(token) in NUMBER_JOINERS or not any(ch.isalpha() for ch in token)


# Single words a PIN answer may carry between its digits, in every language: joining words
# ("and then"), and words that frame a PIN ("my code is").
_PIN_WORDS: Final = frozenset(
    word
    for table in (joining_phrases, pin_framing_phrases, courtesy_phrases)
    for language in LANGUAGES
    for phrase in table(language)
    for word in phrase.split()
)


def _number_tokens(text: str) -> list[tuple[str, int]]:
    """Split a message into words, digits and what is between; kind 0, _DIGIT or _NUMBER."""
    out: list[tuple[str, int]] = []
    word = ""
    for ch in [*text, ""]:
        letter = bool(ch) and ch.isalpha() and unicodedata.digit(ch, None) is None
        if letter or (ch in APOSTROPHES and word):
            word += ch
            continue
        if word:
            folded = fold(word).strip("'")
            kind = _DIGIT if folded in DIGIT_WORDS else _NUMBER if is_number_word(folded) else 0
            out.append((word, kind))
            word = ""
        if ch:
            out.append((ch, _DIGIT if unicodedata.digit(ch, None) is not None else 0))
    return out
