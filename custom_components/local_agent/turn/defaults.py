"""The settings of a new conversation agent or AI task: one place for every default.

The subentry forms, the agent, the safety policy and the AI task all read them from here, so a
subentry written by an older version (a key missing) behaves exactly like a new one.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from typing import Final

from custom_components.local_agent.const import CONF_ALLOW_UNATTENDED
from custom_components.local_agent.const import CONF_CONFIRMATION_TIMEOUT
from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from custom_components.local_agent.const import CONF_HISTORY_TOKENS
from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.const import CONF_MAX_ROUNDS
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_MIN_P
from custom_components.local_agent.const import CONF_MODEL_PHRASES_ANSWERS
from custom_components.local_agent.const import CONF_PRESENCE_PENALTY
from custom_components.local_agent.const import CONF_SENSITIVE_COVER_CLASSES
from custom_components.local_agent.const import CONF_SENSITIVE_DOMAINS
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import CONF_TOP_K
from custom_components.local_agent.const import CONF_TOP_P
from custom_components.local_agent.const import DEFAULT_CONFIRMATION_TIMEOUT
from custom_components.local_agent.const import DEFAULT_HISTORY_TOKENS
from custom_components.local_agent.const import DEFAULT_INSTRUCTIONS
from custom_components.local_agent.const import DEFAULT_MAX_ROUNDS
from custom_components.local_agent.const import DEFAULT_MAX_TOKENS
from custom_components.local_agent.const import DEFAULT_SENSITIVE_COVER_CLASSES
from custom_components.local_agent.const import DEFAULT_SENSITIVE_DOMAINS
from custom_components.local_agent.const import DEFAULT_TASK_MAX_TOKENS
from custom_components.local_agent.const import DEFAULT_TASK_PRESENCE_PENALTY
from custom_components.local_agent.const import DEFAULT_THINKING
from custom_components.local_agent.const import DEFAULT_THINKING_BUDGET
from custom_components.local_agent.engine.settings import SamplingSettings
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import CONF_PROMPT

_SAMPLING: Final = SamplingSettings()
# What an agent and an AI task start with alike: thinking on, the model card's sampling.
_THINKING_AND_SAMPLING: Final[Mapping[str, Any]] = {
    CONF_THINKING: DEFAULT_THINKING,
    CONF_THINKING_BUDGET: DEFAULT_THINKING_BUDGET,
    CONF_TEMPERATURE: _SAMPLING.temperature,
    CONF_TOP_P: _SAMPLING.top_p,
    CONF_TOP_K: _SAMPLING.top_k,
    CONF_MIN_P: _SAMPLING.min_p,
}

# Model-card sampling, our own tools, thinking on, the default sensitive domains.
AGENT_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        CONF_PROMPT: DEFAULT_INSTRUCTIONS,
        CONF_HOME_TOOLS: True,
        CONF_LLM_HASS_API: (),
        **_THINKING_AND_SAMPLING,
        CONF_PRESENCE_PENALTY: _SAMPLING.presence_penalty,
        CONF_MAX_TOKENS: DEFAULT_MAX_TOKENS,
        CONF_MAX_ROUNDS: DEFAULT_MAX_ROUNDS,
        CONF_MODEL_PHRASES_ANSWERS: False,
        CONF_HISTORY_TOKENS: DEFAULT_HISTORY_TOKENS,
        CONF_SENSITIVE_DOMAINS: DEFAULT_SENSITIVE_DOMAINS,
        CONF_SENSITIVE_COVER_CLASSES: DEFAULT_SENSITIVE_COVER_CLASSES,
        CONF_SENSITIVE_ENTITIES: (),
        CONF_EXEMPT_ENTITIES: (),
        CONF_EXEMPT_TOOLS: (),
        CONF_ALLOW_UNATTENDED: False,
        CONF_CONFIRMATION_TIMEOUT: DEFAULT_CONFIRMATION_TIMEOUT,
    }
)

# Model-card sampling without its presence penalty (data repeats words), a shorter answer.
AI_TASK_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        **_THINKING_AND_SAMPLING,
        CONF_PRESENCE_PENALTY: DEFAULT_TASK_PRESENCE_PENALTY,
        CONF_MAX_TOKENS: DEFAULT_TASK_MAX_TOKENS,
    }
)


def agent_data(data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return an agent's settings with every missing key filled in (lists as lists)."""
    merged = {**AGENT_DEFAULTS, **(data or {})}
    return {
        key: list(value) if isinstance(value, tuple) else value for key, value in merged.items()
    }


def ai_task_data(data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return an AI task's settings with every missing key filled in."""
    return {**AI_TASK_DEFAULTS, **(data or {})}


def sampling_settings(data: Mapping[str, Any]) -> SamplingSettings:
    """Read the sampling of an agent's or AI task's settings (defaults filled in already)."""
    return SamplingSettings(
        temperature=float(data[CONF_TEMPERATURE]),
        top_p=float(data[CONF_TOP_P]),
        top_k=int(data[CONF_TOP_K]),
        min_p=float(data[CONF_MIN_P]),
        presence_penalty=float(data[CONF_PRESENCE_PENALTY]),
    )
