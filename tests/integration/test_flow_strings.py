"""Every dialog renders: each string a step shows gets every placeholder it names.

The frontend formats these strings with formatjs; a placeholder the step does not provide
shows "Translation [formatjs Error: MISSING_VALUE]" instead of the text. These tests walk every
step of the config, options and agent flows (menus, forms, errors, progress and aborts) in a
real Home Assistant and render what each result would show, failing on a missing value.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from collections.abc import Callable
import json
from pathlib import Path
import re
import socket
import ssl
from time import sleep
from typing import Any
from unittest.mock import patch

import httpx2
import probatio
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_CONNECT_TIMEOUT
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_READ_TIMEOUT
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.flows import progress
from custom_components.local_agent.models import runtime_package
from custom_components.local_agent.models import store as model_store
from custom_components.local_agent.models.catalog import DEFAULT_MODEL
from custom_components.local_agent.models.download import CONF_FILENAME
from custom_components.local_agent.models.download import CONF_REPO_ID
from custom_components.local_agent.turn.defaults import agent_data
from custom_components.local_agent.turn.defaults import ai_task_data
from homeassistant import config_entries
from homeassistant import data_entry_flow
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_API_KEY
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers.translation import async_get_translations
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai
from testing.hub_server import FakeHub

from .conftest import async_setup_model_entry
from .flow_helpers import agent_form
from .flow_helpers import async_add_subentry
from .flow_helpers import async_through_progress
from .flow_helpers import translation

STRINGS: dict[str, Any] = translation("en")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# Steps that only pass control on (no dialog of their own).
SILENT_STEPS = {"check_failed", "finish_model", "download_finished", "download_failed"}


def render(text: str, placeholders: dict[str, Any], where: str) -> str:
    """Format like formatjs does for plain {name} arguments; fail on a missing one."""
    missing = sorted(set(PLACEHOLDER.findall(text)) - set(placeholders))
    assert not missing, f"{where}: no value for {missing} in {text!r}"
    return PLACEHOLDER.sub(lambda match: str(placeholders[match.group(1)]), text)


class Renderer:
    """Renders flow results against one section of the strings and notes the steps seen."""

    def __init__(self, section: dict[str, Any], name: str) -> None:
        self.section = section
        self.name = name
        self.steps: set[str] = set()
        self.progress: set[str] = set()

    def __call__(self, result: Any) -> Any:
        kind = result["type"]
        placeholders = dict(result.get("description_placeholders") or {})
        texts: dict[str, str] = {}
        if kind in (FlowResultType.FORM, FlowResultType.MENU, FlowResultType.SHOW_PROGRESS):
            step_id = result["step_id"]
            self.steps.add(step_id)
            step = self.section["step"][step_id]
            for key in ("title", "description"):
                if key in step:
                    texts[f"step.{step_id}.{key}"] = step[key]
            if kind is FlowResultType.SHOW_PROGRESS and "title" in step:
                # Seen in Chromium: the frontend renders a progress step's title without
                # the step's placeholders ("Translation [formatjs Error: MISSING_VALUE]").
                render(step["title"], {}, f"{self.name}.step.{step_id}.title (progress)")
            for key, text in step.get("data_description", {}).items():
                texts[f"step.{step_id}.data_description.{key}"] = text
            for name, section in step.get("sections", {}).items():
                for key in ("name", "description"):
                    if key in section:
                        texts[f"step.{step_id}.sections.{name}.{key}"] = section[key]
                for key, text in section.get("data_description", {}).items():
                    texts[f"step.{step_id}.sections.{name}.data_description.{key}"] = text
            for key, text in step.get("menu_options", {}).items():
                texts[f"step.{step_id}.menu_options.{key}"] = text
            if kind is FlowResultType.MENU:
                assert set(result["menu_options"]) <= set(step["menu_options"])
        if kind is FlowResultType.FORM:
            missing = unlabelled_fields(result["data_schema"], self.section["step"][step_id])
            assert not missing, f"{self.name}.step.{step_id}: no label for {missing}"
            for error in (result.get("errors") or {}).values():
                texts[f"error.{error}"] = self.section["error"][error]
        if kind is FlowResultType.SHOW_PROGRESS:
            action = result["progress_action"]
            self.progress.add(action)
            texts[f"progress.{action}"] = self.section["progress"][action]
        if kind is FlowResultType.ABORT:
            texts[f"abort.{result['reason']}"] = self.section["abort"][result["reason"]]
        for where, text in texts.items():
            render(text, placeholders, f"{self.name}.{where}")
        return result

    def assert_every_step_seen(self) -> None:
        shown = set(self.section["step"]) - SILENT_STEPS
        assert shown <= self.steps, f"steps never rendered: {sorted(shown - self.steps)}"
        assert set(self.section.get("progress", {})) <= self.progress


def unlabelled_fields(schema: Any, step: dict[str, Any]) -> list[str]:
    """Fields of a form (those in its sections too) without a label in its step's strings.

    The frontend labels a field with step.data.<field>, a section with step.sections.<section>
    .name and a field in a section with step.sections.<section>.data.<field>; a missing one
    shows the bare key.
    """
    if schema is None:
        return []
    missing: list[str] = []
    sections = step.get("sections", {})
    for key, value in schema.schema.items():
        if isinstance(value, data_entry_flow.section):
            strings = sections.get(str(key), {})
            if "name" not in strings:
                missing.append(f"sections.{key}.name")
            missing += [
                f"sections.{key}.data.{field}"
                for field in value.schema.schema
                if str(field) not in strings.get("data", {})
            ]
        elif str(key) not in step.get("data", {}):
            missing.append(f"data.{key}")
    return missing


def test_unlabelled_fields_are_found_in_sections_too() -> None:
    schema = probatio.Schema(
        {
            probatio.Required("name"): str,
            probatio.Required("more"): data_entry_flow.section(
                probatio.Schema({probatio.Required("a"): int, probatio.Required("b"): int})
            ),
        }
    )
    step = {"data": {"name": "Name"}, "sections": {"more": {"name": "More", "data": {"a": "A"}}}}
    assert unlabelled_fields(schema, step) == ["sections.more.data.b"]
    assert unlabelled_fields(schema, {"data": {"name": "Name"}}) == [
        "sections.more.name",
        "sections.more.data.a",
        "sections.more.data.b",
    ]


def test_render_fails_on_a_missing_placeholder() -> None:
    with pytest.raises(AssertionError, match="models_dir"):
        render(STRINGS["config"]["step"]["user"]["description"], {}, "config.step.user")


TRANSLATION_FILES = sorted(
    (Path(__file__).resolve().parents[2] / "custom_components/local_agent/translations").glob(
        "*.json"
    )
)


@pytest.mark.parametrize("path", TRANSLATION_FILES, ids=lambda path: path.stem)
def test_strings_have_no_duplicate_keys(path: Path) -> None:
    """A key written twice in a translation keeps only its last text, silently (json.loads)."""
    duplicates: list[str] = []

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        duplicates.extend(sorted({key for key in keys if keys.count(key) > 1}))
        return dict(pairs)

    json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=no_duplicates)
    assert not duplicates


async def test_engine_options_say_how_large_the_context_is_now(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    # Seen in a browser walk: a second "description" in en.json replaced the one that says it.
    entry = await async_setup_model_entry(hass, qwen35_model_path, title="Tiny")
    result = await hass.config_entries.options.async_init(entry.entry_id)

    assert result["step_id"] == "init"
    n_ctx = entry.runtime_data.worker.info.n_ctx
    text = render(
        STRINGS["options"]["step"]["init"]["description"],
        dict(result["description_placeholders"] or {}),
        "options.step.init.description",
    )
    assert f"holds {n_ctx} tokens" in text


@pytest.fixture(autouse=True)
def every_progress_step_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Show each progress step however soon its task ends: its strings are rendered here."""
    monkeypatch.setattr(progress, "PROGRESS_GRACE", 0.0)


