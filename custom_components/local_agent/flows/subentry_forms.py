"""The forms of the subentries: a conversation agent (in sections) and an AI task.

A form may group its fields in sections (homeassistant.data_entry_flow.section), as core's
flows do; the subentry's data stays flat all the same, so the agent, the safety policy and the
subentries of older versions never see a section. `SubentryForm` nests the flat data into the
form's sections to show it, and flattens what the form gives back to store it.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
import math
import re
from typing import Any
from typing import Final

import probatio

from custom_components.local_agent.const import CONF_ALLOW_UNATTENDED
from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
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
from custom_components.local_agent.flows.selectors import number_box
from custom_components.local_agent.safety.policy import parse_tool_exemption
from custom_components.local_agent.safety.stored_options import options_to_show
from custom_components.local_agent.safety.stored_options import options_to_store
from custom_components.local_agent.turn.defaults import agent_data
from custom_components.local_agent.turn.defaults import ai_task_data
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import CONF_NAME
from homeassistant.const import CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import section
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import llm
from homeassistant.helpers.selector import BooleanSelector
from homeassistant.helpers.selector import EntitySelector
from homeassistant.helpers.selector import EntitySelectorConfig
from homeassistant.helpers.selector import SelectOptionDict
from homeassistant.helpers.selector import SelectSelector
from homeassistant.helpers.selector import SelectSelectorConfig
from homeassistant.helpers.selector import TemplateSelector
from homeassistant.helpers.selector import TextSelector
from homeassistant.helpers.selector import TextSelectorConfig
from homeassistant.helpers.selector import TextSelectorType

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
# The sections of the agent form: what it does, how the model writes, what needs a yes.
SECTION_AGENT: Final = "agent"
SECTION_MODEL: Final = "model"
SECTION_SAFETY: Final = "safety"


def _model_fields(min_tokens: int) -> dict[probatio.Marker, Any]:
    """Thinking, sampling and answer length: the fields an agent and an AI task share."""
    return {
        probatio.Required(CONF_THINKING): BooleanSelector(),
        probatio.Required(CONF_THINKING_BUDGET): number_box(0, 4096, 1),
        probatio.Required(CONF_TEMPERATURE): number_box(0, 2, 0.05),
        probatio.Required(CONF_TOP_P): number_box(0, 1, 0.01),
        probatio.Required(CONF_TOP_K): number_box(0, 200, 1),
        probatio.Required(CONF_MIN_P): number_box(0, 1, 0.01),
        probatio.Required(CONF_PRESENCE_PENALTY): number_box(0, 2, 0.05),
        probatio.Required(CONF_MAX_TOKENS): number_box(min_tokens, 8192, 1),
    }


class InstructionsSelector(TemplateSelector):
    """The template editor, whose template the form checks itself (agent_problem).

    Core's selector refused a broken template with its own message, shown as it is in every
    language: "invalid template (TemplateAssertionError: No filter named 'x'.) at
    'agent.prompt'". Only the type is checked here.
    """

    def __call__(self, data: Any) -> str:
        """Take any text; whether it is a template is the form's error, in its words."""
        if not isinstance(data, str):
            raise probatio.Invalid("instructions must be text")
        return data


def agent_schema(hass: HomeAssistant) -> probatio.Schema:
    """Form of an agent subentry: its name, then the agent, model and safety sections."""
    apis = [SelectOptionDict(label=api.name, value=api.id) for api in llm.async_get_apis(hass)]
    agent = {
        probatio.Optional(CONF_PROMPT): InstructionsSelector(),
        probatio.Required(CONF_HOME_TOOLS): BooleanSelector(),
        probatio.Optional(CONF_LLM_HASS_API): SelectSelector(
            SelectSelectorConfig(options=apis, multiple=True)
        ),
        probatio.Required(CONF_MAX_ROUNDS): number_box(1, 10, 1),
        probatio.Required(CONF_MODEL_PHRASES_ANSWERS): BooleanSelector(),
    }
    model = {
        **_model_fields(min_tokens=64),
        probatio.Required(CONF_HISTORY_TOKENS): number_box(0, 32768, 100),
    }
    safety = {
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
        probatio.Required(CONF_CONFIRMATION_TIMEOUT): number_box(5, 300, 1),
    }
    return probatio.Schema(
        {
            probatio.Required(CONF_NAME): TextSelector(),
            probatio.Required(SECTION_AGENT): section(probatio.Schema(agent)),
            probatio.Required(SECTION_MODEL): section(probatio.Schema(model), {"collapsed": True}),
            probatio.Required(SECTION_SAFETY): section(
                probatio.Schema(safety), {"collapsed": True}
            ),
        }
    )


def expanded(schema: probatio.Schema) -> probatio.Schema:
    """Return the form with every section open: a form shown with an error keeps it in view."""
    return probatio.Schema(
        {
            key: section(value.schema, {**value.options, "collapsed": False})
            if isinstance(value, section)
            else value
            for key, value in schema.schema.items()
        }
    )


def ai_task_schema(hass: HomeAssistant) -> probatio.Schema:
    """Form of an AI task subentry: no tools, no instructions, no safety (it never acts)."""
    return probatio.Schema(
        {probatio.Required(CONF_NAME): TextSelector(), **_model_fields(min_tokens=16)}
    )


