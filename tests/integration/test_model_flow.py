"""Adding a model by download: choice, size shown, progress, resume, verification, errors.

The Hub is a local server (testing/hub_server.py) that serves the tiny qwen35 test model under
BotPsy's real repository and file name, so a finished download also loads for real.
"""

from __future__ import annotations

from collections import namedtuple
import hashlib
from pathlib import Path
import shutil
from typing import Any
from unittest.mock import patch

import pytest

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.flows import progress
from custom_components.local_agent.models.catalog import DEFAULT_MODEL
from custom_components.local_agent.models.catalog import KNOWN_MODELS
from custom_components.local_agent.models.download import CONF_FILENAME
from custom_components.local_agent.models.download import CONF_REPO_ID
from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.data_entry_flow import EVENT_DATA_ENTRY_FLOW_PROGRESS_UPDATE
from homeassistant.data_entry_flow import FlowResultType
from testing.hub_server import FakeHub

from .conftest import Agent
from .conftest import async_setup_agent
from .flow_helpers import async_reconfigure_to_file
from .flow_helpers import async_through_progress

REPO, FILE = DEFAULT_MODEL.repo_id, DEFAULT_MODEL.filename
DiskUsage = namedtuple("DiskUsage", "total used free")


@pytest.fixture
def content(qwen35_model_path: Path) -> bytes:
    """The bytes the fake Hub serves as BotPsy (the tiny qwen35 test model)."""
    return qwen35_model_path.read_bytes()


@pytest.fixture
def hub(fake_hub: FakeHub, content: bytes) -> FakeHub:
    fake_hub.add(REPO, FILE, content)
    return fake_hub


def read(path: Path) -> bytes:
    return path.read_bytes()


@pytest.fixture
def config_dir(hass: HomeAssistant, tmp_path: Path) -> Path:
    hass.config.config_dir = str(tmp_path)
    return tmp_path


def downloaded(config_dir: Path) -> Path:
    return config_dir / "local_agent" / "models" / REPO.replace("/", "--") / FILE


async def choose(hass: HomeAssistant, step: str, form: dict[str, Any]) -> dict[str, Any]:
    """Open the flow, pick a menu entry and submit its form."""
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.MENU
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": step}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == step
    return dict(await hass.config_entries.flow.async_configure(result["flow_id"], form))


async def download(
    hass: HomeAssistant, result: dict[str, Any]
) -> tuple[dict[str, Any], list[float]]:
    """Confirm the download, let it run, return the final result and the progress reported."""
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "confirm_download"
    progress: list[float] = []

    @callback
    def on_progress(event: Event) -> None:
        progress.append(event.data["progress"])

    unsubscribe = hass.bus.async_listen(EVENT_DATA_ENTRY_FLOW_PROGRESS_UPDATE, on_progress)
    result = dict(await hass.config_entries.flow.async_configure(result["flow_id"], {}))
    assert result["type"] is FlowResultType.SHOW_PROGRESS
    assert result["progress_action"] == "download"
    await hass.async_block_till_done(wait_background_tasks=True)
    final = dict(await hass.config_entries.flow.async_configure(result["flow_id"]))
    # A finished download goes on to the load check and the load (their own progress steps).
    final = await async_through_progress(hass, final)
    unsubscribe()
    return final, progress


async def test_recommended_model_is_shown_downloaded_verified_and_loaded(
    hass: HomeAssistant, hub: FakeHub, config_dir: Path, content: bytes
) -> None:
    result = await choose(hass, "catalog", {"model": DEFAULT_MODEL.key})

    placeholders = result["description_placeholders"]
    assert placeholders["size"] == f"{round(len(content) / 1000)}\N{NO-BREAK SPACE}kB"
    assert placeholders["ram"].endswith(("\N{NO-BREAK SPACE}MB", "\N{NO-BREAK SPACE}GB"))
    assert placeholders["filename"] == FILE
    with patch("custom_components.local_agent.models.download.PROGRESS_STEP", 0.05):
        result, progress = await download(hass, result)

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == DEFAULT_MODEL.title
    target = downloaded(config_dir)
    assert result["data"] == {
        CONF_BACKEND: "llama_cpp",
        CONF_MODEL_PATH: str(target),
        CONF_REPO_ID: REPO,
        CONF_FILENAME: FILE,
        "revision": "main",
    }
    assert await hass.async_add_executor_job(read, target) == content
    assert [p.name for p in target.parent.iterdir()] == [FILE]  # no .part left
    assert len(progress) >= 3
    assert progress == sorted(progress)
    assert progress[-1] == 1.0
    assert result["result"].state is ConfigEntryState.LOADED


async def test_interrupted_download_resumes_with_a_range_request(
    hass: HomeAssistant, hub: FakeHub, config_dir: Path
) -> None:
    hub.drop_after = 300_000
    result = await choose(hass, "catalog", {"model": DEFAULT_MODEL.key})

    result, _ = await download(hass, result)

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert hub.ranges() == ["bytes=300000-"]
    assert downloaded(config_dir).is_file()


async def test_part_left_by_a_restart_is_continued(
    hass: HomeAssistant, hub: FakeHub, config_dir: Path, content: bytes
) -> None:
    target = downloaded(config_dir)
    target.parent.mkdir(parents=True)
    sha256 = hashlib.sha256(content).hexdigest()
    (target.parent / f"{FILE}.{sha256[:12]}.part").write_bytes(content[:200_000])

    result = await choose(hass, "catalog", {"model": DEFAULT_MODEL.key})
    assert result["description_placeholders"]["resumed"] == "200\N{NO-BREAK SPACE}kB"
    result, _ = await download(hass, result)

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert hub.ranges() == ["bytes=200000-"]
    assert await hass.async_add_executor_job(read, target) == content


