"""Homes in the upstream (home-assistant-datasets synthetic-home) format, read unchanged.

tests/eval/upstream_homes/upstream_house uses every upstream form eval/README.md lists;
out_of_reach holds expectations no agent can meet. Unknown values are errors, all at once,
before Home Assistant starts.
"""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys
import textwrap

import pytest

from scripts.evaluation.dataset import DatasetError, load_home
from scripts.evaluation.scoring import expects_confirmation

from .conftest import REPO_ROOT, RunEval

UPSTREAM = Path(__file__).parent / "upstream_homes"
HOUSE = UPSTREAM / "upstream_house"


def test_every_upstream_form_is_read_as_home_assistant_reports_it() -> None:
    home = load_home(HOUSE)

    assert home.title == "Upstream House"
    assert home.language == "en"
    kitchen = home.entity("light.kitchen_light")
    # No name: named after its device; no state: on (brightness above 0); the area equal
    # to its device's is left to the device; the colour mode list read as one mode.
    assert kitchen.name is None
    assert kitchen.display_name == "Kitchen Light"
    assert kitchen.state == "on"
    assert kitchen.area is None
    assert kitchen.attributes["color_mode"] == "brightness"
    lamp = home.entity("light.living_room_lamp")
    assert lamp.state == "off"  # brightness 0
    assert lamp.attributes["supported_color_modes"] == ["color_temp", "hs"]
    garage = home.entity("cover.garage_door")
    assert (garage.state, garage.attributes["device_class"]) == ("closed", "garage")
    assert garage.attributes["supported_features"] == 3  # OPEN | CLOSE
    assert home.entity("cover.living_room_blinds").state == "closed"  # YAML false
    assert home.entity("valve.water_main").state == "closed"
    assert home.entity("binary_sensor.front_door").state == "off"
    thermostat = home.entity("climate.thermostat")
    assert thermostat.state == "heat"
    assert thermostat.attributes["temperature"] == 20
    assert thermostat.attributes["hvac_modes"] == ["off", "heat", "cool"]
    # Turn on/off added to every fan, as upstream does; the speed declared only there.
    assert home.entity("fan.ceiling_fan").attributes["supported_features"] == 1 | 16 | 32
    temperature = home.entity("sensor.outdoor_temperature")
    assert temperature.state == "12.5"
    assert temperature.attributes == {
        "unit_of_measurement": "°C",
        "device_class": "temperature",
        "state_class": "measurement",
    }
    assert home.entity("sensor.next_collection").state == "2026-05-04"
    shopping = home.entity("todo.shopping_list")
    assert shopping.state == "2"
    assert shopping.attributes == {"items": ["Milk", "Bread"], "completed": ["Eggs"]}
    assert home.devices[0].info == {
        "manufacturer": "Signify",
        "model": "Hue White",
        "sw_version": "1.104.2",
    }
    tests = {test.id: test for test in home.tests}
    assert tests["upstream_house/lights#1"].context_device == "kitchen_satellite"
    assert tests["upstream_house/climate#1"].expect_changes["climate.thermostat"].attributes == {
        "temperature": 22
    }
    assert tests["upstream_house/climate#2"].expect_changes["climate.thermostat"].state == "off"
    assert tests["upstream_house/covers#2"].expect_changes["cover.living_room_blinds"].state == (
        "open"
    )
    assert tests["upstream_house/status#1"].ignore_changes == {"sensor.outdoor_temperature": ("*",)}
    assert tests["upstream_house/status#2"].ignore_changes == {"binary_sensor.front_door": ("*",)}
    assert tests["upstream_house/status#3"].ignore_changes == {"switch.coffee_maker": ("state",)}


def test_a_lock_expected_to_stay_locked_expects_no_confirmation() -> None:
    home = load_home(HOUSE)
    tests = {test.id: test for test in home.tests}

    assert not expects_confirmation(home, tests["upstream_house/locks#1"])
    assert expects_confirmation(home, tests["upstream_house/locks#2"])
    # The garage door's enum-name device class makes it sensitive.
    assert expects_confirmation(home, tests["upstream_house/covers#1"])


