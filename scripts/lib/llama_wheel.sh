# shellcheck shell=bash
# Builds the llama-cpp-python wheel once per machine and keeps it in the cache.
# PyPI ships only a source distribution; a full build takes ~20 min on 2 cores, so everything
# the integration does not use (examples, tools, tests, server, multimodal, curl) is switched off.

# shellcheck source=llama_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/llama_build.sh"

LLAMA_CPP_PYTHON_VERSION="0.3.36"
LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=OFF"
# AMX off (llama_build.sh: llama.cpp issue 20824).
if [ -n "$LLAMA_NO_AMX_FLAGS" ]; then
  LLAMA_CMAKE_ARGS="$LLAMA_CMAKE_ARGS $LLAMA_NO_AMX_CMAKE_ARGS '-DCMAKE_C_FLAGS=$LLAMA_NO_AMX_FLAGS' '-DCMAKE_CXX_FLAGS=$LLAMA_NO_AMX_FLAGS'"
fi

llama_wheel_dir() {
  llama_build_dir "$1" llama-wheels "$LLAMA_CPP_PYTHON_VERSION" "$LLAMA_CMAKE_ARGS"
}

build_llama_wheel() {
  local venv_python="$1" cache="$2" dir
  dir=$(llama_wheel_dir "$cache")
  if ls "$dir"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "==> Reusing cached llama-cpp-python wheel from $dir" >&2
    return 0
  fi
  echo "==> Building llama-cpp-python $LLAMA_CPP_PYTHON_VERSION (first run only: about 5 minutes on 2 cores)" >&2
  echo "    log: $dir.log" >&2
  mkdir -p "$dir.tmp"
  local started=$SECONDS
  (
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
      "$venv_python" -m pip wheel --no-deps --no-binary llama-cpp-python --no-cache-dir -v \
      --wheel-dir "$dir.tmp" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >"$dir.log" 2>&1
  ) &
  if ! wait_for_build $! "$dir.log" "" "$started"; then
    echo "llama-cpp-python build failed; last lines of $dir.log:" >&2
    tail -n 30 "$dir.log" >&2
    rm -rf "$dir.tmp"
    return 1
  fi
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  echo "==> Built llama-cpp-python in $((SECONDS - started)) s" >&2
}
