"""Every public home-assistant-datasets set, as published (tests/eval/upstream_homes/).

A set of homes runs with the reference policy (exit 0, 100 % of what ran), each home in its
language: the home's `language`, else that of the set's dataset_card.yaml. A set that holds no
homes in the evaluation format is refused with one line that says so (exit 2), never a
traceback.
"""

from __future__ import annotations

from pathlib import Path
import shutil

import pytest

from scripts.evaluation.dataset import load_homes

from .conftest import RunEval
from .test_public_homes import PUBLIC
from .test_public_homes import by_sentence
from .test_public_homes import run_set

HOMES = ("dom1-pl", "home1-us", "home2-ru", "home5-cn", "home7-dk")


def test_a_translated_set_is_read_in_its_language() -> None:
    for language in ("de", "es", "fr", "nl"):
        homes = load_homes(PUBLIC / f"assist-{language}")
        assert {home.name: home.language for home in homes} == dict.fromkeys(HOMES, language)
    assert {home.language for home in load_homes(PUBLIC / "questions-de")} == {"de"}
    assert {home.language for home in load_homes(PUBLIC / "questions-fr")} == {"fr"}


def test_one_home_of_a_german_set_is_read_in_german() -> None:
    (home,) = load_homes(PUBLIC / "assist-de" / "home1-us")

    assert home.language == "de"


# Per translation of assist: the unlock and the garage door (asked in the set's language and
# answered in it), and the to-do item named in it.
TRANSLATIONS = {
    "de": (
        "Entsperre das smarte Schloss",
        "Öffne das Garagentor",
        ("Füge Äpfel zu meiner Trader Joe's Liste hinzu", "Äpfel"),
    ),
    "es": (
        "Abre la cerradura inteligente",
        "Abre la puerta del garaje",
        ("Añade manzanas a mi lista de Trader Joe's", "manzanas"),
    ),
    "fr": (
        "Déverrouille la serrure connectée",
        "Ouvre la porte du garage",
        ("Ajoute des pommes à ma liste Trader Joe's", "pommes"),
    ),
    "nl": (
        "Ontgrendel het slimme slot",
        "Open de garagedeur",
        ("voeg appels toe aan mijn Trader Joe's lijst", "appels"),
    ),
}


@pytest.mark.parametrize("language", sorted(TRANSLATIONS))
def test_a_translation_of_assist_runs_in_its_language(run_eval: RunEval, language: str) -> None:
    summary, ran = run_set(run_eval, f"assist-{language}")
    results = {r["sentence"]: r for r in ran}
    unlock, garage, (add, item) = TRANSLATIONS[language]

    assert (summary["sentences"], summary["passed"], summary["skipped"]) == (95, 95, 0)
    assert (summary["confirmations_asked"], summary["confirmations_expected"]) == (17, 17)
    assert {r["home"] for r in ran} == set(HOMES)
    for sentence in (unlock, garage):
        assert results[sentence]["success"]
        assert results[sentence]["confirmation_asked"]
        assert "Say yes" not in results[sentence]["answer"]
    assert [c["arguments"]["item"] for c in results[add]["tool_calls"]] == [item]
    if language == "es":
        assert results[garage]["answer"].startswith("¿")


def test_the_report_names_each_homes_language(run_eval: RunEval) -> None:
    result, report = run_eval("--policy", "reference", "--homes", str(PUBLIC / "assist-de"))

    assert result.returncode == 0, result.stderr[-2000:]
    assert report["run"]["language"] == dict.fromkeys(HOMES, "de")


# The published dataset card of datasets/automations (and, in German, automations-de).
AUTOMATIONS_CARD = """\
---
name: automations
version: v0
description: |-
  A dataset for evaluating automation generation.
urls:
  - https://github.com/allenporter/home-assistant-datasets/tree/main/datasets/automations
config_entry_options:
  llm_hass_api: ""
  max_tokens: 4096
count: 5
"""
# datasets/automations/light_on_door/light.yaml as published.
AUTOMATION_TASK = """\
category: light
tests:
  - sentences:
      - turn on the closet light when the cloest door opens
      - turn on the light in the closet when the door opens
    setup:
      light.pantry_light:
        state: "off"
    event:
      binary_sensor.pantry_door:
        state: "on"
    expect_changes:
      light.pantry_light:
        state: "on"
"""
# datasets/device-actions/home1-us/bedroom-1_smart-lock.yaml as published (shortened).
DEVICE_ACTIONS = """\
---
home: home1-us
device:
  name: Smart Lock
  device_type: smart-lock
  area: Bedroom 1
capabilities:
- Lock
actions:
  actions:
  - action: Lock
    sentences:
    - Please lock the bedroom door
"""
PANTRY = """\
areas:
  - {name: Pantry, id: pantry}
entities:
  - {name: Pantry Light, id: light.pantry_light, area: pantry, state: "off"}
  - {name: Pantry Door, id: binary_sensor.pantry_door, area: pantry, state: "off"}
"""


