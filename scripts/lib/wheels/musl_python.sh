# shellcheck shell=bash
# A musl CPython per architecture to load the musl wheels in, as Home Assistant's Alpine
# container does: Debian trixie's sources (python3.13, zlib, libffi, sqlite3; musl 1.2.5, as
# Alpine 3.22) fetched with a private apt state (the system's apt sources stay untouched) and
# compiled with zig. x86_64 runs natively through trixie's musl loader; aarch64 is
# cross-built with the x86_64 one as build Python and runs under qemu-aarch64.
#
#   musl_python_prefix ARCH   where it is installed ($WHEELS_CACHE/musl-python/ARCH)
#   musl_sysroot ARCH         the musl loader (lib/ld-musl-ARCH.so.1), qemu's -L for aarch64
#   build_musl_python ARCH    builds both unless cached

MUSL_DEBIAN_RELEASE="trixie"
MUSL_PYTHON_SOURCES=(python3.13 zlib libffi sqlite3)

musl_python_prefix() { echo "$WHEELS_CACHE/musl-python/$1"; }
musl_sysroot() { echo "$WHEELS_CACHE/musl-sysroot/$1"; }
musl_loader() { echo "$(musl_sysroot "$1")/lib/ld-musl-$1.so.1"; }
debian_arch() { [ "$1" = aarch64 ] && echo arm64 || echo amd64; }

# private_apt ARGS...: apt-get against trixie with its own lists, cache and status.
private_apt() {
  local apt_dir="$WHEELS_CACHE/apt"
  if [ ! -f "$apt_dir/sources.list" ]; then
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/preferences.d"
    : >"$apt_dir/status"
    # Signed by Debian's archive keys (package debian-archive-keyring, on Ubuntu too).
    local options="arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg"
    printf 'deb [%s] http://deb.debian.org/debian %s main\ndeb-src [%s] http://deb.debian.org/debian %s main\n' \
      "$options" "$MUSL_DEBIAN_RELEASE" "$options" "$MUSL_DEBIAN_RELEASE" >"$apt_dir/sources.list"
  fi
  apt-get -q \
    -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null" \
    -o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d" -o "Dir::State::Lists=$apt_dir/lists" \
    -o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir" \
    -o "Dir::Cache::archives=$apt_dir/archives" -o "Debug::NoLocking=1" \
    -o "APT::Sandbox::User=root" -o "APT::Architecture=amd64" \
    -o "APT::Architectures::=amd64" -o "APT::Architectures::=arm64" "$@"
}

# fetch_musl_sources: the upstream tarballs of MUSL_PYTHON_SOURCES and the musl packages,
# checked against the hashes in Debian's signed indexes, into $WHEELS_CACHE/apt/sources.
fetch_musl_sources() {
  local dest="$WHEELS_CACHE/apt/sources"
  [ -f "$dest/.complete" ] && return 0
  wheels_step "Fetching Debian $MUSL_DEBIAN_RELEASE sources: ${MUSL_PYTHON_SOURCES[*]}, musl"
  mkdir -p "$dest"
  private_apt update >"$WHEELS_CACHE/apt/update.log" 2>&1
  local uri file size hash
  # Only the upstream (.orig) tarballs: the Debian packaging is not needed to build them.
  while read -r uri file size hash; do
    [ -f "$dest/$file" ] && continue
    /usr/lib/apt/apt-helper download-file "${uri//\'/}" "$dest/$file" "$hash" \
      >>"$WHEELS_CACHE/apt/update.log" 2>&1
  done < <(private_apt --print-uris source "${MUSL_PYTHON_SOURCES[@]}" 2>/dev/null | grep "\.orig\.tar\.[a-z]*' ")
  while read -r uri file size hash; do
    [ -f "$dest/$file" ] && continue
    /usr/lib/apt/apt-helper download-file "${uri//\'/}" "$dest/$file" "$hash" \
      >>"$WHEELS_CACHE/apt/update.log" 2>&1
  done < <(private_apt --print-uris download musl:amd64 musl:arm64 2>/dev/null | grep "^'")
  touch "$dest/.complete"
}

