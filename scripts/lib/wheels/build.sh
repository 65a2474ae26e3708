# shellcheck shell=bash
# Builds one llama-cpp-python wheel per platform from PyPI's source distribution: zig
# cross-compiles llama.cpp with ggml's dynamically loaded CPU backends in every variant
# (GGML_BACKEND_DL + GGML_CPU_ALL_VARIANTS), then scripts/runtime_wheels/repair.py turns the raw
# wheel into a py3-none-<platform> wheel. Each platform's CMake build folder stays in the cache,
# so an interrupted build resumes where it stopped; the finished wheel is the marker.

WHEELS_LLAMA_VERSION="0.3.36"
WHEELS_PLATFORMS=(musllinux_1_2_x86_64 musllinux_1_2_aarch64 manylinux_2_28_x86_64 manylinux_2_28_aarch64)
# zig has no OpenMP runtime; everything the integration does not use is off.
WHEELS_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DGGML_CCACHE=OFF -DCMAKE_INSTALL_BINDIR=llama_cpp/lib -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF"

wheel_name() { echo "llama_cpp_python-$WHEELS_LLAMA_VERSION-py3-none-$1.whl"; }
wheel_path() { echo "$WHEELS_CACHE/dist/$(wheel_name "$1")"; }

# provide_llama_source: the sdist, unpacked once, with two changes (applied again on every run,
# each a no-op once done, so that a resumed build recompiles nothing):
#  * no sapphirerapids variant: it is the only one with AMX, whose kernels segfault on prompt
#    batches of Q4_K weights (llama.cpp issue 20824). On such a CPU ggml picks zen4 (AVX-512
#    with VNNI and BF16) instead;
#  * llama.cpp's "common" library only with the multimodal part (LLAVA_BUILD), which alone uses
#    it: the package forces it on, and it is a fifth of the compile time.
# Prints the source folder.
provide_llama_source() {
  local src="$WHEELS_CACHE/src" dir
  dir="$src/llama_cpp_python-$WHEELS_LLAMA_VERSION"
  if [ ! -f "$dir/.local-agent-unpacked" ]; then
    wheels_step "Fetching llama-cpp-python $WHEELS_LLAMA_VERSION's source distribution from PyPI"
    mkdir -p "$src"
    if [ ! -f "$src/llama_cpp_python-$WHEELS_LLAMA_VERSION.tar.gz" ]; then
      "$(wheels_tools_python)" -m pip download -q --disable-pip-version-check --no-deps \
        --no-binary llama-cpp-python "llama-cpp-python==$WHEELS_LLAMA_VERSION" -d "$src" >&2
    fi
    rm -rf "$dir"
    tar -xzf "$src/llama_cpp_python-$WHEELS_LLAMA_VERSION.tar.gz" -C "$src"
    touch "$dir/.local-agent-unpacked"
  fi
  local variants="$dir/vendor/llama.cpp/ggml/src/CMakeLists.txt" package="$dir/CMakeLists.txt"
  if grep -q 'ggml_add_cpu_backend_variant(.*AMX' "$variants"; then
    sed -i '/ggml_add_cpu_backend_variant(sapphirerapids.*AMX/d' "$variants"
  fi
  if grep -q 'ggml_add_cpu_backend_variant(.*AMX' "$variants"; then
    echo "A CPU variant with AMX is still in $variants" >&2
    return 1
  fi
  if grep -q 'set(LLAMA_BUILD_COMMON ON CACHE' "$package"; then
    sed -i 's/set(LLAMA_BUILD_COMMON ON CACHE/set(LLAMA_BUILD_COMMON ${LLAVA_BUILD} CACHE/' "$package"
  fi
  echo "$dir"
}

# take_build_lock: one build at a time (the platforms share the unpacked source tree); held
# until this script ends.
take_build_lock() {
  [ -n "${WHEELS_LOCKED:-}" ] && return 0
  exec 9>"$WHEELS_CACHE/build.lock"
  if ! flock -n 9; then
    wheels_step "Another scripts/wheels is building; waiting for it"
    flock 9
  fi
  WHEELS_LOCKED=1
}

# build_wheel PLATFORM: builds $(wheel_path PLATFORM) unless it exists.
build_wheel() {
  local platform="$1" out source toolchain jobs started=$SECONDS
  out="$WHEELS_CACHE/build/$WHEELS_LLAMA_VERSION/$platform"
  if [ -f "$(wheel_path "$platform")" ]; then
    wheels_step "$platform: cached ($(wheel_path "$platform"))"
    return 0
  fi
  take_build_lock
  if [ -f "$(wheel_path "$platform")" ]; then
    wheels_step "$platform: built meanwhile by another scripts/wheels"
    return 0
  fi
  source=$(provide_llama_source)
  toolchain=$(write_cmake_toolchain "$platform")
  jobs=${WHEELS_JOBS:-$(nproc 2>/dev/null || echo 2)}
  mkdir -p "$out" "$WHEELS_CACHE/dist"
  rm -rf "$out/raw"
  # The package's CMake also installs the libraries into the source tree, whose llama_cpp/
  # folder becomes the wheel: clear what an earlier platform left there.
  rm -rf "$source/llama_cpp/lib"
  wheels_step "$platform: building ($jobs jobs, $(zig_target "$platform")); log: $out/build.log"
  (
    CMAKE_ARGS="-DCMAKE_TOOLCHAIN_FILE=$toolchain $WHEELS_CMAKE_ARGS" \
      CMAKE_BUILD_PARALLEL_LEVEL="$jobs" \
      nice -n 10 "$(wheels_tools_python)" -m pip wheel -v --disable-pip-version-check \
      --no-deps --no-build-isolation -C "build-dir=$out/cmake" -w "$out/raw" "$source" \
      >"$out/build.log" 2>&1
  ) &
  if ! wait_for_build $! "$out/build.log" "$platform" "$started"; then
    echo "$platform: the build failed; the last lines of $out/build.log:" >&2
    tail -n 30 "$out/build.log" >&2
    return 1
  fi
  wheels_step "$platform: compiled in $((SECONDS - started)) s; repairing the wheel"
  "$(wheels_tools_python)" -m scripts.runtime_wheels.repair --platform "$platform" \
    --output "$WHEELS_CACHE/dist" "$out"/raw/*.whl
  wheels_step "$platform: $(wheel_path "$platform") ($(du -h "$(wheel_path "$platform")" | cut -f1)) in $((SECONDS - started)) s"
}