def section_fields(schema: probatio.Schema) -> dict[str, tuple[str, ...]]:
    """Name the fields of each section of a form."""
    return {
        str(key): tuple(str(field) for field in value.schema.schema)
        for key, value in schema.schema.items()
        if isinstance(value, section)
    }


def nest(schema: probatio.Schema, flat: Mapping[str, Any]) -> dict[str, Any]:
    """Group flat values as the form's sections hold them (its other fields stay on top)."""
    sections = section_fields(schema)
    inside = {field for fields in sections.values() for field in fields}
    nested: dict[str, Any] = {key: value for key, value in flat.items() if key not in inside}
    for name, fields in sections.items():
        nested[name] = {field: flat[field] for field in fields if field in flat}
    return nested


def flatten(schema: probatio.Schema, user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Take what a form gave back out of its sections: one flat dict, as subentries store."""
    sections = section_fields(schema)
    flat = {key: value for key, value in user_input.items() if key not in sections}
    for name in sections:
        flat.update(user_input.get(name) or {})
    return flat


SECRET_KEPT: Final = "__local_agent_secret_unchanged__"  # noqa: S105 (a marker, not a secret)
# What a confirmation PIN may be: digits only, said one by one to confirm.
PIN_FORMAT: Final = re.compile(r"[0-9]{4,12}")


def _as_is(hass: HomeAssistant, data: Mapping[str, Any]) -> dict[str, Any]:
    return dict(data)


def _no_problem(data: Mapping[str, Any]) -> str | None:
    return None


def agent_problem(data: Mapping[str, Any]) -> str | None:
    """Return the error key of agent settings that cannot be kept, None when they can."""
    try:
        cv.template(data.get(CONF_PROMPT) or "")
    except probatio.Invalid:
        return "prompt_invalid"
    tools = data.get(CONF_EXEMPT_TOOLS) or []
    if any(parse_tool_exemption(str(text)) is None for text in tools):
        return "exempt_tool_format"
    pin = data.get(CONF_CONFIRMATION_PIN) or ""
    if pin and not (isinstance(pin, str) and PIN_FORMAT.fullmatch(pin)):
        # A PIN of letters could never be said as digits: nothing could be confirmed.
        return "pin_format"
    return None


@dataclass(frozen=True, slots=True)
class SubentryForm:
    """One subentry form: its schema, the defaults behind it and its whole-number fields.

    `stored` turns what the form gives into what the subentry keeps and `shown` back (an
    agent's entities are kept by registry id); `problem` names what cannot be kept. A saved
    value of a `secrets` field never goes back to the browser: the form shows SECRET_KEPT in
    its place, and SECRET_KEPT given back keeps the saved value (an emptied field clears it).
    """

    schema: Callable[[HomeAssistant], probatio.Schema]
    defaults: Callable[[], dict[str, Any]]
    integers: tuple[str, ...]
    stored: Callable[[HomeAssistant, Mapping[str, Any]], dict[str, Any]] = _as_is
    shown: Callable[[HomeAssistant, Mapping[str, Any]], dict[str, Any]] = _as_is
    problem: Callable[[Mapping[str, Any]], str | None] = _no_problem
    secrets: tuple[str, ...] = ()
    # (problem, secret field): the secret each problem refuses, never shown again masked.
    secret_problems: tuple[tuple[str, str], ...] = ()

    def refused_secrets(self, problem: str) -> tuple[str, ...]:
        """Name the secret fields whose value `problem` refuses."""
        return tuple(key for name, key in self.secret_problems if name == problem)

    def masked(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Return the values with every secret that is set replaced by SECRET_KEPT."""
        return {
            key: SECRET_KEPT if key in self.secrets and value else value
            for key, value in values.items()
        }

    def unmasked(self, data: Mapping[str, Any], saved: Mapping[str, Any]) -> dict[str, Any]:
        """Return the data with SECRET_KEPT replaced by the saved secret (none saved: empty)."""
        return {
            key: saved.get(key, "") if key in self.secrets and value == SECRET_KEPT else value
            for key, value in data.items()
        }

    def suggested(self, schema: probatio.Schema, current: Mapping[str, Any]) -> dict[str, Any]:
        """Return the values to show: the current ones over the defaults, in sections."""
        return nest(schema, {**self.defaults(), **current})

    def data(self, schema: probatio.Schema, user_input: Mapping[str, Any]) -> dict[str, Any]:
        """Return the flat data to store (with the name): the input over the defaults."""
        data = {**self.defaults(), **flatten(schema, user_input)}
        for key in self.integers:
            # NaN or infinity is no whole number: kept as typed, for range_problem to refuse.
            if math.isfinite(data[key]):
                data[key] = int(data[key])
        return data


AGENT_FORM: Final = SubentryForm(
    schema=agent_schema,
    defaults=agent_data,
    integers=(
        CONF_THINKING_BUDGET,
        CONF_TOP_K,
        CONF_MAX_TOKENS,
        CONF_MAX_ROUNDS,
        CONF_HISTORY_TOKENS,
        CONF_CONFIRMATION_TIMEOUT,
    ),
    stored=options_to_store,
    shown=options_to_show,
    problem=agent_problem,
    secrets=(CONF_CONFIRMATION_PIN,),
    secret_problems=(("pin_format", CONF_CONFIRMATION_PIN),),
)
AI_TASK_FORM: Final = SubentryForm(
    schema=ai_task_schema,
    defaults=ai_task_data,
    integers=(CONF_THINKING_BUDGET, CONF_TOP_K, CONF_MAX_TOKENS),
)