# unpack_source NAME DIR: the .orig tarball of source package NAME, unpacked into DIR.
unpack_source() {
  local tarball
  tarball=$(ls "$WHEELS_CACHE"/apt/sources/"$1"_*.orig.tar.* | head -n 1)
  rm -rf "$2"
  mkdir -p "$2"
  tar -xf "$tarball" -C "$2" --strip-components=1
}

# provide_musl_sysroot ARCH: trixie's musl for ARCH, its loader as a plain file (the package
# links it absolutely, which qemu's -L cannot follow).
provide_musl_sysroot() {
  local arch="$1" sysroot deb
  sysroot=$(musl_sysroot "$arch")
  [ -x "$(musl_loader "$arch")" ] && return 0
  deb=$(ls "$WHEELS_CACHE"/apt/sources/musl_*_"$(debian_arch "$arch")".deb | head -n 1)
  rm -rf "$sysroot"
  mkdir -p "$sysroot/lib"
  dpkg -x "$deb" "$sysroot/deb"
  cp "$sysroot/deb/usr/lib/$arch-linux-musl/libc.so" "$(musl_loader "$arch")"
}

# musl_cc_env ARCH: CC, CXX, AR, RANLIB for ARCH's musl target (zig).
musl_cc_env() {
  local bin
  bin=$(write_zig_wrappers "$1-linux-musl")
  export CC="$bin/cc" CXX="$bin/c++" AR="$bin/ar" RANLIB="$bin/ranlib"
}

# build_musl_deps ARCH DEPS: zlib, libffi and sqlite3 as static PIC libraries in DEPS.
build_musl_deps() {
  local arch="$1" deps="$2" work="$WHEELS_CACHE/musl-python/build-$1" jobs
  jobs=$(nproc 2>/dev/null || echo 2)
  [ -f "$deps/.complete" ] && return 0
  mkdir -p "$deps"
  (
    set -e
    musl_cc_env "$arch"
    export CFLAGS="-O2 -fPIC"
    unpack_source zlib "$work/zlib"
    cd "$work/zlib"
    ./configure --static --prefix="$deps"
    nice -n 10 make -j"$jobs" libz.a
    make install
    unpack_source libffi "$work/libffi"
    cd "$work/libffi"
    [ -x configure ] || ./autogen.sh
    # Without static trampolines: with them, ctypes callbacks crashed under qemu.
    ./configure --host="$arch-linux-musl" --prefix="$deps" --disable-shared --enable-static \
      --with-pic --disable-docs --disable-multi-os-directory --disable-exec-static-tramp
    nice -n 10 make -j"$jobs"
    make install
    # sqlite's amalgamation is generated on the build machine (its tools and tclsh), then
    # compiled for the target.
    unpack_source sqlite3 "$work/sqlite3"
    cd "$work/sqlite3"
    CC=cc CFLAGS= ./configure --disable-tcl >/dev/null
    nice -n 10 make sqlite3.c
    musl_cc_env "$arch"
    "$CC" -O2 -fPIC -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_FTS5 -c sqlite3.c -o sqlite3.o
    "$AR" rcs "$deps/lib/libsqlite3.a" sqlite3.o
    mkdir -p "$deps/include"
    cp sqlite3.h sqlite3ext.h "$deps/include/"
  ) >"$work.deps.log" 2>&1 || {
    echo "Building zlib/libffi/sqlite for $arch-musl failed; the end of $work.deps.log:" >&2
    tail -n 30 "$work.deps.log" >&2
    return 1
  }
  touch "$deps/.complete"
}

