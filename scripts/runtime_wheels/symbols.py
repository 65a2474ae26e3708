"""Check what a runtime wheel's libraries import: ``python -m … WHEEL --platform P``.

Every symbol a library imports must come from another library of the wheel or from the C
library the platform promises: for musllinux_1_2 the exports of musl's libc.so (``--libc``:
Debian trixie's musl 1.2.5, as Alpine 3.22 ships), for manylinux_2_28 glibc symbol versions
up to GLIBC_2.28 and no C++ runtime from the system (zig links libc++ into each library).
Prints one summary line; exits 1 with the offending symbols otherwise.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import re
import sys
import tempfile
import zipfile

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from .elf import ElfInfo
from .elf import read_elf

GLIBC_MAX = (2, 28)
GLIBC_VERSION = re.compile(r"^GLIBC_(\d+)\.(\d+)(?:\.\d+)?$")
CXX_RUNTIMES = ("libstdc++", "libc++", "libgcc_s")


def exported_symbols(path: Path) -> set[str]:
    """Return the names PATH defines in its dynamic symbol table."""
    with path.open("rb") as stream:
        dynsym = ELFFile(stream).get_section_by_name(".dynsym")
        if not isinstance(dynsym, SymbolTableSection):
            return set()
        return {
            symbol.name
            for symbol in dynsym.iter_symbols()
            if symbol.name and symbol["st_shndx"] != "SHN_UNDEF"
        }


def glibc_problems(libraries: list[ElfInfo], provided: set[str]) -> list[str]:
    """Return the imports newer than GLIBC_MAX and any system C++ runtime."""
    problems: list[str] = []
    for info in libraries:
        problems.extend(
            f"{info.path.name} needs {needed}"
            for needed in info.needed
            if needed.startswith(CXX_RUNTIMES)
        )
        for name, version in info.imports:
            match = GLIBC_VERSION.match(version)
            if match and (int(match[1]), int(match[2])) > GLIBC_MAX:
                problems.append(f"{info.path.name}: {name}@{version}")
            elif not version and name not in provided:
                problems.append(f"{info.path.name}: {name} (unversioned, from nowhere)")
    return problems


def musl_problems(libraries: list[ElfInfo], provided: set[str], libc: Path) -> list[str]:
    """Return the imports neither the wheel nor musl's libc.so defines."""
    from_libc = exported_symbols(libc)
    return [
        f"{info.path.name}: {name}"
        for info in libraries
        for name, _ in info.imports
        if name not in provided and name not in from_libc
    ]


def check(wheel: Path, platform: str, libc: Path | None) -> int:
    """Print the summary; return the exit status."""
    with tempfile.TemporaryDirectory() as scratch:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(scratch)
        libraries = [read_elf(path) for path in sorted(Path(scratch).rglob("*.so"))]
        provided = set().union(*(exported_symbols(info.path) for info in libraries))
        external = {name for info in libraries for name, _ in info.imports} - provided
        if platform.startswith("musllinux"):
            if libc is None:
                print("--libc (musl's libc.so) is needed for a musllinux wheel", file=sys.stderr)
                return 2
            problems = musl_problems(libraries, provided, libc)
            promise = f"all in musl's {libc.name} ({libc})"
        else:
            problems = glibc_problems(libraries, provided)
            newest = max(
                (
                    (int(m[1]), int(m[2]))
                    for info in libraries
                    for _, version in info.imports
                    if (m := GLIBC_VERSION.match(version))
                ),
                default=(0, 0),
            )
            promise = f"newest glibc symbol version GLIBC_{newest[0]}.{newest[1]}"
    if problems:
        print(f"{wheel.name}: {len(problems)} imports the platform does not promise:")
        print("\n".join(f"  {problem}" for problem in problems))
        return 1
    print(f"{wheel.name}: {len(libraries)} libraries import {len(external)} symbols: {promise}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--platform", required=True)
    parser.add_argument("--libc", type=Path)
    args = parser.parse_args(argv)
    return check(args.wheel, args.platform, args.libc)


if __name__ == "__main__":
    sys.exit(main())
