"""The prompt benchmark: its synthetic homes, and its figures for a small home."""

from __future__ import annotations

from collections import Counter
import json
from pathlib import Path

from custom_components.local_agent.home.entity_view import grouped_text
from custom_components.local_agent.home.tools import async_build_home_tools
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.synthetic import DOMAIN_CYCLE
from testing.synthetic import async_setup_synthetic_home
from testing.synthetic import home_specs

from .script_runs import run_script

CONTROLLABLE = {"climate", "cover", "fan", "light", "lock", "media_player", "switch"}


def test_home_specs_mix_domains_with_unique_names() -> None:
    specs = home_specs(200)

    assert len(specs) == 200
    assert len({spec.key for spec in specs}) == 200
    assert len({spec.name for spec in specs}) == 200
    domains = Counter(spec.domain for spec in specs)
    assert set(domains) == set(DOMAIN_CYCLE)
    assert domains["light"] == 50
    assert {spec.domain for spec in home_specs(10)} >= CONTROLLABLE
    assert len({spec.area for spec in specs}) == 25
    assert any(spec.aliases for spec in specs)


async def test_synthetic_home_exposes_exactly_n_entities_with_tools(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "homeassistant", {})

    home = await async_setup_synthetic_home(hass, 12)

    assert len(home.entity_ids) == 12
    exposed = {
        state.entity_id
        for state in hass.states.async_all()
        if async_should_expose(hass, "conversation", state.entity_id)
    }
    assert exposed == set(home.entity_ids)
    registry = er.async_get(hass)
    for entity_id in home.entity_ids:
        entry = registry.async_get(entity_id)
        assert entry is not None
        assert entry.area_id is not None
    tools = await async_build_home_tools(hass)
    assert set(tools.tool_names) >= CONTROLLABLE
    overview = grouped_text(tools.lines())
    for area in home.areas:
        assert f"{area}:" in overview


async def test_synthetic_entities_follow_their_services(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    home = await async_setup_synthetic_home(hass, 10)
    light = next(e for e in home.entity_ids if e.startswith("light."))
    lock = next(e for e in home.entity_ids if e.startswith("lock."))

    await hass.services.async_call(
        "light", "turn_on", {"entity_id": light, "brightness_pct": 50}, blocking=True
    )
    await hass.services.async_call("lock", "unlock", {"entity_id": lock}, blocking=True)

    light_state = hass.states.get(light)
    assert light_state is not None
    assert light_state.state == "on"
    assert light_state.attributes["brightness"] == 128
    lock_state = hass.states.get(lock)
    assert lock_state is not None
    assert lock_state.state == "unlocked"


def test_prompt_benchmark_reports_sane_figures(qwen35_model_path: Path, tmp_path: Path) -> None:
    figures_path = tmp_path / "prompt.json"

    result = run_script(
        "bench",
        "prompt",
        "--sizes",
        "10",
        "--turns",
        "3",
        "--model",
        str(qwen35_model_path),
        "--json",
        str(figures_path),
        timeout=240,
    )

    assert result.returncode == 0, result.stderr
    assert "Prompt tokens, tokenizer" in result.stdout
    assert "Time per turn outside the model" in result.stdout
    figures = json.loads(figures_path.read_text())
    (size,) = figures["sizes"]
    assert size["entities"] == 10
    assert CONTROLLABLE | {"get_state"} <= set(size["tools"])
    (tokens,) = size["tokens"].values()
    # The home list is in the static prefix; a turn's own part is the time and the sentence.
    assert tokens["static"] > 500
    assert 0 < tokens["dynamic"] <= 120
    assert tokens["total"] == tokens["static"] + tokens["dynamic"]
    assert tokens["assist_total"] > tokens["assist_tools"] > 0
    timing = size["timing"]
    assert 0 < timing["ours_min_ms"] <= timing["ours_ms"] < 1000
    assert timing["turn_cpu_ms"] > 0
