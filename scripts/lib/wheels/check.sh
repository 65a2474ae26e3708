# shellcheck shell=bash
# scripts/wheels --check: proves the built wheels here. Each check that lacks what it needs
# (a wheel not built, no musl CPython, no qemu) says so and is skipped; any check that runs and
# fails makes the whole run fail.
#
#   * every wheel: auditwheel's verdict on its tag, and what its libraries import from the system
#   * musllinux x86_64: pip installs it into a musl CPython (dependencies from PyPI's musllinux
#     wheels); our load check (engine/local/probe.py) and a short generation of the qwen35 test
#     model, with the CPU variant ggml chose; then the lowest variant forced, generating again
#   * musllinux aarch64: the same under qemu-aarch64 as a Pi 4 (cortex-a72), a Pi 5
#     (cortex-a76) and the newest ARM CPU qemu knows (max)
#   * manylinux x86_64: installed into a throw-away venv over the project's packages, running
#     the engine tests (tests/engine) on it, then again with a lower CPU variant forced

WHEELS_CHECK_FAILED=0
WHEELS_CHECK_SKIPPED=0
PROBE="custom_components/local_agent/engine/local/probe.py"

check_failed() { echo "FAILED: $*" >&2; WHEELS_CHECK_FAILED=$((WHEELS_CHECK_FAILED + 1)); }
check_skipped() { echo "skipped: $*" >&2; WHEELS_CHECK_SKIPPED=$((WHEELS_CHECK_SKIPPED + 1)); }

# qwen35_test_model: the generated test model's path (made once, cached in LOCAL_AGENT_CACHE).
qwen35_test_model() {
  "$ROOT/.venv/bin/python" -c "from testing.model_files import ensure_qwen35_test_model as m; print(m())"
}

# tag_within FOUND PLATFORM: whether auditwheel's tag FOUND allows at least every machine
# PLATFORM names: the same tag, or the same libc and architecture at an older or equal libc
# version (a wheel that needs only glibc 2.27 is a sound manylinux_2_28 wheel).
# gemma_test_model: the Gemma 270M test file. Its attention keys fill whole q8_0 blocks (the
# qwen35 test model's do not, so its load check keeps 16-bit keys): the check of 8-bit keys,
# the engine's default on a CPU, loads it.
gemma_test_model() {
  "$ROOT/.venv/bin/python" -c "from testing.model_files import ensure_gemma_model as m; print(m())"
}

# check_eight_bit_keys PLATFORM REPORT: the probe's report shows the keys it was asked for.
check_eight_bit_keys() {
  [ "$(json_field "$2" key_cache)" = q8_0 ] || check_failed "$1: the probe did not keep 8-bit keys"
}

tag_within() {
  local found="$1" platform="$2"
  [ -n "$found" ] || return 1
  [ "$found" = "$platform" ] && return 0
  local pattern='^(manylinux|musllinux)_([0-9]+)_([0-9]+)_(.+)$'
  [[ "$found" =~ $pattern ]] || return 1
  local libc="${BASH_REMATCH[1]}" major="${BASH_REMATCH[2]}" minor="${BASH_REMATCH[3]}" arch="${BASH_REMATCH[4]}"
  [[ "$platform" =~ $pattern ]] || return 1
  [ "$libc" = "${BASH_REMATCH[1]}" ] && [ "$arch" = "${BASH_REMATCH[4]}" ] || return 1
  [ "$major" -lt "${BASH_REMATCH[2]}" ] && return 0
  [ "$major" -eq "${BASH_REMATCH[2]}" ] && [ "$minor" -le "${BASH_REMATCH[3]}" ]
}

# check_wheel_files PLATFORM: auditwheel and the symbol check.
check_wheel_files() {
  local platform="$1" wheel libc=() report
  wheel=$(wheel_path "$platform")
  report=$(auditwheel show "$wheel" 2>&1) || true
  echo "$report" | sed 's/^/    auditwheel: /' >&2
  local found
  found=$(echo "$report" | tr '\n' ' ' \
    | sed -n 's/.*consistent with the following platform tag:[[:space:]]*"\([^"]*\)".*/\1/p')
  if ! tag_within "$found" "$platform"; then
    check_failed "$platform: auditwheel does not confirm the tag $platform (it found: ${found:-none})"
  fi
  if [[ "$platform" == musllinux* ]]; then
    local arch
    arch=$(platform_arch "$platform")
    if [ ! -x "$(musl_loader "$arch")" ]; then
      check_skipped "$platform symbols: no musl libc for $arch (scripts/wheels --check builds it)"
      return 0
    fi
    libc=(--libc "$(musl_loader "$arch")")
  fi
  "$(wheels_tools_python)" -m scripts.runtime_wheels.symbols "$wheel" --platform "$platform" \
    "${libc[@]}" >&2 || check_failed "$platform: imports a symbol the platform does not promise"
}

