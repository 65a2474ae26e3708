"""Pending confirmations of sensitive actions, and how a user's reply is read.

Only the user's own next turn can confirm: nothing the model writes and no tool result is
ever read here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
import hmac
import re
import time
from typing import Any

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.home.actions import Call
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers.event import async_call_later
from homeassistant.util.hass_dict import HassKey

CONFIRMATIONS: HassKey[ConfirmationStore] = HassKey(f"{DOMAIN}_confirmations")
# Wrong PINs in a row (per agent) before PIN confirmation is locked, and for how long.
MAX_PIN_FAILURES = 3
PIN_LOCKOUT_SECONDS = 300.0

# Whole replies that mean yes / no, per language (after lower-casing and removing punctuation).
YES_REPLIES: dict[str, frozenset[str]] = {
    "en": frozenset(
        {
            "yes",
            "yeah",
            "yep",
            "yes please",
            "sure",
            "confirm",
            "confirmed",
            "do it",
            "ok",
            "okay",
            "go ahead",
            "yes do it",
            "please do",
            "correct",
            "affirmative",
        }
    ),
    "de": frozenset(
        {"ja", "ja bitte", "jawohl", "bestätigen", "bestätige", "mach das", "ok", "okay", "genau"}
    ),
    "fr": frozenset({"oui", "oui merci", "d'accord", "confirmer", "je confirme", "vas-y", "ok"}),
    "es": frozenset(
        {"sí", "si", "sí por favor", "confirmar", "confirmo", "adelante", "vale", "ok"}
    ),
    "it": frozenset({"sì", "si", "confermo", "conferma", "certo", "va bene", "ok"}),
    "nl": frozenset({"ja", "ja graag", "bevestig", "bevestigen", "doe maar", "oké", "ok"}),
    "pt": frozenset({"sim", "confirmo", "confirmar", "pode", "ok"}),
}
NO_REPLIES: dict[str, frozenset[str]] = {
    "en": frozenset({"no", "nope", "no thanks", "cancel", "stop", "don't", "do not", "never mind"}),
    "de": frozenset({"nein", "nein danke", "abbrechen", "stopp", "nicht"}),
    "fr": frozenset({"non", "non merci", "annuler", "annule", "stop"}),
    "es": frozenset({"no", "no gracias", "cancelar", "cancela", "para"}),
    "it": frozenset({"no", "no grazie", "annulla", "stop"}),
    "nl": frozenset({"nee", "nee dank je", "annuleer", "stop"}),
    "pt": frozenset({"não", "nao", "cancelar", "pare"}),
}
SPOKEN_DIGITS = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9",
    "null": "0", "eins": "1", "zwei": "2", "drei": "3", "vier": "4", "fünf": "5",
    "sechs": "6", "sieben": "7", "acht": "8", "neun": "9",
}  # fmt: skip


class Reply(Enum):
    """How a user answered a confirmation question."""

    YES = "yes"
    NO = "no"
    OTHER = "other"


def _normalize(text: str) -> str:
    words = re.sub(r"[^\w\s'-]", " ", text.lower()).split()
    return " ".join(words)


def _base(language: str) -> str:
    return language.split("-", maxsplit=1)[0].lower()


def classify_reply(text: str, language: str) -> Reply:
    """Read a yes/no reply; anything longer or different is a new request."""
    said = _normalize(text)
    base = _base(language)
    if said in YES_REPLIES.get(base, YES_REPLIES["en"]) or said in YES_REPLIES["en"]:
        return Reply.YES
    if said in NO_REPLIES.get(base, NO_REPLIES["en"]) or said in NO_REPLIES["en"]:
        return Reply.NO
    return Reply.OTHER


def spoken_pin(text: str) -> str:
    """Digits in a reply, spoken number words included ("one two 3 4" -> "1234")."""
    digits: list[str] = []
    for word in _normalize(text).split():
        if word.isdigit():
            digits.append(word)
        elif word in SPOKEN_DIGITS:
            digits.append(SPOKEN_DIGITS[word])
    return "".join(digits)


def pin_matches(text: str, pin: str) -> bool:
    """Compare the spoken PIN in constant time."""
    return hmac.compare_digest(spoken_pin(text).encode(), pin.encode())


def contains_pin(text: str, pin: str) -> bool:
    """Whether the digits said anywhere in a message contain the PIN."""
    return bool(pin) and pin in spoken_pin(text)


def mask_digits(text: str) -> str:
    """Replace every digit and spoken digit word of a message by asterisks."""

    def mask(match: re.Match[str]) -> str:
        return "*" * len(match.group(0))

    words = "|".join(sorted((re.escape(word) for word in SPOKEN_DIGITS), key=len, reverse=True))
    text = re.sub(rf"\b(?:{words})\b", mask, text, flags=re.IGNORECASE)
    return re.sub(r"\d", "*", text)


@dataclass(frozen=True, slots=True)
class PendingAction:
    """One sensitive action held back, exactly as it will run if confirmed.

    `service` and `targets` are what the audit records; `call` is what runs.
    """

    service: str
    targets: tuple[str, ...]
    description: str
    call: Call


@dataclass(slots=True)
class PendingConfirmation:
    """Sensitive actions of one turn, waiting for the same user's yes.

    `created` is set by the store when it holds them, on the store's clock.
    """

    agent_id: str
    conversation_id: str
    user_id: str | None
    device_id: str | None
    language: str
    actions: list[PendingAction]
    created: float = 0.0
    timeout: float = 0.0
    cancel_timer: CALLBACK_TYPE | None = None

    def expired(self, now: float) -> bool:
        """Whether the question is older than its timeout."""
        return now - self.created > self.timeout


def monotonic_clock() -> float:
    """Seconds on the system's monotonic clock, read when asked (so tests may move it)."""
    return time.monotonic()


