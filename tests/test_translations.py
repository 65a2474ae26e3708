"""Every user-facing key the model, download, safe-load and repair code uses has an English text."""

from __future__ import annotations

import json
from pathlib import Path
import re
from typing import Any

import pytest

from custom_components.local_agent.const import ESTIMATED_CONTEXT_SIZE
from custom_components.local_agent.engine import words
from custom_components.local_agent.flows.model import MODEL_MENU
from custom_components.local_agent.home import call_texts
from custom_components.local_agent.home import call_words
from custom_components.local_agent.home.service_catalog import CURATED_SERVICES
from custom_components.local_agent.models import catalog as model_catalog
from custom_components.local_agent.models import store as model_store
from custom_components.local_agent.models.file_checks import ModelFileProblem
from custom_components.local_agent.turn.plain_answer import DoneAction
from custom_components.local_agent.turn.plain_answer import sentence

PACKAGE = Path(__file__).resolve().parents[1] / "custom_components" / "local_agent"
STRINGS: dict[str, Any] = json.loads((PACKAGE / "translations" / "en.json").read_text())
MODEL_ISSUES = ("model_missing", "model_unusable")


def store_error_keys() -> set[str]:
    return {
        cls.key
        for cls in vars(model_store).values()
        if isinstance(cls, type) and issubclass(cls, model_store.ModelStoreError)
    }


def used(pattern: str, *files: str) -> set[str]:
    return {
        match
        for name in files
        for match in re.findall(pattern, (PACKAGE / name).read_text(encoding="utf-8"))
    }


def test_config_flow_errors_and_menu() -> None:
    config = STRINGS["config"]
    problems = {problem.value for problem in ModelFileProblem}
    assert store_error_keys() | problems <= set(config["error"])
    for step in ("user", "reconfigure"):
        assert set(config["step"][step]["menu_options"]) == set(MODEL_MENU)
    for step in (*MODEL_MENU, "confirm_download"):
        assert step in config["step"]
    assert set(config["progress"]) == {
        "download",
        "check_model",
        "load_model",
        "install_runtime",
        "server_list",
        "server_validate",
    }
    # The runtime offer of the first dialog (flows/runtime.py).
    assert set(config["step"]["runtime"]["menu_options"]) == {"install_runtime", "runtime_later"}
    assert "runtime_failed" in config["step"]
    # Offline, the download's dialog offers the other ways, named as in the first menu.
    for step in (key for key in config["step"] if key.startswith("hub_unreachable")):
        offline = config["step"][step]["menu_options"]
        assert set(offline) == set(MODEL_MENU)
        for way in ("local_file", "server"):
            assert offline[way] == config["step"]["user"]["menu_options"][way]
    assert used(r'reason="(\w+)"', "config_flow.py") <= set(config["abort"])
    options = STRINGS["selector"]["known_model"]["options"]
    assert set(options) == {model.key for model in model_catalog.KNOWN_MODELS}


def test_recommended_models_show_file_size_and_memory_alike() -> None:
    """Every entry of the list states both figures, computed as the download step computes them."""
    options = STRINGS["selector"]["known_model"]["options"]
    for model in model_catalog.KNOWN_MODELS:
        ram = model_store.estimate_ram(model.approx_size, ESTIMATED_CONTEXT_SIZE)
        figures = f"{model.approx_size / 1e9:.2f} GB file, about {ram / 1e9:.1f} GB of memory"
        assert options[model.key].endswith(figures), (model.key, figures)


def test_entry_errors_are_translated() -> None:
    keys = used(r'translation_key="(\w+)"', "runtime/local.py", "models/safe_load.py")
    keys |= {problem.value for problem in ModelFileProblem}
    assert keys <= set(STRINGS["exceptions"])


@pytest.mark.parametrize("issue", MODEL_ISSUES)
def test_model_issue_fix_flow(issue: str) -> None:
    flow = STRINGS["issues"][issue]["fix_flow"]
    assert store_error_keys() <= set(flow["error"])
    assert used(r'reason="(\w+)"', "repairs.py") - {"no_wheel", "install_failed"} <= set(
        flow["abort"]
    )
    assert {"init", "redownload", "local_file", "download"} <= set(flow["step"])


