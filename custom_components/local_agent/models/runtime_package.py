"""The llama-cpp-python runtime: is it installed, which prebuilt wheel fits, install it.

PyPI has only llama-cpp-python's source distribution, and Home Assistant OS has no compiler, so
the manifest lists no requirement (Home Assistant would try, and fail, to build it). This
project's scripts/wheels builds one wheel per platform (musllinux_1_2 and manylinux_2_28,
x86_64 and aarch64) and the release workflow publishes them as release assets. Each wheel holds
every CPU variant of ggml's kernels and ggml loads the one this CPU runs, so the wheel is
chosen by the interpreter's platform tags alone (``packaging.tags.sys_tags``).

A wheel file copied into ``<config>/local_agent/wheels/`` is used first (machines without
internet access); with it, the other wheels in that folder that fit (its dependencies, such as
diskcache) are installed first. Everything is installed with Home Assistant's own installer
(``homeassistant.util.package.install_package``, which runs ``uv pip install``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
import importlib
import importlib.metadata
import importlib.util
import os
from pathlib import Path
import platform
from typing import Any
from typing import Final

import aiohttp
from packaging.tags import sys_tags
from packaging.utils import InvalidWheelFilename
from packaging.utils import canonicalize_name
from packaging.utils import parse_wheel_filename

from custom_components.local_agent.compat import pip_install_kwargs
from custom_components.local_agent.const import LOGGER
from homeassistant.core import HomeAssistant
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.util.package import install_package

RUNTIME_PACKAGE: Final = "llama-cpp-python"
RUNTIME_VERSION: Final = "0.3.36"
RELEASE_TAG: Final = f"runtime-{RUNTIME_VERSION}"
RELEASES_URL: Final = "https://github.com/local-agent/local-agent/releases/download"
# A mirror of the release layout (<url>/runtime-<version>/<wheel>), e.g. on a local network.
RELEASES_URL_ENV: Final = "LOCAL_AGENT_RUNTIME_URL"
OFFLINE_FOLDER: Final = Path("local_agent") / "wheels"
# The platform tags scripts/wheels builds and the release publishes.
WHEEL_PLATFORMS: Final = (
    "musllinux_1_2_x86_64",
    "manylinux_2_28_x86_64",
    "musllinux_1_2_aarch64",
    "manylinux_2_28_aarch64",
)
INSTALL_TIMEOUT: Final = 600
SIZE_TIMEOUT: Final = 15


def llama_cpp_version() -> str | None:
    """Return the installed llama-cpp-python version, None when it is missing.

    Never imports llama_cpp here: a broken build would take Home Assistant down.
    """
    importlib.invalidate_caches()
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    try:
        return importlib.metadata.version(RUNTIME_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@cache
def cpu_flags() -> frozenset[str]:
    """Return the CPU feature flags Linux reports (empty elsewhere): diagnostics only.

    Nothing chooses a build by them: ggml picks its CPU variant itself.
    """
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def supported_platforms() -> list[str]:
    """Return this interpreter's platform tags, most preferred first."""
    seen: dict[str, None] = {}
    for tag in sys_tags():
        seen.setdefault(tag.platform, None)
    return list(seen)


def wheel_filename(platform_tag: str) -> str:
    """Return the published wheel's file name for a platform tag."""
    return f"llama_cpp_python-{RUNTIME_VERSION}-py3-none-{platform_tag}.whl"


def releases_url() -> str:
    """Return where the release assets are (RELEASES_URL unless the environment names a mirror)."""
    return os.environ.get(RELEASES_URL_ENV, "").rstrip("/") or RELEASES_URL


@dataclass(frozen=True, slots=True)
class RuntimeWheel:
    """The runtime wheel for this machine: published, or a file in the offline folder."""

    platform: str
    url: str
    # Size in bytes; None when the server does not say (or cannot be reached).
    size: int | None = None
    local_file: Path | None = None

    @property
    def requirement(self) -> str:
        """Return a PEP 508 direct reference install_package accepts."""
        return f"{RUNTIME_PACKAGE} @ {self.url}"

    @property
    def described(self) -> str:
        """Return the wheel as the dialogs name it ("musllinux_1_2_x86_64, 12 MB").

        A size nobody could tell is left out, never shown as "?".
        """
        if self.size is None:
            return self.platform
        return f"{self.platform}, {max(1, round(self.size / 1_000_000))} MB"


def select_wheel(platforms: list[str] | None = None) -> RuntimeWheel | None:
    """Return the published wheel that fits these platform tags (this interpreter's)."""
    for tag in supported_platforms() if platforms is None else platforms:
        if tag in WHEEL_PLATFORMS:
            return RuntimeWheel(tag, f"{releases_url()}/{RELEASE_TAG}/{wheel_filename(tag)}")
    return None


@dataclass(frozen=True, slots=True)
class _OfflineWheel:
    path: Path
    project: str
    version: str
    # This machine's preference for the best of the wheel's platforms (0: most preferred).
    rank: int
    platform: str


