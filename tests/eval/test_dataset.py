"""Loading evaluation homes: our own homes, what Home Assistant would store, and findings."""

from __future__ import annotations

from pathlib import Path
import textwrap

import pytest

from scripts.evaluation.dataset import DOMAIN_LEFT_OUT
from scripts.evaluation.dataset import NO_FIXTURES
from scripts.evaluation.dataset import NO_SENTENCES
from scripts.evaluation.dataset import RENAMED
from scripts.evaluation.dataset import UNKNOWN_ENTITY
from scripts.evaluation.dataset import UNKNOWN_KEY
from scripts.evaluation.dataset import DatasetError
from scripts.evaluation.dataset import Findings
from scripts.evaluation.dataset import home_names
from scripts.evaluation.dataset import load_home
from scripts.evaluation.dataset import load_homes
from scripts.evaluation.dataset import stored_entity_id

HOMES = Path(__file__).resolve().parents[2] / "eval" / "homes"
CATEGORIES = {
    "lights", "switches", "covers", "locks", "alarm", "climate", "fans", "media", "vacuum",
    "todo", "timers", "status", "refusals", "ambiguous", "multi",
}  # fmt: skip

FIXTURES = """
areas:
  - {name: Kitchen, id: kitchen}
entities:
  - name: Kitchen Light
    id: light.kitchen
    area: kitchen
    state: off
  - name: Front Door
    id: lock.front_door
    state: locked
"""


def write_home(root: Path, fixtures: str, **tasks: str) -> Path:
    home = root / "home"
    home.mkdir(parents=True)
    (home / "_fixtures.yaml").write_text(textwrap.dedent(fixtures))
    for name, text in tasks.items():
        (home / f"{name}.yaml").write_text(textwrap.dedent(text))
    return home


def test_our_homes_cover_every_category_with_enough_sentences() -> None:
    homes = load_homes(HOMES)

    assert [home.name for home in homes] == ["family_house", "flat", "large_home"]
    sentences = sum(len(test.sentences) for home in homes for test in home.tests)
    assert sentences >= 150
    assert {category for home in homes for category in home.categories} >= CATEGORIES
    sizes = {home.name: len(home.entities) for home in homes}
    assert 20 <= sizes["flat"] < 40
    assert 45 <= sizes["family_house"] < 80
    assert sizes["large_home"] >= 150


def test_a_valid_home_loads_with_yaml_booleans_read_as_on_off(tmp_path: Path) -> None:
    home = load_home(
        write_home(
            tmp_path,
            FIXTURES,
            lights="""
            category: lights
            tests:
              - sentences: [turn on the kitchen light]
                setup: {light.kitchen: {state: off}}
                expect_changes: {light.kitchen: {state: on}}
                ignore_changes: {lock.front_door: [state]}
            """,
        )
    )

    assert home.entity("light.kitchen").state == "off"
    test = home.tests[0]
    assert test.id == "home/lights#1"
    assert test.expect_changes["light.kitchen"].state == "on"
    assert test.ignore_changes == {"lock.front_door": ("state",)}


def test_findings_name_file_and_path_and_skip_only_what_needs_them(tmp_path: Path) -> None:
    fixtures = FIXTURES + (
        "  - name: Boiler\n"
        "    id: water_heater.boiler\n"
        "    state: eco\n"
        "  - name: Porch\n"
        "    id: light.porch\n"
        "    state: dimmed\n"
        "    arrea: kitchen\n"
    )
    home = write_home(
        tmp_path,
        fixtures,
        lights="""
        category: lights
        tests:
          - sentences: [turn on the kitchen light]
            expect_changes: {light.kitchn: {state: on}}
          - sentences: []
            expect_change: {}
          - sentences: [lock it]
            expect_changes: {lock.front_door: {state: closed}}
          - sentences: [heat the water]
            expect_changes: {water_heater.boiler: {state: electric}}
        """,
    )
    findings = Findings()

    loaded = load_home(home, findings)

    # A state is any text, as in Home Assistant's state machine.
    assert loaded.entity("light.porch").state == "dimmed"
    assert [entity.entity_id for entity in loaded.entities] == [
        "light.kitchen", "lock.front_door", "light.porch",
    ]  # fmt: skip
    assert findings.details == {
        UNKNOWN_KEY: [
            "home/_fixtures.yaml: entities[3].arrea (did you mean 'area'?)",
            "home/lights.yaml: tests[1].expect_change (did you mean 'expect_changes'?)",
        ],
        DOMAIN_LEFT_OUT.format("water_heater"): [
            "home/_fixtures.yaml: water_heater.boiler",
            "home/lights.yaml: tests[3].expect_changes: water_heater.boiler",
        ],
        UNKNOWN_ENTITY: ["home/lights.yaml: tests[0].expect_changes: light.kitchn"],
        NO_SENTENCES: ["home/lights.yaml: tests[1]"],
    }
    skips = {test.id: test.skip for test in loaded.tests}
    assert skips == {
        "home/lights#1": UNKNOWN_ENTITY,
        "home/lights#3": None,  # 'closed' is a text Home Assistant stores for a lock
        "home/lights#4": DOMAIN_LEFT_OUT.format("water_heater"),
    }


