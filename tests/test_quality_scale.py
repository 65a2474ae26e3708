"""brand/icon.png and quality_scale.yaml are what Home Assistant and HACS expect."""

from __future__ import annotations

from pathlib import Path

from PIL import Image
import yaml

PACKAGE = Path(__file__).resolve().parents[1] / "custom_components" / "local_agent"
RULES = {
    # bronze
    "action-setup", "appropriate-polling", "brands", "common-modules",
    "config-flow-test-coverage", "config-flow", "dependency-transparency", "docs-actions",
    "docs-high-level-description", "docs-installation-instructions",
    "docs-removal-instructions", "entity-event-setup", "entity-unique-id", "has-entity-name",
    "runtime-data", "test-before-configure", "test-before-setup", "unique-config-entry",
    # silver
    "action-exceptions", "config-entry-unloading", "docs-configuration-parameters",
    "docs-installation-parameters", "entity-unavailable", "integration-owner",
    "log-when-unavailable", "parallel-updates", "reauthentication-flow", "test-coverage",
    # gold
    "devices", "diagnostics", "discovery-update-info", "discovery", "docs-data-update",
    "docs-examples", "docs-known-limitations", "docs-supported-devices",
    "docs-supported-functions", "docs-troubleshooting", "docs-use-cases", "dynamic-devices",
    "entity-category", "entity-device-class", "entity-disabled-by-default",
    "entity-translations", "exception-translations", "icon-translations",
    "reconfiguration-flow", "repair-issues", "stale-devices",
    # platinum
    "async-dependency", "inject-websession", "strict-typing",
}  # fmt: skip


def test_brand_icon_is_a_256_pixel_square_png() -> None:
    with Image.open(PACKAGE / "brand" / "icon.png") as icon:
        assert (icon.format, icon.size) == ("PNG", (256, 256))
    with Image.open(PACKAGE / "brand" / "icon@2x.png") as icon:
        assert icon.size == (512, 512)


def test_quality_scale_states_every_rule() -> None:
    rules = yaml.safe_load((PACKAGE / "quality_scale.yaml").read_text())["rules"]
    assert set(rules) == RULES
    for name, rule in rules.items():
        status = rule if isinstance(rule, str) else rule["status"]
        assert status in ("done", "todo", "exempt"), name
        if status != "done":
            assert isinstance(rule, dict), name
            assert rule.get("comment"), f"{name}: say why"