# musl_wheelhouse ARCH: the wheel's dependencies as musllinux wheels from PyPI (cached).
musl_wheelhouse() {
  local arch="$1" house="$WHEELS_CACHE/check/wheelhouse-$1"
  if [ ! -f "$house/.complete" ]; then
    mkdir -p "$house"
    "$(wheels_tools_python)" -m pip download -q --disable-pip-version-check --only-binary=:all: \
      --platform "musllinux_1_2_$arch" --python-version 3.13 --implementation cp -d "$house" \
      "$(wheel_path "musllinux_1_2_$arch")" >&2 || return 1
    rm -f "$house"/llama_cpp_python-*.whl
    touch "$house/.complete"
  fi
  echo "$house"
}

# json_field JSON NAME: one field of a report line.
json_field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2]))' "$1" "$2"; }

# run_report WHAT COMMAND...: runs a check that prints a JSON report line as its last line;
# prints that line (and shows it), or shows the command's last errors and fails. Callers count
# the failure (this often runs in a command substitution, whose counters would be lost).
run_report() {
  local what="$1" output
  shift
  if output=$("$@" 2>"$WHEELS_CACHE/check/last.err"); then
    echo "    $what: $(echo "$output" | tail -n 1)" >&2
    echo "$output" | tail -n 1
    return 0
  fi
  echo "    $what failed; its last errors:" >&2
  tail -n 20 "$WHEELS_CACHE/check/last.err" >&2
  return 1
}

# musl_check_wheelhouse ARCH: sets WHEELHOUSE for ARCH's musl check; fails (counted as a skip
# or a failure, saying why) when the check cannot run.
musl_check_wheelhouse() {
  local platform="musllinux_1_2_$1"
  if [ ! -x "$(musl_python_prefix "$1")/bin/python3.13" ]; then
    check_skipped "$platform in a musl CPython: it is not built (scripts/wheels --check builds it)"
    return 1
  fi
  WHEELHOUSE=$(musl_wheelhouse "$1") ||
    { check_failed "$platform: its dependencies cannot be fetched"; return 1; }
}

check_musl_x86_64() {
  local platform=musllinux_1_2_x86_64 model="$1" gemma="$2" venv house report variant
  musl_check_wheelhouse x86_64 || return 0
  house=$WHEELHOUSE
  venv="$WHEELS_CACHE/check/musl-venv-x86_64"
  rm -rf "$venv"
  musl_python x86_64 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$house" \
    "$(wheel_path "$platform")" >&2 || { check_failed "$platform: pip in the musl CPython cannot install it"; return 0; }
  wheels_step "$platform in musl CPython $("$venv/bin/python" -c 'import platform, sysconfig; print(platform.python_version(), sysconfig.get_config_var("MULTIARCH"))')"
  run_report "load check (probe.py)" "$venv/bin/python" -m scripts.runtime_wheels.run_probe \
    "$PROBE" "$model" --threads "$(nproc)" >/dev/null || check_failed "$platform: the load check"
  if report=$(run_report "load check with 8-bit keys (Gemma 270M)" "$venv/bin/python" -m \
    scripts.runtime_wheels.run_probe "$PROBE" "$gemma" --threads "$(nproc)" \
    --key-cache q8_0); then
    check_eight_bit_keys "$platform" "$report"
  else
    check_failed "$platform: the load check with 8-bit keys"
  fi
  if report=$(run_report "generation, variant ggml chose" "$venv/bin/python" \
    scripts/runtime_wheels/generate.py "$model" 16); then
    wheels_step "$platform: ggml chose the CPU variant $(json_field "$report" variant)"
  else
    check_failed "$platform: generation"
  fi
  if report=$(LLAMA_CPP_CPU_VARIANT=x64 run_report "generation, lowest variant forced (x64)" \
    "$venv/bin/python" scripts/runtime_wheels/generate.py "$model" 8); then
    variant=$(json_field "$report" variant)
    [ "$variant" = x64 ] || check_failed "$platform: forced x64 but ggml loaded $variant"
  else
    check_failed "$platform: generation with the lowest variant forced"
  fi
}

