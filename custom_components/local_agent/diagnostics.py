"""Diagnostics of a model entry: settings, model, engine, last turns, recent audit records.

Redacted: agent instructions and confirmation PINs, user and context ids; paths keep their file
name but not the user's home or config folder. Audit records: the entry's agents' last ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import asdict
from dataclasses import is_dataclass
from pathlib import Path
from typing import Any
from typing import Final

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_API_KEY
from homeassistant.const import CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .const import CONF_CONFIRMATION_PIN
from .const import CONF_CONTEXT_SIZE
from .const import CONF_MAX_CONCURRENT
from .const import CONF_MODEL_PATH
from .const import CONF_THREADS
from .flows.subentry_forms import AGENT_FORM
from .flows.subentry_forms import AI_TASK_FORM
from .models.cpu_variant import loaded_cpu_variant
from .models.runtime_package import cpu_flags
from .models.runtime_package import llama_cpp_version
from .models.runtime_package import machine_description
from .runtime.memory import process_rss
from .runtime.stats import async_agent_stats
from .runtime.stats import async_last_turns
from .runtime.stats import model_metadata
from .safety.audit import async_get_audit_log

TO_REDACT: Final = {
    CONF_API_KEY,
    CONF_PROMPT,
    CONF_CONFIRMATION_PIN,
    "pin",
    "user_id",
    "context_id",
    "parent_id",
    "text",
    "speech",
    "user_text",
}
AUDIT_RECORDS: Final = 50
# Settings that are whole numbers (a number field saves floats: older entries hold 1.0).
WHOLE_NUMBERS: Final = frozenset(
    {CONF_CONTEXT_SIZE, CONF_THREADS, CONF_MAX_CONCURRENT, *AGENT_FORM.integers}
    | set(AI_TASK_FORM.integers)
)


def whole_numbers(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Return the settings with their whole-number ones as integers ("threads": 1, not 1.0)."""
    return {
        key: int(value)
        if key in WHOLE_NUMBERS and isinstance(value, float) and value.is_integer()
        else value
        for key, value in settings.items()
    }


def short_path(path: str, config_dir: str) -> str:
    """Replace the config folder with <config> and the home folder with ~."""
    for prefix, label in ((config_dir, "<config>"), (str(Path.home()), "~")):
        if prefix and prefix != "/" and (path == prefix or path.startswith(prefix + "/")):
            return label + path[len(prefix) :]
    return path


def _plain(value: Any) -> Any:
    """Make audit records and reports JSON-friendly."""
    if is_dataclass(value) and not isinstance(value, type):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _threads(runtime_data: Any) -> int | None:
    """Return the engine's threads. Blocking: the default counts the CPU's cores (psutil)."""
    worker = getattr(runtime_data, "worker", None)
    return None if worker is None else int(worker.settings.threads)


def _model_section(
    runtime_data: Any, config_dir: str, threads: int | None
) -> dict[str, Any] | None:
    worker = getattr(runtime_data, "worker", None)
    if worker is None:
        return None
    info = worker.info
    template = getattr(worker, "chat_template", None)
    settings = worker.settings
    return {
        "model": {
            "file": short_path(str(info.path), config_dir),
            "architecture": info.architecture,
            "name": info.name,
            "size_bytes": info.size_bytes,
            "parameters": info.parameters,
            "n_ctx": info.n_ctx,
            "n_ctx_train": info.n_ctx_train,
            "n_vocab": info.n_vocab,
            "chat_template_source": getattr(template, "source", None),
            "metadata": model_metadata(info.metadata),
        },
        "engine": {
            "n_ctx": settings.n_ctx,
            "threads": threads,
            "n_batch": settings.n_batch,
            "flash_attention": settings.flash_attention,
            "key_cache": settings.key_cache,
            "key_cache_used": info.key_cache,
            "use_mmap": settings.use_mmap,
            "busy": worker.busy,
            "checkpoint_bytes": worker.checkpoint_bytes,
            "checkpoints": _checkpoints(worker),
            # A model server: the most requests it was sent at once (its parallel slots in use).
            "most_requests_at_once": getattr(worker, "peak_active", None),
        },
    }


def _checkpoints(worker: Any) -> dict[str, Any] | None:
    """Return the prefix checkpoints' figures (in-process engine only)."""
    stats = getattr(worker, "checkpoint_stats", None)
    return asdict(stats) if is_dataclass(stats) and not isinstance(stats, type) else None


def _agent_ids(hass: HomeAssistant, entry: ConfigEntry) -> set[str]:
    registry = er.async_get(hass)
    return {item.entity_id for item in er.async_entries_for_config_entry(registry, entry.entry_id)}


def _recent(records: Iterable[Any]) -> list[Any]:
    return [_plain(record) for record in list(records)[-AUDIT_RECORDS:]]


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: ConfigEntry
) -> dict[str, Any]:
    """Return what helps to understand a problem with this entry, redacted."""
    config_dir = hass.config.config_dir
    runtime_data = getattr(entry, "runtime_data", None)
    data = dict(entry.data)
    if CONF_MODEL_PATH in data:
        data[CONF_MODEL_PATH] = short_path(str(data[CONF_MODEL_PATH]), config_dir)
    version = await hass.async_add_executor_job(llama_cpp_version)
    flags = await hass.async_add_executor_job(cpu_flags)
    threads = await hass.async_add_executor_job(_threads, runtime_data)
    diagnostics: dict[str, Any] = {
        "entry": {
            "title": entry.title,
            "state": entry.state.value,
            "reason": entry.reason,
            "data": data,
            "options": whole_numbers(entry.options),
        },
        "agents": [
            {"title": sub.title, "type": sub.subentry_type, "data": whole_numbers(sub.data)}
            for sub in entry.subentries.values()
        ],
        "runtime": {
            "llama_cpp_python": version,
            "machine": await hass.async_add_executor_job(machine_description),
            "cpu_avx2": "avx2" in flags,
            # The kernels ggml chose for this CPU (prebuilt runtime), None otherwise.
            "cpu_variant": await hass.async_add_executor_job(loaded_cpu_variant),
            "process_rss_bytes": await hass.async_add_executor_job(process_rss),
        },
        **(_model_section(runtime_data, config_dir, threads) or {"model": None, "engine": None}),
        "last_turns": {
            turn.entity_id: asdict(turn.report) for turn in async_last_turns(hass, entry)
        },
        "agent_totals": {
            entity_id: stats.totals() for entity_id, stats in async_agent_stats(hass, entry).items()
        },
        "audit": _recent(async_get_audit_log(hass).for_agents(_agent_ids(hass, entry))),
    }
    return async_redact_data(diagnostics, TO_REDACT)
