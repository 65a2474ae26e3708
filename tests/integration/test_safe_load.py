"""Safe loading: the child-process load check, the runtime check and their repair issues.

A crash is simulated with a stand-in probe script (safe_load.PROBE_SCRIPT patched to a file that
kills itself with SIGILL, as llama.cpp does on a CPU without AVX2), or with the real probe and a
runtime that crashes only on prompt batches (a sitecustomize on the child's import path wraps
llama_decode, as llama.cpp's AMX kernels crash on batches of Q4_K weights): no hook in product
code.
"""

from __future__ import annotations

import os
from pathlib import Path
import signal
import subprocess
from typing import Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import (
    CONF_CONTEXT_SIZE,
    CONF_FLASH_ATTENTION,
    CONF_MODEL_PATH,
    CONF_THREADS,
    DOMAIN,
)
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.models import runtime_package as llama_package, safe_load
from custom_components.local_agent.models.runtime_package import select_wheel
from custom_components.local_agent.models.safe_load import ProbeOutcome, classify
from custom_components.local_agent.runtime.data import engine_settings
from custom_components.local_agent.runtime.issues import (
    RUNTIME_ISSUE,
    crash_issue_id,
    model_issue_id,
)
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryError
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component

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


async def setup_entry(
    hass: HomeAssistant, model_path: Path, options: dict[str, Any] | None = None
) -> MockConfigEntry:
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Test model",
        data={CONF_MODEL_PATH: str(model_path)},
        options=options or {},
        unique_id=str(model_path),
    )
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


def issue(hass: HomeAssistant, issue_id: str) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, issue_id)


def assert_only_entry_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    """No stray exception: the only traceback is Home Assistant's log of ConfigEntryError."""
    failures = [record.exc_info[0] for record in caplog.records if record.exc_info]
    assert failures == [ConfigEntryError]


def write_crashing_probe(directory: Path) -> Path:
    script = directory / "crashing_probe.py"
    script.write_text(CRASHING_PROBE)
    return script


