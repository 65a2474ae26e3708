"""What the config flow needs for a model on a server, and the options of such an entry.

The steps are LocalAgentConfigFlow's (config_flow.py). Step `server`: address, API key, mode
and concurrency; the server must answer /v1/models. Step `server_model`: the model, chosen from
the server's list (skipped when it serves one); then the whole check (engine/server/validate.py)
runs before the entry is created or changed. Steps `reauth`/`reauth_confirm`: the server refused
the entry's API key (on setup, or in a conversation): ask for the key, check it the same way,
save it and reload the entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from typing import Final

import probatio
from yarl import URL

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_CONNECT_TIMEOUT
from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_READ_TIMEOUT
from custom_components.local_agent.const import CONF_SERVER_GRAMMAR
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.engine.server.errors import ServerAuthError
from custom_components.local_agent.engine.server.errors import ServerError
from custom_components.local_agent.engine.server.errors import ServerFailure
from custom_components.local_agent.engine.server.errors import ServerModelMissingError
from custom_components.local_agent.engine.server.errors import ServerNotAnApiError
from custom_components.local_agent.engine.server.errors import ServerToolsNotSupportedError
from custom_components.local_agent.engine.server.errors import ServerUnreachableError
from custom_components.local_agent.engine.server.errors import Unreachable
from custom_components.local_agent.engine.server.settings import DEFAULT_CONNECT_TIMEOUT
from custom_components.local_agent.engine.server.settings import DEFAULT_MAX_CONCURRENT
from custom_components.local_agent.engine.server.settings import DEFAULT_READ_TIMEOUT
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.engine.server.settings import ServerSettings
from custom_components.local_agent.engine.server.validate import async_list_models
from custom_components.local_agent.engine.server.validate import async_validate
from custom_components.local_agent.runtime.backend import Backend
from custom_components.local_agent.runtime.server import is_server_entry
from custom_components.local_agent.runtime.server import server_settings
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.selector import BooleanSelector
from homeassistant.helpers.selector import SelectSelector
from homeassistant.helpers.selector import SelectSelectorConfig
from homeassistant.helpers.selector import SelectSelectorMode
from homeassistant.helpers.selector import TextSelector
from homeassistant.helpers.selector import TextSelectorConfig
from homeassistant.helpers.selector import TextSelectorType

from .options_reload import ReloadingOptionsFlow
from .selectors import OUT_OF_RANGE
from .selectors import number_box
from .selectors import range_problem

SERVER_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_SERVER_URL): TextSelector(
            TextSelectorConfig(type=TextSelectorType.URL)
        ),
        probatio.Optional(CONF_API_KEY): TextSelector(
            TextSelectorConfig(type=TextSelectorType.PASSWORD)
        ),
        probatio.Required(CONF_SERVER_MODE, default=str(ServerMode.COMPLETIONS)): SelectSelector(
            SelectSelectorConfig(
                options=[str(mode) for mode in ServerMode],
                translation_key=CONF_SERVER_MODE,
                mode=SelectSelectorMode.LIST,
            )
        ),
        probatio.Required(CONF_MAX_CONCURRENT, default=DEFAULT_MAX_CONCURRENT): number_box(
            1, 64, 1
        ),
    }
)

REAUTH_SCHEMA = probatio.Schema(
    {
        probatio.Optional(CONF_API_KEY): TextSelector(
            TextSelectorConfig(type=TextSelectorType.PASSWORD)
        ),
    }
)

OPTIONS_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_MAX_CONCURRENT, default=DEFAULT_MAX_CONCURRENT): number_box(
            1, 64, 1
        ),
        probatio.Required(CONF_CONNECT_TIMEOUT, default=DEFAULT_CONNECT_TIMEOUT): number_box(
            1, 120, 1
        ),
        probatio.Required(CONF_READ_TIMEOUT, default=DEFAULT_READ_TIMEOUT): number_box(5, 600, 1),
        probatio.Required(CONF_SERVER_GRAMMAR, default=True): BooleanSelector(),
    }
)


def error_key(err: ServerError) -> str:
    """Return the form error for a failed check."""
    if isinstance(err, ServerAuthError):
        return "invalid_auth"
    if isinstance(err, ServerModelMissingError):
        return "server_model_not_found"
    if isinstance(err, ServerNotAnApiError):
        return "not_a_model_server"
    if isinstance(err, ServerToolsNotSupportedError):
        return "tools_not_supported"
    if err.kind is ServerFailure.TIMEOUT:
        # It was reached, then said nothing: "cannot reach" was untrue, and its detail
        # ("nothing received for 60 s") stayed English in every language.
        return "server_no_answer"
    if isinstance(err, ServerUnreachableError) and err.why is not Unreachable.OTHER:
        # Said whole in the dialog's language: the system's words ("Connect call failed
        # ('192.168.1.20', 8080)") stayed English in every language.
        return f"cannot_connect_{err.why}"
    if err.kind in (ServerFailure.UNREACHABLE, ServerFailure.CONNECTION_LOST):
        return "cannot_connect"
    return "server_error"


def url_problem(url: str) -> str | None:
    """Return the form error of an address that is no http(s) URL with a host, None if it is.

    Without this check "192.168.1.20:8080" (no scheme) or a typo reached the HTTP client,
    whose refusal read as "The server answered with an error: 192.168.1.20:8080/v1/models".
    """
    try:
        parsed = URL(url.strip())
    except ValueError:
        return "invalid_url"
    if parsed.scheme not in ("http", "https") or not parsed.host or " " in parsed.host:
        return "invalid_url"
    return None


def form_errors(err: ServerError | None) -> tuple[dict[str, str], dict[str, str]]:
    """Return the errors and placeholders a form shows after a check (None: none failed)."""
    if err is None:
        return {}, {"error": ""}
    return {"base": error_key(err)}, {"error": err.detail}


# Seconds the dialog waits for a server's list of models: any model server sends it at once
# (llama-server while it loads too: a 503). A silent one (another service on that port, a
# stuck server) kept the dialog spinning for the whole read timeout, 60 s by default.
MODEL_LIST_TIMEOUT: Final = 10.0


async def async_server_models(
    hass: HomeAssistant, settings: ServerSettings
) -> tuple[tuple[str, ...], ServerError | None]:
    """Ask the server which models it serves; return them, or what failed."""
    settings = replace(settings, read_timeout=min(settings.read_timeout, MODEL_LIST_TIMEOUT))
    try:
        facts = await async_list_models(async_get_clientsession(hass), settings)
    except ServerError as err:
        return (), err
    return tuple(facts.models), None


async def async_check_server(hass: HomeAssistant, settings: ServerSettings) -> ServerError | None:
    """Run the whole check of a server and its model (server/validate.py); return what failed."""
    try:
        await async_validate(async_get_clientsession(hass), settings)
    except ServerError as err:
        return err
    return None


def flow_settings(data: Mapping[str, Any], options: Mapping[str, Any]) -> ServerSettings:
    """Return settings to check a server with while the user waits: no retries."""
    return replace(server_settings(data, options), retries=0)


def server_input_settings(server_input: Mapping[str, Any], model: str = "") -> ServerSettings:
    """Return the settings the server form (and a model) describe, to check them."""
    data = {**server_input, CONF_SERVER_MODEL: model}
    return flow_settings(data, data)


def current_server_data(entry: ConfigEntry | None) -> dict[str, Any]:
    """Return what the forms suggest when reconfiguring a server entry (else nothing)."""
    if entry is None or not is_server_entry(entry):
        return {}
    return {**entry.options, **entry.data}


def server_model_schema(models: tuple[str, ...]) -> probatio.Schema:
    """Choose one of the server's models (or name another)."""
    return probatio.Schema(
        {
            probatio.Required(CONF_SERVER_MODEL): SelectSelector(
                SelectSelectorConfig(
                    options=list(models), custom_value=True, mode=SelectSelectorMode.DROPDOWN
                )
            )
        }
    )