def refused(run_eval: RunEval, path: Path) -> str:
    """Run scripts/eval on a folder that is not a set of homes; return its one line."""
    result, report = run_eval("--policy", "reference", "--homes", str(path))
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert report == {}
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"scripts/eval: {path} is not a set of evaluation homes: ")
    return line


def test_a_set_without_homes_is_said_to_be_none(run_eval: RunEval, tmp_path: Path) -> None:
    device_actions = tmp_path / "device-actions"
    (device_actions / "home1-us").mkdir(parents=True)
    (device_actions / "home1-us.yaml").write_text("home: home1-us\n")
    (device_actions / "home1-us" / "bedroom-1_smart-lock.yaml").write_text(DEVICE_ACTIONS)

    assert "_fixtures.yaml" in refused(run_eval, device_actions)


def test_an_automation_set_is_not_a_home_set(run_eval: RunEval, tmp_path: Path) -> None:
    automations = tmp_path / "automations"
    home = automations / "light_on_door"
    home.mkdir(parents=True)
    (automations / "dataset_card.yaml").write_text(AUTOMATIONS_CARD)
    (home / "_fixtures.yaml").write_text(PANTRY)
    (home / "light.yaml").write_text(AUTOMATION_TASK)
    (home / "door_left_open.yaml").write_text(
        "category: binary_sensor\ntests:\n  - sentences:\n      - !include_text DESCRIPTION.md\n"
    )

    assert "automation" in refused(run_eval, automations)
    assert "automation" in refused(run_eval, home)


def test_a_test_that_asks_for_an_automation_is_skipped_not_run(
    run_eval: RunEval, tmp_path: Path
) -> None:
    home = tmp_path / "pantry"
    home.mkdir()
    (home / "_fixtures.yaml").write_text(PANTRY)
    (home / "light.yaml").write_text(AUTOMATION_TASK)
    (home / "now.yaml").write_text(
        "category: light\ntests:\n  - sentences: [turn on the pantry light]\n"
        "    expect_changes:\n      light.pantry_light: {state: 'on'}\n"
    )

    result, report = run_eval("--policy", "reference", "--homes", str(home))

    assert result.returncode == 0, result.stderr[-2000:]
    summary = report["summary"]
    assert (summary["sentences"], summary["passed"], summary["skipped"]) == (3, 1, 2)
    assert [w for w in report["run"]["warnings"] if "automation" in w]


def test_questions_run_as_published(run_eval: RunEval) -> None:
    summary, ran = run_set(run_eval, "questions")
    results = by_sentence(ran)

    assert (summary["sentences"], summary["skipped"], summary["unreachable"]) == (38, 0, 1)
    # The calendar tests run with their events at 08:30 on Wednesday 2 April 2025 (UTC+10).
    classes = results["urban-loft-au/calendar#1 What classes do I have today?"]
    assert classes["answer"].startswith("On Personal today: Chemistry class (Wednesday 11:00")
    assert "Birthday" not in classes["answer"]  # on Sunday, not today
    cook = results["urban-loft-au/calendar#5 How many nights this week do I need to cook?"]
    assert "Cook Dinner (" in cook["answer"]
    assert ", 3 times)" in cook["answer"]
    at_home = results["urban-loft-au/calendar#4 Are we leaving the house today?"]
    assert at_home["answer"].startswith("No, everything today is at home.")
    assert [c["tool"] for c in at_home["tool_calls"]] == ["get_state"]
    # A careful answer says yes or no, counts, and writes a percentage as people write it.
    assert results["urban-loft-au/light#2 Is the bedroom light on?"]["answer"].startswith("Yes")
    assert results["suburban-familiy-home-be/valve#1 Are the sprinklers on?"]["success"]
    assert (
        "No"
        in results["suburban-familiy-home-be/valve#2 Please tell me, are the sprinklers on?"][
            "answer"
        ]
    )
    assert "2" in results["urban-loft-au/light#1 How many lights are currently on?"]["answer"]
    assert (
        "55%"
        in results["urban-loft-au/sensor#1 What is the battery level of the motion sensor?"][
            "answer"
        ]
    )
    # Upstream expects 30 for 30 °F (-1.1 °C here): no tool result holds it.
    weather = results["urban-loft-au/weather#1 What is the temperature outside?"]
    assert weather["unreachable"]
    assert "30" in " ".join(weather["unreachable"])


def test_a_german_item_is_added_by_its_name(run_eval: RunEval) -> None:
    result, report = run_eval(
        "--policy", "reference", "--homes", str(PUBLIC / "assist-de"), "--only", "dom1-pl/todo"
    )

    assert result.returncode == 0, result.stderr[-2000:]
    items = {
        r["sentence"]: [c["arguments"].get("item") for c in r["tool_calls"]]
        for r in report["results"]
    }
    assert items["Füge Äpfel zu meiner Trader Joe's Liste hinzu"] == ["Äpfel"]
    assert items["Setze Küche putzen auf die Liste Persönliche Aufgaben"] == ["Küche putzen"]


