"""What a fourteenth walk in a real browser found wrong (pipelines, automations, the entry)."""

from __future__ import annotations

from pathlib import Path
import shutil
import subprocess

import pytest

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.runtime.issues import GONE_AGENT_ISSUE
from homeassistant.components.assist_pipeline import async_get_pipelines
from homeassistant.components.assist_pipeline import async_update_pipeline
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
from homeassistant.util.yaml import load_yaml_dict

from .conftest import async_setup_agent
from .scripted_model import ScriptedWorker
from .test_browser_walk_thirteenth import LANGUAGES
from .test_browser_walk_thirteenth import translation
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
