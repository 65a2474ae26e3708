"""Loading evaluation homes: our own homes, and clear reports of schema errors."""

from __future__ import annotations

from pathlib import Path
import textwrap

import pytest

from scripts.evaluation.dataset import DatasetError, load_home, load_homes

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
    home.mkdir()
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


def test_schema_errors_are_all_reported_with_file_and_path(tmp_path: Path) -> None:
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
        """,
    )

    with pytest.raises(DatasetError) as caught:
        load_home(home)

    problems = "\n".join(caught.value.problems)
    assert "home/_fixtures.yaml: entities[2] (water_heater.boiler): domain 'water_heater' is " in (
        problems
    )
    assert "entities[3] (light.porch).state: 'dimmed' is not a light state (one of: on, off)" in (
        problems
    )
    assert "unknown key 'arrea' (did you mean 'area'?)" in problems
    assert (
        "home/lights.yaml: tests[0].expect_changes.light.kitchn: light.kitchn is not an entity "
        "of _fixtures.yaml (did you mean light.kitchen?)" in problems
    )
    assert "home/lights.yaml: tests[1].sentences must be a list of at least one sentence" in (
        problems
    )
    assert "unknown key 'expect_change' (did you mean 'expect_changes'?)" in problems
    assert "tests[2].expect_changes.lock.front_door.state: 'closed' is not a lock state" in problems


def test_bad_yaml_and_missing_homes_are_clear(tmp_path: Path) -> None:
    home = write_home(tmp_path, "entities: [\n", lights="category: lights\n")
    with pytest.raises(DatasetError, match=r"home/_fixtures.yaml: is not valid YAML"):
        load_home(home)
    with pytest.raises(DatasetError, match=r"no home named 'nowhere' \(homes: home\)"):
        load_homes(tmp_path, ["nowhere"])
