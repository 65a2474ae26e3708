"""Config flow for Local Agent: an entry is one model file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import probatio

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult
from homeassistant.helpers.selector import TextSelector

from .const import CONF_MODEL_PATH, DOMAIN
from .model_file import check_model_file

STEP_LOCAL_FILE_SCHEMA = probatio.Schema({probatio.Required(CONF_MODEL_PATH): TextSelector()})


class LocalAgentConfigFlow(ConfigFlow, domain=DOMAIN):
    """Create a model entry from a GGUF file on this machine."""

    VERSION = 1

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the path of a GGUF model file."""
        errors: dict[str, str] = {}
        if user_input is not None:
            model_path = Path(user_input[CONF_MODEL_PATH]).expanduser()
            problem = await self.hass.async_add_executor_job(check_model_file, model_path)
            if problem is None:
                resolved = await self.hass.async_add_executor_job(model_path.resolve)
                await self.async_set_unique_id(str(resolved))
                self._abort_if_unique_id_configured()
                return self.async_create_entry(
                    title=resolved.name, data={CONF_MODEL_PATH: str(resolved)}
                )
            errors[CONF_MODEL_PATH] = problem.value
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(STEP_LOCAL_FILE_SCHEMA, user_input),
            errors=errors,
        )
