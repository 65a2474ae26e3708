"""Diagnostics, system health, devices and memory of a model entry."""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path

import pytest
from pytest_homeassistant_custom_component.common import get_system_health_info

from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.conversation import LocalAgentConversationEntity
from custom_components.local_agent.diagnostics import async_get_config_entry_diagnostics
from custom_components.local_agent.engine import settings as engine_settings
from custom_components.local_agent.runtime.memory import process_rss
from custom_components.local_agent.safety.audit import AuditRecord
from custom_components.local_agent.safety.audit import Outcome
from custom_components.local_agent.safety.audit import async_get_audit_log
from custom_components.local_agent.turn.report import TurnReport
from homeassistant.components.conversation.const import DATA_COMPONENT as CONVERSATION_COMPONENT
from homeassistant.const import CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.model_files import THREADS_VARIABLE

from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import async_setup_model_entry
from .scripted_model import ScriptedWorker
from .scripted_model import answer


def set_last_turn(hass: HomeAssistant, entity_id: str, report: TurnReport) -> None:
    """Count a turn for an agent without running the model."""
    entity = hass.data[CONVERSATION_COMPONENT].get_entity(entity_id)
    assert isinstance(entity, LocalAgentConversationEntity)
    assert entity.agent is not None
    entity.agent.stats.record(report, failed=False)


