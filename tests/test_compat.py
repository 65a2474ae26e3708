"""compat.py: one call for Home Assistant APIs that differ between 2026.10 and 2026.11.

The installed Home Assistant (the pytest plugin's) is one of them; the other release's shape is
a stand-in with its exact signature. The real 2026.11 runs in scripts/smoke.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
import importlib
from typing import Any
from unittest.mock import patch

from custom_components.local_agent import compat
from homeassistant import requirements
from homeassistant.components.lock.const import LockEntityFeature
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import chat_session
from homeassistant.setup import async_setup_component


def pip_kwargs_2026_11() -> dict[str, Any]:
    """homeassistant/requirements.py in 2026.11.0: no argument, no deps target."""
    return {
        "constraints": "package_constraints.txt",
        "timeout": 60,
    }


def test_pip_install_kwargs_on_the_installed_release(tmp_path: Any) -> None:
    kwargs = compat.pip_install_kwargs(str(tmp_path))
    assert kwargs["constraints"].endswith("package_constraints.txt")
    assert "timeout" in kwargs


def test_pip_install_kwargs_without_the_config_dir_argument(tmp_path: Any) -> None:
    with patch.object(requirements, "pip_kwargs", pip_kwargs_2026_11):
        kwargs = compat.pip_install_kwargs(str(tmp_path))
    assert kwargs == pip_kwargs_2026_11()


def test_pip_install_kwargs_passes_the_config_dir_where_it_is_wanted(tmp_path: Any) -> None:
    seen: list[str | None] = []

    def pip_kwargs_2026_10(config_dir: str | None) -> dict[str, Any]:
        seen.append(config_dir)
        return {"constraints": "c.txt", "timeout": 60, "target": f"{config_dir}/deps"}

    with patch.object(requirements, "pip_kwargs", pip_kwargs_2026_10):
        kwargs = compat.pip_install_kwargs(str(tmp_path))
    assert seen == [str(tmp_path)]
    assert kwargs["target"] == f"{tmp_path}/deps"


async def test_chat_session_on_the_installed_release(hass: HomeAssistant) -> None:
    with compat.async_get_chat_session(hass, None, Context()) as session:
        assert session.conversation_id


async def test_chat_session_passes_the_context_where_it_is_wanted(hass: HomeAssistant) -> None:
    calls: list[tuple[str | None, dict[str, Any]]] = []

    @contextmanager
    def get_session_2026_11(
        _hass: HomeAssistant, conversation_id: str | None = None, *, context: Any = None
    ) -> Iterator[chat_session.ChatSession]:
        calls.append((conversation_id, {"context": context}))
        yield chat_session.ChatSession("01J")

    context = Context(user_id="someone")
    with (
        patch.object(chat_session, "async_get_chat_session", get_session_2026_11),
        compat.async_get_chat_session(hass, "abc", context) as session,
    ):
        assert session.conversation_id == "01J"
    assert calls == [("abc", {"context": context})]


async def test_service_handler_facts_read_features_and_admin_only(hass: HomeAssistant) -> None:
    """The private shape of registered handlers, read on the installed release."""
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "lock", {})
    assert await async_setup_component(hass, "light", {})

    lock_open = compat.registered_service(hass, "lock", "open")
    restart = compat.registered_service(hass, "homeassistant", "restart")
    light_on = compat.registered_service(hass, "light", "turn_on")
    assert lock_open is not None
    assert restart is not None
    assert light_on is not None

    assert compat.service_handler_facts(lock_open) == ((int(LockEntityFeature.OPEN),), False)
    assert compat.service_handler_facts(restart) == (None, True)
    assert compat.service_handler_facts(light_on) == (None, False)
    assert compat.registered_service(hass, "lock", "no_such_service") is None


def test_the_timer_events_written_out_are_home_assistants() -> None:
    """2026.10 keeps the timer's event and service names in its __init__, 2026.11 in const."""
    names: Any = importlib.import_module("homeassistant.components.timer")
    if not hasattr(names, "EVENT_TIMER_STARTED"):
        names = importlib.import_module("homeassistant.components.timer.const")
    assert {
        names.SERVICE_START: {
            names.EVENT_TIMER_STARTED,
            names.EVENT_TIMER_RESTARTED,
            names.EVENT_TIMER_FINISHED,
        },
        names.SERVICE_PAUSE: {names.EVENT_TIMER_PAUSED},
        names.SERVICE_CANCEL: {names.EVENT_TIMER_CANCELLED},
        names.SERVICE_FINISH: {names.EVENT_TIMER_FINISHED},
        names.SERVICE_CHANGE: {names.EVENT_TIMER_CHANGED, names.EVENT_TIMER_FINISHED},
    } == compat.TIMER_SERVICE_EVENTS


def test_the_program_events_written_out_are_home_assistants() -> None:
    """A call that starts a script or triggers an automation fires these events."""
    automation: Any = importlib.import_module("homeassistant.components.automation")
    script: Any = importlib.import_module("homeassistant.components.script.const")
    assert automation.EVENT_AUTOMATION_TRIGGERED in compat.EVENTS_OF_A_CALL
    assert script.EVENT_SCRIPT_STARTED in compat.EVENTS_OF_A_CALL