def test_states_and_entity_ids_are_stored_as_home_assistant_stores_them(tmp_path: Path) -> None:
    fixtures = """
    entities:
      - {name: Price, id: sensor.price_per_kW, state: 1, attributes: {unit_of_measurement: EUR}}
      - {name: Phone, id: binary_sensor.phone_battery, state: {in: normal, out: "off"}}
      - {name: Motion, id: binary_sensor.motion, state: unknown}
      - {name: Rover, id: vacuum.rover, state: "off"}
      - {name: Hall, id: Light.Hall-Lamp, state: yes}
      - {name: Blind, id: cover.blind, state: false}
      - {name: Odd, id: sensor.odd, state: [1, 2]}
      - {name: Nameless, id: "light."}
    """
    home = write_home(
        tmp_path,
        fixtures,
        status="""
        category: status
        tests:
          - sentences: [what does power cost]
            setup: {sensor.price_per_kW: {state: 2}}
            answer_from: [sensor.price_per_kW]
        """,
    )
    findings = Findings()

    loaded = load_home(home, findings)

    states = {entity.entity_id: entity.state for entity in loaded.entities}
    assert states == {
        "sensor.price_per_kw": "1",
        "binary_sensor.phone_battery": "off",
        "binary_sensor.motion": "unknown",
        "vacuum.rover": "off",
        "light.hall_lamp": "on",
        "cover.blind": "closed",
        "sensor.odd": "[1, 2]",
    }
    assert findings.details[RENAMED] == [
        "home/_fixtures.yaml: sensor.price_per_kW -> sensor.price_per_kw",
        "home/_fixtures.yaml: Light.Hall-Lamp -> light.hall_lamp",
    ]
    (test,) = loaded.tests
    assert (test.skip, test.answer_from) == (None, ("sensor.price_per_kw",))
    assert test.setup["sensor.price_per_kw"].state == "2"
    assert stored_entity_id("sensor.kitchen__light") == "sensor.kitchen_light"
    assert stored_entity_id("not an id") is None


def test_homes_are_found_at_any_depth_and_named_by_their_path(tmp_path: Path) -> None:
    write_home(
        tmp_path / "intents" / "en", FIXTURES, lights="category: x\ntests: [{sentences: [a]}]"
    )
    write_home(tmp_path / "flat", FIXTURES, lights="category: x\ntests: [{sentences: [a]}]")
    (tmp_path / "dataset_card.yaml").write_text("name: assist\n")
    (tmp_path / "orphan").mkdir()
    (tmp_path / "orphan" / "lights.yaml").write_text("category: x\n")
    findings = Findings()

    homes = load_homes(tmp_path, None, findings)

    assert home_names(tmp_path) == ["flat/home", "intents/en/home"]
    assert [home.name for home in homes] == ["flat/home", "intents/en/home"]
    assert findings.details == {NO_FIXTURES: ["orphan"]}


def test_bad_yaml_and_missing_homes_are_clear(tmp_path: Path) -> None:
    home = write_home(tmp_path, "entities: [\n", lights="category: lights\n")
    with pytest.raises(DatasetError, match=r"home/_fixtures.yaml: is not valid YAML"):
        load_home(home)
    with pytest.raises(DatasetError, match=r"no home named 'nowhere' \(homes: home\)"):
        load_homes(tmp_path, ["nowhere"])