def suggested_server_model(models: tuple[str, ...], entry: ConfigEntry | None) -> dict[str, Any]:
    """Suggest the entry's model when the server still has it, else the server's first."""
    current = current_server_data(entry).get(CONF_SERVER_MODEL)
    default = current if current in models else None
    return {CONF_SERVER_MODEL: default or next(iter(models), "")}


def server_entry_data(settings: ServerSettings) -> dict[str, Any]:
    """Return the data of an entry for a model on a server."""
    data: dict[str, Any] = {
        CONF_BACKEND: Backend.SERVER.value,
        CONF_SERVER_URL: settings.root,
        CONF_SERVER_MODEL: settings.model,
        CONF_SERVER_MODE: str(settings.mode),
    }
    if settings.api_key:
        data[CONF_API_KEY] = settings.api_key
    return data


def server_unique_id(settings: ServerSettings) -> str:
    """Return the unique id of an entry: one per model on a server."""
    return f"{settings.root}#{settings.model}"


def reauth_placeholders(entry: ConfigEntry) -> dict[str, str]:
    """Name the server and model that refused the key."""
    return {
        "url": str(entry.data.get(CONF_SERVER_URL, "")),
        "model": str(entry.data.get(CONF_SERVER_MODEL, "")),
    }


def reauth_data(entry: ConfigEntry, user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Return the entry's data with the new key (none when the field was left empty)."""
    data = {key: value for key, value in entry.data.items() if key != CONF_API_KEY}
    key = str(user_input.get(CONF_API_KEY) or "").strip()
    if key:
        data[CONF_API_KEY] = key
    return data


class ServerOptionsFlow(ReloadingOptionsFlow):
    """Concurrency, timeouts and the grammar of a server entry."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Show the server options (their own step, with their own texts)."""
        return await self.async_step_server(user_input)

    async def async_step_server(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Save the options; the entry reloads with them, visibly."""
        problem = None if user_input is None else range_problem(OPTIONS_SCHEMA, user_input)
        if user_input is not None and problem is None:
            return await self.async_save_options(
                {**user_input, CONF_MAX_CONCURRENT: int(user_input[CONF_MAX_CONCURRENT])}
            )
        return self.async_show_form(
            step_id="server",
            data_schema=self.add_suggested_values_to_schema(
                OPTIONS_SCHEMA, user_input or self.config_entry.options
            ),
            errors={problem[0]: OUT_OF_RANGE} if problem else None,
            description_placeholders=problem[1] if problem else None,
        )
