"""Who asks in a turn, in which language and conversation, and with which tools.

What the safety gate and the runner know of the turn they decide and run a call for. Read
once when the turn starts (turn/agent.py); plain data, so reading it costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from homeassistant.auth.models import User
from homeassistant.core import Context
from homeassistant.helpers import llm

if TYPE_CHECKING:
    from .tools import HomeTools


@dataclass(slots=True)
class TurnContext:
    """One turn: who asks (user, device, satellite, conversation, language), what, and its tools.

    `user` is the user behind the context's user id, looked up once (None: no user id, or
    no such user). `home` and `llm_api` are the turn's tools once it has built them; a turn
    that only answers a question gets the LLM API when a confirmed call needs it
    (home/runner.py: async_llm_api).
    """

    conversation_id: str
    context: Context
    # The requesting user's id, as the context carries it.
    user_id: str | None
    user: User | None
    device_id: str | None
    satellite_id: str | None
    # The device that would hear a question and answer it.
    answering_device: str | None
    language: str
    text: str
    llm_context: llm.LLMContext
    llm_apis: tuple[str, ...] = ()
    home: HomeTools | None = None
    llm_api: llm.APIInstance | None = None
    # Whether the safety gate read the message as the answer to a PIN question and masked it.
    read_as_pin_answer: bool = False
