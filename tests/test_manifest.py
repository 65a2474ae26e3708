"""manifest.json and hacs.json carry every key HACS and hassfest require, and nothing else."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
import re

from awesomeversion import AwesomeVersion

ROOT = Path(__file__).parent.parent
INTEGRATION = ROOT / "custom_components" / "local_agent"

# hassfest's manifest schema for custom integrations (script/hassfest/manifest.py).
MANIFEST_REQUIRED = {
    "domain",
    "name",
    "codeowners",
    "documentation",
    "issue_tracker",
    "version",
    "config_flow",
    "dependencies",
    "after_dependencies",
    "integration_type",
    "iot_class",
    "requirements",
}
MANIFEST_ALLOWED = MANIFEST_REQUIRED | {
    "bluetooth",
    "dhcp",
    "homekit",
    "loggers",
    "mqtt",
    "quality_scale",
    "single_config_entry",
    "ssdp",
    "usb",
    "zeroconf",
    "import_executor",
    "disabled",
}
IOT_CLASSES = {
    "assumed_state",
    "cloud_polling",
    "cloud_push",
    "local_polling",
    "local_push",
    "calculated",
}
# HACS' hacs.json schema (hacs/utils/validate.py).
HACS_ALLOWED = {
    "name",
    "content_in_root",
    "zip_release",
    "filename",
    "hide_default_branch",
    "country",
    "homeassistant",
    "hacs",
    "persistent_directory",
    "render_readme",
}


def test_manifest_has_exactly_the_required_keys() -> None:
    manifest = json.loads((INTEGRATION / "manifest.json").read_text())

    assert manifest.keys() >= MANIFEST_REQUIRED, MANIFEST_REQUIRED - manifest.keys()
    assert manifest.keys() <= MANIFEST_ALLOWED, manifest.keys() - MANIFEST_ALLOWED
    assert manifest["domain"] == "local_agent" == INTEGRATION.name
    assert manifest["name"] == "Local Agent"
    assert manifest["config_flow"] is True
    assert manifest["dependencies"] == ["conversation"]
    assert manifest["after_dependencies"] == ["assist_pipeline", "intent"]
    assert manifest["integration_type"] == "service"
    assert manifest["iot_class"] in IOT_CLASSES
    assert AwesomeVersion(manifest["version"]).valid
    assert all(owner.startswith("@") for owner in manifest["codeowners"])
    assert manifest["documentation"].startswith("https://")
    assert manifest["issue_tracker"].startswith("https://")
    assert all(re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[\w.]+", r) for r in manifest["requirements"])


def test_manifest_keys_are_sorted_as_hassfest_wants() -> None:
    keys = list(json.loads((INTEGRATION / "manifest.json").read_text()))
    assert keys[:2] == ["domain", "name"]
    assert keys[2:] == sorted(keys[2:])


def test_hacs_json_is_valid() -> None:
    hacs = json.loads((ROOT / "hacs.json").read_text())

    assert "name" in hacs
    assert hacs.keys() <= HACS_ALLOWED, hacs.keys() - HACS_ALLOWED
    assert AwesomeVersion(hacs["homeassistant"]).valid


def test_translations_cover_every_config_flow_error() -> None:
    strings = json.loads((INTEGRATION / "translations" / "en.json").read_text())
    source = (INTEGRATION / "models" / "file_checks.py").read_text()
    keys = re.findall(r'= "(model_[a-z_]+)"', source)

    assert keys
    for key in keys:
        assert key in strings["config"]["error"]
        assert key in strings["exceptions"]


def test_minimum_version_is_the_tested_one() -> None:
    """hacs.json's minimum and the README's requirement are the release the suite runs on."""
    tested = importlib.metadata.version("homeassistant")
    hacs = json.loads((ROOT / "hacs.json").read_text())
    assert hacs["homeassistant"] == tested
    readme = (ROOT / "README.md").read_text()
    assert f"- Home Assistant **{tested}** or newer" in readme
    assert f"Tested on {tested} (the whole pytest" in readme
