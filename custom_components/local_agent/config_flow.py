"""Config flow for Local Agent: an entry is one model file; subentries are agents."""

from __future__ import annotations

from typing import Any

import probatio

from homeassistant.config_entries import (
    ConfigEntry,
    ConfigEntryState,
    ConfigFlowResult,
    ConfigSubentryData,
    ConfigSubentryFlow,
    OptionsFlow,
    OptionsFlowWithReload,
    SubentryFlowResult,
)
from homeassistant.const import CONF_LLM_HASS_API, CONF_NAME, CONF_PROMPT
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import llm
from homeassistant.helpers.selector import (
    BooleanSelector,
    EntitySelector,
    EntitySelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TemplateSelector,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .agent_defaults import agent_data
from .const import (
    CONF_ALLOW_UNATTENDED,
    CONF_CONFIRMATION_PIN,
    CONF_CONFIRMATION_TIMEOUT,
    CONF_CONTEXT_SIZE,
    CONF_EXEMPT_ENTITIES,
    CONF_EXEMPT_TOOLS,
    CONF_FLASH_ATTENTION,
    CONF_HISTORY_TOKENS,
    CONF_HOME_TOOLS,
    CONF_MAX_ROUNDS,
    CONF_MAX_TOKENS,
    CONF_MIN_P,
    CONF_PRESENCE_PENALTY,
    CONF_SENSITIVE_COVER_CLASSES,
    CONF_SENSITIVE_DOMAINS,
    CONF_SENSITIVE_ENTITIES,
    CONF_TEMPERATURE,
    CONF_THINKING,
    CONF_THINKING_BUDGET,
    CONF_THREADS,
    CONF_TOP_K,
    CONF_TOP_P,
    DEFAULT_AGENT_NAME,
    DEFAULT_AI_TASK_NAME,
    DEFAULT_CONTEXT_SIZE,
    DEFAULT_TASK_MAX_TOKENS,
    DEFAULT_TASK_PRESENCE_PENALTY,
    DEFAULT_THINKING,
    DEFAULT_THINKING_BUDGET,
    DOMAIN,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
)
from .engine.settings import SamplingSettings
from .model_flow import ModelEntryFlow
from .server_entry import is_server_entry
from .server_flow import ServerOptionsFlow

SENSITIVE_DOMAIN_CHOICES = [
    "lock",
    "alarm_control_panel",
    "valve",
    "cover",
    "climate",
    "water_heater",
    "switch",
    "script",
]
COVER_CLASS_CHOICES = ["garage", "door", "gate", "window", "shutter", "awning"]


def default_agent_data() -> dict[str, Any]:
    """Return the settings of a new agent: model-card sampling, our tools, thinking on."""
    return agent_data()


def default_agent_name(
    hass: HomeAssistant, model_title: str, subentry_type: str = SUBENTRY_CONVERSATION
) -> str:
    """Name a new agent (or AI task) after its model, unique among all Local Agent subentries.

    "Local Agent (BotPsy-0.8B Q8_0)", then "Local Agent (BotPsy-0.8B Q8_0) 2", and so on: the
    pipeline picker lists agents by name, so two must never look the same. AI tasks are
    "Local Agent AI Task (BotPsy-0.8B Q8_0)", for the AI Task picker and automation editors.
    """
    model = model_title.removesuffix(".gguf").strip()
    prefix = DEFAULT_AI_TASK_NAME if subentry_type == SUBENTRY_AI_TASK else DEFAULT_AGENT_NAME
    base = f"{prefix} ({model})" if model else prefix
    taken = {
        subentry.title.casefold()
        for entry in hass.config_entries.async_entries(DOMAIN)
        for subentry in entry.subentries.values()
    }
    name, number = base, 2
    while name.casefold() in taken:
        name, number = f"{base} {number}", number + 1
    return name


class LocalAgentConfigFlow(ModelEntryFlow, domain=DOMAIN):
    """Create a model entry (model_flow.py has the steps); agents are its subentries."""

    VERSION = 1
    # 2: the entry's data names its backend (CONF_BACKEND).
    MINOR_VERSION = 2

    def initial_subentries(self, model_title: str) -> list[ConfigSubentryData]:
        """Give a new model entry one agent, named after the model."""
        return [
            ConfigSubentryData(
                subentry_type=SUBENTRY_CONVERSATION,
                data=default_agent_data(),
                title=default_agent_name(self.hass, model_title),
                unique_id=None,
            )
        ]

    @classmethod
    @callback
    def async_get_supported_subentry_types(
        cls, config_entry: ConfigEntry
    ) -> dict[str, type[ConfigSubentryFlow]]:
        """Agents and AI tasks are subentries of a model entry."""
        return {SUBENTRY_CONVERSATION: ConversationAgentFlow, SUBENTRY_AI_TASK: AITaskFlow}

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: ConfigEntry) -> OptionsFlow:
        """Engine options of a model entry."""
        if is_server_entry(config_entry):
            return ServerOptionsFlow()
        return EngineOptionsFlow()


