#!/usr/bin/env bash
# Prepares the config folder of scripts/develop: the files configuration.yaml includes for the
# automation, script and scene editors (Settings > Automations & scenes). Home Assistant stops
# at a missing !include file, and without these integrations the editors cannot run anything.
# Existing files (what the editors saved) are kept.
#
# Usage: scripts/lib/dev_config.sh CONFIG_DIR
set -euo pipefail
config=$1
mkdir -p "$config"
[ -e "$config/automations.yaml" ] || echo "[]" > "$config/automations.yaml"
[ -e "$config/scripts.yaml" ] || echo "{}" > "$config/scripts.yaml"
[ -e "$config/scenes.yaml" ] || echo "[]" > "$config/scenes.yaml"