def test_issue_keys_exist() -> None:
    issues = STRINGS["issues"]
    raised = used(r'translation_key="(\w+)"', "runtime/issues.py") | {
        "runtime_missing",
        *MODEL_ISSUES,
    }
    assert raised <= set(issues)
    assert {"no_wheel", "install_failed"} <= set(issues["runtime_missing"]["fix_flow"]["abort"])
    for key, issue in issues.items():
        assert "title" in issue, key
        assert ("fix_flow" in issue) != ("description" in issue), key


def test_system_health_labels() -> None:
    source = (PACKAGE / "system_health.py").read_text()
    labels = set(re.findall(r'^\s+"(\w+)": ', source, re.MULTILINE))
    assert labels == set(STRINGS["system_health"]["info"])


def all_message_keys() -> set[str]:
    """Keys of every error, abort, exception and issue message a user can see."""
    config = STRINGS["config"]
    keys = set(config["error"]) | set(config["abort"]) | set(STRINGS["exceptions"])
    for issue_key, issue in STRINGS["issues"].items():
        keys.add(issue_key)
        flow = issue.get("fix_flow", {})
        keys |= set(flow.get("error", {})) | set(flow.get("abort", {}))
    for subentry in STRINGS.get("config_subentries", {}).values():
        keys |= set(subentry.get("error", {})) | set(subentry.get("abort", {}))
    for section in ("error", "abort"):
        keys |= set(STRINGS.get("options", {}).get(section, {}))
    return keys