class EngineOptionsFlow(OptionsFlowWithReload):
    """Context size, threads and flash attention of a loaded model."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Show and save the engine options; the entry reloads with them."""
        if user_input is not None:
            return self.async_create_entry(data=user_input)
        schema = probatio.Schema(
            {
                probatio.Required(CONF_CONTEXT_SIZE, default=DEFAULT_CONTEXT_SIZE): NumberSelector(
                    NumberSelectorConfig(
                        min=1024, max=131072, step=512, mode=NumberSelectorMode.BOX
                    )
                ),
                probatio.Required(CONF_THREADS, default=0): NumberSelector(
                    NumberSelectorConfig(min=0, max=256, step=1, mode=NumberSelectorMode.BOX)
                ),
                probatio.Required(CONF_FLASH_ATTENTION, default="auto"): SelectSelector(
                    SelectSelectorConfig(
                        options=["auto", "on", "off"],
                        translation_key=CONF_FLASH_ATTENTION,
                        mode=SelectSelectorMode.DROPDOWN,
                    )
                ),
            }
        )
        return self.async_show_form(
            step_id="init",
            data_schema=self.add_suggested_values_to_schema(schema, self.config_entry.options),
        )


def agent_schema(hass: HomeAssistant) -> probatio.Schema:
    """Form of an agent subentry."""
    apis = [SelectOptionDict(label=api.name, value=api.id) for api in llm.async_get_apis(hass)]

    def number(low: float, high: float, step: float) -> NumberSelector:
        return NumberSelector(
            NumberSelectorConfig(min=low, max=high, step=step, mode=NumberSelectorMode.BOX)
        )

    return probatio.Schema(
        {
            probatio.Required(CONF_NAME): TextSelector(),
            probatio.Optional(CONF_PROMPT): TemplateSelector(),
            probatio.Required(CONF_HOME_TOOLS): BooleanSelector(),
            probatio.Optional(CONF_LLM_HASS_API): SelectSelector(
                SelectSelectorConfig(options=apis, multiple=True)
            ),
            probatio.Required(CONF_THINKING): BooleanSelector(),
            probatio.Required(CONF_THINKING_BUDGET): number(0, 4096, 1),
            probatio.Required(CONF_TEMPERATURE): number(0, 2, 0.05),
            probatio.Required(CONF_TOP_P): number(0, 1, 0.01),
            probatio.Required(CONF_TOP_K): number(0, 200, 1),
            probatio.Required(CONF_MIN_P): number(0, 1, 0.01),
            probatio.Required(CONF_PRESENCE_PENALTY): number(0, 2, 0.05),
            probatio.Required(CONF_MAX_TOKENS): number(64, 8192, 1),
            probatio.Required(CONF_MAX_ROUNDS): number(1, 10, 1),
            probatio.Required(CONF_HISTORY_TOKENS): number(0, 32768, 100),
            probatio.Required(CONF_SENSITIVE_DOMAINS): SelectSelector(
                SelectSelectorConfig(
                    options=SENSITIVE_DOMAIN_CHOICES,
                    multiple=True,
                    custom_value=True,
                    translation_key=CONF_SENSITIVE_DOMAINS,
                )
            ),
            probatio.Required(CONF_SENSITIVE_COVER_CLASSES): SelectSelector(
                SelectSelectorConfig(
                    options=COVER_CLASS_CHOICES,
                    multiple=True,
                    translation_key=CONF_SENSITIVE_COVER_CLASSES,
                )
            ),
            probatio.Optional(CONF_SENSITIVE_ENTITIES): EntitySelector(
                EntitySelectorConfig(multiple=True)
            ),
            probatio.Optional(CONF_EXEMPT_ENTITIES): EntitySelector(
                EntitySelectorConfig(multiple=True)
            ),
            probatio.Optional(CONF_EXEMPT_TOOLS): TextSelector(TextSelectorConfig(multiple=True)),
            probatio.Optional(CONF_CONFIRMATION_PIN): TextSelector(
                TextSelectorConfig(type=TextSelectorType.PASSWORD)
            ),
            probatio.Required(CONF_ALLOW_UNATTENDED): BooleanSelector(),
            probatio.Required(CONF_CONFIRMATION_TIMEOUT): number(5, 300, 1),
        }
    )


