"""Homes in the upstream (home-assistant-datasets synthetic-home) format, read unchanged.

tests/eval/upstream_homes/upstream_house uses every upstream form eval/README.md lists;
out_of_reach holds expectations no agent can meet. A value that names nothing leaves its
entity (or test) out with one warning line per kind; only an unreadable file is an error.
"""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys
import textwrap

import pytest

from scripts.evaluation.dataset import UNKNOWN_ENTITY
from scripts.evaluation.dataset import UNKNOWN_KEY
from scripts.evaluation.dataset import UNREADABLE_ENTITY
from scripts.evaluation.dataset import DatasetError
from scripts.evaluation.dataset import Findings
from scripts.evaluation.dataset import load_home

from .conftest import REPO_ROOT
from .conftest import RunEval

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
  - sentences: [is the thermostat heating]
    expect_change: {climate.thermostat: {state: "off"}}
    answer_from: [climate.thermostat]
"""


def write_broken(root: Path) -> Path:
    home = root / "broken"
    home.mkdir()
    (home / "_fixtures.yaml").write_text(textwrap.dedent(BROKEN))
    (home / "covers.yaml").write_text(textwrap.dedent(BROKEN_TASKS))
    return home


def test_what_names_nothing_is_left_out_with_one_warning_line_per_kind(tmp_path: Path) -> None:
    findings = Findings()

    home = load_home(write_broken(tmp_path), findings)

    kept = {entity.entity_id: entity for entity in home.entities}
    # Enum names that name nothing: the entity cannot be built as written, so it is left out
    # (never read as a plain cover: the safety gate would not ask before opening it).
    assert set(kept) == {
        "cover.side_gate", "sensor.bin_day", "sensor.power", "climate.thermostat",
    }  # fmt: skip
    # What Home Assistant would store is stored: an unknown device class as written, a
    # thermostat whose FAN_MODE comes without fan_modes; a sensor's value is Home Assistant's
    # to refuse when the home starts.
    assert kept["cover.side_gate"].attributes["device_class"] == "driveway"
    assert kept["climate.thermostat"].attributes["supported_features"] == 1 | 8
    assert kept["sensor.power"].state == "lots"
    left_out = "\n".join(findings.details[UNREADABLE_ENTITY])
    for text in (
        "entities[0] (cover.garage_door).attributes.device_class: "
        "'cover.CoverDeviceClass.GARAG': CoverDeviceClass has no member GARAG",
        "entities[0] (cover.garage_door).attributes.supported_features[2]: 'levitate' is not a "
        "CoverEntityFeature",
        "entities[2] (light.porch).attributes.device_class: 'light.LightDeviceClass.BRIGHT' "
        "names no Home Assistant enum",
        "entities[2] (light.porch).attributes.color_mode: one colour mode, got "
        "['brightness', 'onoff']",
        "entities[6] (todo.shopping).attributes.todo_items[0].status: 'bought' is not a to-do "
        "status",
    ):
        assert text in left_out, (text, left_out)
    assert findings.details[UNKNOWN_KEY] == [
        "broken/_fixtures.yaml: devices[0].info.colour",
        "broken/covers.yaml: tests[1].expect_change (did you mean 'expect_changes'?)",
    ]
    # The first test names a left-out entity, and a device the home does not have: it is
    # skipped for the first reason. The second runs (as a question: its typo is ignored).
    skipped, question = home.tests
    assert (skipped.skip, question.skip) == (UNREADABLE_ENTITY, None)
    assert question.expect_changes == {}
    assert (
        "broken/covers.yaml: tests[0].context_device: no device 'garage_dor'"
        in (findings.details[UNKNOWN_ENTITY])
    )
    lines = findings.lines({UNREADABLE_ENTITY: 1})
    assert len(lines) == len(findings.details) == 3
    line = next(line for line in lines if line.startswith(f"warning: {UNREADABLE_ENTITY}: "))
    assert line.startswith(f"warning: {UNREADABLE_ENTITY}: broken/_fixtures.yaml: entities[0]")
    assert line.endswith("(and 1 more) [1 sentence skipped]")


def test_scripts_eval_runs_the_rest_and_reports_each_kind_once(tmp_path: Path) -> None:
    home = write_broken(tmp_path)
    (home / "status.yaml").write_text(
        "category: status\ntests:\n  - sentences: [how much power is used]\n"
        "    answer_from: [sensor.power]\n  - sentences: [is the side gate open]\n"
        "    answer_from: [cover.side_gate]\n    expect_answer: [closed]\n"
    )

    result = subprocess.run(
        [sys.executable, "-m", "scripts.evaluation", "--policy", "reference", "--homes",
         str(tmp_path), "--quiet"],
        capture_output=True, text=True, timeout=180, check=False, cwd=REPO_ROOT,
    )  # fmt: skip

    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    warnings = result.stdout.split("== Warnings", 1)[1].splitlines()[1:]
    kinds = [line.split(": ", 2)[1] for line in warnings]
    assert len(kinds) == len(set(kinds)) == 4, warnings
    left_out = next(line for line in warnings if UNREADABLE_ENTITY in line)
    assert left_out.endswith("[1 sentence skipped]")  # the garage door test
    # Home Assistant itself refuses a numeric sensor whose value is 'lots', and a date
    # sensor's 'next tuesday': the tests that read them are skipped, not failed.
    refused = next(line for line in warnings if "Home Assistant refuses" in line)
    assert "sensor.power" in refused
    assert refused.endswith("[1 sentence skipped]")
    assert "100.0%" in result.stdout
    assert "Traceback" not in result.stdout


def test_only_files_that_cannot_be_read_or_hold_no_tests_are_errors(tmp_path: Path) -> None:
    home = write_broken(tmp_path)
    (home / "broken_yaml.yaml").write_text("tests: [\n")
    (home / "empty.yaml").write_text("category: empty\ntests: []\n")

    with pytest.raises(DatasetError) as caught:
        load_home(home)
    assert [p.split(":", 2)[:2] for p in caught.value.problems] == [
        ["broken/broken_yaml.yaml", " is not valid YAML"],
        ["broken/empty.yaml", " has no tests (tests must list at least one test)"],
    ]

    result = subprocess.run(
        [sys.executable, "-m", "scripts.evaluation", "--homes", str(tmp_path), "--quiet"],
        capture_output=True, text=True, timeout=120, check=False, cwd=REPO_ROOT,
    )  # fmt: skip

    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("The evaluation dataset has problems:\n")
    assert "broken/empty.yaml: has no tests" in result.stderr
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
    assert summary["sentences"] == summary["passed"] == 24
    assert summary["unreachable"] == summary["crashes"] == summary["tool_errors"] == 0
    assert not [r for r in report["results"] if r["notes"] or r["unreachable"]]
    asked = {r["test_id"] for r in report["results"] if r["confirmation_asked"]}
    expected = {r["test_id"] for r in report["results"] if r["confirmation_expected"]}
    # The garage door (an enum-name device class), the light on its device (a relay: the
    # product's SafetyPolicy holds it), the unlock and the water valve; not the lock that
    # stays locked.
    assert (
        asked
        == expected
        == {
            "upstream_house/covers#1",
            "upstream_house/covers#4",
            "upstream_house/locks#2",
            "upstream_house/valves#1",
        }
    )
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