def _fitting(path: Path, ranks: dict[str, int]) -> _OfflineWheel | None:
    """Return what a wheel file in the offline folder is, when it fits this machine."""
    try:
        name, version, _, tags = parse_wheel_filename(path.name)
    except InvalidWheelFilename:
        return None
    fitting = sorted((ranks[tag.platform], tag.platform) for tag in tags if tag.platform in ranks)
    if not fitting:
        return None
    rank, platform_tag = fitting[0]
    return _OfflineWheel(path, canonicalize_name(name), str(version), rank, platform_tag)


def offline_folder(config_dir: str) -> Path:
    """Return the folder a runtime wheel and its dependencies may be put in, for offline use."""
    return Path(config_dir) / OFFLINE_FOLDER


def _offline_folder_wheels(
    config_dir: str, platforms: list[str] | None
) -> tuple[list[_OfflineWheel], _OfflineWheel | None]:
    """Return the offline folder's other wheels that fit, and its best runtime wheel."""
    order = supported_platforms() if platforms is None else platforms
    ranks = {tag: rank for rank, tag in enumerate([*order, "any"])}
    try:
        files = sorted(offline_folder(config_dir).glob("*.whl"))
    except OSError:
        return [], None
    runtime: _OfflineWheel | None = None
    others = []
    for path in files:
        found = _fitting(path, ranks)
        if found is None:
            LOGGER.debug("%s does not fit this machine; not installing it", path)
        elif found.project != canonicalize_name(RUNTIME_PACKAGE):
            others.append(found)
        elif found.version != RUNTIME_VERSION:
            LOGGER.warning("%s is not llama-cpp-python %s; ignoring it", path, RUNTIME_VERSION)
        elif runtime is None or found.rank < runtime.rank:
            runtime = found
    return others, runtime


def offline_wheel(config_dir: str, platforms: list[str] | None = None) -> RuntimeWheel | None:
    """Return the offline folder's runtime wheel, if one fits this machine. Blocking."""
    _, runtime = _offline_folder_wheels(config_dir, platforms)
    if runtime is None:
        return None
    return RuntimeWheel(
        platform=runtime.platform,
        url=runtime.path.resolve().as_uri(),
        size=runtime.path.stat().st_size,
        local_file=runtime.path,
    )


def offline_dependencies(config_dir: str, platforms: list[str] | None = None) -> list[str]:
    """Return the requirements of the offline folder's other wheels that fit. Blocking."""
    others, _ = _offline_folder_wheels(config_dir, platforms)
    return [f"{other.project} @ {other.path.resolve().as_uri()}" for other in others]


async def _async_published_size(hass: HomeAssistant, url: str) -> int | None:
    """Ask the release server for the wheel's size (None when it does not answer)."""
    timeout = aiohttp.ClientTimeout(total=SIZE_TIMEOUT)
    try:
        async with async_get_clientsession(hass).head(
            url, allow_redirects=True, timeout=timeout
        ) as response:
            if response.status != 200:
                LOGGER.warning("%s answered %s", url, response.status)
                return None
            length = response.headers.get("Content-Length", "")
            return int(length) if length.isdigit() else None
    except (aiohttp.ClientError, TimeoutError) as err:
        LOGGER.warning("Cannot reach %s: %s", url, err)
        return None


async def async_find_runtime(hass: HomeAssistant) -> RuntimeWheel | None:
    """Return the wheel to install: the offline folder's first, else the published one."""
    local = await hass.async_add_executor_job(offline_wheel, hass.config.config_dir, None)
    if local is not None:
        return local
    published = await hass.async_add_executor_job(select_wheel)
    if published is None:
        return None
    size = await _async_published_size(hass, published.url)
    return RuntimeWheel(published.platform, published.url, size)


def machine_description() -> str:
    """Describe this machine for messages: architecture and C library. Blocking (reads files)."""
    libc, version = platform.libc_ver()
    return f"{platform.machine()} ({libc or 'musl?'} {version})".strip()


def _install_kwargs(config_dir: str) -> dict[str, Any]:
    kwargs = pip_install_kwargs(config_dir)
    kwargs["timeout"] = INSTALL_TIMEOUT
    return kwargs


def _install(requirements: list[str], config_dir: str) -> bool:
    """Install each requirement in turn with Home Assistant's installer. Blocking."""
    kwargs = _install_kwargs(config_dir)
    return all(install_package(item, upgrade=False, **kwargs) for item in requirements)


async def async_install_runtime(hass: HomeAssistant, wheel: RuntimeWheel) -> bool:
    """Install the wheel (after the offline folder's other wheels, for a local one).

    Returns whether llama_cpp can be found now. Runs uv in an executor thread (a minute or
    two on a slow connection).
    """
    requirements = [wheel.requirement]
    if wheel.local_file is not None:
        dependencies = await hass.async_add_executor_job(
            offline_dependencies, hass.config.config_dir, None
        )
        requirements = [*dependencies, wheel.requirement]
    installed = await hass.async_add_executor_job(_install, requirements, hass.config.config_dir)
    if not installed:
        return False
    return await hass.async_add_executor_job(llama_cpp_version) is not None