BROKEN = """
name: Broken
areas:
  - {name: Garage, id: garage}
devices:
  - name: Garage Door
    id: garage_door
    area: garage
    info: {manufacturer: Chamberlain, colour: red}
entities:
  - id: cover.garage_door
    device: garage_door
    area: garage
    attributes:
      device_class: cover.CoverDeviceClass.GARAG
      supported_features: [open, close, levitate]
  - name: Side Gate
    id: cover.side_gate
    attributes:
      device_class: driveway
  - name: Porch Light
    id: light.porch
    attributes:
      color_mode: [brightness, onoff]
      supported_color_modes: [brightness, sparkle]
      device_class: light.LightDeviceClass.BRIGHT
  - name: Bin Day
    id: sensor.bin_day
    attributes:
      device_class: sensor.SensorDeviceClass.DATE
      native_value: next tuesday
  - name: Power
    id: sensor.power
    attributes:
      native_unit_of_measurement: W
      native_value: lots
  - name: Thermostat
    id: climate.thermostat
    attributes:
      hvac_mode: heat
      supported_features: [target_temperature, fan_mode]
  - name: Shopping
    id: todo.shopping
    attributes:
      todo_items: [{summary: Milk, status: bought}]
"""
BROKEN_TASKS = """
category: covers
tests:
  - sentences: [open the garage]
    context_device: garage_dor
    expect_changes:
      cover.garage_door:
        state: open
        attributes: {device_class: cover.CoverDeviceClass.NOPE}
    ignore_changes:
      light.porch: 3
"""


def write_broken(root: Path) -> Path:
    home = root / "broken"
    home.mkdir()
    (home / "_fixtures.yaml").write_text(textwrap.dedent(BROKEN))
    (home / "covers.yaml").write_text(textwrap.dedent(BROKEN_TASKS))
    return home


