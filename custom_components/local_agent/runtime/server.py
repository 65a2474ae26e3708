"""Model entries on a server: their settings, and connecting to the server on setup.

A server entry holds no file: setup skips the file checks, the llama-cpp-python runtime and
the safe-load probe, and creates a ServerWorker instead of loading a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from custom_components.local_agent.const import CONF_CONNECT_TIMEOUT
from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_READ_TIMEOUT
from custom_components.local_agent.const import CONF_SERVER_GRAMMAR
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.server.errors import ServerAuthError
from custom_components.local_agent.engine.server.errors import ServerError
from custom_components.local_agent.engine.server.errors import ServerModelMissingError
from custom_components.local_agent.engine.server.errors import ServerNotAnApiError
from custom_components.local_agent.engine.server.settings import DEFAULT_CONNECT_TIMEOUT
from custom_components.local_agent.engine.server.settings import DEFAULT_MAX_CONCURRENT
from custom_components.local_agent.engine.server.settings import DEFAULT_READ_TIMEOUT
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.engine.server.settings import ServerSettings
from custom_components.local_agent.engine.server.worker import ServerWorker
from custom_components.local_agent.turn.error_text import server_failure_key
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.exceptions import ConfigEntryError
from homeassistant.exceptions import ConfigEntryNotReady
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .backend import Backend
from .backend import entry_backend
from .data import ModelSetup
from .data import stored_number


def is_server_entry(entry: ConfigEntry) -> bool:
    """Whether the entry's model runs on a server rather than in this process."""
    return entry_backend(entry) is Backend.SERVER


def server_settings(data: Mapping[str, Any], options: Mapping[str, Any]) -> ServerSettings:
    """ServerSettings from an entry's data and options."""
    return ServerSettings(
        base_url=str(data[CONF_SERVER_URL]),
        model=str(data.get(CONF_SERVER_MODEL, "")),
        api_key=str(data.get(CONF_API_KEY) or "") or None,
        mode=ServerMode(data.get(CONF_SERVER_MODE, ServerMode.COMPLETIONS)),
        max_concurrent=stored_number(
            options, CONF_MAX_CONCURRENT, DEFAULT_MAX_CONCURRENT, minimum=1
        ),
        connect_timeout=stored_number(
            options, CONF_CONNECT_TIMEOUT, float(DEFAULT_CONNECT_TIMEOUT), minimum=0.0
        ),
        read_timeout=stored_number(
            options, CONF_READ_TIMEOUT, float(DEFAULT_READ_TIMEOUT), minimum=0.0
        ),
        grammar=bool(options.get(CONF_SERVER_GRAMMAR, True)),
    )


def server_title(settings: ServerSettings) -> str:
    """Entry title: the model's short name and the server's host."""
    name = settings.model.rstrip("/").rsplit("/", 1)[-1] or settings.model
    host = urlsplit(settings.root).netloc or settings.root
    return f"{name} on {host}"


async def async_setup_server(hass: HomeAssistant, entry: ConfigEntry) -> ModelSetup:
    """Connect to the entry's model server; its agents work as with a local model."""
    worker = await async_connect(hass, entry)
    return ModelSetup(
        model_path=None,
        worker=worker,
        release=worker.close,
        software=f"{worker.info.metadata['server.kind']} ({worker.server.mode} mode)",
    )


async def async_connect(hass: HomeAssistant, entry: ConfigEntry) -> ServerWorker:
    """Check the server and return a worker for it; raise the entry error if it fails.

    An unreachable server (or one that does not serve the model yet) is retried by Home
    Assistant; a refused API key starts the reauthentication flow (config_flow.py), on setup
    and whenever a conversation's request is refused later.
    """
    try:
        settings = server_settings(entry.data, entry.options)
    except (KeyError, ValueError) as err:
        # Data edited by hand or cut short (no address, an unknown mode): reconfigure it.
        missing = isinstance(err, KeyError)
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key="server_data_invalid",
            translation_placeholders={"error": f"no {err.args[0]}" if missing else str(err)},
        ) from err
    placeholders = {"url": settings.root, "model": settings.model}

    def auth_failed() -> None:
        entry.async_start_reauth(hass)

    try:
        return await ServerWorker.connect(
            async_get_clientsession(hass), settings, on_auth_failed=auth_failed
        )
    except ServerError as err:
        error = ConfigEntryAuthFailed if isinstance(err, ServerAuthError) else ConfigEntryNotReady
        raise error(
            translation_domain=DOMAIN,
            translation_key=_connect_failure_key(err),
            translation_placeholders=placeholders,
        ) from err


def _connect_failure_key(err: ServerError) -> str:
    """Return the translation key of the entry error for a server it could not connect to."""
    if isinstance(err, ServerAuthError | ServerModelMissingError):
        return server_failure_key(err.kind)
    if isinstance(err, ServerNotAnApiError):
        # Another service took the port: "not reachable, check that it is running" was untrue.
        return "server_not_an_api"
    return "server_unreachable"
