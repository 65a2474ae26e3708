# shellcheck shell=bash
# What building llama.cpp for this machine needs, whether as the llama-cpp-python wheel
# (llama_wheel.sh) or as llama.cpp's llama-server (llama_server.sh); sourced by both.

# GGML_NATIVE (-march=native) compiles ggml's AMX kernels in on CPUs that have AMX, and that path
# segfaults on prompt batches of Q4_K weights (llama.cpp issue 20824, closed without a fix).
# Both builds switch the AMX instruction sets off again after -march=native; every other native
# flag stays.
LLAMA_NO_AMX_FLAGS=""
LLAMA_NO_AMX_CMAKE_ARGS=""
if [ "$(uname -m)" = "x86_64" ]; then
  LLAMA_NO_AMX_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  LLAMA_NO_AMX_CMAKE_ARGS="-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
fi

# llama_build_dir CACHE KIND VERSION FLAGS: where a build of KIND (llama-wheels, llama-server)
# is cached. It is compiled for this CPU (GGML_NATIVE), so the key hashes the version and flags
# with the machine and its CPU flags.
llama_build_dir() {
  local cache="$1" kind="$2" version="$3" flags="$4" key
  key=$( {
    echo "$version $flags"
    uname -m
    grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.features 2>/dev/null || true
  } | sha256sum | cut -c1-16)
  echo "$cache/$kind/$version-$key"
}

# wait_for_build PID LOG WHAT STARTED: reports the build's progress (the last "[n/m]" or
# "[ n%]" step in LOG) every 30 s until PID ends; returns its exit status.
wait_for_build() {
  local builder="$1" log="$2" what="$3" started="$4" step
  while kill -0 "$builder" 2>/dev/null; do
    sleep 30
    step=$(grep -oE '\[ *[0-9]+%\]|\[[0-9]+/[0-9]+\]' "$log" 2>/dev/null | tail -n 1 | tr -d ' ' || true)
    echo "    ... building${what:+ $what} ($((SECONDS - started)) s elapsed) ${step}" >&2
  done
  wait "$builder"
}
