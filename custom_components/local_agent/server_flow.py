"""Config flow steps for a model on a server, and the options of such an entry.

Step `server`: address, API key, mode and concurrency; the server must answer /v1/models.
Step `server_model`: the model, chosen from the server's list (skipped when it serves one);
then the whole check (engine/server/validate.py) runs before the entry is created or changed.
Steps `reauth`/`reauth_confirm`: the server refused the entry's API key (on setup, or in a
conversation): ask for the key, check it the same way, save it and reload the entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import probatio

from homeassistant.config_entries import (
    SOURCE_RECONFIGURE,
    ConfigFlow,
    ConfigFlowResult,
    ConfigSubentryData,
    OptionsFlowWithReload,
)
from homeassistant.const import CONF_API_KEY
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.selector import (
    BooleanSelector,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .backend import Backend
from .const import (
    CONF_BACKEND,
    CONF_CONNECT_TIMEOUT,
    CONF_MAX_CONCURRENT,
    CONF_READ_TIMEOUT,
    CONF_SERVER_GRAMMAR,
    CONF_SERVER_MODE,
    CONF_SERVER_MODEL,
    CONF_SERVER_URL,
)
from .engine.server.errors import (
    ServerAuthError,
    ServerError,
    ServerFailure,
    ServerModelMissingError,
    ServerToolsNotSupportedError,
)
from .engine.server.settings import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_CONCURRENT,
    DEFAULT_READ_TIMEOUT,
    ServerMode,
    ServerSettings,
)
from .engine.server.validate import async_list_models, async_validate
from .server_entry import is_server_entry, server_settings, server_title


def _number(low: float, high: float, step: float) -> NumberSelector:
    return NumberSelector(
        NumberSelectorConfig(min=low, max=high, step=step, mode=NumberSelectorMode.BOX)
    )


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
        probatio.Required(CONF_MAX_CONCURRENT, default=DEFAULT_MAX_CONCURRENT): _number(1, 64, 1),
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
        probatio.Required(CONF_MAX_CONCURRENT, default=DEFAULT_MAX_CONCURRENT): _number(1, 64, 1),
        probatio.Required(CONF_CONNECT_TIMEOUT, default=DEFAULT_CONNECT_TIMEOUT): _number(
            1, 120, 1
        ),
        probatio.Required(CONF_READ_TIMEOUT, default=DEFAULT_READ_TIMEOUT): _number(5, 600, 1),
        probatio.Required(CONF_SERVER_GRAMMAR, default=True): BooleanSelector(),
    }
)


def error_key(err: ServerError) -> str:
    """Return the form error for a failed check."""
    if isinstance(err, ServerAuthError):
        return "invalid_auth"
    if isinstance(err, ServerModelMissingError):
        return "server_model_not_found"
    if isinstance(err, ServerToolsNotSupportedError):
        return "tools_not_supported"
    if err.kind in (
        ServerFailure.UNREACHABLE,
        ServerFailure.TIMEOUT,
        ServerFailure.CONNECTION_LOST,
    ):
        return "cannot_connect"
    return "server_error"


class ServerEntryFlow(ConfigFlow):
    """The steps that create (or reconfigure) an entry for a model on a server."""

    _server_input: dict[str, Any] | None = None
    _server_models: tuple[str, ...] = ()

    def initial_subentries(self, model_title: str) -> list[ConfigSubentryData]:
        """Subentries a new entry starts with (the agent flow defines them)."""
        return []

    def _server_settings(self, model: str = "") -> ServerSettings:
        assert self._server_input is not None
        data = {**self._server_input, CONF_SERVER_MODEL: model}
        # The user waits for the form: fail at once rather than retry.
        return replace(server_settings(data, data), retries=0)

    async def async_step_server(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Where the server is and how to talk to it."""
        errors: dict[str, str] = {}
        placeholders = {"error": ""}
        if user_input is not None:
            self._server_input = dict(user_input)
            session = async_get_clientsession(self.hass)
            try:
                facts = await async_list_models(session, self._server_settings())
            except ServerError as err:
                errors["base"] = error_key(err)
                placeholders["error"] = err.detail
            else:
                self._server_models = tuple(facts.models)
                return await self.async_step_server_model()
        suggested = user_input or self._current_server_data()
        return self.async_show_form(
            step_id="server",
            data_schema=self.add_suggested_values_to_schema(SERVER_SCHEMA, suggested),
            errors=errors,
            description_placeholders=placeholders,
        )

    async def async_step_server_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Which of the server's models; then check everything and create the entry."""
        errors: dict[str, str] = {}
        placeholders = {"error": "", "models": ", ".join(self._server_models) or "none"}
        if user_input is None and len(self._server_models) == 1:
            user_input = {CONF_SERVER_MODEL: self._server_models[0]}
        if user_input is not None:
            settings = self._server_settings(str(user_input[CONF_SERVER_MODEL]).strip())
            try:
                await async_validate(async_get_clientsession(self.hass), settings)
            except ServerError as err:
                errors["base"] = error_key(err)
                placeholders["error"] = err.detail
            else:
                return await self._async_finish_server(settings)
        schema = probatio.Schema(
            {
                probatio.Required(CONF_SERVER_MODEL): SelectSelector(
                    SelectSelectorConfig(
                        options=list(self._server_models),
                        custom_value=True,
                        mode=SelectSelectorMode.DROPDOWN,
                    )
                )
            }
        )
        current = self._current_server_data().get(CONF_SERVER_MODEL)
        default = current if current in self._server_models else None
        default = default or next(iter(self._server_models), "")
        suggested = user_input or {CONF_SERVER_MODEL: default}
        return self.async_show_form(
            step_id="server_model",
            data_schema=self.add_suggested_values_to_schema(schema, suggested),
            errors=errors,
            description_placeholders=placeholders,
        )

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:
        """Ask for a new key: the model server refused the entry's."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the key; check it against the server before saving it."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        placeholders = {
            "url": str(entry.data.get(CONF_SERVER_URL, "")),
            "model": str(entry.data.get(CONF_SERVER_MODEL, "")),
            "error": "",
        }
        if user_input is not None:
            data = {key: value for key, value in entry.data.items() if key != CONF_API_KEY}
            key = str(user_input.get(CONF_API_KEY) or "").strip()
            if key:
                data[CONF_API_KEY] = key
            # The user waits for the form: fail at once rather than retry.
            settings = replace(server_settings(data, entry.options), retries=0)
            try:
                await async_validate(async_get_clientsession(self.hass), settings)
            except ServerError as err:
                errors["base"] = error_key(err)
                placeholders["error"] = err.detail
            else:
                return self.async_update_reload_and_abort(entry, data=data)
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=REAUTH_SCHEMA,
            errors=errors,
            description_placeholders=placeholders,
        )

    def _current_server_data(self) -> dict[str, Any]:
        if self.source != SOURCE_RECONFIGURE:
            return {}
        entry = self._get_reconfigure_entry()
        return {**entry.options, **entry.data} if is_server_entry(entry) else {}

    async def _async_finish_server(self, settings: ServerSettings) -> ConfigFlowResult:
        data: dict[str, Any] = {
            CONF_BACKEND: Backend.SERVER.value,
            CONF_SERVER_URL: settings.root,
            CONF_SERVER_MODEL: settings.model,
            CONF_SERVER_MODE: str(settings.mode),
        }
        if settings.api_key:
            data[CONF_API_KEY] = settings.api_key
        unique_id = f"{settings.root}#{settings.model}"
        title = server_title(settings)
        if self.source == SOURCE_RECONFIGURE:
            entry = self._get_reconfigure_entry()
            if any(
                other.unique_id == unique_id and other.entry_id != entry.entry_id
                for other in self._async_current_entries(include_ignore=False)
            ):
                return self.async_abort(reason="server_already_configured")
            options = {**entry.options, CONF_MAX_CONCURRENT: settings.max_concurrent}
            return self.async_update_reload_and_abort(
                entry, unique_id=unique_id, title=title, data=data, options=options
            )
        await self.async_set_unique_id(unique_id)
        self._abort_if_unique_id_configured(error="server_already_configured")
        return self.async_create_entry(
            title=title,
            data=data,
            options={CONF_MAX_CONCURRENT: settings.max_concurrent},
            subentries=self.initial_subentries(title),
        )


class ServerOptionsFlow(OptionsFlowWithReload):
    """Concurrency, timeouts and the grammar of a server entry."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Show the server options (their own step, with their own texts)."""
        return await self.async_step_server(user_input)

    async def async_step_server(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Save the options; the entry reloads with them."""
        if user_input is not None:
            data = {
                **user_input,
                CONF_MAX_CONCURRENT: int(user_input[CONF_MAX_CONCURRENT]),
            }
            return self.async_create_entry(data=data)
        return self.async_show_form(
            step_id="server",
            data_schema=self.add_suggested_values_to_schema(
                OPTIONS_SCHEMA, self.config_entry.options
            ),
        )