check_musl_aarch64() {
  local platform=musllinux_1_2_aarch64 model="$1" gemma="$2" site house cpu report
  if ! command -v qemu-aarch64 >/dev/null 2>&1; then
    check_skipped "$platform: no qemu-aarch64 (Debian package qemu-user)"
    return 0
  fi
  musl_check_wheelhouse aarch64 || return 0
  house=$WHEELHOUSE
  site="$WHEELS_CACHE/check/musl-site-aarch64"
  rm -rf "$site"
  # pip runs here for the aarch64 interpreter (natively: under qemu it would take minutes).
  "$(wheels_tools_python)" -m pip install -q --disable-pip-version-check --no-index \
    --find-links "$house" --only-binary=:all: --platform "$platform" --python-version 3.13 \
    --implementation cp --target "$site" "$(wheel_path "$platform")" >&2 ||
    { check_failed "$platform: cannot be installed for the aarch64 interpreter"; return 0; }
  export PYTHONPATH="$site:$ROOT"
  QEMU_CPU=cortex-a72 run_report "load check (probe.py) under qemu cortex-a72" \
    musl_python aarch64 -m scripts.runtime_wheels.run_probe "$PROBE" "$model" --threads 2 \
    --n-batch 64 >/dev/null || check_failed "$platform: the load check under qemu"
  if report=$(QEMU_CPU=cortex-a72 run_report \
    "load check with 8-bit keys (Gemma 270M) under qemu cortex-a72" musl_python aarch64 -m \
    scripts.runtime_wheels.run_probe "$PROBE" "$gemma" --threads 2 --n-batch 64 \
    --key-cache q8_0); then
    check_eight_bit_keys "$platform" "$report"
  else
    check_failed "$platform: the load check with 8-bit keys under qemu"
  fi
  for cpu in cortex-a72 cortex-a76 max; do
    if report=$(QEMU_CPU=$cpu run_report "generation under qemu $cpu" \
      musl_python aarch64 scripts/runtime_wheels/generate.py "$model" 3); then
      wheels_step "$platform under qemu $cpu: ggml chose the CPU variant $(json_field "$report" variant)"
    else
      check_failed "$platform: generation under qemu $cpu"
    fi
  done
  unset PYTHONPATH
}

check_glibc_x86_64() {
  local platform=manylinux_2_28_x86_64 venv site shared
  [ "$(uname -m)" = x86_64 ] || { check_skipped "$platform: this machine is $(uname -m)"; return 0; }
  venv="$WHEELS_CACHE/check/glibc-venv"
  rm -rf "$venv"
  "$ROOT/.venv/bin/python" -m venv --without-pip "$venv"
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  shared=$("$ROOT/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  # The project's test requirements come from the shared venv (read only, after this venv's
  # own site-packages), the runtime only from the wheel.
  echo "$shared" >"$site/project-venv.pth"
  "$ROOT/.venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    --target "$site" "$(wheel_path "$platform")" >&2
  local loaded lower
  loaded=$(run_report "glibc wheel in a throw-away venv" "$venv/bin/python" -c '
import json, llama_cpp
from custom_components.local_agent.models.cpu_variant import loaded_cpu_variant
llama_cpp.llama_backend_init()
print(json.dumps({"llama_cpp": llama_cpp.__file__, "variant": loaded_cpu_variant()}))') ||
    { check_failed "$platform: import in a throw-away venv"; return 0; }
  wheels_step "$platform: the engine tests (tests/engine) on it"
  (cd "$ROOT" && nice -n 10 "$venv/bin/python" -m pytest tests/engine -q -p no:cacheprovider -x) >&2 ||
    check_failed "$platform: the engine tests"
  # A random model's tokens differ from one CPU to the next: the same tests again on other
  # kernels (SSE4.2, or plain x86-64 where SSE4.2 was chosen) show that none of them asserts
  # what only this CPU's tokens give.
  lower=sse42
  case "$loaded" in *'"variant": "sse42"'* | *'"variant": "x64"'*) lower=x64 ;; esac
  wheels_step "$platform: the engine tests again on the $lower kernels (LLAMA_CPP_CPU_VARIANT=$lower)"
  (cd "$ROOT" && LLAMA_CPP_CPU_VARIANT="$lower" nice -n 10 "$venv/bin/python" -m pytest tests/engine \
    -q -p no:cacheprovider -x) >&2 || check_failed "$platform: the engine tests on the $lower kernels"
}

run_wheel_checks() {
  local platform model gemma arch
  mkdir -p "$WHEELS_CACHE/check"
  model=$(qwen35_test_model)
  gemma=$(gemma_test_model)
  wheels_step "Checking the wheels in $WHEELS_CACHE/dist with $(basename "$model")"
  for platform in "$@"; do
    if [ ! -f "$(wheel_path "$platform")" ]; then
      check_skipped "$platform: no wheel built (scripts/wheels --platform $platform builds it)"
      continue
    fi
    wheels_step "$platform: $(wheel_name "$platform") ($(du -h "$(wheel_path "$platform")" | cut -f1))"
    check_wheel_files "$platform"
    arch=$(platform_arch "$platform")
    case "$platform" in
      musllinux_1_2_*) "check_musl_$arch" "$model" "$gemma" ;;
      manylinux_2_28_x86_64) check_glibc_x86_64 ;;
      manylinux_2_28_aarch64) echo "    (loaded only through its file checks: the musl wheel proves the aarch64 code under qemu)" >&2 ;;
    esac
  done
  wheels_step "Checks: $WHEELS_CHECK_FAILED failed, $WHEELS_CHECK_SKIPPED skipped"
  [ "$WHEELS_CHECK_FAILED" -eq 0 ]
}
