"""A local stand-in for the release server, for scripts/smoke: the layout the integration asks for.

``<url>/runtime-<version>/<wheel>`` holds the runtime wheel for this machine: the one
scripts/wheels built (``$LOCAL_AGENT_CACHE/wheels/dist``) when it is there, else this venv's own
llama_cpp packed into a wheel of that name. The stand-in proves the flow (HEAD for the size,
Home Assistant's installer, the reload), not the release wheel: the smoke test says which it
served. ``<url>/simple/`` is a package index with the runtime's dependencies packed from this
venv (Home Assistant installs into the run's own venv, which does not count the release's
packages under it as installed), so the installer needs nothing from the internet.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
import contextlib
import csv
from dataclasses import dataclass
import functools
import hashlib
import http.server
import importlib.metadata
import io
import os
from pathlib import Path
import sys
import threading
from typing import Any
import zipfile

from custom_components.local_agent.models.runtime_package import RELEASE_TAG
from custom_components.local_agent.models.runtime_package import RUNTIME_PACKAGE
from custom_components.local_agent.models.runtime_package import select_wheel
from custom_components.local_agent.models.runtime_package import wheel_filename

# llama-cpp-python's dependencies, with theirs.
RUNTIME_DEPENDENCIES = ("numpy", "jinja2", "markupsafe", "typing-extensions", "diskcache")


def built_wheels_dir() -> Path:
    """Return where scripts/wheels puts the finished wheels."""
    base = os.environ.get("LOCAL_AGENT_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "local-agent"
    return root / "wheels" / "dist"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_tags(name: str) -> list[str]:
    """Return the tags in the WHEEL file of the installed distribution NAME."""
    text = importlib.metadata.distribution(name).read_text("WHEEL") or ""
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def pack_installed(name: str, target: Path, tag: str | None = None) -> Path:
    """Write the installed distribution NAME as a wheel file TARGET (retagged TAG if given)."""
    dist = importlib.metadata.distribution(name)
    base = Path(str(dist.locate_file("")))
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    info_dir = ""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in dist.files or []:
            path = item.as_posix()
            if path.startswith("..") or "__pycache__" in path or path.endswith("/RECORD"):
                continue
            if path.endswith(".dist-info/METADATA"):
                info_dir = path.rsplit("/", 1)[0]
            data = (base / path).read_bytes()
            if tag is not None and path.endswith(".dist-info/WHEEL"):
                lines = [line for line in data.decode().splitlines() if not line.startswith("Tag:")]
                data = ("\n".join([*lines, f"Tag: {tag}"]) + "\n").encode()
            archive.writestr(path, data)
            writer.writerow([path, _digest(data), len(data)])
        writer.writerow([f"{info_dir}/RECORD", "", ""])
        archive.writestr(f"{info_dir}/RECORD", record.getvalue())
    return target


@dataclass(frozen=True, slots=True)
class ServedRuntime:
    """What the stand-in release serves."""

    path: Path
    built: bool  # by scripts/wheels; else this venv's llama_cpp repacked

    def describe(self) -> str:
        size = f"{self.path.stat().st_size / 1_000_000:.1f} MB"
        if self.built:
            return f"the wheel scripts/wheels built, {self.path.name} ({size})"
        return (
            f"a stand-in: this venv's llama_cpp packed as {self.path.name} ({size}); "
            "it proves the flow, not the release wheel (scripts/wheels builds that)"
        )


def prepare_release(root: Path) -> ServedRuntime:
    """Lay out ROOT as the release server and the package index; return the runtime served."""
    wheel = select_wheel()
    if wheel is None:
        raise RuntimeError("no published platform fits this machine")
    name = wheel_filename(wheel.platform)
    release = root / RELEASE_TAG
    release.mkdir(parents=True)
    built = built_wheels_dir() / name
    if built.is_file():
        target = release / name
        target.write_bytes(built.read_bytes())
        served = ServedRuntime(target, built=True)
    else:
        tag = f"py3-none-{wheel.platform}"
        served = ServedRuntime(pack_installed(RUNTIME_PACKAGE, release / name, tag), built=False)
    for dependency in RUNTIME_DEPENDENCIES:
        dist = importlib.metadata.distribution(dependency)
        project = dist.metadata["Name"]
        folder = root / "simple" / project.lower().replace("_", "-")
        folder.mkdir(parents=True)
        filename = f"{project.replace('-', '_')}-{dist.version}-{wheel_tags(dependency)[-1]}.whl"
        pack_installed(dependency, folder / filename)
        (folder / "index.html").write_text(f'<a href="{filename}">{filename}</a>\n')
    return served


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that closes the connection before reading the whole file is no server error.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve ROOT over HTTP on a free local port; yield its URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
