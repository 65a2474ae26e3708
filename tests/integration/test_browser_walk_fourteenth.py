"""What a fourteenth walk in a real browser found wrong (pipelines, automations, the entry)."""

from __future__ import annotations

from pathlib import Path
import re
import shutil
import subprocess
from typing import Any

import pytest

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.runtime.issues import GONE_AGENT_ISSUE
from homeassistant.components.assist_pipeline import async_get_pipelines
from homeassistant.components.assist_pipeline import async_update_pipeline
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import EVENT_CALL_SERVICE
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
from homeassistant.util.yaml import load_yaml_dict

from .conftest import async_setup_agent
from .conftest import speech
from .flow_helpers import translation
from .scene import Scene
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .test_browser_walk_thirteenth import LANGUAGES
from .test_local_intents import add_pipeline

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def pipelines(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "assist_pipeline", {})


def test_the_development_home_runs_what_the_automation_editor_saves(tmp_path: Path) -> None:
    """scripts/develop's home loads the editors' files: "Run actions" works on a fresh machine.

    Without `automation:` in configuration.yaml an automation saved in the editor never became
    an entity, so "Run actions" stayed greyed out; a missing included file would stop Home
    Assistant, so scripts/develop creates the empty files first (and keeps saved ones).
    """
    shutil.copy(ROOT / "config/configuration.yaml", tmp_path / "configuration.yaml")
    (tmp_path / "automations.yaml").write_text("- id: kept\n  alias: Kept\n  actions: []\n")
    subprocess.run([ROOT / "scripts/lib/dev_config.sh", tmp_path], check=True)

    config = load_yaml_dict(tmp_path / "configuration.yaml")

    assert config["automation"] == [{"id": "kept", "alias": "Kept", "actions": []}]
    assert config["script"] == {}
    assert config["scene"] == []
    develop = (ROOT / "scripts/develop").read_text(encoding="utf-8")
    assert "scripts/lib/dev_config.sh config" in develop


