"""The home in the prompt: a list in the reusable prefix, and per message what changed since.

The prompt is laid out so that a turn evaluates only what is new:

* The system message (instructions, tools, then the home list: every exposed entity by area,
  with its id, name, aliases and its state when the list was taken) is the reusable prefix.
  The engine keeps a checkpoint after it, so every conversation in the same home starts from
  there.
* Each user message starts with a short context block: the entities whose state differs
  from what the model last read (the home list, or a later message), the time, the language
  to answer in (when it is not English), the area the person asks from (a satellite's) and
  the pipeline's extra system prompt; then the user's words. The block is rendered once and
  kept, so a follow-up renders the earlier messages exactly as before and the engine goes on from
  the end of the previous turn. The changed states come before the time so that the engine
  can evaluate them ahead of a new conversation's first message and keep them when only the
  minute changes (opening).

A state change therefore costs one short line in the next message, whatever the size of the
home. The list is taken again (and the prefix evaluated again, once) when exposure, names,
aliases or areas change, or when more than CHANGE_LIMIT entities differ from it; both are
evaluated in the background before the next command where that can be (turn/warm_up.py).

The model never reads a stale state as current: an entity is listed again whenever its state
differs from the last state any kept message showed for it. An entity a tool call of a kept
turn targeted counts as shown in the state its tool result gave (our tools' results list the
states after the call); without such a result it is listed again in the next turn.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
import json
from typing import Any
from typing import Final

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.words import base_language
from custom_components.local_agent.home.entity_view import EntityLine
from custom_components.local_agent.home.entity_view import grouped_text
from custom_components.local_agent.home.entity_view import line_state_of_summary
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.util.hass_dict import HassKey

# Entities whose state may differ from the home list before it is taken again. Taking it again
# means evaluating the whole prefix (34 s for 200 entities on 2 cores): in the background when
# the minute's job finds it due, else at the next command; 32 changed lines cost a message
# about 450 tokens (14-16 each with Qwen3.5's tokenizer).
CHANGE_LIMIT: Final = 32
# Conversations whose context blocks are kept (least recently used forgotten first; a
# forgotten conversation goes on without the earlier blocks, re-evaluated once).
MAX_CONVERSATIONS: Final = 64

# The languages Home Assistant's Assist speaks most, by the English name a model knows them by.
LANGUAGE_NAMES: Final = {
    "ar": "Arabic", "bg": "Bulgarian", "ca": "Catalan", "cs": "Czech", "da": "Danish",
    "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian",
    "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fr": "French", "gl": "Galician",
    "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian",
    "is": "Icelandic", "it": "Italian", "ja": "Japanese", "ko": "Korean", "lb": "Luxembourgish",
    "lt": "Lithuanian", "lv": "Latvian", "ms": "Malay", "nb": "Norwegian", "nl": "Dutch",
    "no": "Norwegian", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian",
    "sk": "Slovak", "sl": "Slovenian", "sr": "Serbian", "sv": "Swedish", "sw": "Swahili",
    "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese",
    "zh": "Chinese",
}  # fmt: skip

HOME_HEADING: Final = (
    "Home as of {time} (area (its floor), then entity_id 'name' (aliases): state). Each user "
    "message starts with the entities that changed since, then the time; those states are "
    "current."
)


@dataclass(frozen=True, slots=True)
class HomeSnapshot:
    """The home list as it stands in the prefix."""

    directory: tuple[tuple[str, str, str], ...]  # (entity_id, area, identity), by entity_id
    states: Mapping[str, str]
    text: str

    def as_dict(self) -> dict[str, Any]:
        """Return the snapshot as JSON data (kept across restarts by turn/warm_up.py)."""
        return {
            "directory": [list(item) for item in self.directory],
            "states": dict(self.states),
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HomeSnapshot | None:
        """Read as_dict's data back; None when it is not such data."""
        directory, states, text = data.get("directory"), data.get("states"), data.get("text")
        if not isinstance(directory, list) or not isinstance(states, dict):
            return None
        if not isinstance(text, str):
            return None
        items: list[tuple[str, str, str]] = []
        for item in directory:
            if not isinstance(item, list) or len(item) != 3:
                return None
            entity_id, area, identity = item
            if not all(isinstance(part, str) for part in item):
                return None
            items.append((str(entity_id), str(area), str(identity)))
        return cls(
            directory=tuple(items),
            states={str(key): str(value) for key, value in states.items()},
            text=text,
        )