async def test_crash_in_the_child_becomes_a_repair_issue(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    script = await hass.async_add_executor_job(write_crashing_probe, tmp_path)
    monkeypatch.setattr(safe_load, "PROBE_SCRIPT", script)

    entry = await setup_entry(hass, qwen35_model_path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.reason is not None
    assert "SIGILL" in entry.reason
    crash = issue(hass, crash_issue_id(entry.entry_id))
    assert crash is not None
    assert crash.translation_key == "model_crashed"
    assert crash.translation_placeholders is not None
    assert crash.translation_placeholders["reason"] == "SIGILL"
    assert "Illegal instruction" in crash.translation_placeholders["detail"]
    assert_only_entry_errors_logged(caplog)


async def test_successful_check_is_remembered_across_restarts(
    hass: HomeAssistant, qwen35_model_path: Path, hass_storage: dict[str, Any]
) -> None:
    entry = await setup_entry(hass, qwen35_model_path)
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

    entry = await setup_entry(hass, damaged)

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
        entry = await setup_entry(hass, qwen35_model_path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.reason is not None
    assert "llama-cpp-python" in entry.reason
    missing = issue(hass, RUNTIME_ISSUE)
    assert missing is not None
    assert missing.is_fixable
    assert_only_entry_errors_logged(caplog)


async def test_runtime_repair_installs_the_matching_wheel_and_reloads(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    assert await async_setup_component(hass, "repairs", {})
    with patch.object(llama_package, "llama_cpp_version", return_value=None):
        entry = await setup_entry(hass, qwen35_model_path)
    assert entry.state is ConfigEntryState.SETUP_ERROR
    wheel = select_wheel(["musllinux_1_2_x86_64"], llama_package.AVX2_FLAGS)

    manager = hass.data["repairs"]["flow_manager"]
    with (
        patch("custom_components.local_agent.repairs.select_wheel", return_value=wheel),
        patch.object(llama_package, "install_package", return_value=True) as install,
    ):
        result = await manager.async_init(DOMAIN, context={"issue_id": RUNTIME_ISSUE})
        assert result["step_id"] == "confirm"
        assert result["description_placeholders"]["build"] == "avx2"
        result = await manager.async_configure(result["flow_id"], {})
        if result["type"] == "progress":  # the stand-in installer may finish at once
            await hass.async_block_till_done(wait_background_tasks=True)
            result = await manager.async_configure(result["flow_id"])
        await hass.async_block_till_done()

    assert result["type"] == "create_entry"
    (requirement,), kwargs = install.call_args
    assert requirement == (
        "llama-cpp-python @ https://github.com/local-agent/local-agent/releases/download/"
        "runtime-0.3.36-avx2/llama_cpp_python-0.3.36-py3-none-musllinux_1_2_x86_64.whl"
    )
    assert kwargs["upgrade"] is False
    assert kwargs["timeout"] == llama_package.INSTALL_TIMEOUT
    assert kwargs["constraints"].endswith("package_constraints.txt")
    assert issue(hass, RUNTIME_ISSUE) is None
    assert entry.state is ConfigEntryState.LOADED


@pytest.mark.parametrize(
    ("platforms", "flags", "expected"),
    [
        (["manylinux_2_36_x86_64", "manylinux_2_28_x86_64"], set(llama_package.AVX2_FLAGS), "avx2"),
        (["musllinux_1_2_x86_64"], {"sse4_2", "avx"}, "compat"),
        (["musllinux_1_2_x86_64"], {"sse2"}, None),
        (["manylinux_2_28_aarch64"], {"asimd"}, "generic"),
        (["win_amd64"], set(), None),
    ],
)
def test_wheel_choice(platforms: list[str], flags: set[str], expected: str | None) -> None:
    wheel = select_wheel(platforms, frozenset(flags))
    assert (wheel.build if wheel else None) == expected
    if wheel:
        assert wheel.platform in wheel.url


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


def write_crash_on_batches(directory: Path) -> Path:
    hook = directory / "crash_on_batches"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(CRASH_ON_BATCHES)
    return hook


async def test_runtime_that_crashes_only_on_batches_becomes_a_repair_issue(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A runtime that loads a model and evaluates one token but dies on a prompt batch.

    A check that evaluates a single token passes it, and the first real prompt would kill Home
    Assistant; the check must run a batch as large as the engine's.
    """
    hook = await hass.async_add_executor_job(write_crash_on_batches, tmp_path)
    # The child inherits this process's import path (safe_load._child_env).
    monkeypatch.syspath_prepend(str(hook))

    entry = await setup_entry(hass, qwen35_model_path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    crash = issue(hass, crash_issue_id(entry.entry_id))
    assert crash is not None
    assert crash.translation_placeholders is not None
    assert crash.translation_placeholders["reason"] == "SIGSEGV"
    detail = crash.translation_placeholders["detail"]
    assert "ggml_backend_amx_mul_mat: batch of 512 tokens" in detail
    assert_only_entry_errors_logged(caplog)
    # Home Assistant is unharmed and the model loads once the runtime is fixed.
    monkeypatch.undo()
    safe_load._PROVEN.clear()
    assert await hass.config_entries.async_reload(entry.entry_id)
    assert entry.state is ConfigEntryState.LOADED
    assert issue(hass, crash_issue_id(entry.entry_id)) is None


async def test_check_runs_the_entrys_settings(hass: HomeAssistant, qwen35_model_path: Path) -> None:
    """Context, batch, threads and flash attention of the entry reach the child; a change of
    settings is checked again."""
    options = {CONF_CONTEXT_SIZE: 1024, CONF_THREADS: 1, CONF_FLASH_ATTENTION: "off"}
    runs: list[safe_load.ProbeResult] = []
    commands: list[list[str]] = []
    real_run = safe_load.async_run_probe

    async def run_probe(model_path: Path, arguments: list[str]) -> safe_load.ProbeResult:
        commands.append(arguments)
        runs.append(await real_run(model_path, arguments))
        return runs[-1]

    with patch.object(safe_load, "async_run_probe", run_probe):
        entry = await setup_entry(hass, qwen35_model_path, options)
        assert entry.state is ConfigEntryState.LOADED
        flow = await hass.config_entries.options.async_init(entry.entry_id)
        await hass.config_entries.options.async_configure(
            flow["flow_id"], {**options, CONF_THREADS: 2}
        )
        await hass.async_block_till_done()
        assert entry.state is ConfigEntryState.LOADED

    assert commands == [
        ["--n-ctx=1024", "--n-batch=512", "--threads=1", "--flash-attention=off"],
        ["--n-ctx=1024", "--n-batch=512", "--threads=2", "--flash-attention=off"],
    ]
    report = runs[0].report
    assert (report["n_ctx"], report["batch_tokens"]) == (1024, EngineSettings().n_batch)
    assert report["generated_tokens"] > 0


def test_probe_arguments_default_to_one_thread_per_physical_core() -> None:
    settings = EngineSettings(n_ctx=2048, n_batch=256, flash_attention=True, use_mmap=False)
    assert safe_load.probe_arguments(settings, 3) == [
        "--n-ctx=2048",
        "--n-batch=256",
        "--threads=3",
        "--flash-attention=on",
        "--no-mmap",
    ]