@pytest.fixture
async def openai_server(socket_enabled: None) -> AsyncIterator[FakeOpenAI]:
    async with serve_fake_openai() as fake:
        fake.models = ["model-a", "model-b"]
        yield fake


async def start(hass: HomeAssistant, show: Renderer, step: str) -> Any:
    result = show(
        await hass.config_entries.flow.async_init(
            DOMAIN, context={"source": config_entries.SOURCE_USER}
        )
    )
    assert result["type"] is FlowResultType.MENU
    return show(
        await hass.config_entries.flow.async_configure(result["flow_id"], {"next_step_id": step})
    )


async def configure(hass: HomeAssistant, show: Renderer, result: Any, form: dict[str, Any]) -> Any:
    return show(await hass.config_entries.flow.async_configure(result["flow_id"], form))


def _raising(error: BaseException) -> Callable[..., None]:
    def fail(*_args: object, **_kwargs: object) -> None:
        raise httpx2.ConnectError(str(error)) from error

    return fail


async def test_every_config_flow_step_renders(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    fake_hub: FakeHub,
    openai_server: FakeOpenAI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hass.config.config_dir = str(tmp_path)
    content = await hass.async_add_executor_job(qwen35_model_path.read_bytes)
    fake_hub.add(DEFAULT_MODEL.repo_id, DEFAULT_MODEL.filename, content)
    show = Renderer(STRINGS["config"], "config")

    async def finish(result: Any) -> Any:
        """Render each progress step on the way (download, check, load) and the end."""
        while result["type"] in (FlowResultType.SHOW_PROGRESS, FlowResultType.SHOW_PROGRESS_DONE):
            if result["type"] is FlowResultType.SHOW_PROGRESS:
                show(result)
            await hass.async_block_till_done(wait_background_tasks=True)
            result = await hass.config_entries.flow.async_configure(result["flow_id"])
        await hass.async_block_till_done()
        return show(result)

    # A model file on this machine: a bad path, then the file (check, load, entry).
    result = await start(hass, show, "local_file")
    result = await configure(hass, show, result, {CONF_MODEL_PATH: str(tmp_path / "none.gguf")})
    assert result["errors"]
    result = await finish(
        await configure(hass, show, result, {CONF_MODEL_PATH: str(qwen35_model_path)})
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    entry = result["result"]

    # The same file again: the form stays, to correct the path.
    result = await start(hass, show, "local_file")
    result = await configure(hass, show, result, {CONF_MODEL_PATH: str(qwen35_model_path)})
    assert result["errors"] == {"base": "already_configured"}

    # Hugging Face: a bad repository id, then a download of the recommended model.
    result = await start(hass, show, "hub")
    result = await configure(
        hass, show, result, {CONF_REPO_ID: "not a repo", CONF_FILENAME: "x.gguf"}
    )
    assert result["errors"] == {"base": "invalid_repo_id"}
    # No connection to the Hub: a menu says why and offers the other ways, the file first.
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    result = await start(hass, show, "catalog")
    result = await configure(hass, show, result, {"model": DEFAULT_MODEL.key})
    assert result["step_id"] == "hub_unreachable_refused"
    result = await configure(hass, show, result, {"next_step_id": "local_file"})
    assert result["step_id"] == "local_file"
    # Each other cause its own words ("[Errno -2] …" stood in every language before).
    for raised, step in (
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), "unknown_host"),
        (httpx2.ConnectTimeout("timed out"), "timed_out"),
        (ssl.SSLError("certificate verify failed"), "tls"),
    ):
        with monkeypatch.context() as patched:
            patched.setattr(model_store, "get_hf_file_metadata", _raising(raised))
            result = await start(hass, show, "catalog")
            result = await configure(hass, show, result, {"model": DEFAULT_MODEL.key})
        assert result["step_id"] == f"hub_unreachable_{step}"
    with monkeypatch.context() as patched:
        patched.setattr(model_store, "get_hf_file_metadata", _raising(ConnectionResetError()))
        result = await start(hass, show, "catalog")
        result = await configure(hass, show, result, {"model": DEFAULT_MODEL.key})
    assert result["step_id"] == "hub_unreachable"
    monkeypatch.setenv("HF_ENDPOINT", fake_hub.url)
    result = await start(hass, show, "catalog")
    result = await configure(hass, show, result, {"model": DEFAULT_MODEL.key})
    assert result["step_id"] == "confirm_download"
    result = await finish(await configure(hass, show, result, {}))
    assert result["type"] is FlowResultType.CREATE_ENTRY

    # A model on a server: unreachable, then two models to choose from.
    server_form = {CONF_SERVER_MODE: "completions", CONF_MAX_CONCURRENT: 1}
    result = await start(hass, show, "server")
    # (A server that answers slowly shows its progress step, server_check: rendered too.)
    result = await finish(
        await configure(hass, show, result, {CONF_SERVER_URL: "http://127.0.0.1:9", **server_form})
    )
    assert result["errors"] == {"base": "cannot_connect_refused"}
    result = await finish(
        await configure(hass, show, result, {CONF_SERVER_URL: openai_server.url, **server_form})
    )
    assert result["step_id"] == "server_model"
    result = await finish(await configure(hass, show, result, {CONF_SERVER_MODEL: "model-c"}))
    assert result["errors"] == {"base": "server_model_not_found"}

    # Reconfigure: its menu, and the file it already has.
    result = show(
        await hass.config_entries.flow.async_init(
            DOMAIN,
            context={"source": config_entries.SOURCE_RECONFIGURE, "entry_id": entry.entry_id},
        )
    )
    assert result["type"] is FlowResultType.MENU
    result = await configure(hass, show, result, {"next_step_id": "local_file"})
    result = await finish(
        await configure(hass, show, result, {CONF_MODEL_PATH: str(qwen35_model_path)})
    )
    assert result["reason"] == "reconfigure_successful"

    # A model server that refuses the entry's key: reauthentication, a wrong key, the right one.
    openai_server.api_key = "right"
    server = add_server_entry(hass, openai_server, **{CONF_API_KEY: "old"})
    result = show(await server.start_reauth_flow(hass))
    assert result["step_id"] == "reauth_confirm"
    result = await configure(hass, show, result, {CONF_API_KEY: "wrong"})
    assert result["errors"] == {"base": "invalid_auth"}
    result = await configure(hass, show, result, {CONF_API_KEY: "right"})
    await hass.async_block_till_done()
    assert result["reason"] == "reauth_successful"

    # Without the runtime: the first dialog offers it; here the installer fails, then the menu.
    monkeypatch.setenv(runtime_package.RELEASES_URL_ENV, "http://127.0.0.1:9")
    with (
        patch.object(runtime_package, "llama_cpp_version", return_value=None),
        patch.object(runtime_package, "supported_platforms", return_value=["musllinux_1_2_x86_64"]),
        # A moment before it fails, so that its progress step shows.
        patch.object(runtime_package, "install_package", side_effect=lambda *_, **__: sleep(0.5)),
    ):
        result = show(
            await hass.config_entries.flow.async_init(
                DOMAIN, context={"source": config_entries.SOURCE_USER}
            )
        )
        assert result["step_id"] == "runtime"
        result = await finish(
            await configure(hass, show, result, {"next_step_id": "install_runtime"})
        )
        assert result["step_id"] == "runtime_failed"
        result = await configure(hass, show, result, {})
    assert result["step_id"] == "user"

    show.assert_every_step_seen()