@dataclass(frozen=True, slots=True)
class _UserTurn:
    """The context block of one user message and the states it listed."""

    block: str
    listed: Mapping[str, str]


@dataclass(slots=True)
class _Conversation:
    turns: dict[int, _UserTurn] = field(default_factory=dict)
    # The ordinal of the first user message the last rendered history kept.
    first_ordinal: int = 0


def _directory(lines: Sequence[EntityLine]) -> tuple[tuple[str, str, str], ...]:
    return tuple((line.entity_id, line.area, line.identity) for line in lines)


def time_text(now: datetime) -> str:
    """Return the time as the model reads it."""
    return now.strftime("%A %Y-%m-%d %H:%M")


def message_start(now: datetime) -> str:
    """Return the time line of every user message written in this minute (after its changes).

    It ends before the full stop, at a boundary the tokenizer keeps whatever follows ("." and
    the newlines become one token), so the engine can evaluate it before the message comes.
    """
    return f"Now: {time_text(now)}"


def answer_language(language: str) -> str:
    """Return the line that names the language to answer in; none for English.

    The block around the person's words is English, and a small model tends to answer in the
    language of most of what it reads.
    """
    code = base_language(language)
    if code == "en":
        return ""
    name = LANGUAGE_NAMES.get(code)
    return f"Answer in {name}." if name else f"Answer in the language '{language}'."


type KeptConversations = OrderedDict[str, _Conversation]

# Each agent's conversations' context blocks, by agent (its subentry id: a new agent that
# gets a deleted one's entity id starts without them): kept while Home Assistant runs, as the
# chat sessions are, so that a reload of the entry shows the model its earlier messages as
# they were; forgotten with the agent.
_KEPT: HassKey[dict[str, KeptConversations]] = HassKey(f"{DOMAIN}_context_blocks")


def kept_conversations(hass: HomeAssistant, subentry_id: str) -> KeptConversations:
    """Return the context blocks an agent's conversations keep across reloads."""
    return hass.data.setdefault(_KEPT, {}).setdefault(subentry_id, OrderedDict())


@callback
def forget_conversations(hass: HomeAssistant, subentry_id: str) -> None:
    """Forget the context blocks of an agent that is gone."""
    if (kept := hass.data.get(_KEPT)) is not None:
        kept.pop(subentry_id, None)


