# shellcheck shell=bash
# A venv with the newest Home Assistant release from PyPI, for the real-Home-Assistant smoke
# test (scripts/smoke). pytest-homeassistant-custom-component lags behind Home Assistant's
# releases (and pins one version), so the newest release is tested by starting its `hass`.
# Cached per version in $CACHE/hass-venvs/<version>; a new release makes a new venv.
# Sourced after scripts/lib/python.sh.

# What the llama_cpp package imports (the package itself is copied in by the smoke test, hidden
# at first).
HASS_VENV_EXTRA=(numpy diskcache)
# Integrations the smoke test configures besides local_agent (configuration.yaml in
# scripts/smoke.py); with Home Assistant's default ones, their requirements are installed here,
# so that `hass` installs nothing when it starts.
HASS_SMOKE_INTEGRATIONS=(onboarding config conversation repairs diagnostics)

# Prints the newest homeassistant version on the package index; fails without a network.
newest_hass_version() {
  local python="$1" out
  out=$(PIP_DISABLE_PIP_VERSION_CHECK=1 timeout 60 "$python" -m pip index versions homeassistant 2>/dev/null) || return 1
  # "homeassistant (2026.11.0)"
  sed -n 's/^homeassistant (\([^)]*\))$/\1/p' <<<"$out" | head -n 1 | grep . || return 1
}

# Prints the newest venv already made, if any (for a machine that is offline now).
newest_cached_hass_venv() {
  local cache="$1"
  { find "$cache/hass-venvs" -mindepth 2 -maxdepth 2 -name .complete -printf '%h\n' 2>/dev/null \
    || true; } | sort -V | tail -n 1
}

# Prints the manifest's requirements, one a line.
manifest_requirements() {
  local python="$1" root="$2"
  "$python" -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["requirements"]))' \
    "$root/custom_components/local_agent/manifest.json"
}

# Prints the requirements of the integrations Home Assistant sets up at every start plus the
# given ones, with their dependencies (read from the manifests of the installed release, as
# homeassistant/requirements.py follows them), and
# those of its auth modules (installed at start, before any integration).
hass_requirements() {
  local venv_python="$1"
  shift
  "$venv_python" - "$@" <<'EOF'
import ast
import json
import pathlib
import sys

from homeassistant import bootstrap
from homeassistant.requirements import DISCOVERY_INTEGRATIONS

package = pathlib.Path(bootstrap.__file__).parent
components = package / "components"
todo = [*bootstrap.CORE_INTEGRATIONS, *bootstrap.DEFAULT_INTEGRATIONS, *sys.argv[1:]]
seen = set()
requirements = set()
while todo:
    domain = todo.pop()
    manifest_path = components / domain / "manifest.json"
    if domain in seen or not manifest_path.is_file():
        continue
    seen.add(domain)
    manifest = json.loads(manifest_path.read_text())
    requirements.update(manifest.get("requirements", []))
    # As Home Assistant's requirements manager: after_dependencies and discovery integrations too.
    todo.extend(manifest.get("dependencies", []))
    todo.extend(manifest.get("after_dependencies", []))
    todo.extend(
        check for check, keys in DISCOVERY_INTEGRATIONS.items() if any(k in manifest for k in keys)
    )
for module in (package / "auth").rglob("*.py"):
    for node in ast.parse(module.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "REQUIREMENTS" for target in node.targets
        ):
            requirements.update(ast.literal_eval(node.value))
print("\n".join(sorted(requirements)))
EOF
}

# provide_hass_venv CACHE PYTHON ROOT VERSION: makes (once) and prints the venv's directory.
# Under a lock: two checkouts set up or tested at once on one machine share the cache.
provide_hass_venv() {
  mkdir -p "$1/hass-venvs"
  (
    flock 9
    _provide_hass_venv "$@"
  ) 9>"$1/hass-venvs/.$4.lock"
}

_provide_hass_venv() {
  local cache="$1" python="$2" root="$3" version="$4"
  local venv="$cache/hass-venvs/$version"
  local stamp
  stamp=$( {
    manifest_requirements "$python" "$root"
    echo "${HASS_SMOKE_INTEGRATIONS[*]} ${HASS_VENV_EXTRA[*]}"
    declare -f hass_requirements _provide_hass_venv  # the recipe
  } | sha256sum | cut -c1-16)
  if [ -f "$venv/.complete" ] && [ "$(cat "$venv/.complete")" = "$stamp" ] \
    && python_is_suitable "$venv/bin/python"; then
    echo "$venv"
    return 0
  fi
  echo "==> Making a venv with homeassistant $version in $venv (once per release: a few minutes)" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv --without-pip "$venv"
  bootstrap_venv_pip "$venv/bin/python" "$python" >&2
  local log="$venv/.install.log" site constraints
  # Two C extensions (pymicro-vad, pyspeex-noise) may compile against this interpreter's headers.
  if ! "$venv/bin/python" -m pip install --progress-bar off "homeassistant==$version" >"$log" 2>&1; then
    grep -E '^(ERROR|error)|fatal error' "$log" | tail -n 20 >&2 || true
    echo "Installing homeassistant $version failed; the whole log: $log" >&2
    return 1
  fi
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  constraints="$site/homeassistant/package_constraints.txt"
  local requirements
  requirements=$(
    printf '%s\n' "${HASS_VENV_EXTRA[@]}"
    hass_requirements "$venv/bin/python" "${HASS_SMOKE_INTEGRATIONS[@]}"
  ) || return 1
  # Then the manifest's requirements on their own, as Home Assistant installs them when it loads
  # the integration (one integration at a time: no joint resolution with other integrations').
  # shellcheck disable=SC2086
  if ! "$venv/bin/python" -m pip install --progress-bar off -c "$constraints" \
    $requirements >>"$log" 2>&1 \
    || ! "$venv/bin/python" -m pip install --progress-bar off -c "$constraints" \
      $(manifest_requirements "$python" "$root") >>"$log" 2>&1; then
    grep -E '^(ERROR|error)|fatal error|depends on' "$log" | tail -n 20 >&2 || true
    echo "Installing the integrations' requirements failed; the whole log: $log" >&2
    return 1
  fi
  echo "$stamp" >"$venv/.complete"
  echo "$venv"
}
