"""What a walk through the dialogs in a real browser found wrong, each pinned by a test."""

from __future__ import annotations

from pathlib import Path
import re
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.flows.subentry_forms import SECRET_KEPT
from custom_components.local_agent.runtime.issues import model_issue_id
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir

from .conftest import async_add_entry
from .conftest import async_setup_agent
from .conftest import subentry
from .flow_helpers import agent_form
from .flow_helpers import async_add_subentry
from .flow_helpers import suggested_values
from .flow_helpers import translation
from .scripted_model import ScriptedWorker
from .test_model_flow import reconfigure_to_a_copy


async def test_a_pin_refused_comes_back_as_the_field_was_not_as_dots_that_cannot_be_fixed(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    """A PIN of letters is refused; its field must not come back holding it, masked.

    In the browser the refused PIN came back as 32 dots (the marker of a kept secret): it
    can be neither read nor corrected there (a click and "4821" typed adds to the marker, and
    the same error comes again), and sent as shown it is refused once more. The field goes
    back to what it held before: empty for a new agent, the saved PIN (masked) for one that
    had it, and a valid PIN typed along another mistake stays kept.
    """
    entry = (await async_setup_agent(hass, scripted_worker.info.path)).entry
    flat = {**agent_data(), CONF_NAME: "Pinned"}
    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_CONVERSATION)
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, {**flat, "confirmation_pin": "12ab"})
    )
    assert result["errors"] == {"base": "pin_format"}
    shown = suggested_values(result["data_schema"])
    assert shown[CONF_NAME] == "Pinned"  # what was typed elsewhere stays
    assert shown["safety"]["confirmation_pin"] == ""
    # What a person does next: types the right PIN into the (now empty) field.
    shown["safety"]["confirmation_pin"] = shown["safety"]["confirmation_pin"] + "4821"
    done = await hass.config_entries.subentries.async_configure(result["flow_id"], shown)
    assert done["type"] is FlowResultType.CREATE_ENTRY
    pinned = next(sub for sub in entry.subentries.values() if sub.title == "Pinned")
    assert pinned.data["confirmation_pin"] == "4821"

    async def reconfigure_with(safety: dict[str, Any]) -> dict[str, Any]:
        shown = await entry.start_subentry_reconfigure_flow(hass, pinned.subentry_id)
        form = suggested_values(shown["data_schema"])
        form["safety"] = {**form["safety"], **safety}
        result = await hass.config_entries.subentries.async_configure(shown["flow_id"], form)
        assert result["errors"] == {"base": "pin_format"}
        return dict(result)

    # An agent with a saved PIN: the refused one gives way to the saved one, still masked,
    # and the form sent as shown keeps the saved PIN.
    again = await reconfigure_with({"confirmation_pin": "12"})
    form = suggested_values(again["data_schema"])
    assert form["safety"]["confirmation_pin"] == SECRET_KEPT
    done = await hass.config_entries.subentries.async_configure(again["flow_id"], form)
    assert done["reason"] == "reconfigure_successful"
    assert entry.subentries[pinned.subentry_id].data["confirmation_pin"] == "4821"


MARKDOWN_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