class HomeContext:
    """Keeps one agent's home list and the context blocks of its conversations."""

    def __init__(self, conversations: KeptConversations | None = None) -> None:
        """Start without a home list, with the context blocks kept so far, if any."""
        self.snapshot: HomeSnapshot | None = None
        # Called with each new home list (turn/warm_up.py keeps it for the next start).
        self.on_snapshot: Callable[[HomeSnapshot], None] | None = None
        self._conversations = OrderedDict() if conversations is None else conversations

    def holds(self, lines: Sequence[EntityLine]) -> bool:
        """Tell whether the home list stands for these entities (home_text keeps it)."""
        snapshot = self.snapshot
        if snapshot is None or snapshot.directory != _directory(lines):
            return False
        return self._changed(snapshot, lines) <= CHANGE_LIMIT

    def outgrown(self, lines: Sequence[EntityLine]) -> bool:
        """Tell whether only states keep the home list from standing for these entities."""
        snapshot = self.snapshot
        if snapshot is None or snapshot.directory != _directory(lines):
            return False
        return self._changed(snapshot, lines) > CHANGE_LIMIT

    @staticmethod
    def _changed(snapshot: HomeSnapshot, lines: Sequence[EntityLine]) -> int:
        return sum(1 for line in lines if snapshot.states.get(line.entity_id) != line.state)

    def opening(
        self,
        lines: Sequence[EntityLine] | None,
        now: datetime,
        *,
        conversation_id: str | None = None,
        history: Sequence[Message] = (),
    ) -> str:
        """Return what a conversation's next message starts with, while no state changes.

        The entities that differ from what its kept messages showed (for a new conversation:
        from the home list), then the time line, as that message's block will write them.
        history: the messages last rendered for it by messages, without the next message.
        """
        kept = self._conversations.get(conversation_id) if conversation_id else None
        kept = kept or _Conversation()
        seen = self._seen(kept, history, kept.first_ordinal)
        changes = _changes_text(_listed(seen, lines)) if lines is not None else ""
        return f"{changes}\n{message_start(now)}" if changes else message_start(now)

    def home_text(self, lines: Sequence[EntityLine], now: datetime) -> str:
        """Return the home list for the prefix, taking it again only when it must."""
        if self.snapshot is not None and self.holds(lines):
            return self.snapshot.text
        directory = _directory(lines)
        text = "\n".join(
            part for part in (HOME_HEADING.format(time=time_text(now)), grouped_text(lines)) if part
        )
        self.snapshot = HomeSnapshot(
            directory=directory, states={line.entity_id: line.state for line in lines}, text=text
        )
        if self.on_snapshot is not None:
            self.on_snapshot(self.snapshot)
        return text

    def messages(
        self,
        conversation_id: str,
        history: Sequence[Message],
        *,
        first_ordinal: int,
        lines: Sequence[EntityLine] | None,
        now: datetime,
        extra: str | None,
        language: str,
        place: str = "",
    ) -> list[Message]:
        """Return the history with each user message's context block in front of its words.

        history holds the kept messages; its first user message is the conversation's
        first_ordinal-th (0-based). The last user message is the current one: its block is
        made now, unless this turn already made it (a later round of the same turn). place:
        where the person asks from (turn/asked_from.py), a line of this message's block only.
        """
        conversation = self._conversations.pop(conversation_id, None) or _Conversation()
        self._conversations[conversation_id] = conversation
        while len(self._conversations) > MAX_CONVERSATIONS:
            self._conversations.popitem(last=False)

        user_positions = [i for i, message in enumerate(history) if message.role == "user"]
        if not user_positions:
            return list(history)
        conversation.first_ordinal = first_ordinal
        current = first_ordinal + len(user_positions) - 1
        if current not in conversation.turns:
            seen = self._seen(conversation, history[: user_positions[-1]], first_ordinal)
            conversation.turns[current] = self._new_turn(
                seen, lines, now, extra, language=language, place=place
            )
        result: list[Message] = []
        ordinal = first_ordinal
        for message in history:
            if message.role == "user":
                turn = conversation.turns.get(ordinal)
                ordinal += 1
                if turn is not None:
                    result.append(Message("user", f"{turn.block}\n\n{message.content}"))
                    continue
            result.append(message)
        return result

    def _seen(
        self, conversation: _Conversation, earlier: Sequence[Message], first_ordinal: int
    ) -> dict[str, str | None]:
        """Return what kept messages last showed of each entity (None: a tool result)."""
        seen: dict[str, str | None] = dict(self.snapshot.states) if self.snapshot else {}
        ordinal = first_ordinal
        for message in earlier:
            if message.role == "user":
                if (turn := conversation.turns.get(ordinal)) is not None:
                    seen.update(turn.listed)
                ordinal += 1
            for call in message.tool_calls:
                for entity_id in _entity_ids(call.arguments.get(ATTR_ENTITY_ID)):
                    seen[entity_id] = None
            if message.shows_states:  # another tool's "entities" may say anything
                seen.update(_states_in_result(message.content))
        return seen

    def _new_turn(
        self,
        seen: Mapping[str, str | None],
        lines: Sequence[EntityLine] | None,
        now: datetime,
        extra: str | None,
        *,
        language: str,
        place: str,
    ) -> _UserTurn:
        listed = _listed(seen, lines) if lines is not None else {}
        parts = [_changes_text(listed), f"{message_start(now)}.", answer_language(language), place]
        if extra and extra.strip():
            parts.append(extra.strip())
        return _UserTurn(block="\n".join(part for part in parts if part), listed=listed)


def _listed(seen: Mapping[str, str | None], lines: Sequence[EntityLine]) -> dict[str, str]:
    """Return the entities whose state differs from what the model last read, with it."""
    return {line.entity_id: line.state for line in lines if seen.get(line.entity_id) != line.state}


def _changes_text(listed: Mapping[str, str]) -> str:
    """Return the lines a message lists changed states in ("" when none changed)."""
    if not listed:
        return ""
    changes = "\n".join(f"- {entity_id}: {state}" for entity_id, state in listed.items())
    return f"Changed since:\n{changes}"


def _states_in_result(content: str) -> dict[str, str]:
    """Return the states our runner's result showed, as the home list shows them."""
    try:
        data = json.loads(content)
    except ValueError:
        return {}
    entities = data.get("entities") if isinstance(data, dict) else None
    if not isinstance(entities, list):
        return {}
    states: dict[str, str] = {}
    for summary in entities:
        if isinstance(summary, dict) and (state := line_state_of_summary(summary)) is not None:
            states[summary["entity_id"]] = state
    return states


def _entity_ids(value: object) -> Iterable[str]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return (item for item in value if isinstance(item, str))
    return ()