# build_musl_python ARCH: CPython for ARCH-linux-musl in $(musl_python_prefix ARCH).
build_musl_python() {
  local arch="$1" prefix work deps jobs started=$SECONDS
  prefix=$(musl_python_prefix "$arch")
  [ -f "$prefix/.complete" ] && return 0
  if [ "$arch" = aarch64 ]; then
    build_musl_python x86_64 || return 1
  fi
  fetch_musl_sources
  provide_musl_sysroot "$arch"
  work="$WHEELS_CACHE/musl-python/build-$arch"
  deps="$work/deps"
  jobs=$(nproc 2>/dev/null || echo 2)
  wheels_step "musl CPython for $arch: building (log: $work.log)"
  build_musl_deps "$arch" "$deps" || return 1
  (
    set -e
    musl_cc_env "$arch"
    unpack_source python3.13 "$work/cpython"
    cd "$work/cpython"
    # Detect musl by <stdio.h>'s marker too: clang's own <stdarg.h> does not set it, and
    # without "-linux-musl" in EXT_SUFFIX musllinux wheels (numpy's) do not import.
    sed -i 's|^#  include <stdarg.h>$|#  include <stdarg.h>\n#  include <stdio.h>|' Misc/platform_triplet.c
    local cross=()
    if [ "$arch" = aarch64 ]; then
      cross=(--host=aarch64-linux-musl --build="$(cc -dumpmachine)"
        --with-build-python="$(musl_python_prefix x86_64)/bin/python3.13"
        ac_cv_file__dev_ptmx=yes ac_cv_file__dev_ptc=no
        # A cross build cannot run configure's getaddrinfo probe and takes it for buggy
        # unless IPv6 is asked for explicitly; musl's getaddrinfo is sound.
        --enable-ipv6)
    fi
    # pkg-config sees the target's libraries only (the build machine's liblzma, ncurses… are
    # not for musl): modules without their library are left out.
    PKG_CONFIG_PATH="" PKG_CONFIG_LIBDIR="$deps/lib/pkgconfig" \
      CFLAGS="-O2 -fPIC -Wno-error=date-time -Wno-date-time" CPPFLAGS="-I$deps/include" \
      LDFLAGS="-L$deps/lib" \
      LIBFFI_CFLAGS="-I$deps/include" LIBFFI_LIBS="-L$deps/lib -lffi" \
      ZLIB_CFLAGS="-I$deps/include" ZLIB_LIBS="-L$deps/lib -lz" \
      LIBSQLITE3_CFLAGS="-I$deps/include" LIBSQLITE3_LIBS="-L$deps/lib -lsqlite3" \
      ./configure --prefix="$prefix" --without-ensurepip --disable-test-modules "${cross[@]}"
    grep -q "^MULTIARCH=.*$arch-linux-musl" Makefile
    # zig links executables statically unless told otherwise; the interpreter must be dynamic
    # (a PIE with musl's loader) to load extension modules and the wheel's libraries.
    local interpreter="/lib/ld-musl-$arch.so.1"
    [ "$arch" = x86_64 ] && interpreter=$(musl_loader x86_64)
    nice -n 10 make -j"$jobs" \
      LINKFORSHARED="-Xlinker -export-dynamic -pie -dynamic -Wl,--dynamic-linker=$interpreter"
    make install LINKFORSHARED="-Xlinker -export-dynamic -pie -dynamic -Wl,--dynamic-linker=$interpreter"
  ) >"$work.log" 2>&1 &
  if ! wait_for_build $! "$work.log" "musl CPython $arch" "$started"; then
    echo "musl CPython for $arch failed; the end of $work.log:" >&2
    tail -n 30 "$work.log" >&2
    return 1
  fi
  # What llama_cpp needs of it: ctypes (libffi), sqlite3 (diskcache), zlib (pip).
  if ! musl_python "$arch" -c "import ctypes, sqlite3, zlib, venv" >>"$work.log" 2>&1; then
    echo "The musl CPython for $arch lacks ctypes, sqlite3 or zlib; see $work.log" >&2
    return 1
  fi
  touch "$prefix/.complete"
  wheels_step "musl CPython for $arch: built in $((SECONDS - started)) s"
}

# musl_python ARCH ARGS...: runs ARCH's musl CPython (under qemu for aarch64).
musl_python() {
  local arch="$1"
  shift
  if [ "$arch" = aarch64 ]; then
    QEMU_CPU=${QEMU_CPU:-max} qemu-aarch64 -L "$(musl_sysroot aarch64)" \
      "$(musl_python_prefix aarch64)/bin/python3.13" "$@"
  else
    "$(musl_python_prefix x86_64)/bin/python3.13" "$@"
  fi
}
