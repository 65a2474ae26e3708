"""Home Assistant APIs whose shape differs between the releases this integration supports.

Supported: 2026.10 and 2026.11 (README, hacs.json). Each difference is handled here, once, so
the rest of the code calls one function with one signature.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
import inspect
from typing import Any

from homeassistant import requirements
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import chat_session


def pip_install_kwargs(config_dir: str) -> dict[str, Any]:
    """Return Home Assistant's keyword arguments for ``install_package`` (constraints, target).

    2026.10: ``pip_kwargs(config_dir)`` (adds a ``<config>/deps`` target outside a venv and
    Docker); 2026.11 dropped the argument and the deps folder: ``pip_kwargs()``.
    """
    pip_kwargs: Callable[..., dict[str, Any]] = requirements.pip_kwargs
    if inspect.signature(pip_kwargs).parameters:
        return dict(pip_kwargs(config_dir))
    return dict(pip_kwargs())


def async_get_chat_session(
    hass: HomeAssistant, conversation_id: str | None, context: Context | None
) -> AbstractContextManager[chat_session.ChatSession]:
    """Return Home Assistant's chat session context manager for this conversation.

    2026.11 wants the caller's ``context`` (its user becomes the session's owner; another
    user's context raises Unauthorized; None: no user) and reports calls without it; 2026.10
    takes no context.
    """
    get_session: Callable[..., AbstractContextManager[chat_session.ChatSession]] = (
        chat_session.async_get_chat_session
    )
    if "context" in inspect.signature(get_session).parameters:
        return get_session(hass, conversation_id, context=context)
    return get_session(hass, conversation_id)
