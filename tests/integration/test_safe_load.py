"""Safe loading: the child-process load check, the runtime check and their repair issues.

A crash is simulated with a stand-in probe script (safe_load.PROBE_SCRIPT patched to a file that
kills itself with SIGILL, as llama.cpp does on a CPU without AVX2), or with the real probe and a
runtime that crashes only on prompt batches (a sitecustomize on the child's import path wraps
llama_decode, as llama.cpp's AMX kernels crash on batches of Q4_K weights): no hook in product
code.
"""

from __future__ import annotations

from collections.abc import Callable
import os
from pathlib import Path
import signal
import subprocess
from typing import Any
from unittest.mock import patch

import pytest

from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_KEY_CACHE
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.models import runtime_package as llama_package
from custom_components.local_agent.models import safe_load
from custom_components.local_agent.models.safe_load import ProbeOutcome
from custom_components.local_agent.models.safe_load import classify
from custom_components.local_agent.runtime.data import engine_settings
from custom_components.local_agent.runtime.issues import RUNTIME_ISSUE
from custom_components.local_agent.runtime.issues import crash_issue_id
from custom_components.local_agent.runtime.issues import model_issue_id
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryError
from homeassistant.helpers import issue_registry as ir

from .conftest import async_setup_model_entry
from .conftest import entry_state

CRASHING_PROBE = """\
import os, signal, sys
sys.stderr.write("ggml_vec_dot_q8_0: Illegal instruction\\n")
sys.stderr.flush()
os.kill(os.getpid(), signal.SIGILL)
"""

# Imported by the probe's interpreter at start-up (site.py): its llama_cpp evaluates single
# tokens but dies of SIGSEGV on any batch of 8 or more tokens, like the AMX kernels in issue 20824.
CRASH_ON_BATCHES = """\
import os, signal, sys
import llama_cpp

_decode = llama_cpp.llama_decode


def llama_decode(ctx, batch):
    if batch.n_tokens >= 8:
        sys.stderr.write(f"ggml_backend_amx_mul_mat: batch of {batch.n_tokens} tokens\\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    return _decode(ctx, batch)


llama_cpp.llama_decode = llama_decode
"""


@pytest.fixture(autouse=True)
def fresh_process_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget which files this test process already proved loadable."""
    monkeypatch.setattr(safe_load, "_PROVEN", set())


def issue(hass: HomeAssistant, issue_id: str) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, issue_id)


def assert_only_entry_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    """No stray exception: the only traceback is Home Assistant's log of ConfigEntryError."""
    failures = [record.exc_info[0] for record in caplog.records if record.exc_info]
    assert failures == [ConfigEntryError]


