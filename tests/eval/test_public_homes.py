"""The public home-assistant-datasets homes, as published (tests/eval/upstream_homes/).

`scripts/eval --policy reference --homes DIR` must run each set: exit 0, 100 % of what it did
not skip, every skip with one warning line per kind; nothing Home Assistant accepts rejected.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from scripts.evaluation.dataset import DOMAIN_LEFT_OUT
from scripts.evaluation.dataset import RENAMED
from scripts.evaluation.dataset import Findings
from scripts.evaluation.dataset import load_homes
from scripts.evaluation.upstream import Problems
from scripts.evaluation.upstream import features_value

from .conftest import RunEval

PUBLIC = Path(__file__).parent / "upstream_homes"


def warning_kinds(stdout: str) -> list[str]:
    """The kind of each warning line the run printed."""
    if "== Warnings" not in stdout:
        return []
    lines = stdout.split("== Warnings", 1)[1].splitlines()[1:]
    return [line.split(": ", 2)[1] for line in lines if line.startswith("warning: ")]


def run_set(run_eval: RunEval, name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    result, report = run_eval("--policy", "reference", "--homes", str(PUBLIC / name))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "The evaluation dataset has problems" not in result.stderr
    summary = report["summary"]
    assert summary["success_rate"] == 1.0
    assert summary["crashes"] == summary["tool_errors"] == 0
    assert summary["confirmations_missing"] == summary["confirmations_unexpected"] == 0
    kinds = warning_kinds(result.stdout)
    assert len(kinds) == len(set(kinds)) == len(report["run"]["warnings"])
    assert "100.0%" in result.stdout
    return summary, report["results"]


def by_sentence(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Results by "test id sentence"."""
    return {r["test_id"] + " " + r["sentence"]: r for r in results}


def test_what_home_assistant_stores_is_stored() -> None:
    findings = Findings()

    homes = {home.name: home for home in load_homes(PUBLIC / "assist", None, findings)}

    home1 = homes["home1-us"]
    # A thermostat with FAN_MODE but no fan_modes list, as upstream writes thermostats.
    thermostat = home1.entity("climate.thermostat")
    fan_mode = features_value("climate", ["FAN_MODE"], "", Problems())
    assert thermostat.attributes["supported_features"] & (fan_mode or 0)
    assert "fan_modes" not in thermostat.attributes
    start = next(test for test in home1.tests if test.id == "home1-us/vacuum#1")
    assert start.setup["vacuum.roborock_downstairs"].state == "off"
    intents = homes["intents/en"]
    # Home Assistant's intent-test form: `out` is the state it holds.
    assert intents.entity("binary_sensor.phone_battery").state == "off"
    assert intents.entity("sensor.price_per_kw").state == "1"
    assert intents.entity("weather.london").state == "rainy"
    assert findings.details[RENAMED] == [
        "intents/en/_fixtures.yaml: sensor.price_per_kW -> sensor.price_per_kw"
    ]
    assert DOMAIN_LEFT_OUT.format("calendar") not in findings.details
    classes = next(test for test in homes["urban-loft-au"].tests if test.category == "calendar")
    assert classes.context_now == dt.datetime.fromisoformat("2025-04-02 08:30+10:00")
    assert classes.skip is None


def test_assist_mini_runs_as_published(run_eval: RunEval) -> None:
    summary, ran = run_set(run_eval, "assist-mini")
    results = by_sentence(ran)

    assert (summary["sentences"], summary["skipped"], summary["unreachable"]) == (50, 0, 3)
    # A vacuum whose state is `off` starts cleaning; the garage door, the locks and the
    # valve ask first.
    assert results["home1-us-vacuum/vacuum#1 Start Roborock Downstairs vacuum"]["success"]
    asked = {r["test_id"].split("/")[0] for r in results.values() if r["confirmation_asked"]}
    assert asked == {"home1-us-cover-garage", "home1-us-lock", "home2-ru-valve"}
    # Upstream's light that is on at brightness 0 no agent can produce.
    unreachable = {r["test_id"] for r in results.values() if r["unreachable"]}
    assert unreachable == {f"dom1-pl-lights/lights#{n}" for n in (1, 2, 3)}


def test_assist_runs_as_published(run_eval: RunEval) -> None:
    summary, ran = run_set(run_eval, "assist")
    results = by_sentence(ran)

    # The published home1-us has the Nest Hub and expects the garage door open or closed;
    # the calendar tests run at their fixed time with their events: nothing is skipped.
    assert not [r["test_id"] for r in ran if r["skipped"]]
    assert (summary["sentences"], summary["skipped"], summary["unreachable"]) == (252, 0, 1)
    garage = results["home1-us/cover-garage#2 Open the garage door"]
    assert garage["success"]
    assert garage["confirmation_asked"]
    assert results["home1-us/media-player#1 Set the volume to 0%"]["success"]
    # The older light_turn_on.yaml still expects a light on at brightness 0.
    assert [r["test_id"] for r in ran if r["unreachable"]] == ["dom1-pl/light_turn_on#1"]
    assert dict.fromkeys(("dom1-pl", "intents/en"), 0) == {
        home: sum(1 for r in ran if r["home"] == home and r["skipped"])
        for home in ("dom1-pl", "intents/en")
    }
    weather = results["urban-loft-au/weather#1 What is the temperature outside?"]
    assert weather["success"]
    assert "30" in weather["answer"]
    # 62 °F in a metric home is 16.7 °C: Home Assistant converts the weather's units.
    cloudy = results["urban-loft-au/weather#2 Is today sunny or cloudy?"]
    assert "temperature 16.7" in cloudy["answer"]
    assert results["suburban-familiy-home-be/switch#2 Is the plug in the kitchen on?"]["success"]
    assert results["home1-us/vacuum#2 Start the vacuum"]["success"]


def test_intents_run_as_published(run_eval: RunEval) -> None:
    _, ran = run_set(run_eval, "intents")
    results = by_sentence(ran)

    # The German home (test_public_sets.py runs the other languages of the set).
    german = [r for r in ran if r["home"] == "de"]
    assert (
        len(german),
        sum(r["success"] for r in german),
        sum(bool(r["skipped"]) for r in german),
    ) == (164, 164, 0)
    unlock = results["de/lock_HassTurnOff#1 Haustür aufschließen"]
    assert unlock["confirmation_asked"]  # answered "ja"
    assert unlock["success"]
