"""Prove in a child process that a model loads before Home Assistant loads it.

llama.cpp is native code: a build that uses an instruction this CPU lacks dies with SIGILL, a
damaged model can segfault, and either would take the whole Home Assistant process down. So
before the first load of a model file (per file, llama-cpp-python version, CPU and engine
settings), Home Assistant runs engine/local/probe.py with its own interpreter, by file path
(the child needs neither this package nor Home Assistant importable), with a timeout. The child
does what inference does with the entry's settings: one prompt batch as large as the engine's
batch, then a few generated tokens (a kernel that crashes only on batches is caught there, not
by the first real prompt). Successes are remembered in this
process and in Home Assistant's storage (``.storage/local_agent.load_checks``); failures become
repair issues and a config entry error instead of a crash.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from enum import StrEnum
import hashlib
import json
import os
from pathlib import Path
import platform
import signal
import sys
from typing import Any
from typing import Final

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import LOGGER
from custom_components.local_agent.engine.local import probe
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.runtime.issues import async_raise_crash
from custom_components.local_agent.runtime.issues import async_raise_model_problem
from custom_components.local_agent.runtime.issues import async_raise_runtime_missing
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.exceptions import ConfigEntryError
from homeassistant.exceptions import ConfigEntryNotReady
from homeassistant.helpers.storage import Store
from homeassistant.util.hass_dict import HassKey

from .runtime_package import cpu_flags

PROBE_SCRIPT: Final = Path(probe.__file__)
PROBE_TIMEOUT = 300.0
STORE_KEY: Final = f"{DOMAIN}.load_checks"
STORE_VERSION: Final = 1
MAX_REMEMBERED: Final = 32
TAIL_CHARS: Final = 1200


class ProbeOutcome(StrEnum):
    """How the child process ended."""

    OK = "ok"
    RUNTIME_MISSING = "runtime_missing"
    CRASHED = "crashed"
    LOAD_FAILED = "load_failed"
    OUT_OF_MEMORY = "out_of_memory"
    TIMED_OUT = "timed_out"


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """The outcome, its reason (signal name, exit status) and the end of the child's stderr."""

    outcome: ProbeOutcome
    reason: str = ""
    detail: str = ""
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> str:
        """Say what went wrong in the child's own words: its last line, else the reason.

        A file llama.cpp rejects gives llama.cpp's reason ("tensor 'x' data is not within the
        file bounds, model is corrupted or incomplete"), without the probe's own preamble.
        """
        last = self.detail.splitlines()[-1] if self.detail else ""
        return last.removeprefix(probe.LOAD_FAILED).strip() or self.reason


_EXIT_OUTCOMES: Final = {
    probe.EXIT_IMPORT: ProbeOutcome.RUNTIME_MISSING,
    probe.EXIT_LOAD: ProbeOutcome.LOAD_FAILED,
    probe.EXIT_CONTEXT: ProbeOutcome.OUT_OF_MEMORY,
    probe.EXIT_EVAL: ProbeOutcome.LOAD_FAILED,
}
# Keys of model files proven loadable in this process.
_PROVEN: set[str] = set()
LOAD_CHECKS: HassKey[LoadChecks] = HassKey(f"{DOMAIN}_load_checks")


def probe_arguments(settings: EngineSettings, threads: int) -> list[str]:
    """Return the engine settings as the probe's options (the caller resolves threads)."""
    flash = {None: "auto", True: "on", False: "off"}[settings.flash_attention]
    arguments = [
        f"--n-ctx={settings.initial_n_ctx}",
        f"--n-batch={settings.n_batch}",
        f"--threads={threads}",
        f"--flash-attention={flash}",
        f"--key-cache={settings.key_cache}",
    ]
    if not settings.use_mmap:
        arguments.append("--no-mmap")
    return arguments


def probe_command(model_path: Path, arguments: list[str]) -> list[str]:
    """Return the child's command line (-P: the script's folder must not shadow the stdlib)."""
    return [sys.executable, "-P", str(PROBE_SCRIPT), str(model_path), *arguments]


def _child_env() -> dict[str, str]:
    """Give the child the parent's import path (deps folders included)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(entry for entry in sys.path if entry)
    return env


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text[-TAIL_CHARS:]


def classify(returncode: int, stdout: bytes, stderr: bytes) -> ProbeResult:
    """Turn the child's exit status and output into a ProbeResult."""
    tail = _tail(stderr)
    if returncode == 0:
        lines = stdout.decode("utf-8", "replace").strip().splitlines()
        try:
            report = json.loads(lines[-1]) if lines else {}
        except ValueError:
            report = {}
        return ProbeResult(ProbeOutcome.OK, report=report if isinstance(report, dict) else {})
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        if -returncode == signal.SIGKILL:
            # Nobody else kills the child: the kernel's out-of-memory killer did.
            return ProbeResult(ProbeOutcome.OUT_OF_MEMORY, reason=name, detail=tail)
        return ProbeResult(ProbeOutcome.CRASHED, reason=name, detail=tail)
    outcome = _EXIT_OUTCOMES.get(returncode, ProbeOutcome.LOAD_FAILED)
    return ProbeResult(outcome, reason=f"exit status {returncode}", detail=tail)