async def test_diagnostics_describe_the_model_and_redact_secrets(
    hass: HomeAssistant, qwen35_model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine's own default thread count is what is described, whatever the suite runs with.
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    agent = await async_setup_agent(
        hass, qwen35_model_path, **{CONF_CONFIRMATION_PIN: "4321", CONF_MAX_TOKENS: 512.0}
    )
    # As a number field saved them before the options flow kept whole numbers.
    hass.config_entries.async_update_entry(
        agent.entry, options={CONF_THREADS: 1.0, CONF_CONTEXT_SIZE: 4096.0}
    )

    def physical_cores() -> int:  # psutil reads /sys: never in the event loop
        with pytest.raises(RuntimeError):
            asyncio.get_running_loop()
        return 3

    monkeypatch.setattr(engine_settings, "physical_cores", physical_cores)
    set_last_turn(hass, agent.entity_id, TurnReport(rounds=1, generated_tokens=40))
    audit = async_get_audit_log(hass)
    for agent_id in (agent.entity_id, "conversation.someone_else"):
        audit.async_record(
            hass,
            AuditRecord(
                agent_id=agent_id,
                conversation_id="c1",
                user_id="u-secret",
                device_id=None,
                satellite_id=None,
                service="lock.unlock",
                targets=["lock.front_door"],
                description="Unlock Front Door",
                outcome=Outcome.PROPOSED,
            ),
        )

    diagnostics = await async_get_config_entry_diagnostics(hass, agent.entry)

    expected_path = (
        "~/" + str(qwen35_model_path.relative_to(Path.home()))
        if qwen35_model_path.is_relative_to(Path.home())
        else str(qwen35_model_path)
    )
    assert diagnostics["entry"]["data"]["model_path"] == expected_path
    # Whole numbers read as such: "threads": 1, not 1.0.
    assert '"threads": 1,' in json.dumps(diagnostics["entry"]["options"]) + ","
    assert diagnostics["entry"]["options"] == {CONF_THREADS: 1, CONF_CONTEXT_SIZE: 4096}
    assert type(diagnostics["agents"][0]["data"][CONF_MAX_TOKENS]) is int
    assert type(diagnostics["agents"][0]["data"]["temperature"]) is float
    assert diagnostics["model"]["architecture"] == "qwen35"
    assert diagnostics["model"]["chat_template_source"] == "gguf"
    assert diagnostics["model"]["n_ctx"] > 0
    assert "tokenizer.chat_template" not in diagnostics["model"]["metadata"]
    assert diagnostics["engine"]["checkpoint_bytes"] == 0
    checkpoints = diagnostics["engine"]["checkpoints"]
    assert checkpoints["count"] == checkpoints["bytes"] == 0
    assert checkpoints["limit_bytes"] == 160 * 2**20
    assert diagnostics["engine"]["threads"] == 3
    assert diagnostics["runtime"]["llama_cpp_python"]
    # This venv's llama.cpp has its CPU kernels inside libggml; the prebuilt one names a variant.
    assert "cpu_variant" in diagnostics["runtime"]
    [turn] = diagnostics["last_turns"].values()
    assert turn["rounds"] == 1
    assert diagnostics["agent_totals"][agent.entity_id]["generated_tokens"] == 40
    [agent_data] = diagnostics["agents"]
    assert agent_data["data"][CONF_PROMPT] == "**REDACTED**"
    assert agent_data["data"][CONF_CONFIRMATION_PIN] == "**REDACTED**"
    [record] = diagnostics["audit"]
    assert (record["service"], record["outcome"]) == ("lock.unlock", "proposed")
    assert record["user_id"] == "**REDACTED**"
    text = json.dumps(diagnostics)
    assert str(Path.home()) + "/" not in text
    assert "4321" not in text


async def test_system_health_reports_runtime_memory_and_speed(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    assert await async_setup_component(hass, "system_health", {})
    agent = await async_setup_agent(hass, qwen35_model_path)
    set_last_turn(hass, agent.entity_id, TurnReport(generated_tokens=50, generation_seconds=2.0))

    info = await get_system_health_info(hass, DOMAIN)

    assert info["runtime"] == importlib.metadata.version("llama-cpp-python")
    assert info["models_loaded"] == agent.entry.title
    assert info["memory_used"].endswith(" MiB")
    assert info["generation_speed"] == "25.0 tokens/s"


async def test_model_entry_has_a_device_and_agents_hang_off_it(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path)
    devices = dr.async_get(hass)

    model_device = devices.async_get_device_by_identifier(
        (DOMAIN, agent.entry.entry_id), agent.entry.entry_id
    )
    assert model_device is not None
    assert model_device.model_id == "qwen35"
    assert model_device.sw_version is not None
    assert model_device.sw_version.startswith("llama-cpp-python ")
    entity = er.async_get(hass).async_get(agent.entity_id)
    assert entity is not None
    assert entity.device_id is not None
    agent_device = devices.async_get(entity.device_id)
    assert isinstance(agent_device, dr.DeviceEntry)  # not a ChildDeviceEntry
    assert agent_device.via_device_id == model_device.id


async def test_unload_gives_the_memory_back(hass: HomeAssistant, gemma_model_path: Path) -> None:
    """Real Gemma 3 270M: RSS after unload is back near where it was before the load."""
    await hass.async_add_executor_job(importlib.import_module, "llama_cpp")
    before = await hass.async_add_executor_job(process_rss)

    agent = await async_setup_agent(hass, gemma_model_path)
    loaded = await hass.async_add_executor_job(process_rss)
    assert await hass.config_entries.async_unload(agent.entry.entry_id)
    await hass.async_block_till_done()
    after = await hass.async_add_executor_job(process_rss)

    mib = 2**20
    grown = loaded - before
    assert grown > 150 * mib, f"the model did not load? {grown / mib:.0f} MiB"
    assert after - before < 0.15 * grown, (
        f"before {before / mib:.0f} MiB, loaded {loaded / mib:.0f}, after {after / mib:.0f}"
    )


async def test_diagnostics_of_an_entry_that_did_not_load(
    hass: HomeAssistant, tmp_path: Path
) -> None:
    entry = await async_setup_model_entry(hass, tmp_path / "gone.gguf")

    diagnostics = await async_get_config_entry_diagnostics(hass, entry)

    assert (
        diagnostics["entry"]["state"] == "setup_retry"
    )  # the file may yet come (a disk mounted late)
    assert "gone.gguf" in diagnostics["entry"]["reason"]
    assert diagnostics["model"] is None
    assert diagnostics["audit"] == []


async def test_agent_figures_add_up_and_outlive_a_settings_change(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer("One."), answer("Two."), answer("Three."))
    await scripted_agent.ask("hello")
    await scripted_agent.ask("hello again")
    entry = scripted_agent.entry
    subentry = next(iter(entry.subentries.values()))
    hass.config_entries.async_update_subentry(entry, subentry, title="Renamed agent")
    await hass.async_block_till_done()
    await scripted_agent.ask("and once more")

    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    totals = diagnostics["agent_totals"][scripted_agent.entity_id]
    assert totals["turns"] == 3
    assert totals["failed_turns"] == 0
    assert totals["generated_tokens"] > 0
    assert diagnostics["last_turns"][scripted_agent.entity_id]["rounds"] == 1
