"""Repair issues the integration raises (their fix flows are in repairs.py)."""

from __future__ import annotations

from typing import Final

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import DOMAIN
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import issue_registry as ir

DOCS_URL: Final = "https://github.com/local-agent/local-agent#troubleshooting"
RUNTIME_ISSUE: Final = "runtime_missing"
MODEL_ISSUE_PREFIX: Final = "model_file_"
CRASH_ISSUE_PREFIX: Final = "model_crashed_"
DROPPED_EXEMPTIONS_PREFIX: Final = "exempt_tools_dropped_"
PREFER_LOCAL_ISSUE: Final = "prefer_local_intents"
GONE_AGENT_ISSUE: Final = "pipeline_agent_deleted"


def model_issue_id(entry_id: str) -> str:
    """Return the id of the issue about an entry's model file (missing, damaged)."""
    return f"{MODEL_ISSUE_PREFIX}{entry_id}"


def crash_issue_id(entry_id: str) -> str:
    """Return the id of the issue about a crash while loading an entry's model."""
    return f"{CRASH_ISSUE_PREFIX}{entry_id}"


def _async_raise(
    hass: HomeAssistant,
    issue_id: str,
    *,
    translation_key: str,
    placeholders: dict[str, str],
    fixable: bool,
    severity: ir.IssueSeverity = ir.IssueSeverity.ERROR,
    data: dict[str, str | int | float | None] | None = None,
) -> None:
    """Raise one of our issues (pointing to the troubleshooting docs)."""
    ir.async_create_issue(
        hass,
        DOMAIN,
        issue_id,
        is_fixable=fixable,
        severity=severity,
        translation_key=translation_key,
        translation_placeholders=placeholders,
        data=data,
        learn_more_url=DOCS_URL,
    )


@callback
def async_raise_runtime_missing(hass: HomeAssistant, reason: str) -> None:
    """Say that llama-cpp-python is missing; the fix flow installs a prebuilt wheel."""
    _async_raise(
        hass,
        RUNTIME_ISSUE,
        translation_key=RUNTIME_ISSUE,
        placeholders={"reason": reason},
        fixable=True,
    )


@callback
def async_raise_model_problem(
    hass: HomeAssistant,
    entry: ConfigEntry,
    translation_key: str,
    error: str,
    problem: str | None = None,
) -> None:
    """Say that an entry's model file is gone or unusable; the fix flow replaces it.

    `error` is shown as it is (llama.cpp's reason, or the path); `problem`, a file check's
    translation key (ModelFileProblem), says why in the dialog's own language.
    """
    _async_raise(
        hass,
        model_issue_id(entry.entry_id),
        translation_key=translation_key,
        placeholders={
            "title": entry.title,
            "path": str(entry.data.get(CONF_MODEL_PATH, "")),
            "error": error,
        },
        fixable=True,
        # The fix flow shows why the file cannot be used (llama.cpp's own reason, say).
        data={"entry_id": entry.entry_id, "error": error, "problem": problem},
    )


@callback
def async_raise_crash(hass: HomeAssistant, entry: ConfigEntry, reason: str, detail: str) -> None:
    """Say that loading the model killed the test process (SIGILL, SIGSEGV, ...)."""
    _async_raise(
        hass,
        crash_issue_id(entry.entry_id),
        translation_key="model_crashed",
        placeholders={"title": entry.title, "reason": reason, "detail": detail},
        fixable=False,
    )


@callback
def async_raise_dropped_exemptions(
    hass: HomeAssistant, subentry_id: str, agent: str, tools: list[str]
) -> None:
    """Say which exempt tools an update dropped: bare names that no one API could be told for."""
    _async_raise(
        hass,
        f"{DROPPED_EXEMPTIONS_PREFIX}{subentry_id}",
        translation_key="exempt_tools_dropped",
        placeholders={"agent": agent, "tools": ", ".join(tools)},
        fixable=False,
        severity=ir.IssueSeverity.WARNING,
    )


@callback
def async_raise_prefer_local(hass: HomeAssistant, placeholders: dict[str, str]) -> None:
    """Say that pipelines' built-in intents skip an agent's questions (safety/local_intents.py).

    The fix flow turns the option off in those pipelines, or keeps it on knowingly.
    """
    _async_raise(
        hass,
        PREFER_LOCAL_ISSUE,
        translation_key=PREFER_LOCAL_ISSUE,
        placeholders=placeholders,
        fixable=True,
        severity=ir.IssueSeverity.WARNING,
    )


@callback
def async_clear_prefer_local(hass: HomeAssistant) -> None:
    """Delete the prefer-local issue: no pipeline bypasses an agent's questions any more."""
    ir.async_delete_issue(hass, DOMAIN, PREFER_LOCAL_ISSUE)


@callback
def async_raise_gone_agent(hass: HomeAssistant, pipelines: list[str]) -> None:
    """Say which Assist pipelines use an agent of ours that was deleted (Assist only errs).

    Not fixable here: the person picks another agent for them (or deletes them).
    """
    _async_raise(
        hass,
        GONE_AGENT_ISSUE,
        translation_key=GONE_AGENT_ISSUE,
        placeholders={"pipelines": ", ".join(pipelines)},
        fixable=False,
    )


@callback
def async_clear_gone_agent(hass: HomeAssistant) -> None:
    """Delete the gone-agent issue: every pipeline has an agent again."""
    ir.async_delete_issue(hass, DOMAIN, GONE_AGENT_ISSUE)


@callback
def async_clear_entry_issues(hass: HomeAssistant, entry_id: str) -> None:
    """Delete the issues of an entry that loaded (or was removed)."""
    ir.async_delete_issue(hass, DOMAIN, model_issue_id(entry_id))
    ir.async_delete_issue(hass, DOMAIN, crash_issue_id(entry_id))


@callback
def async_clear_runtime_issue(hass: HomeAssistant) -> None:
    """Delete the runtime issue once llama_cpp is there."""
    ir.async_delete_issue(hass, DOMAIN, RUNTIME_ISSUE)
