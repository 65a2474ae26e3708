"""Subentry flows of a model entry: conversation agents and AI tasks, added or reconfigured.

Both show one form (subentry_forms.py) and save what it gives the same way: the stored data is
flat, whatever sections the form groups its fields in.
"""

from __future__ import annotations

from typing import Any
from typing import ClassVar

from custom_components.local_agent.const import DEFAULT_AGENT_NAME
from custom_components.local_agent.const import DEFAULT_AI_TASK_NAME
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigSubentryFlow
from homeassistant.config_entries import SubentryFlowResult
from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant

from .selectors import OUT_OF_RANGE
from .selectors import range_problem
from .subentry_forms import AGENT_FORM
from .subentry_forms import AI_TASK_FORM
from .subentry_forms import SubentryForm
from .subentry_forms import expanded


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


class SubentryFormFlow(ConfigSubentryFlow):
    """Add or reconfigure a subentry with one form (`form` says which)."""

    form: ClassVar[SubentryForm]

    def __init__(self) -> None:
        """Start with nothing typed."""
        super().__init__()
        # What was given with a form that is shown again: its secrets go back masked.
        self._typed: dict[str, Any] = {}

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Add one (its suggested name says which model and is not taken yet)."""
        name = default_agent_name(self.hass, self._get_entry().title, self._subentry_type)
        return await self._async_form(user_input, {CONF_NAME: name})

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change its settings."""
        subentry = self._get_reconfigure_subentry()
        return await self._async_form(user_input, {CONF_NAME: subentry.title, **subentry.data})

    async def _async_form(
        self, user_input: dict[str, Any] | None, current: dict[str, Any]
    ) -> SubentryFlowResult:
        if self._get_entry().state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")
        schema = self.form.schema(self.hass)
        saved = self._get_reconfigure_subentry().data if self.source != "user" else {}
        errors: dict[str, str] = {}
        placeholders: dict[str, str] = {}
        if user_input is not None:
            given = self.form.data(schema, user_input)
            before = {**saved, **self._typed}  # what each field held before this submit
            data = self.form.unmasked(given, before)
            field, problem = "base", self.form.problem(data)
            if out_of_range := range_problem(schema, user_input):
                (field, placeholders), problem = out_of_range, OUT_OF_RANGE
            if problem is None:
                data = self.form.stored(self.hass, data)
                title = data.pop(CONF_NAME)
                if self.source == "user":
                    return self.async_create_entry(title=title, data=data)
                return self.async_update_and_abort(
                    self._get_entry(),
                    self._get_reconfigure_subentry(),
                    title=title,
                    data=data,
                    # Named, so our own text says it (the default is core's, English only).
                    reason="reconfigure_successful",
                )
            errors[field] = problem
            for key in self.form.refused_secrets(problem):
                # A refused secret would come back masked: neither readable nor correctable
                # (typing adds to the mask) and refused again as sent. The field gets back
                # what it held: empty, or the saved or earlier typed secret, masked.
                data[key] = before.get(key, "")
            current = self._typed = data  # shown again as given: nothing typed is lost
            schema = expanded(schema)  # a collapsed section would hide the field at fault
        else:
            current = self.form.shown(self.hass, current)
        return self.async_show_form(
            step_id="user" if self.source == "user" else "reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                schema, self.form.suggested(schema, self.form.masked(current))
            ),
            errors=errors or None,
            description_placeholders=placeholders,
        )


class ConversationAgentFlow(SubentryFormFlow):
    """Add or reconfigure a conversation agent."""

    form = AGENT_FORM


class AITaskFlow(SubentryFormFlow):
    """Add or reconfigure an AI task (ai_task.generate_data on this model)."""

    form = AI_TASK_FORM
