"""Error paths: a bad model file, stored settings, a download, a server or an unload mid-answer.

Each case checks what the user is told (a translated entry reason, repair issue, form error or
the agent's words), the entry's state, that no traceback is logged but Home Assistant's own
log of a ConfigEntryError, that nothing is lost, and that the next action works.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from collections.abc import Buffer
from dataclasses import replace
import errno
import io
import os
from pathlib import Path
import shutil
import threading
import time
from typing import IO
from typing import Any
from typing import ClassVar
from unittest.mock import patch

import gguf
import numpy as np
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_CONNECT_TIMEOUT
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_READ_TIMEOUT
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DEFAULT_CONTEXT_SIZE
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.errors import EngineOutOfMemoryError
from custom_components.local_agent.engine.generation import AnswerProgress
from custom_components.local_agent.engine.server.settings import DEFAULT_CONNECT_TIMEOUT
from custom_components.local_agent.engine.server.settings import DEFAULT_MAX_CONCURRENT
from custom_components.local_agent.engine.server.settings import DEFAULT_READ_TIMEOUT
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.models import safe_load
from custom_components.local_agent.models.catalog import DEFAULT_MODEL
from custom_components.local_agent.runtime import server as server_entry
from custom_components.local_agent.runtime.data import engine_settings
from custom_components.local_agent.runtime.issues import model_issue_id
from custom_components.local_agent.runtime.server import server_settings
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import ConfigEntryError
from homeassistant.exceptions import ConfigEntryNotReady
from homeassistant.helpers import issue_registry as ir
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai
from testing.fake_openai import text_chunk
from testing.hub_server import FakeHub
from testing.model_files import write_qwen35_test_model

from .conftest import Agent
from .conftest import async_add_entry
from .conftest import async_setup_agent
from .conftest import async_setup_model_entry
from .conftest import entry_state
from .conftest import speech
from .conftest import subentry
from .flow_helpers import async_reconfigure_to_file
from .scripted_model import ScriptedWorker
from .server.conftest import async_setup_server_agent
from .server.conftest import server_entry_data
from .test_model_flow import choose
from .test_model_flow import download
from .test_model_flow import downloaded


@pytest.fixture(autouse=True)
def fresh_process_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget which files this test process already proved loadable."""
    monkeypatch.setattr(safe_load, "_PROVEN", set())


def stray_tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Tracebacks logged, but Home Assistant's own log of a ConfigEntryError or NotReady."""
    return [
        f"{record.name}: {record.getMessage()}"
        for record in caplog.records
        if record.exc_info
        and record.exc_info[0] is not None
        and record.exc_info[0] not in (ConfigEntryError, ConfigEntryNotReady)
        and "turbojpeg" not in record.getMessage()  # the test machine's camera library
    ]


async def add_an_entry(hass: HomeAssistant, data: dict[str, Any], **more: Any) -> MockConfigEntry:
    """An entry of this version with this data (and `more` of MockConfigEntry's), added."""
    entry = MockConfigEntry(domain=DOMAIN, data=data, minor_version=3, **more)
    await async_add_entry(hass, entry)
    return entry


def model_issue(hass: HomeAssistant, entry: MockConfigEntry) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, model_issue_id(entry.entry_id))


# A model file that is not one ---------------------------------------------------------------