def flat_strings(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Every text of a translation file by its dotted key."""
    texts: dict[str, str] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            texts.update(flat_strings(value, f"{prefix}{key}."))
        else:
            texts[f"{prefix}{key}"] = str(value)
    return texts


@pytest.mark.parametrize("language", ["de", "es", "fr", "it", "nl", "pt"])
def test_a_link_in_a_dialog_is_named_in_the_dialogs_language(language: str) -> None:
    """The server step's link to the README read "Running the model on a server" in German.

    A link's words are text like any other: in another language they must not stay English
    (its address may: the README is English).
    """
    english = flat_strings(translation("en"))
    other = flat_strings(translation(language))
    untranslated = [
        (key, words)
        for key, text in english.items()
        for words, _address in MARKDOWN_LINK.findall(text)
        if (words, _address) in MARKDOWN_LINK.findall(other.get(key, ""))
    ]
    assert any(MARKDOWN_LINK.search(text) for text in english.values())  # a link to check
    assert not untranslated


@pytest.mark.parametrize(
    ("content", "issue_key", "problem"),
    [
        (None, "model_missing", "model_not_found"),
        (b"# not a model\n", "model_unusable", "model_not_gguf"),
        ("folder", "model_unusable", "model_not_a_file"),
    ],
)
async def test_the_repair_says_why_the_file_cannot_be_used_in_the_dialogs_language(
    hass: HomeAssistant,
    repairs: Any,
    tmp_path: Path,
    content: bytes | str | None,
    issue_key: str,
    problem: str,
) -> None:
    """In a German browser the repair read "…: /path/model.gguf: no file exists at this path."

    Why the file cannot be used was written into the issue in English; a placeholder is
    shown as it is, in every language. The dialog names the path and says why in its own
    translated words (the error the same check gives in the setup dialog).
    """
    model = tmp_path / "model.gguf"
    if content == "folder":
        await hass.async_add_executor_job(model.mkdir)
    elif isinstance(content, bytes):
        await hass.async_add_executor_job(model.write_bytes, content)
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="My model",
        data={CONF_MODEL_PATH: str(model)},
        unique_id=str(model),
        subentries_data=[subentry(SUBENTRY_CONVERSATION, "Local Agent", agent_data())],
    )
    await async_add_entry(hass, entry)
    issue = ir.async_get(hass).async_get_issue(DOMAIN, model_issue_id(entry.entry_id))
    assert issue is not None
    assert issue.translation_key == issue_key

    result = await repairs.async_init(DOMAIN, context={"issue_id": issue.issue_id})
    assert result["step_id"] == "local_file"
    assert result["description_placeholders"]["error"] == str(model)
    assert result["errors"] == {"base": problem}


def our_text(section: str, kind: str, reason: str) -> str:
    """The English text of an abort reason in our own translations ('' when none)."""
    strings = translation("en")
    tree = strings[section] if section == "config" else strings["config_subentries"][section]
    return str(tree.get(kind, {}).get(reason, ""))


async def test_a_reconfigured_agent_or_ai_task_says_so_in_our_words(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    """A French dialog ended with "Reconfiguration was successful", in English.

    Home Assistant's default reason is translated by core ("homeassistant" domain), whose
    text the frontend had in English only; ours exists in the seven languages
    ("L'agent a été mis à jour."). The flow must name the reason, so ours is shown.
    """
    entry = (await async_setup_agent(hass, scripted_worker.info.path)).entry
    for sub in list(entry.subentries.values()):
        shown = await entry.start_subentry_reconfigure_flow(hass, sub.subentry_id)
        form = suggested_values(shown["data_schema"])
        result = await hass.config_entries.subentries.async_configure(shown["flow_id"], form)
        await hass.async_block_till_done()
        assert result["reason"] == "reconfigure_successful"
        assert result.get("translation_domain") in (None, DOMAIN)
        assert our_text(sub.subentry_type, "abort", "reconfigure_successful")


async def test_a_changed_model_says_so_in_our_words(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The model entry's reconfigure ends with our text too, not core's English one."""
    _agent, _other, result = await reconfigure_to_a_copy(
        hass, qwen35_model_path, tmp_path, monkeypatch
    )
    assert result["reason"] == "reconfigure_successful"
    assert result.get("translation_domain") in (None, DOMAIN)
    assert our_text("config", "abort", "reconfigure_successful")


DECIMAL_WITH_POINT = re.compile(r"(?<![\w.\-/])\d+\.\d+(?![\w.\-/])")
THOUSANDS = re.compile(r"\d{1,3}\.\d{3}")


@pytest.mark.parametrize("language", ["de", "es", "fr", "it", "nl", "pt"])
def test_numbers_in_the_dialogs_have_the_languages_decimal_mark(language: str) -> None:
    """The French agent form read "0.3 est recommandé", "(0.95 = les 95 % …)", "1.5".

    All six languages write a decimal comma (German and Dutch did); a number with a point
    is English (a version such as glibc 2.28 or 8.192 tokens grouped in thousands is not).
    """
    texts = flat_strings(translation(language))
    english_numbers = [
        (key, number)
        for key, text in texts.items()
        if not key.endswith(".no_wheel")  # glibc 2.28: a version
        for number in DECIMAL_WITH_POINT.findall(text)
        if not THOUSANDS.fullmatch(number)
    ]
    assert not english_numbers
