# shellcheck shell=bash
# Builds the llama-cpp-python wheel once per machine and keeps it in the cache.
# PyPI ships only a source distribution; a full build takes ~20 min on 2 cores, so everything
# the integration does not use (examples, tools, tests, server, multimodal, curl) is switched off.

LLAMA_CPP_PYTHON_VERSION="0.3.36"
LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=OFF"
# GGML_NATIVE (-march=native) compiles ggml's AMX kernels in on CPUs that have AMX, and that path
# segfaults on prompt batches of Q4_K weights (llama.cpp issue 20824, closed without a fix).
# Switch the AMX instruction sets off again after -march=native; every other native flag stays.
if [ "$(uname -m)" = "x86_64" ]; then
  LLAMA_NO_AMX_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  LLAMA_CMAKE_ARGS="$LLAMA_CMAKE_ARGS -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF '-DCMAKE_C_FLAGS=$LLAMA_NO_AMX_FLAGS' '-DCMAKE_CXX_FLAGS=$LLAMA_NO_AMX_FLAGS'"
fi

# The wheel is compiled for this CPU (GGML_NATIVE), so the cache key includes its flags.
llama_wheel_dir() {
  local cache="$1" key
  key=$( {
    echo "$LLAMA_CPP_PYTHON_VERSION $LLAMA_CMAKE_ARGS"
    uname -m
    grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.features 2>/dev/null || true
  } | sha256sum | cut -c1-16)
  echo "$cache/llama-wheels/$LLAMA_CPP_PYTHON_VERSION-$key"
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
  local builder=$!
  while kill -0 "$builder" 2>/dev/null; do
    sleep 30
    local step
    step=$(grep -oE '\[[0-9]+/[0-9]+\]' "$dir.log" 2>/dev/null | tail -n 1 | tr -d ' ' || true)
    echo "    ... building ($((SECONDS - started)) s elapsed) ${step}" >&2
  done
  if ! wait "$builder"; then
    echo "llama-cpp-python build failed; last lines of $dir.log:" >&2
    tail -n 30 "$dir.log" >&2
    rm -rf "$dir.tmp"
    return 1
  fi
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  echo "==> Built llama-cpp-python in $((SECONDS - started)) s" >&2
}