async def test_deleting_the_agent_of_an_assistant_says_which_assistant_lost_it(
    hass: HomeAssistant, pipelines: None, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    """Deleted while an Assist pipeline used it, an agent left Assist saying only "Oops".

    The walk deleted the agent subentry of the pipeline it had just made: Assist answered
    every request with "Oops, an error has occurred", nothing in the log said why. A repair
    now names the assistant; it goes once the assistant has an agent again.
    """
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    await add_pipeline(hass, "Kitchen voice", agent.entity_id, prefer_local=False)
    await add_pipeline(hass, "Built-in", "conversation.home_assistant", prefer_local=False)
    assert gone_agent_issue(hass) is None
    subentry_id = next(iter(agent.entry.subentries))

    assert hass.config_entries.async_remove_subentry(agent.entry, subentry_id)
    await hass.async_block_till_done()

    raised = gone_agent_issue(hass)
    assert raised is not None
    assert raised.translation_placeholders == {"pipelines": "Kitchen voice"}
    assert not raised.is_fixable
    kitchen = next(p for p in async_get_pipelines(hass) if p.name == "Kitchen voice")
    await async_update_pipeline(hass, kitchen, conversation_engine="conversation.home_assistant")
    await hass.async_block_till_done()
    assert gone_agent_issue(hass) is None


async def test_an_assistant_keeps_its_agent_when_the_agents_entity_id_is_changed(
    hass: HomeAssistant, pipelines: None, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    """The entity settings dialog lets the person change the agent's entity id; core's
    pipelines kept the old one, and Assist answered "Oops, an error has occurred"."""
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    await add_pipeline(hass, "Kitchen voice", agent.entity_id, prefer_local=False)
    await add_pipeline(hass, "Built-in", "conversation.home_assistant", prefer_local=False)

    er.async_get(hass).async_update_entity(agent.entity_id, new_entity_id="conversation.butler")
    await hass.async_block_till_done()

    engines = {p.name: p.conversation_engine for p in async_get_pipelines(hass)}
    assert engines["Kitchen voice"] == "conversation.butler"
    assert engines["Built-in"] == "conversation.home_assistant"
    assert gone_agent_issue(hass) is None


async def test_another_integrations_renamed_agent_is_left_to_it(
    hass: HomeAssistant, pipelines: None, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    """Only an entity of ours is followed, by its registry entry, never by its id."""
    await async_setup_agent(hass, scripted_worker.info.path)
    registry = er.async_get(hass)
    other = registry.async_get_or_create("conversation", "other", "x1", suggested_object_id="x")
    await add_pipeline(hass, "Other", other.entity_id, prefer_local=False)

    registry.async_update_entity(other.entity_id, new_entity_id="conversation.y")
    await hass.async_block_till_done()

    engines = {p.name: p.conversation_engine for p in async_get_pipelines(hass)}
    assert engines["Other"] == other.entity_id


async def test_an_assistant_of_an_agent_that_never_was_ours_raises_nothing(
    hass: HomeAssistant, pipelines: None, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    """Only an agent of ours that was deleted counts, never an entity id that looks like one."""
    await async_setup_agent(hass, scripted_worker.info.path)
    await add_pipeline(hass, "Typo", "conversation.local_agent_nothing", prefer_local=False)

    assert gone_agent_issue(hass) is None


def gone_agent_issue(hass: HomeAssistant) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, GONE_AGENT_ISSUE)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_gone_agent_issue_is_said_in_every_language(language: str) -> None:
    issue = translation(language)["issues"][GONE_AGENT_ISSUE]
    english = translation("en")["issues"][GONE_AGENT_ISSUE]

    assert set(issue) == {"title", "description"}
    assert "{pipelines}" in issue["description"]
    if language != "en":
        assert issue["description"] != english["description"]


# Home Assistant's own names of the places our texts send people to, per language (its frontend
# 20260930 translations): the sidebar's Settings, the settings pages and their tabs; then an
# entry menu's Configure and Reconfigure.
UI_NAMES: dict[str, tuple[tuple[str, ...], tuple[str, str]]] = {
    "en": (("Settings", "Devices & services", "Voice assistants", "Repairs", "Expose",
            "Entities", "System", "Logs"), ("Configure", "Reconfigure")),
    "de": (("Einstellungen", "Geräte & Dienste", "Sprachassistenten", "Reparaturen",
            "Verfügbarkeit", "Entitäten", "System", "Protokolle"),
           ("Konfigurieren", "Neu konfigurieren")),
    "fr": (("Paramètres", "Appareils et services", "Assistants vocaux", "Corrections",
            "Exposer", "Entités", "Système", "Journaux"), ("Configurer", "Reconfigurer")),
    "es": (("Configuración", "Dispositivos y servicios", "Asistentes de voz", "Reparaciones",
            "Exponer", "Entidades", "Sistema", "Registros"), ("Configurar", "Reconfigurar")),
    "it": (("Impostazioni", "Dispositivi e servizi", "Assistenti vocali", "Riparazioni",
            "Esponi", "Entità", "Sistema", "Registri"), ("Configura", "Riconfigura")),
    "nl": (("Instellingen", "Apparaten en diensten", "Spraakassistenten", "Reparaties",
            "Ontsluit", "Entiteiten", "Systeem", "Logboeken"),
           ("Configureer", "Herconfigureer")),
    "pt": (("Configuração", "Dispositivos & serviços", "Assistentes de voz", "Correções",
            "Expor", "Entidades", "Sistema", "Logs"), ("Configurar", "Reconfigurar")),
}  # fmt: skip
STEP = re.compile(r" (?:>|→) ")


def _texts(tree: Any) -> list[str]:
    if isinstance(tree, dict):
        return [text for value in tree.values() for text in _texts(value)]
    return [tree] if isinstance(tree, str) else []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_way_to_a_page_uses_home_assistants_own_names(language: str) -> None:
    """A text that says where to click names each step as Home Assistant shows it.

    The Spanish walk was told "Ajustes > Asistentes de voz" where the sidebar says
    "Configuración"; Portuguese said "Definições", Dutch and German named an Expose tab
    ("Blootstellen", "Freigeben") that their Home Assistant calls "Ontsluit", "Verfügbarkeit".
    """
    names, entry_menu = UI_NAMES[language]
    pages = (*names, "Local Agent")
    wrong = []
    for text in _texts(translation(language)):
        for step in STEP.finditer(text):
            before, after = text[: step.start()], text[step.end() :]
            if after.startswith(entry_menu) and not after.startswith(pages):
                continue  # an entry's menu: "(the model entry > Configure)"
            if not after.startswith(pages) or not before.endswith(pages):
                wrong.append(text[max(0, step.start() - 25) : step.end() + 25])
    assert wrong == []


# Home Assistant's label of the pipeline switch, as its assistant dialog shows it (frontend
# 20260930 translations).
PREFER_LOCAL_LABEL: dict[str, str] = {
    "en": "Prefer handling commands locally",
    "de": "Lokale Verarbeitung von Befehlen bevorzugen",
    "fr": "Préférer gérer les commandes localement",
    "es": "Preferir manejar comandos localmente",
    "it": "Preferire la gestione dei comandi in locale",
    "nl": "Handel bij voorkeur de opdrachten lokaal af",
    "pt": "Preferir tratar comandos localmente",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_prefer_local_repair_names_the_switch_as_the_assistant_dialog_does(
    language: str,
) -> None:
    """The Spanish repair said "Preferir gestionar comandos localmente"; the switch in the
    assistant's dialog reads "Preferir manejar comandos localmente" (German, Dutch and
    Portuguese differed too), so the person could not find what to turn off."""
    texts = _texts(translation(language))
    english = _texts(translation("en"))
    label = PREFER_LOCAL_LABEL[language]

    assert label in translation(language)["issues"]["prefer_local_intents"]["title"]
    quoted = sum(text.count(label) for text in texts)
    assert quoted == sum(text.count(PREFER_LOCAL_LABEL["en"]) for text in english)


@pytest.mark.parametrize(
    ("language", "yes", "said"),
    [
        ("en", "yes", "I could not finish: unlock Stuck Door \u2013 Stuck Door: now jammed."),
        (
            "de",
            "ja",
            "Das hat nicht geklappt: Stuck Door aufschließen \u2013 Stuck Door: jetzt verklemmt.",
        ),
    ],
)
async def test_a_lock_that_jams_at_the_yes_is_not_said_to_be_still_jammed(
    hass: HomeAssistant,
    scene: Scene,
    quick_settle: None,
    language: str,
    yes: str,
    said: str,
) -> None:
    """The walk's "Poorly Installed Door", locked at the yes, jammed; the agent answered that
    it "is still jammed", which it had never been. "Still" only for a state it kept."""
    async_expose_entity(hass, "conversation", "lock.stuck_door", True)
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("lock", action="unlock", entity_id="lock.stuck_door"))
    question = await agent.ask("unlock the stuck door", context=scene.person, language=language)

    @callback
    def jam(event: Event[Any]) -> None:
        if event.data["domain"] == "lock":
            door = hass.states.get("lock.stuck_door")
            assert door is not None
            hass.states.async_set("lock.stuck_door", "jammed", door.attributes)

    hass.bus.async_listen(EVENT_CALL_SERVICE, jam)
    done = await scene.reply(agent, question, yes, language=language)

    assert speech(done) == said
    assert scene.audit[-1]["reason"] == "Stuck Door is jammed"
