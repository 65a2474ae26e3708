"""A model file removed later raises a repair issue; its fix flow re-downloads or replaces it."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from pathlib import Path
import shutil
from typing import Any

from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.models.catalog import DEFAULT_MODEL
from custom_components.local_agent.models.download import CONF_FILENAME
from custom_components.local_agent.models.download import CONF_REPO_ID
from custom_components.local_agent.models.store import ModelSource
from custom_components.local_agent.models.store import local_path
from custom_components.local_agent.runtime.issues import model_issue_id
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.util import dt as dt_util
from testing.hub_server import FakeHub

from .conftest import async_add_entry
from .conftest import entry_state


async def add_entry(hass: HomeAssistant, data: dict[str, Any]) -> MockConfigEntry:
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="My model",
        data=data,
        unique_id=data[CONF_MODEL_PATH],
        subentries_data=[
            ConfigSubentryData(
                data=agent_data(),
                subentry_type=SUBENTRY_CONVERSATION,
                title="Local Agent",
                unique_id=None,
            )
        ],
    )
    await async_add_entry(hass, entry)
    return entry


def issue(hass: HomeAssistant, entry: MockConfigEntry) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, model_issue_id(entry.entry_id))


async def choose_a_file(
    hass: HomeAssistant,
    repairs: Any,
    result: Any,
    refused: tuple[Path, str],
    model_path: Path,
) -> None:
    """In the repair's file form: a path refused with its error (the form stays), then the
    model's path, which ends the repair."""
    path, error = refused
    result = await repairs.async_configure(result["flow_id"], {CONF_MODEL_PATH: str(path)})
    assert result["errors"] == {CONF_MODEL_PATH: error}
    result = await repairs.async_configure(result["flow_id"], {CONF_MODEL_PATH: str(model_path)})
    await hass.async_block_till_done()
    assert result["type"] == "create_entry"


async def test_removed_file_is_an_issue_fixed_by_choosing_another_file(
    hass: HomeAssistant, repairs: Any, qwen35_model_path: Path, tmp_path: Path
) -> None:
    model = tmp_path / "model.gguf"
    await hass.async_add_executor_job(shutil.copyfile, qwen35_model_path, model)
    entry = await add_entry(hass, {CONF_MODEL_PATH: str(model)})
    assert entry.state is ConfigEntryState.LOADED
    assert await hass.config_entries.async_unload(entry.entry_id)

    await hass.async_add_executor_job(model.unlink)  # the user deleted it
    await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert entry_state(entry) is ConfigEntryState.SETUP_RETRY
    problem = issue(hass, entry)
    assert problem is not None
    assert problem.translation_key == "model_missing"
    assert problem.is_fixable

    result = await repairs.async_init(DOMAIN, context={"issue_id": problem.issue_id})
    assert result["step_id"] == "local_file"  # not from the Hub: no re-download offered
    await choose_a_file(
        hass, repairs, result, (tmp_path / "nothing.gguf", "model_not_found"), qwen35_model_path
    )

    assert entry.state is ConfigEntryState.LOADED
    assert entry.data[CONF_MODEL_PATH] == str(qwen35_model_path)
    assert issue(hass, entry) is None


async def test_a_file_that_comes_back_loads_on_retry_and_its_issue_goes(
    hass: HomeAssistant, qwen35_model_path: Path, tmp_path: Path
) -> None:
    """At start-up the model's disk was not mounted yet; once it is, the entry loads by itself."""
    model = tmp_path / "disk" / "model.gguf"
    entry = await add_entry(hass, {CONF_MODEL_PATH: str(model)})
    assert entry_state(entry) is ConfigEntryState.SETUP_RETRY
    assert entry.error_reason_translation_key == "model_not_found"
    problem = issue(hass, entry)
    assert problem is not None
    assert problem.translation_key == "model_missing"

    await hass.async_add_executor_job(partial(model.parent.mkdir, parents=True))
    await hass.async_add_executor_job(shutil.copyfile, qwen35_model_path, model)
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(minutes=5))
    await hass.async_block_till_done(wait_background_tasks=True)

    assert entry_state(entry) is ConfigEntryState.LOADED
    assert issue(hass, entry) is None


async def test_hub_model_is_downloaded_again(
    hass: HomeAssistant,
    repairs: Any,
    fake_hub: FakeHub,
    qwen35_model_path: Path,
    tmp_path: Path,
) -> None:
    hass.config.config_dir = str(tmp_path)
    content = await hass.async_add_executor_job(qwen35_model_path.read_bytes)
    fake_hub.add(DEFAULT_MODEL.repo_id, DEFAULT_MODEL.filename, content)
    source = ModelSource(DEFAULT_MODEL.repo_id, DEFAULT_MODEL.filename)
    target = local_path(tmp_path / "local_agent" / "models", source)
    entry = await add_entry(
        hass,
        {
            CONF_MODEL_PATH: str(target),
            CONF_REPO_ID: source.repo_id,
            CONF_FILENAME: source.filename,
            "revision": "main",
        },
    )
    problem = issue(hass, entry)
    assert problem is not None

    result = await repairs.async_init(DOMAIN, context={"issue_id": problem.issue_id})
    assert result["type"] == "menu"
    assert result["menu_options"] == ["redownload", "local_file"]
    result = await repairs.async_configure(result["flow_id"], {"next_step_id": "redownload"})
    assert result["step_id"] == "redownload"
    assert (
        result["description_placeholders"]["size"]
        == f"{round(len(content) / 1000)}\N{NO-BREAK SPACE}kB"
    )
    result = await repairs.async_configure(result["flow_id"], {})
    assert result["type"] == "progress"
    await hass.async_block_till_done(wait_background_tasks=True)
    result = await repairs.async_configure(result["flow_id"])
    await hass.async_block_till_done()

    assert result["type"] == "create_entry"
    assert await hass.async_add_executor_job(target.read_bytes) == content
    assert entry.state is ConfigEntryState.LOADED
    assert issue(hass, entry) is None


async def test_a_truncated_file_shows_llama_cpps_reason_in_its_repair(
    hass: HomeAssistant,
    repairs: Any,
    truncated_model: Path,
    qwen35_model_path: Path,
    tmp_path: Path,
) -> None:
    other = MockConfigEntry(domain=DOMAIN, unique_id=str(tmp_path / "taken.gguf"), data={})
    other.add_to_hass(hass)
    entry = await add_entry(hass, {CONF_MODEL_PATH: str(truncated_model)})

    assert entry.state is ConfigEntryState.SETUP_ERROR
    problem = issue(hass, entry)
    assert problem is not None
    assert problem.translation_key == "model_unusable"
    result = await repairs.async_init(DOMAIN, context={"issue_id": problem.issue_id})

    # The dialog says why, in llama.cpp's words (not only the log).
    assert result["step_id"] == "local_file"
    assert result["description_placeholders"]["error"].endswith(
        "data is not within the file bounds, model is corrupted or incomplete"
    )
    # A file another entry uses: the form stays, to correct the path.
    taken = tmp_path / "taken.gguf"
    await hass.async_add_executor_job(shutil.copyfile, qwen35_model_path, taken)
    await choose_a_file(hass, repairs, result, (taken, "already_configured"), qwen35_model_path)
    assert entry_state(entry) is ConfigEntryState.LOADED