class ConversationAgentFlow(ConfigSubentryFlow):
    """Add or reconfigure a conversation agent."""

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Add an agent (its suggested name says which model and is not taken yet)."""
        name = default_agent_name(self.hass, self._get_entry().title)
        return await self._async_form(user_input, {CONF_NAME: name})

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change an agent's settings."""
        subentry = self._get_reconfigure_subentry()
        return await self._async_form(user_input, {CONF_NAME: subentry.title, **subentry.data})

    async def _async_form(
        self, user_input: dict[str, Any] | None, current: dict[str, Any]
    ) -> SubentryFlowResult:
        if self._get_entry().state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")
        if user_input is not None:
            data = {**default_agent_data(), **user_input}
            title = data.pop(CONF_NAME)
            for key in (CONF_THINKING_BUDGET, CONF_TOP_K, CONF_MAX_TOKENS, CONF_MAX_ROUNDS):
                data[key] = int(data[key])
            data[CONF_HISTORY_TOKENS] = int(data[CONF_HISTORY_TOKENS])
            data[CONF_CONFIRMATION_TIMEOUT] = int(data[CONF_CONFIRMATION_TIMEOUT])
            if self.source == "user":
                return self.async_create_entry(title=title, data=data)
            return self.async_update_and_abort(
                self._get_entry(), self._get_reconfigure_subentry(), title=title, data=data
            )
        suggested = {**default_agent_data(), **current}
        return self.async_show_form(
            step_id="user" if self.source == "user" else "reconfigure",
            data_schema=self.add_suggested_values_to_schema(agent_schema(self.hass), suggested),
        )


def default_ai_task_data() -> dict[str, Any]:
    """Return the settings of a new AI task: model-card sampling without its presence penalty."""
    sampling = SamplingSettings()
    return {
        CONF_THINKING: DEFAULT_THINKING,
        CONF_THINKING_BUDGET: DEFAULT_THINKING_BUDGET,
        CONF_TEMPERATURE: sampling.temperature,
        CONF_TOP_P: sampling.top_p,
        CONF_TOP_K: sampling.top_k,
        CONF_MIN_P: sampling.min_p,
        CONF_PRESENCE_PENALTY: DEFAULT_TASK_PRESENCE_PENALTY,
        CONF_MAX_TOKENS: DEFAULT_TASK_MAX_TOKENS,
    }


def ai_task_schema() -> probatio.Schema:
    """Form of an AI task subentry: no tools, no instructions, no safety (it never acts)."""

    def number(low: float, high: float, step: float) -> NumberSelector:
        return NumberSelector(
            NumberSelectorConfig(min=low, max=high, step=step, mode=NumberSelectorMode.BOX)
        )

    return probatio.Schema(
        {
            probatio.Required(CONF_NAME): TextSelector(),
            probatio.Required(CONF_THINKING): BooleanSelector(),
            probatio.Required(CONF_THINKING_BUDGET): number(0, 4096, 1),
            probatio.Required(CONF_TEMPERATURE): number(0, 2, 0.05),
            probatio.Required(CONF_TOP_P): number(0, 1, 0.01),
            probatio.Required(CONF_TOP_K): number(0, 200, 1),
            probatio.Required(CONF_MIN_P): number(0, 1, 0.01),
            probatio.Required(CONF_PRESENCE_PENALTY): number(0, 2, 0.05),
            probatio.Required(CONF_MAX_TOKENS): number(16, 8192, 1),
        }
    )


class AITaskFlow(ConfigSubentryFlow):
    """Add or reconfigure an AI task (ai_task.generate_data on this model)."""

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Add an AI task (its suggested name says which model and is not taken yet)."""
        name = default_agent_name(self.hass, self._get_entry().title, SUBENTRY_AI_TASK)
        return await self._async_form(user_input, {CONF_NAME: name})

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change an AI task's settings."""
        subentry = self._get_reconfigure_subentry()
        return await self._async_form(user_input, {CONF_NAME: subentry.title, **subentry.data})

    async def _async_form(
        self, user_input: dict[str, Any] | None, current: dict[str, Any]
    ) -> SubentryFlowResult:
        if self._get_entry().state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")
        if user_input is not None:
            data = {**default_ai_task_data(), **user_input}
            title = data.pop(CONF_NAME)
            for key in (CONF_THINKING_BUDGET, CONF_TOP_K, CONF_MAX_TOKENS):
                data[key] = int(data[key])
            if self.source == "user":
                return self.async_create_entry(title=title, data=data)
            return self.async_update_and_abort(
                self._get_entry(), self._get_reconfigure_subentry(), title=title, data=data
            )
        suggested = {**default_ai_task_data(), **current}
        return self.async_show_form(
            step_id="user" if self.source == "user" else "reconfigure",
            data_schema=self.add_suggested_values_to_schema(ai_task_schema(), suggested),
        )