async def test_checksum_mismatch_is_rejected_and_the_form_shows_it(
    hass: HomeAssistant, hub: FakeHub, config_dir: Path, content: bytes
) -> None:
    hub.served_bytes[hashlib.sha256(content).hexdigest()] = content[:-1] + b"\x00"
    result = await choose(hass, "catalog", {"model": DEFAULT_MODEL.key})

    result, _ = await download(hass, result)

    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "catalog"
    assert result["errors"] == {"base": "checksum_mismatch"}
    assert list(downloaded(config_dir).parent.iterdir()) == []
    assert hass.config_entries.async_entries(DOMAIN) == []


async def test_disk_full_is_shown_before_downloading(
    hass: HomeAssistant, hub: FakeHub, config_dir: Path
) -> None:
    with patch("shutil.disk_usage", return_value=DiskUsage(10**9, 10**9 - 5000, 5000)):
        result = await choose(hass, "catalog", {"model": DEFAULT_MODEL.key})

    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "catalog"
    assert result["errors"] == {"base": "disk_full"}
    assert result["description_placeholders"]["free"] == "5000\N{NO-BREAK SPACE}B"
    assert hub.ranges() == []


@pytest.mark.parametrize(
    ("form", "error"),
    [
        ({CONF_REPO_ID: REPO, CONF_FILENAME: "nope.gguf"}, "file_not_found"),
        ({CONF_REPO_ID: "someone/missing", CONF_FILENAME: FILE}, "repo_not_found"),
        ({CONF_REPO_ID: REPO, CONF_FILENAME: FILE, "revision": "v2"}, "revision_not_found"),
        ({CONF_REPO_ID: REPO, CONF_FILENAME: "model.safetensors"}, "invalid_filename"),
    ],
)
async def test_hub_errors_keep_the_form(
    hass: HomeAssistant, hub: FakeHub, config_dir: Path, form: dict[str, str], error: str
) -> None:
    result = await choose(hass, "hub", form)

    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "hub"
    assert result["errors"] == {"base": error}


async def test_any_hub_file_is_downloaded(
    hass: HomeAssistant, hub: FakeHub, config_dir: Path
) -> None:
    result = await choose(hass, "hub", {CONF_REPO_ID: REPO, CONF_FILENAME: FILE})

    result, _ = await download(hass, result)

    assert result["type"] is FlowResultType.CREATE_ENTRY
    # Named by the file's GGUF header (the Hub serves the qwen35 test model here).
    assert result["title"] == "Local Agent tiny Qwen3.5 test model (random weights) F32"


def model_catalog_key_other() -> str:
    """A known model other than the default one."""
    return next(model.key for model in KNOWN_MODELS if model is not DEFAULT_MODEL)


async def test_unreachable_hub_is_shown(
    hass: HomeAssistant, fake_hub: FakeHub, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")

    other = {"model": model_catalog_key_other()}
    result = await choose(hass, "catalog", other)

    # Offline the download form alone is a dead end (the dialog has no way back): a menu says
    # why and offers to try again, a file on this machine or a server.
    assert result["type"] is FlowResultType.MENU
    assert result["step_id"] == "hub_unreachable_refused"
    assert result["menu_options"] == ["catalog", "local_file", "server"]
    assert result["description_placeholders"]["error"]
    assert result["description_placeholders"]["models_dir"]
    # Trying again shows the model chosen before, not the default.
    retry = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "catalog"}
    )
    assert retry["step_id"] == "catalog"
    schema = retry["data_schema"]
    assert schema is not None
    suggested = {str(key): (key.description or {}).get("suggested_value") for key in schema.schema}
    assert suggested == other
    result = await choose(hass, "hub", {CONF_REPO_ID: REPO, CONF_FILENAME: FILE})
    local = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "local_file"}
    )
    assert local["step_id"] == "local_file"


async def reconfigure_to_a_copy(
    hass: HomeAssistant,
    model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    steps: list[str] | None = None,
) -> tuple[Agent, Path, ConfigFlowResult]:
    """The model entry of `model_path` set up, then reconfigured to a copy of that file (its
    steps recorded in `steps`): the agent, the copy and the flow's result."""
    # Every task shows its step, however fast this machine runs it.
    monkeypatch.setattr(progress, "PROGRESS_GRACE", 0.0)
    agent = await async_setup_agent(hass, model_path)
    other = tmp_path / "other.gguf"
    await hass.async_add_executor_job(shutil.copyfile, model_path, other)
    result = await async_reconfigure_to_file(hass, agent.entry, other, steps)
    return agent, other, result


async def test_reconfigure_changes_the_model_file(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps: list[str] = []
    agent, other, result = await reconfigure_to_a_copy(
        hass, qwen35_model_path, tmp_path, monkeypatch, steps
    )

    assert steps == ["check_model"]  # the entry loads it when it reloads
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert agent.entry.data[CONF_MODEL_PATH] == str(other)
    assert agent.entry.unique_id == str(other)
    assert agent.entry.state is ConfigEntryState.LOADED
    assert agent.entry.runtime_data.model_path == other