def add_server_entry(hass: HomeAssistant, server: FakeOpenAI, **data: Any) -> MockConfigEntry:
    """An entry for model-a on the fake server (completions), added but not set up."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Server",
        data={
            CONF_SERVER_URL: server.url,
            CONF_SERVER_MODEL: "model-a",
            CONF_SERVER_MODE: "completions",
            **data,
        },
    )
    entry.add_to_hass(hass)
    return entry


async def render_subentry_flows(
    hass: HomeAssistant,
    renderer: Renderer,
    entries: tuple[MockConfigEntry, MockConfigEntry],
    subentry_type: str,
    form: dict[str, Any],
    title: str,
) -> None:
    """Add a subentry titled title to the first (loaded) entry and reconfigure it, then try to
    add one to the second, which is not loaded and must refuse: every step rendered and seen."""
    loaded, unloaded = entries
    flows = hass.config_entries.subentries
    result = renderer(await async_add_subentry(hass, loaded.entry_id, subentry_type))
    result = await flows.async_configure(result["flow_id"], form)
    await hass.async_block_till_done()
    subentry_id = next(sid for sid, sub in loaded.subentries.items() if sub.title == title)
    result = renderer(await loaded.start_subentry_reconfigure_flow(hass, subentry_id))
    result = renderer(await flows.async_configure(result["flow_id"], form))
    assert result["reason"] == "reconfigure_successful"
    result = renderer(await async_add_subentry(hass, unloaded.entry_id, subentry_type))
    assert result["reason"] == "entry_not_loaded"
    renderer.assert_every_step_seen()


async def test_every_options_and_agent_step_renders(
    hass: HomeAssistant, qwen35_model_path: Path, openai_server: FakeOpenAI
) -> None:
    entry = await async_setup_model_entry(hass, qwen35_model_path, title="Tiny")
    assert entry.state is ConfigEntryState.LOADED
    server = add_server_entry(hass, openai_server)

    options = Renderer(STRINGS["options"], "options")
    forms: tuple[dict[str, Any], ...] = (
        {CONF_CONTEXT_SIZE: 2048, CONF_THREADS: 1, CONF_FLASH_ATTENTION: "auto"},
        {CONF_MAX_CONCURRENT: 1, CONF_CONNECT_TIMEOUT: 10, CONF_READ_TIMEOUT: 60},
    )
    for config_entry, form in zip((entry, server), forms, strict=True):
        result = options(await hass.config_entries.options.async_init(config_entry.entry_id))
        assert result["type"] is FlowResultType.FORM
        # Saving shows the reload, then says how it went.
        result = options(await hass.config_entries.options.async_configure(result["flow_id"], form))
        assert result["type"] is FlowResultType.SHOW_PROGRESS
        result = options(
            await async_through_progress(hass, result, manager=hass.config_entries.options)
        )
        assert result["type"] in (FlowResultType.CREATE_ENTRY, FlowResultType.ABORT)
    # A model that is not loaded has the same options; saving them loads it.
    assert await hass.config_entries.async_unload(entry.entry_id)
    result = options(await hass.config_entries.options.async_init(entry.entry_id))
    assert result["step_id"] == "init_not_loaded"
    result = options(await hass.config_entries.options.async_configure(result["flow_id"], forms[0]))
    result = options(
        await async_through_progress(hass, result, manager=hass.config_entries.options)
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.state is ConfigEntryState.LOADED
    options(
        {
            "type": FlowResultType.ABORT,
            "reason": "reload_failed",
            "description_placeholders": {"reason": "Not enough memory"},
        }
    )
    options.assert_every_step_seen()
    # Saving its options loaded the server entry; the agent flow below needs it unloaded.
    assert await hass.config_entries.async_unload(server.entry_id)

    agents = Renderer(STRINGS["config_subentries"][SUBENTRY_CONVERSATION], "agent")
    form = agent_form(hass, {**agent_data(), CONF_NAME: "Kitchen"})
    form["agent"].pop(CONF_LLM_HASS_API)
    await render_subentry_flows(
        hass, agents, (entry, server), SUBENTRY_CONVERSATION, form, "Kitchen"
    )


async def test_every_ai_task_step_renders(hass: HomeAssistant, qwen35_model_path: Path) -> None:
    entry = await async_setup_model_entry(hass, qwen35_model_path, title="Tiny")
    assert entry.state is ConfigEntryState.LOADED
    unloaded = MockConfigEntry(domain=DOMAIN, title="Unloaded", data={CONF_MODEL_PATH: "/x"})
    unloaded.add_to_hass(hass)

    tasks = Renderer(STRINGS["config_subentries"][SUBENTRY_AI_TASK], "ai task")
    form = {**ai_task_data(), CONF_NAME: "Classifier"}
    await render_subentry_flows(
        hass, tasks, (entry, unloaded), SUBENTRY_AI_TASK, form, "Classifier"
    )


USER_STEP_TITLES = {
    path.stem: json.loads(path.read_text(encoding="utf-8"))["config"]["step"]["user"]["title"]
    for path in TRANSLATION_FILES
}


@pytest.mark.parametrize(("language", "title"), USER_STEP_TITLES.items())
async def test_home_assistant_shows_the_dialogs_in_each_language(
    hass: HomeAssistant, language: str, title: str
) -> None:
    """The frontend's translations come through Home Assistant's own loader, file by file."""
    loaded = await async_get_translations(hass, language, "config", [DOMAIN])

    assert loaded[f"component.{DOMAIN}.config.step.user.title"] == title
