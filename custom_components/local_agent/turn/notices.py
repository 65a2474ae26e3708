"""What the agent tells the user alone: that a turn takes a while, hints the model never reads.

Such sentences go into the chat log as assistant content marked USER_ONLY (its `native`
field, which Home Assistant keeps for the integration): the Assist dialog and a streaming voice
pipeline show and speak them like any answer, while turn/history.py leaves them out of what
the model reads, so a hint may name what the model must not see (an entity not exposed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final

from homeassistant.components import conversation

# The `native` value of the agent's user-only content.
USER_ONLY: Final = "local_agent.user_only"
# Seconds without visible text after which a turn says that it takes a while.
SLOW_NOTICE_AFTER = 5.0
# When Home Assistant's voice pipeline starts to speak a streamed answer (assist_pipeline's
# STREAM_RESPONSE_CHARS): past this many streamed characters, or at a call after text. Before
# that it speaks the turn's final speech.
PIPELINE_STREAMS_AFTER_CHARS: Final = 60
# A turn stops and answers after this many seconds: below Home Assistant's pipeline timeout
# (300 s, assist_pipeline's DEFAULT_PIPELINE_TIMEOUT), which ends in a bare "Timeout
# running pipeline" and leaves the generation running.
TURN_TIME_LIMIT = 240.0


def is_user_only(content: conversation.Content) -> bool:
    """Say whether this is content the agent added for the user alone."""
    return isinstance(content, conversation.AssistantContent) and content.native == USER_ONLY


def user_only_deltas(text: str) -> list[conversation.AssistantContentDeltaDict]:
    """Return the deltas that add `text` as its own user-only message, then reopen the model's.

    The model's message that was open is empty at this point (nothing was yielded since its
    role), so the chat log adds nothing for it. The Assist dialog shows one bubble for the
    turn: the model's text follows in a paragraph of its own.
    """
    return [
        {"role": "assistant", "content": f"{text}\n\n", "native": USER_ONLY},
        {"role": "assistant"},
    ]


def said_content(agent_id: str, text: str, *, user_only: bool) -> conversation.AssistantContent:
    """Return one sentence the agent says itself, as chat log content."""
    return conversation.AssistantContent(
        agent_id=agent_id, content=text, native=USER_ONLY if user_only else None
    )


async def async_said(
    text: str, *, user_only: bool = False
) -> AsyncIterator[conversation.AssistantContentDeltaDict]:
    """Stream one sentence the agent says itself, as one message."""
    if user_only:
        yield {"role": "assistant", "content": text, "native": USER_ONLY}
    else:
        yield {"role": "assistant", "content": text}


@dataclass(slots=True)
class TurnStream:
    """What one turn streamed so far: the slow-turn notice (said once at most) and its text.

    `started` is the event loop time the turn began; `notice` is None once it was said or the
    model wrote visible text (then it is never said).
    """

    notice: str | None
    started: float
    # The person's language where a device asked (what the agent says itself is streamed as
    # said aloud in it); None where a screen shows the answer.
    aloud_in: str | None = None
    streamed_chars: int = 0
    call_after_text: bool = False
    streamed_text: str = ""
    # The model's answer asked for a yes in our question's words: that tail was held back.
    imitated_question: bool = False

    @property
    def notice_due(self) -> float:
        """Return the event loop time the notice is due at."""
        return self.started + SLOW_NOTICE_AFTER

    def visible_text_came(self) -> None:
        """Drop the notice: the user sees an answer coming."""
        self.notice = None

    def take_notice(self) -> str | None:
        """Return the notice to say now (once), or None."""
        notice, self.notice = self.notice, None
        return notice

    def streamed(self, text: str) -> None:
        """Count (and keep) text that went out as it came."""
        self.streamed_chars += len(text)
        self.streamed_text += text

    def calls_streamed(self) -> None:
        """Note calls that went out (after text, they start a voice pipeline's speaking)."""
        self.call_after_text = self.call_after_text or self.streamed_chars > 0

    @property
    def pipeline_speaks_the_stream(self) -> bool:
        """Say whether a voice pipeline may speak this turn as it streams, not at its end.

        Then whatever the agent says itself must be streamed too, or it is never spoken.
        """
        return self.call_after_text or self.streamed_chars > PIPELINE_STREAMS_AFTER_CHARS


def last_answer(chat_log: conversation.ChatLog) -> str | None:
    """Return the text of the turn's last message that is not user-only, if it has any."""
    for content in reversed(chat_log.content):
        if is_user_only(content):
            continue
        if isinstance(content, conversation.AssistantContent):
            return content.content or None
        return None
    return None