async def async_run_probe(model_path: Path, arguments: list[str]) -> ProbeResult:
    """Run the model in a child process and report how that went."""
    process = await asyncio.create_subprocess_exec(
        *probe_command(model_path, arguments),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_child_env(),
        close_fds=True,
    )
    try:
        async with asyncio.timeout(PROBE_TIMEOUT):
            stdout, stderr = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        return ProbeResult(ProbeOutcome.TIMED_OUT, reason=f"{PROBE_TIMEOUT:.0f} s")
    assert process.returncode is not None
    return classify(process.returncode, stdout, stderr)


def check_key(path: Path, runtime_version: str, arguments: list[str]) -> str:
    """Identify a file, runtime, CPU and settings combination. Blocking (stat)."""
    resolved = path.resolve()
    stat = resolved.stat()
    flags = hashlib.sha256(" ".join(sorted(cpu_flags())).encode()).hexdigest()[:12]
    return "|".join(
        (
            str(resolved),
            str(stat.st_size),
            str(stat.st_mtime_ns),
            runtime_version,
            platform.machine(),
            flags,
            " ".join(arguments),
        )
    )


def check_inputs(
    path: Path, runtime_version: str, settings: EngineSettings
) -> tuple[str, list[str]]:
    """Return the combination's key and the probe's options. Blocking (stat, CPU count)."""
    arguments = probe_arguments(settings, settings.threads)
    return check_key(path, runtime_version, arguments), arguments


class LoadChecks:
    """Model files proven loadable, kept in Home Assistant's storage."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Use the integration's store."""
        self._store = Store[dict[str, Any]](hass, STORE_VERSION, STORE_KEY)
        self._passed: dict[str, str] | None = None

    async def _async_passed(self) -> dict[str, str]:
        if self._passed is None:
            data = await self._store.async_load() or {}
            self._passed = dict(data.get("passed", {}))
        return self._passed

    async def async_has_passed(self, key: str) -> bool:
        """Return whether this combination loaded before."""
        return key in await self._async_passed()

    async def async_remember(self, key: str) -> None:
        """Record a success (the oldest are forgotten past MAX_REMEMBERED)."""
        passed = await self._async_passed()
        passed[key] = datetime.now(UTC).isoformat()
        for old in sorted(passed, key=passed.__getitem__)[:-MAX_REMEMBERED]:
            del passed[old]
        await self._store.async_save({"passed": passed})


async def async_check_model(
    hass: HomeAssistant, path: Path, runtime_version: str, settings: EngineSettings
) -> ProbeResult:
    """Probe the model in a child process unless this combination is known to work."""
    key, arguments = await hass.async_add_executor_job(
        check_inputs, path, runtime_version, settings
    )
    if key in _PROVEN:
        return ProbeResult(ProbeOutcome.OK, reason="proven in this process")
    checks = hass.data.get(LOAD_CHECKS)
    if checks is None:
        checks = hass.data[LOAD_CHECKS] = LoadChecks(hass)
    if await checks.async_has_passed(key):
        _PROVEN.add(key)
        return ProbeResult(ProbeOutcome.OK, reason="remembered")
    LOGGER.info("Checking in a separate process that %s loads and runs", path.name)
    result = await async_run_probe(path, arguments)
    if result.outcome is ProbeOutcome.OK:
        _PROVEN.add(key)
        await checks.async_remember(key)
    else:
        LOGGER.warning(
            "Test load of %s failed (%s, %s): %s",
            path.name,
            result.outcome,
            result.reason,
            result.detail,
        )
    return result


@callback
def async_raise_unless_loadable(
    hass: HomeAssistant, entry: ConfigEntry, result: ProbeResult
) -> None:
    """Raise ConfigEntryError/NotReady (and a repair issue) unless the check says it runs."""
    error = result.error
    match result.outcome:
        case ProbeOutcome.OK:
            return
        case ProbeOutcome.RUNTIME_MISSING:
            async_raise_runtime_missing(hass, error)
            raise ConfigEntryError(
                translation_domain=DOMAIN,
                translation_key="runtime_missing",
                translation_placeholders={"reason": error},
            )
        case ProbeOutcome.CRASHED:
            async_raise_crash(hass, entry, result.reason, result.detail or "-")
            raise ConfigEntryError(
                translation_domain=DOMAIN,
                translation_key="model_crashed",
                translation_placeholders={"reason": result.reason},
            )
        case ProbeOutcome.LOAD_FAILED:
            async_raise_model_problem(hass, entry, "model_unusable", error)
            raise ConfigEntryError(
                translation_domain=DOMAIN,
                translation_key="model_load_failed",
                translation_placeholders={"error": error},
            )
        case ProbeOutcome.OUT_OF_MEMORY:
            raise ConfigEntryNotReady(
                translation_domain=DOMAIN,
                translation_key="model_out_of_memory",
                translation_placeholders={"error": error or result.reason},
            )
        case ProbeOutcome.TIMED_OUT:
            raise ConfigEntryNotReady(
                translation_domain=DOMAIN,
                translation_key="probe_timeout",
                translation_placeholders={"timeout": result.reason},
            )