class ConfirmationStore:
    """Holds at most one pending confirmation per agent and conversation.

    `clock` is what every age here is measured with: a question's, a PIN lock-out's.
    """

    def __init__(self, clock: Callable[[], float] = monotonic_clock) -> None:
        """Start empty."""
        self._pending: dict[tuple[str, str], PendingConfirmation] = {}
        self._on_expired: dict[tuple[str, str], Callable[[PendingConfirmation], None]] = {}
        self.clock = clock
        self.pin_guard = PinGuard()

    @callback
    def async_hold(
        self,
        hass: HomeAssistant,
        pending: PendingConfirmation,
        timeout: float,
        on_expired: Callable[[PendingConfirmation], None],
    ) -> None:
        """Hold actions until the user answers or the timeout passes."""
        key = (pending.agent_id, pending.conversation_id)
        if (previous := self._pending.pop(key, None)) and previous.cancel_timer:
            previous.cancel_timer()

        @callback
        def expire(_now: Any) -> None:
            if self._pending.get(key) is pending:
                del self._pending[key]
                self._on_expired.pop(key, None)
                on_expired(pending)

        pending.created = self.clock()
        pending.timeout = timeout
        pending.cancel_timer = async_call_later(hass, timeout, expire)
        self._pending[key] = pending
        self._on_expired[key] = on_expired

    @callback
    def async_peek(self, agent_id: str, conversation_id: str) -> PendingConfirmation | None:
        """Return what waits in this conversation, leaving it there."""
        return self._pending.get((agent_id, conversation_id))

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
            if on_expired is not None:
                on_expired(pending)
            return None
        return pending

    @callback
    def async_clear(self, agent_id: str) -> list[PendingConfirmation]:
        """Drop everything an agent holds (it is being removed)."""
        dropped = [p for key, p in self._pending.items() if key[0] == agent_id]
        for pending in dropped:
            key = (agent_id, pending.conversation_id)
            self._pending.pop(key, None)
            self._on_expired.pop(key, None)
            if pending.cancel_timer is not None:
                pending.cancel_timer()
                pending.cancel_timer = None
        return dropped


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