def test_unknown_values_are_all_reported_at_once(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        load_home(write_broken(tmp_path))

    problems = caught.value.problems
    expected = [
        "broken/_fixtures.yaml: devices[0].info: unknown key 'colour'",
        "entities[0] (cover.garage_door).attributes.device_class: "
        "'cover.CoverDeviceClass.GARAG': CoverDeviceClass has no member GARAG",
        "entities[0] (cover.garage_door).attributes.supported_features[2]: 'levitate' is not a "
        "CoverEntityFeature",
        "entities[1] (cover.side_gate).attributes.device_class: 'driveway' is not a cover "
        "device class (one of: awning, blind, curtain, damper, door, garage, gate,",
        "entities[2] (light.porch).attributes.device_class: 'light.LightDeviceClass.BRIGHT' "
        "names no Home Assistant enum",
        "entities[2] (light.porch).attributes.device_class: light entities have no device classes",
        "entities[2] (light.porch).attributes.color_mode: one colour mode, got "
        "['brightness', 'onoff']",
        "entities[2] (light.porch).attributes.supported_color_modes[1]: 'sparkle' is not a "
        "ColorMode value",
        "entities[3] (sensor.bin_day).state: a date sensor needs a date like 2026-05-01, got "
        "'next tuesday'",
        "entities[4] (sensor.power).state: 'lots' is not a number",
        "entities[5] (climate.thermostat).attributes.supported_features: FAN_MODE needs a "
        "non-empty fan_modes list",
        "entities[6] (todo.shopping).attributes.todo_items[0].status: 'bought' is not a to-do "
        "status",
        "broken/covers.yaml: tests[0].context_device: no device 'garage_dor' (did you mean "
        "'garage_door'?)",
        "tests[0].expect_changes.cover.garage_door.attributes.device_class: "
        "'cover.CoverDeviceClass.NOPE': CoverDeviceClass has no member NOPE",
        "tests[0].ignore_changes.light.porch must be null, a name, a list of names or a mapping",
    ]
    for text in expected:
        assert any(text in problem for problem in problems), (text, problems)


def test_scripts_eval_reports_them_before_home_assistant_starts(tmp_path: Path) -> None:
    write_broken(tmp_path)

    result = subprocess.run(
        [sys.executable, "-m", "scripts.evaluation", "--homes", str(tmp_path), "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=REPO_ROOT,
    )

    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("The evaluation dataset has problems:\n")
    assert "CoverDeviceClass has no member GARAG" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_reference_policy_passes_every_sentence_of_the_upstream_house(run_eval: RunEval) -> None:
    result, report = run_eval(
        "--policy", "reference", "--homes", str(UPSTREAM), "--only", "upstream_house"
    )

    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert report["run"]["homes_path"] == str(UPSTREAM.resolve())
    assert report["run"]["homes"] == ["upstream_house"]
    assert report["run"]["language"] == {"upstream_house": "en"}
    summary = report["summary"]
    assert summary["sentences"] == summary["passed"] == 23
    assert summary["unreachable"] == summary["crashes"] == summary["tool_errors"] == 0
    assert not [r for r in report["results"] if r["notes"] or r["unreachable"]]
    asked = {r["test_id"] for r in report["results"] if r["confirmation_asked"]}
    # The garage door (an enum-name device class), the unlock and the water valve; not the
    # lock that stays locked.
    assert asked == {
        "upstream_house/covers#1",
        "upstream_house/locks#2",
        "upstream_house/valves#1",
    }
    by_test = {r["test_id"]: r for r in report["results"]}
    assert by_test["upstream_house/lights#1"]["context_device"] == "kitchen_satellite"
    fan_calls = [c["arguments"] for c in by_test["upstream_house/fans#1"]["tool_calls"]]
    assert fan_calls == [
        {"action": "set_percentage", "entity_id": "fan.ceiling_fan", "percentage": 50}
    ]
    light_calls = [c["arguments"] for c in by_test["upstream_house/lights#2"]["tool_calls"]]
    assert light_calls == [{"action": "turn_off", "entity_id": "light.kitchen_light"}]
    todo_calls = [c["arguments"] for c in by_test["upstream_house/todo#1"]["tool_calls"]]
    assert todo_calls == [
        {"action": "add_item", "entity_id": "todo.shopping_list", "item": "apples"}
    ]
    assert "100.0%" in result.stdout
    assert "Unreachable" not in result.stdout


def test_unreachable_expectations_are_reported_with_reasons_not_as_failures(
    run_eval: RunEval,
) -> None:
    result, report = run_eval(
        "--policy",
        "reference",
        "--homes",
        str(UPSTREAM),
        "--only",
        "out_of_reach",
        "--fail-under",
        "100",
    )

    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    summary = report["summary"]
    assert (summary["sentences"], summary["passed"], summary["unreachable"]) == (6, 1, 5)
    assert summary["success_rate"] == 1.0
    reasons = {r["test_id"]: r["unreachable"] for r in report["results"]}
    assert reasons == {
        "out_of_reach/tasks#1": [],
        "out_of_reach/tasks#2": ["light.hall_light: a light that is on has a brightness above 0"],
        "out_of_reach/tasks#3": ["light has no parameter 'color_name'"],
        "out_of_reach/tasks#4": ["sensor.hall_temperature: sensor entities are read-only"],
        "out_of_reach/tasks#5": [
            "lock.cellar_door is not exposed to Assist: the agent cannot change it"
        ],
        "out_of_reach/tasks#6": [
            "cover.hall_blind: at position 50 it is open, but it should stay closed"
        ],
    }
    assert "== Failures" not in result.stdout
    assert "== Unreachable" in result.stdout
    assert "cannot reach: sensor.hall_temperature: sensor entities are read-only" in (result.stdout)