def test_readme_troubleshooting_names_every_message() -> None:
    readme = (PACKAGE.parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Troubleshooting", 1)[1].split("\n## ", 1)[0]
    missing = {key for key in all_message_keys() if f"`{key}`" not in section}
    assert not missing, f"add these to the README's Troubleshooting section: {sorted(missing)}"


def test_calls_read_in_every_language_the_agent_reads_yes_and_no_in() -> None:
    """Each language's words fill every pattern, and each verb names its targets once."""
    assert {"en", *call_words.WORDS_BY_LANGUAGE} == set(words.LANGUAGES)
    fields = {
        "other_service": {"service": "s", "names": "N"},
        "read_state": {"names": "N"},
        "run": {"names": "N"},
        "run_intent": {"intent": "I", "names": "N"},
        "use": {"label": "L"},
        "use_with": {"label": "L", "arguments": "A"},
        "set_to": {"names": "N", "state": "S"},
        "to_position": {"position": "P"},
        "this_will": {"effects": "E"},
        "when_it_runs": {"effects": "E"},
    }
    for language_words in (call_words.ENGLISH_WORDS, *call_words.WORDS_BY_LANGUAGE.values()):
        for name, values in fields.items():
            text = getattr(language_words, name).format(**values)
            assert all(value in text for value in values.values()), (name, text)
        for key, verb in language_words.verbs.items():
            assert verb.count("{names}") == 1, key
            assert "{" not in verb.format(names="N"), key
        for key, pattern in (
            (key, pattern)
            for key, patterns in language_words.with_fields.items()
            for pattern in patterns
        ):
            assert pattern.count("{names}") == 1, key
            named = set(re.findall(r"\{(\w+)\}", pattern)) - {"names"}
            assert named, key
            assert "{" not in pattern.format(names="N", **dict.fromkeys(named, "F")), key
        for service, pair in language_words.switched.items():
            assert service in call_texts.SWITCH_FIELDS
            assert pair[0] != pair[1], service
            for text in pair:
                assert text.count("{names}") == 1, service
                named = set(re.findall(r"\{(\w+)\}", text)) - {"names"}
                assert "{" not in text.format(names="N", **dict.fromkeys(named, "F")), service


def test_every_service_our_tools_offer_reads_in_every_language() -> None:
    """No call is said with its English service name inside another language's sentence
    (English itself reads a service's name as its words: "turn on", "set temperature")."""
    english = call_words.ENGLISH_WORDS
    german = call_words.WORDS_BY_LANGUAGE["de"]
    offered = {
        (domain, service) for domain, services in CURATED_SERVICES.items() for service in services
    }
    for language_words in call_words.WORDS_BY_LANGUAGE.values():
        assert english.verbs.keys() <= language_words.verbs.keys()
        # English questions keep the fields' names for the audit; the others say them all.
        assert language_words.with_fields.keys() >= english.with_fields.keys()
        assert language_words.with_fields.keys() == german.with_fields.keys()
        assert language_words.switched.keys() == english.switched.keys()
        missing = {
            f"{domain}.{service}"
            for domain, service in offered
            if (domain, service) not in language_words.verbs
            and (None, service) not in language_words.verbs
        }
        assert not missing


def _leaves(tree: Any, path: str = "") -> dict[str, Any]:
    if isinstance(tree, dict):
        return {
            key: value
            for name, child in tree.items()
            for key, value in _leaves(child, f"{path}/{name}").items()
        }
    return {path: tree}


LANGUAGE_FILES = sorted((PACKAGE / "translations").glob("*.json"))


def test_the_agent_is_translated_into_every_language_it_reads_yes_and_no_in() -> None:
    assert {path.stem for path in LANGUAGE_FILES} == set(words.LANGUAGES)


@pytest.mark.parametrize("path", LANGUAGE_FILES, ids=lambda path: path.stem)
def test_a_translation_has_every_text_with_the_same_placeholders(path: Path) -> None:
    """Same keys as English, and each text fills the same placeholders (a missing one would
    raise when the sentence is said)."""
    english = _leaves(STRINGS)
    translated = _leaves(json.loads(path.read_text(encoding="utf-8")))
    assert set(translated) == set(english)
    for key, text in english.items():
        placeholders = re.findall(r"\{\w*\}", translated[key])
        assert sorted(placeholders) == sorted(re.findall(r"\{\w*\}", text)), key
        # A brace outside a placeholder breaks str.format and the frontend's formatjs alike.
        braces = translated[key].count("{") + translated[key].count("}")
        assert braces == 2 * len(placeholders), key
        assert "'{" not in translated[key], key  # formatjs would quote the placeholder away


@pytest.mark.parametrize("path", LANGUAGE_FILES, ids=lambda path: path.stem)
def test_a_hub_cause_the_system_named_is_said_in_the_dialogs_words(path: Path) -> None:
    """ "[Errno -2] Name or service not known" stood inside the sentence in every language:
    where the cause is known it is said in the language, the system's words go to the log."""
    texts = _leaves(json.loads(path.read_text(encoding="utf-8")))
    causes = {key for key in store_error_keys() if key.startswith("hub_unreachable_")}
    assert causes == {
        f"hub_unreachable_{why}" for why in ("refused", "unknown_host", "timed_out", "tls")
    }
    said = {
        key: text
        for key, text in texts.items()
        if {*key.split("/")[-2:]} & {*causes, "download_interrupted"}
    }
    # Each cause: a step of the dialog (title, description) and an error in three places.
    assert len(said) >= 4 * 5
    assert all("{error}" not in text for text in said.values())


@pytest.mark.parametrize("path", LANGUAGE_FILES, ids=lambda path: path.stem)
def test_the_question_asks_for_the_yes_the_agent_reads(path: Path) -> None:
    question = json.loads(path.read_text(encoding="utf-8"))["exceptions"]["confirm_question"]
    assert words.YES_WORD[path.stem] in question["message"].casefold()


@pytest.mark.parametrize("path", LANGUAGE_FILES, ids=lambda path: path.stem)
def test_an_error_that_names_a_choice_names_one_its_dialog_offers(path: Path) -> None:
    """'choose "…"' must quote a menu option of the same flow, word for word."""
    strings = json.loads(path.read_text(encoding="utf-8"))
    flows = [strings["config"]] + [
        issue["fix_flow"] for issue in strings["issues"].values() if "fix_flow" in issue
    ]
    checked = 0
    for flow in flows:
        offered = {
            label
            for step in flow.get("step", {}).values()
            for label in step.get("menu_options", {}).values()
        }
        for key in ("hub_offline", "repo_gated"):
            if key not in flow.get("error", {}):
                continue
            quoted = re.findall(r"[\"„«“]\s?([^\"„«“”»]+?)\s?[\"“”»]", flow["error"][key])
            assert quoted, key
            assert quoted[-1] in offered, (key, quoted[-1])
            checked += 1
    assert checked >= 2


# A value for each field our tools offer, in no language: what is said around it is the test.
FIELD_VALUES: dict[str, Any] = {
    "activity": "Zq",
    "away_mode": True,
    "brightness_pct": 40,
    "brightness_step_pct": -20,
    "cleaning_area_id": ["Zq"],
    "color_name": "Zq",
    "color_temp_kelvin": 2700,
    "date": "2026-12-24",
    "datetime": "2026-12-24 07:15:00",
    "direction": "Zq",
    "effect": "Zq",
    "duration": "00:05:00",
    "fan_mode": "Zq",
    "fan_speed": "Zq",
    "humidity": 45,
    "hvac_mode": "Zq",
    "is_volume_muted": True,
    "item": "Zq",
    "message": "Zq",
    "mode": "Zq",
    "operation_mode": "Zq",
    "option": "Zq",
    "oscillating": False,
    "percentage": 50,
    "position": 30,
    "preset_mode": "Zq",
    "rename": "Zq",
    "repeat": "Zq",
    "shuffle": True,
    "sound_mode": "Zq",
    "source": "Zq",
    "status": "completed",
    "swing_horizontal_mode": "Zq",
    "swing_mode": "Zq",
    "target_temp_high": 23,
    "target_temp_low": 19.5,
    "temperature": 21.5,
    "time": "06:30:00",
    "tilt_position": 30,
    "title": "Zq",
    "tone": "Zq",
    "transition": 5,
    "value": 21.5,
    "volume_level": 0.3,
}
LETTERS = re.compile(r"[^\W\d_]+")


def _vocabulary(tree: Any) -> set[str]:
    """Every word a language's call words hold."""
    return {word for text in _leaves(tree).values() for word in LETTERS.findall(str(text))}


@pytest.mark.parametrize("language", sorted(call_words.WORDS_BY_LANGUAGE))
def test_no_english_field_or_service_word_is_said_in_another_language(language: str) -> None:
    """Each action our tools offer, with none, each and all of its fields: every word of what
    the agent says (the question and the answer read the same words) is the language's own."""
    entry = json.loads((PACKAGE / "home" / "call_words.json").read_text(encoding="utf-8"))
    known = _vocabulary(entry[language]) | {"Zq", "K", "s"}
    leaks = {}
    for domain, services in CURATED_SERVICES.items():
        for service, names in services.items():
            offered = [(name, FIELD_VALUES[name]) for name in names if name != "code"]
            # A to-do item is named by every call on one (the service requires it).
            item = [field for field in offered if field[0] == "item"]
            for chosen in [[], *([field] for field in offered), offered, [("transition", 5)]]:
                fields = (*item, *(field for field in chosen if field not in item))
                said = sentence([DoneAction(domain, service, ("Zq",), fields)], language)
                if unknown := set(LETTERS.findall(said)) - known:
                    leaks[f"{domain}.{service} {dict(fields)}"] = (said, sorted(unknown))
    assert not leaks, leaks


# What a phone (390 px wide) shows of a menu option on its one line: Home Assistant cuts the
# rest ("Descargar cualquier archivo GGUF de Hug…"). The step's description says the detail.
PHONE_MENU_CHARACTERS = 36


def _menu_options(tree: Any, path: str = "") -> dict[str, str]:
    if not isinstance(tree, dict):
        return {}
    options = {f"{path}/{key}": label for key, label in tree.get("menu_options", {}).items()}
    for name, child in tree.items():
        if name != "menu_options":
            options |= _menu_options(child, f"{path}/{name}")
    return options


@pytest.mark.parametrize("path", LANGUAGE_FILES, ids=lambda path: path.stem)
def test_every_menu_option_fits_one_line_on_a_phone(path: Path) -> None:
    options = _menu_options(json.loads(path.read_text(encoding="utf-8")))
    too_long = {key: label for key, label in options.items() if len(label) > PHONE_MENU_CHARACTERS}
    assert len(options) >= 20
    assert not too_long
