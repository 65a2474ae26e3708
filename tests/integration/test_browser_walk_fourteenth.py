"""What a fourteenth walk in a real browser found wrong (pipelines, automations, the entry)."""

from __future__ import annotations

from pathlib import Path
import shutil
import subprocess

from homeassistant.util.yaml import load_yaml_dict

ROOT = Path(__file__).resolve().parents[2]


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