def unknown_architecture(path: Path) -> None:
    """A well-formed GGUF file of an architecture llama.cpp does not know."""
    writer = gguf.GGUFWriter(str(path), "fancyarch")
    writer.add_block_count(1)
    writer.add_tensor("token_embd.weight", np.zeros((4, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def broken_chat_template(path: Path) -> None:
    """The test model with a chat template that is not Jinja: llama.cpp loads it, we cannot."""
    write_qwen35_test_model(path, "{% if %}")


@pytest.mark.parametrize(
    ("make", "key"),
    [
        (lambda path: path.write_bytes(b""), "model_not_gguf"),
        (lambda path: path.mkdir(), "model_not_a_file"),
        (lambda path: path.write_bytes(b"<!DOCTYPE html><html>Not found</html>"), "model_not_gguf"),
        (unknown_architecture, "model_load_failed"),
        # The load check passed (it runs no template): no repair issue was raised, so the
        # entry failed with nothing that offered another file.
        (broken_chat_template, "model_load_failed"),
    ],
    ids=["zero bytes", "a folder", "an HTML page", "unknown architecture", "broken template"],
)
async def test_a_file_that_is_no_model_is_a_fixable_issue(
    hass: HomeAssistant,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    make: Any,
    key: str,
) -> None:
    path = tmp_path / "model.gguf"
    make(path)

    entry = await async_setup_model_entry(hass, path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.error_reason_translation_key == key
    problem = model_issue(hass, entry)
    assert problem is not None
    assert problem.translation_key == "model_unusable"
    assert problem.is_fixable
    assert stray_tracebacks(caplog) == []


async def test_a_file_home_assistant_may_not_read_is_said_so(
    hass: HomeAssistant, qwen35_model_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Tests run as root, which reads any file: the read is refused as for another user."""
    with patch(
        "custom_components.local_agent.models.file_checks.has_gguf_magic",
        side_effect=PermissionError(errno.EACCES, "Permission denied"),
    ):
        entry = await async_setup_model_entry(hass, qwen35_model_path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.error_reason_translation_key == "model_unreadable"
    assert model_issue(hass, entry) is not None
    assert stray_tracebacks(caplog) == []


@pytest.mark.parametrize(
    ("change", "issue_key", "entry_after"),
    [
        # A missing file may come back (a disk mounted late): retried.
        ("delete", "model_missing", ConfigEntryState.SETUP_RETRY),
        ("replace", "model_unusable", ConfigEntryState.SETUP_ERROR),
    ],
)
async def test_a_file_gone_between_turns_answers_until_the_reload_then_asks_for_a_new_one(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    change: str,
    issue_key: str,
    entry_after: ConfigEntryState,
) -> None:
    path = tmp_path / "copy.gguf"
    await hass.async_add_executor_job(shutil.copyfile, qwen35_model_path, path)
    agent = await async_setup_agent(hass, path, **{CONF_MAX_TOKENS: 16})
    await agent.ask("hello")

    if change == "delete":
        path.unlink()
    else:
        garbage = tmp_path / "download.html"
        garbage.write_bytes(b"<html>" * 100)
        garbage.replace(path)
    # The loaded model keeps its (mapped) file: this turn is answered as before.
    assert speech(await agent.ask("hello")) != ""

    await hass.config_entries.async_reload(agent.entry.entry_id)
    await hass.async_block_till_done()

    assert entry_state(agent.entry) is entry_after
    problem = model_issue(hass, agent.entry)
    assert problem is not None
    assert problem.translation_key == issue_key
    assert stray_tracebacks(caplog) == []


# Stored data and options --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "threads", "n_ctx"),
    [
        ({CONF_THREADS: None}, None, DEFAULT_CONTEXT_SIZE),
        ({CONF_THREADS: "two"}, None, DEFAULT_CONTEXT_SIZE),
        ({CONF_THREADS: -4}, None, DEFAULT_CONTEXT_SIZE),
        ({CONF_THREADS: True}, None, DEFAULT_CONTEXT_SIZE),
        ({CONF_THREADS: 3.0}, 3, DEFAULT_CONTEXT_SIZE),
        ({CONF_CONTEXT_SIZE: None}, None, DEFAULT_CONTEXT_SIZE),
        ({CONF_CONTEXT_SIZE: "4096"}, None, 4096),
        ({CONF_CONTEXT_SIZE: float("nan")}, None, DEFAULT_CONTEXT_SIZE),
    ],
    ids=str,
)
def test_an_unusable_stored_number_reads_as_its_default(
    options: dict[str, Any], threads: int | None, n_ctx: int
) -> None:
    settings = engine_settings(options)

    assert settings.n_threads == threads
    assert settings.n_ctx == n_ctx


async def test_an_entry_with_unusable_options_loads_and_says_which(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, caplog: pytest.LogCaptureFixture
) -> None:
    """Options edited by hand (or left by an old version) failed setup with a bare TypeError."""
    entry = await async_setup_model_entry(
        hass, scripted_worker.info.path, {CONF_THREADS: None, CONF_CONTEXT_SIZE: "lots"}
    )

    assert entry.state is ConfigEntryState.LOADED
    assert "The option threads is None, which is not usable: 0 is used" in caplog.text
    assert "The option context_size is 'lots'" in caplog.text
    assert entry.options == {CONF_THREADS: None, CONF_CONTEXT_SIZE: "lots"}  # nothing rewritten
    assert stray_tracebacks(caplog) == []


@pytest.mark.parametrize("data", [{}, {CONF_MODEL_PATH: ""}, {CONF_MODEL_PATH: None}], ids=str)
async def test_an_entry_that_names_no_file_is_repaired_by_choosing_one(
    hass: HomeAssistant,
    repairs: Any,
    qwen35_model_path: Path,
    caplog: pytest.LogCaptureFixture,
    data: dict[str, Any],
) -> None:
    """A bare KeyError before; an empty path read as the folder '.'."""
    entry = await add_an_entry(
        hass,
        {CONF_BACKEND: "llama_cpp", **data},
        subentries_data=[subentry(SUBENTRY_CONVERSATION, "Local Agent", agent_data())],
    )

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.error_reason_translation_key == "model_path_missing"
    problem = model_issue(hass, entry)
    assert problem is not None
    assert problem.translation_key == "model_missing"
    assert stray_tracebacks(caplog) == []

    result = await repairs.async_init(DOMAIN, context={"issue_id": problem.issue_id})
    assert result["step_id"] == "local_file"
    result = await repairs.async_configure(
        result["flow_id"], {CONF_MODEL_PATH: str(qwen35_model_path)}
    )
    await hass.async_block_till_done()

    assert result["type"] == "create_entry"
    assert entry_state(entry) is ConfigEntryState.LOADED
    assert model_issue(hass, entry) is None


async def test_reconfiguring_an_entry_that_names_no_file_asks_for_one(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    """The reconfigure flow's file form raised KeyError ('Unknown error' in the dialog)."""
    entry = await add_an_entry(hass, {CONF_BACKEND: "llama_cpp"})

    result = await async_reconfigure_to_file(hass, entry, qwen35_model_path)
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert entry_state(entry) is ConfigEntryState.LOADED


@pytest.mark.parametrize(
    ("data", "key", "error"),
    [
        # A downgrade: a later version's backend failed setup with a bare ValueError.
        (
            {CONF_BACKEND: "vllm_direct", CONF_MODEL_PATH: "/config/model.gguf"},
            "unknown_backend",
            "vllm_direct",
        ),
        # A server entry that cannot be used says to reconfigure it.
        ({CONF_BACKEND: "server", CONF_SERVER_MODEL: "m"}, "server_data_invalid", "no server_url"),
        (
            {CONF_SERVER_URL: "http://127.0.0.1:9/v1", CONF_SERVER_MODE: "websocket"},
            "server_data_invalid",
            "'websocket' is not a valid ServerMode",
        ),
    ],
    ids=["a backend this version does not know", "server: no address", "server: unknown mode"],
)
async def test_an_entry_whose_data_this_version_cannot_use_says_why(
    hass: HomeAssistant,
    caplog: pytest.LogCaptureFixture,
    data: dict[str, Any],
    key: str,
    error: str,
) -> None:
    """A bare KeyError or ValueError before, without a reason; the data is kept as it was."""
    entry = await add_an_entry(hass, data)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.error_reason_translation_key == key
    assert entry.reason is not None
    assert error in entry.reason
    assert entry.data == data
    assert stray_tracebacks(caplog) == []


# Unloading while the model answers ----------------------------------------------------------


class SlowAnswer:
    """A steering that writes a long answer slowly: a generation that is surely still running."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.calls = 0

    def next_text(self, progress: AnswerProgress) -> str | None:
        self.calls += 1
        self.started.set()
        time.sleep(0.01)
        return " ok"


async def start_a_long_answer(agent: Agent) -> tuple[asyncio.Task[Any], SlowAnswer]:
    """Start a turn whose answer takes 4 s (400 tokens, 10 ms each); return once it writes."""
    steering = SlowAnswer()
    agent.steer(steering)
    task = agent.hass.async_create_task(agent.ask("hello"))
    for _ in range(1000):
        if steering.started.is_set():
            return task, steering
        await asyncio.sleep(0.01)
    raise AssertionError("the generation never started")


@pytest.mark.parametrize("action", ["reload", "remove"])
async def test_unloading_during_an_answer_stops_it_and_the_turn_says_why(
    hass: HomeAssistant, qwen35_model_path: Path, caplog: pytest.LogCaptureFixture, action: str
) -> None:
    """The unload (the options dialog's reload too) waited for the whole answer: 400 tokens
    here, up to the turn's 240 s on a slow machine; the turn then said nothing of it."""
    agent = await async_setup_agent(hass, qwen35_model_path, **{CONF_MAX_TOKENS: 400})
    turn, steering = await start_a_long_answer(agent)

    if action == "reload":
        assert await hass.config_entries.async_reload(agent.entry.entry_id)
    else:
        await hass.config_entries.async_remove(agent.entry.entry_id)
    result = await turn

    assert steering.calls < 50  # stopped, not written to its 400 tokens first
    assert speech(result).startswith("I stopped: the model was unloaded")
    assert stray_tracebacks(caplog) == []
    # No warning: Home Assistant logs the unload itself.
    assert not [
        record
        for record in caplog.records
        if record.name.startswith("custom_components") and record.levelname == "WARNING"
    ]
    if action == "reload":
        assert agent.entry.state is ConfigEntryState.LOADED
        agent.steer(None)
        assert speech(await agent.ask("hello again")) != ""


async def test_a_turn_cancelled_mid_answer_leaves_the_model_ready(
    hass: HomeAssistant, qwen35_model_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path, **{CONF_MAX_TOKENS: 400})
    turn, steering = await start_a_long_answer(agent)

    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    written = steering.calls
    agent.steer(None)
    result = await agent.ask("hello again")

    assert written < 50
    assert steering.calls == written  # the cancelled answer went no further
    assert speech(result) != ""
    assert stray_tracebacks(caplog) == []
    assert not [
        record
        for record in caplog.records
        if record.name.startswith("custom_components") and record.levelname == "ERROR"
    ]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Sorry, there was not enough memory to answer that."),
        ("de", "Entschuldigung, für diese Antwort war nicht genug Arbeitsspeicher frei."),
    ],
)
async def test_memory_running_out_in_a_turn_is_said_in_the_conversations_language(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    caplog: pytest.LogCaptureFixture,
    language: str,
    said: str,
) -> None:
    """The engine's English detail ('Out of memory while evaluating 512 tokens (code 1): ...')
    was read out inside the translated sentence, in a German conversation too."""

    def out_of_memory(_request: Any) -> str:
        raise EngineOutOfMemoryError("evaluating 512 tokens (code 1)")

    scripted_worker.will_write(out_of_memory)
    result = await scripted_agent.ask("Turn on the kitchen light", language=language)

    assert speech(result).startswith(said)
    assert "code 1" not in speech(result)
    assert "Out of memory while evaluating 512 tokens" in caplog.text  # the log has the detail
    assert stray_tracebacks(caplog) == []
    assert speech(await scripted_agent.ask("Hello", language=language)) != speech(result)


# A download that fills the disk -------------------------------------------------------------


class FillingDisk(io.FileIO):
    """A file on a disk with `room` bytes left: writes past them fail as on a full disk."""

    room: ClassVar[int] = 0

    def write(self, data: Buffer, /) -> int:
        left = self.room - os.fstat(self.fileno()).st_size
        chunk = bytes(data)[: max(left, 0)]
        if not chunk:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(chunk)


@pytest.fixture
def filling_disk(monkeypatch: pytest.MonkeyPatch) -> type[FillingDisk]:
    """Partial downloads are written to a disk that fills up (shutil.disk_usage says enough)."""
    original = Path.open

    def open_part(path: Path, mode: str = "r", *args: Any, **kwargs: Any) -> IO[Any]:
        if path.name.endswith(".part") and mode == "ab":
            return io.BufferedWriter(FillingDisk(path, "ab"))
        return original(path, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", open_part)
    return FillingDisk


async def test_a_disk_that_fills_during_the_download_is_said_and_the_part_resumes(
    hass: HomeAssistant,
    fake_hub: FakeHub,
    qwen35_model_path: Path,
    tmp_path: Path,
    filling_disk: type[FillingDisk],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The disk filled while the last buffer was written out: a bare OSError replaced the
    DiskFullError, logged with a traceback as unexpected and shown as download_failed."""
    content = await hass.async_add_executor_job(qwen35_model_path.read_bytes)
    fake_hub.add(DEFAULT_MODEL.repo_id, DEFAULT_MODEL.filename, content)
    hass.config.config_dir = str(tmp_path)
    filling_disk.room = 300_000

    result = await choose(hass, "catalog", {"model": DEFAULT_MODEL.key})
    result, _ = await download(hass, result)

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "disk_full"}
    assert stray_tracebacks(caplog) == []
    part = next(downloaded(tmp_path).parent.glob("*.part"))
    kept = part.read_bytes()
    assert 0 < len(kept) <= 300_000
    assert kept == content[: len(kept)]  # a valid beginning of the file

    filling_disk.room = 10**9  # space was freed; the form is still open: choose again
    result = dict(
        await hass.config_entries.flow.async_configure(
            result["flow_id"], {"model": DEFAULT_MODEL.key}
        )
    )
    assert result["description_placeholders"]["resumed"] != "0\N{NO-BREAK SPACE}B"
    result, _ = await download(hass, result)

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert fake_hub.ranges() == [f"bytes={len(kept)}-"]
    assert downloaded(tmp_path).read_bytes() == content


# A model server that answers what no client can read ----------------------------------------


@pytest.fixture
async def fake_server(
    socket_enabled: None, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[FakeOpenAI]:
    settings = server_entry.server_settings

    def fast(*args: Any) -> Any:
        return replace(settings(*args), retry_delay=0.005, read_timeout=5)

    monkeypatch.setattr(server_entry, "server_settings", fast)
    async with serve_fake_openai() as server:
        yield server


@pytest.mark.parametrize(
    ("mode", "event"),
    [
        (ServerMode.CHAT, {"choices": [None]}),
        (ServerMode.CHAT, {"choices": ["Hello"]}),
        (ServerMode.CHAT, {"choices": [{"delta": "Hello"}]}),
        (
            ServerMode.CHAT,
            {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": "light"}]}}]},
        ),
        (ServerMode.CHAT, {"choices": [{"delta": {"tool_calls": ["light"]}}]}),
        (ServerMode.COMPLETIONS, {"choices": [{"text": 5, "finish_reason": "stop"}]}),
        (ServerMode.COMPLETIONS, {"choices": "Hello"}),
    ],
    ids=str,
)
async def test_a_stream_event_of_the_wrong_shape_is_the_servers_failure(
    hass: HomeAssistant,
    fake_server: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    mode: ServerMode,
    event: dict[str, Any],
) -> None:
    """Each raised AttributeError or TypeError out of the turn: Home Assistant's 'Unexpected
    error during intent recognition' and a traceback."""
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model", mode=mode)
    fake_server.will_stream([event], [text_chunk("Hello.", "stop")])

    result = await agent.ask("hello")

    assert speech(result).startswith(f"Sorry, the model server at {fake_server.url} failed")
    assert "bad stream event" in speech(result)
    assert stray_tracebacks(caplog) == []
    assert "failed" not in speech(await agent.ask("hello"))  # the next turn is a turn


@pytest.mark.parametrize(
    "options",
    [
        {CONF_MAX_CONCURRENT: None},
        {CONF_MAX_CONCURRENT: 0},
        {CONF_CONNECT_TIMEOUT: "x"},
        {CONF_READ_TIMEOUT: -1},
    ],
    ids=str,
)
async def test_a_server_entry_with_unusable_options_loads_with_the_defaults(
    hass: HomeAssistant,
    fake_server: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    options: dict[str, Any],
) -> None:
    entry = await add_an_entry(
        hass, server_entry_data(fake_server.url, "fake-model"), options=options
    )

    assert entry.state is ConfigEntryState.LOADED
    settings = server_settings(entry.data, entry.options)
    assert (settings.max_concurrent, settings.connect_timeout, settings.read_timeout) == (
        DEFAULT_MAX_CONCURRENT,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_READ_TIMEOUT,
    )
    assert stray_tracebacks(caplog) == []