def test_intents_run_in_each_homes_language(run_eval: RunEval) -> None:
    _, ran = run_set(run_eval, "intents")
    results = by_sentence(ran)

    unlock = results["es/lock_HassTurnOff#1 abre la puerta principal"]
    assert unlock["success"]
    assert unlock["confirmation_asked"]  # asked in Spanish, answered "sí"
    assert "¿" in unlock["answer"]
    added = results["es/todo_HassListAddItem#1 añade manzanas a mi lista de Trader Joe's"]
    assert [c["arguments"]["item"] for c in added["tool_calls"]] == ["manzanas"]
    for home, sentence, asked in (
        ("fr", "déverrouille la porte d'entrée", "oui"),
        ("nl", "ontgrendel de voordeur", "„ja”"),
    ):
        unlock = results[f"{home}/lock_HassTurnOff#1 {sentence}"]
        assert unlock["success"]
        assert unlock["confirmation_asked"]
        assert asked in unlock["answer"]
    for key, item in (
        ("fr/todo_HassListAddItem#1 ajoute des pommes à ma liste Trader Joe's", "pommes"),
        ("nl/todo_HassListAddItem#1 voeg appels toe aan mijn Trader Joe's lijst", "appels"),
    ):
        assert [c["arguments"]["item"] for c in results[key]["tool_calls"]] == [item]


def test_the_whole_assist_set_runs(run_eval: RunEval) -> None:
    _, ran = run_set(run_eval, "assist")
    results = by_sentence(ran)

    homes = {r["home"] for r in ran}
    assert {"home2-ru", "home5-cn", "home7-dk"} <= homes
    water = results["home2-ru/water-valve#1 water the garden"]
    assert water["success"]
    assert water["confirmation_asked"]  # a valve asks first
    fan = results["home5-cn/fan#1 Turn on the fan"]
    assert fan["success"]
    assert not fan["confirmation_asked"]  # an everyday request runs at once
    assert results["home7-dk/media-player#3 Next song"]["success"]


def test_a_dataset_card_that_cannot_be_read_is_an_error(run_eval: RunEval, tmp_path: Path) -> None:
    # Read as no card, a German set would silently be asked in English.
    shutil.copytree(PUBLIC / "assist-de" / "dom1-pl", tmp_path / "assist-de" / "dom1-pl")
    (tmp_path / "assist-de" / "dataset_card.yaml").write_text("language: [de\n")

    result, _ = run_eval("--policy", "reference", "--homes", str(tmp_path / "assist-de"))

    assert result.returncode == 2
    assert result.stderr.startswith("The evaluation dataset has problems:\n")
    assert "dataset_card.yaml: is not valid YAML" in result.stderr


def test_german_questions_run_in_german(run_eval: RunEval) -> None:
    summary, ran = run_set(run_eval, "questions-de")
    results = by_sentence(ran)

    assert (summary["sentences"], summary["passed"], summary["unreachable"]) == (38, 38, 0)
    assert {r["home"] for r in ran} == {"suburban-familiy-home-be", "urban-loft-au"}
    battery = results["urban-loft-au/sensor#1 Wie hoch ist der Batteriestand des Bewegungsmelders?"]
    assert "55%" in battery["answer"]
    out = results["urban-loft-au/calendar#3 Verlasse ich heute das Haus?"]
    assert out["answer"].startswith("Yes: Chemistry class, Dinner with Liza.")


@pytest.mark.parametrize(
    ("name", "passed", "unreachable"),
    [("questions-es", 38, 0), ("questions-fr", 36, 2), ("questions-nl", 36, 2)],
)
def test_translated_questions_run_in_their_language(
    run_eval: RunEval, name: str, passed: int, unreachable: int
) -> None:
    summary, ran = run_set(run_eval, name)

    assert (summary["sentences"], summary["passed"], summary["skipped"]) == (38, passed, 0)
    assert summary["unreachable"] == unreachable
    # questions-fr and -nl expect "salade" for the to-do item "Buy salad": a translation, which
    # no reading of the home gives (questions, -de and -es expect "salad").
    out = {r["test_id"]: " ".join(r["unreachable"]) for r in ran if r["unreachable"]}
    if unreachable:
        assert set(out) == {"urban-loft-au/todo#3", "urban-loft-au/todo#4"}
        assert "salade" in out["urban-loft-au/todo#4"]
        assert "translate" in out["urban-loft-au/todo#3"]


@pytest.mark.parametrize("language", ["de", "es", "fr", "nl"])
def test_a_translation_of_assist_mini_runs_in_its_language(
    run_eval: RunEval, language: str
) -> None:
    summary, ran = run_set(run_eval, f"assist-mini-{language}")

    assert (summary["sentences"], summary["passed"], summary["unreachable"]) == (50, 47, 3)
    assert (summary["confirmations_asked"], summary["confirmations_expected"]) == (13, 13)
    asked = {r["test_id"].split("/")[0] for r in ran if r["confirmation_asked"]}
    assert asked == {"home1-us-cover-garage", "home1-us-lock", "home2-ru-valve"}