def crashing_probe(directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child runs a probe that dies of SIGILL, as on a CPU without the build's instructions."""
    script = directory / "crashing_probe.py"
    script.write_text(CRASHING_PROBE)
    monkeypatch.setattr(safe_load, "PROBE_SCRIPT", script)


def crash_on_batches(directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A runtime that loads a model and evaluates one token but dies on a prompt batch: a check
    that evaluates a single token passes it, and the first real prompt would kill Home
    Assistant; the check must run a batch as large as the engine's."""
    hook = directory / "crash_on_batches"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(CRASH_ON_BATCHES)
    # The child inherits this process's import path (safe_load._child_env).
    monkeypatch.syspath_prepend(str(hook))


@pytest.mark.parametrize(
    ("crash", "reason", "detail"),
    [
        (crashing_probe, "SIGILL", "Illegal instruction"),
        (crash_on_batches, "SIGSEGV", "ggml_backend_amx_mul_mat: batch of 512 tokens"),
    ],
    ids=["crash on load", "crash on batches only"],
)
async def test_crash_in_the_child_becomes_a_repair_issue(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    crash: Callable[[Path, pytest.MonkeyPatch], None],
    reason: str,
    detail: str,
) -> None:
    await hass.async_add_executor_job(crash, tmp_path, monkeypatch)

    entry = await async_setup_model_entry(hass, qwen35_model_path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.reason is not None
    assert reason in entry.reason
    crashed = issue(hass, crash_issue_id(entry.entry_id))
    assert crashed is not None
    assert crashed.translation_key == "model_crashed"
    assert crashed.translation_placeholders is not None
    assert crashed.translation_placeholders["reason"] == reason
    assert detail in crashed.translation_placeholders["detail"]
    assert_only_entry_errors_logged(caplog)
    # Home Assistant is unharmed and the model loads once the runtime is fixed.
    monkeypatch.undo()
    safe_load._PROVEN.clear()
    assert await hass.config_entries.async_reload(entry.entry_id)
    assert entry_state(entry) is ConfigEntryState.LOADED
    assert issue(hass, crash_issue_id(entry.entry_id)) is None


async def test_successful_check_is_remembered_across_restarts(
    hass: HomeAssistant, qwen35_model_path: Path, hass_storage: dict[str, Any]
) -> None:
    entry = await async_setup_model_entry(hass, qwen35_model_path)
    assert entry.state is ConfigEntryState.LOADED
    version = llama_package.llama_cpp_version() or ""
    key, _ = safe_load.check_inputs(qwen35_model_path, version, engine_settings(entry))
    assert list(hass_storage[safe_load.STORE_KEY]["data"]["passed"]) == [key]
    assert await hass.config_entries.async_unload(entry.entry_id)

    # A "restart": the process forgot, the storage did not; no child process runs.
    safe_load._PROVEN.clear()
    hass.data.pop(safe_load.LOAD_CHECKS)
    with patch.object(safe_load, "async_run_probe", side_effect=AssertionError("probed")):
        assert await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.LOADED


async def test_unloadable_model_is_a_fixable_issue(hass: HomeAssistant, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.gguf"
    await hass.async_add_executor_job(damaged.write_bytes, b"GGUF" + bytes(60))

    entry = await async_setup_model_entry(hass, damaged)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    problem = issue(hass, model_issue_id(entry.entry_id))
    assert problem is not None
    assert problem.is_fixable
    assert problem.translation_key == "model_unusable"


@pytest.mark.parametrize(
    ("returncode", "outcome", "reason"),
    [
        (0, ProbeOutcome.OK, ""),
        (-signal.SIGSEGV, ProbeOutcome.CRASHED, "SIGSEGV"),
        (-signal.SIGILL, ProbeOutcome.CRASHED, "SIGILL"),
        (-signal.SIGKILL, ProbeOutcome.OUT_OF_MEMORY, "SIGKILL"),
        (3, ProbeOutcome.RUNTIME_MISSING, "exit status 3"),
        (4, ProbeOutcome.LOAD_FAILED, "exit status 4"),
        (5, ProbeOutcome.OUT_OF_MEMORY, "exit status 5"),
        (1, ProbeOutcome.LOAD_FAILED, "exit status 1"),
    ],
)
def test_exit_status_is_classified(returncode: int, outcome: ProbeOutcome, reason: str) -> None:
    result = classify(returncode, b'{"parameters": 1}\n', b"line 1\nlast line\n")
    assert (result.outcome, result.reason) == (outcome, reason)
    if outcome is not ProbeOutcome.OK:
        assert result.detail.endswith("last line")


async def test_missing_runtime_is_a_repair_issue_without_traceback(
    hass: HomeAssistant, qwen35_model_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with patch.object(llama_package, "llama_cpp_version", return_value=None):
        entry = await async_setup_model_entry(hass, qwen35_model_path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.reason is not None
    assert "llama-cpp-python" in entry.reason
    missing = issue(hass, RUNTIME_ISSUE)
    assert missing is not None
    assert missing.is_fixable
    assert_only_entry_errors_logged(caplog)


def test_probe_runs_without_the_package_on_the_path(
    qwen35_model_path: Path, tmp_path: Path
) -> None:
    """The child needs only the standard library and llama_cpp: any cwd, no PYTHONPATH."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        safe_load.probe_command(qwen35_model_path, []),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
        timeout=120,
    )
    result = classify(done.returncode, done.stdout, done.stderr)
    assert result.outcome is ProbeOutcome.OK, result
    assert result.report["parameters"] > 0


async def test_check_runs_the_entrys_settings(hass: HomeAssistant, qwen35_model_path: Path) -> None:
    """Context, batch, threads, flash attention and key cache of the entry reach the child; a
    change of settings is checked again."""
    options = {
        CONF_CONTEXT_SIZE: 2048,  # the form takes no fixed context below 2048
        CONF_THREADS: 1,
        CONF_FLASH_ATTENTION: "off",
        CONF_KEY_CACHE: "q8_0",
    }
    keys = ["--key-cache=q8_0"]
    runs: list[safe_load.ProbeResult] = []
    commands: list[list[str]] = []
    real_run = safe_load.async_run_probe

    async def run_probe(model_path: Path, arguments: list[str]) -> safe_load.ProbeResult:
        commands.append(arguments)
        runs.append(await real_run(model_path, arguments))
        return runs[-1]

    with patch.object(safe_load, "async_run_probe", run_probe):
        entry = await async_setup_model_entry(hass, qwen35_model_path, options)
        assert entry.state is ConfigEntryState.LOADED
        flow = await hass.config_entries.options.async_init(entry.entry_id)
        await hass.config_entries.options.async_configure(
            flow["flow_id"],
            {**options, CONF_KEY_CACHE: "f16"},  # any machine has 1 core
        )
        await hass.async_block_till_done()
        assert entry.state is ConfigEntryState.LOADED

    assert commands == [
        ["--n-ctx=2048", "--n-batch=512", "--threads=1", "--flash-attention=off", *keys],
        [
            "--n-ctx=2048",
            "--n-batch=512",
            "--threads=1",
            "--flash-attention=off",
            "--key-cache=f16",
        ],
    ]
    report = runs[0].report
    assert (report["n_ctx"], report["batch_tokens"]) == (2048, EngineSettings().n_batch)
    # The tiny model's keys (16 values) fill no q8_0 block: the child and the engine keep 16-bit.
    assert report["key_cache"] == "f16"
    assert entry.runtime_data.worker.info.key_cache == "f16"
    assert report["generated_tokens"] > 0


def test_probe_arguments_default_to_one_thread_per_physical_core() -> None:
    settings = EngineSettings(n_ctx=2048, n_batch=256, flash_attention=True, use_mmap=False)
    assert safe_load.probe_arguments(settings, 3) == [
        "--n-ctx=2048",
        "--n-batch=256",
        "--threads=3",
        "--flash-attention=on",
        "--key-cache=auto",
        "--no-mmap",
    ]


@pytest.mark.parametrize("wanted", ["auto", "f16", "q8_0"])
def test_the_child_stores_keys_as_the_engine_will(gemma_model_path: Path, wanted: str) -> None:
    """Gemma's keys (256 values) fill q8_0 blocks: what the engine picks is what was checked."""
    done = subprocess.run(
        safe_load.probe_command(gemma_model_path, ["--n-ctx=512", f"--key-cache={wanted}"]),
        capture_output=True,
        check=False,
        timeout=120,
    )
    result = classify(done.returncode, done.stdout, done.stderr)
    assert result.outcome is ProbeOutcome.OK, result
    runtime = LoadedModel(gemma_model_path, EngineSettings(n_ctx=512, key_cache=wanted))
    try:
        assert result.report["key_cache"] == runtime.key_cache
    finally:
        runtime.close()
    if wanted != "auto":
        assert runtime.key_cache == wanted
