"""The llama-cpp-python package: is it installed, which prebuilt wheel fits, install it.

PyPI has only llama-cpp-python's source distribution, and Home Assistant OS has no compiler, so
the manifest lists no requirement (Home Assistant would try, and fail, to build it). Instead this
project's CI (.github/workflows/wheels.yml) builds wheels for glibc and musl, x86_64 and aarch64,
and publishes them as release assets plus a PEP 503 index. When ``llama_cpp`` is missing, a
repair issue offers to install the wheel that fits this machine with Home Assistant's own
installer (``homeassistant.util.package.install_package``, which runs ``uv pip install``).

The wheels hold only ctypes bindings and shared libraries (tag ``py3-none-<platform>``), so one
wheel serves every Python version. x86_64 comes in two builds, chosen from /proc/cpuinfo:
``avx2`` (AVX2, FMA, F16C, BMI2: Intel Haswell, AMD Excavator/Zen and newer) and ``compat``
(SSE4.2 only, for CPUs such as the Celeron J4125 that lack AVX): a llama.cpp built for AVX2 dies
with SIGILL on such CPUs. aarch64 has one ``generic`` (armv8-a) build.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
import importlib
import importlib.metadata
import importlib.util
from pathlib import Path
import platform
from typing import Any, Final

from packaging.tags import sys_tags

from custom_components.local_agent.compat import pip_install_kwargs
from homeassistant.core import HomeAssistant
from homeassistant.util.package import install_package

RUNTIME_PACKAGE: Final = "llama-cpp-python"
RUNTIME_VERSION: Final = "0.3.36"
RELEASES_URL: Final = "https://github.com/local-agent/local-agent/releases/download"
INDEX_URL: Final = "https://local-agent.github.io/local-agent/wheels"
# Platform tags our workflow publishes (after auditwheel repair), most specific first.
WHEEL_PLATFORMS: Final = (
    "musllinux_1_2_x86_64",
    "manylinux_2_28_x86_64",
    "musllinux_1_2_aarch64",
    "manylinux_2_28_aarch64",
)
INSTALL_TIMEOUT: Final = 600


def llama_cpp_version() -> str | None:
    """Return the installed llama-cpp-python version, None when it is missing.

    Never imports llama_cpp here: a build this CPU cannot run would take Home Assistant down.
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
    """Return the CPU feature flags Linux reports (empty elsewhere)."""
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


@dataclass(frozen=True, slots=True)
class RuntimeWheel:
    """The prebuilt wheel for this machine."""

    platform: str
    build: str
    url: str

    @property
    def requirement(self) -> str:
        """Return a PEP 508 direct reference install_package accepts."""
        return f"{RUNTIME_PACKAGE} @ {self.url}"


# CPU flags each x86_64 build needs (its GGML_* CMake options in .github/workflows/wheels.yml).
AVX2_FLAGS: Final = frozenset({"avx", "avx2", "bmi2", "fma", "f16c", "sse4_2"})
COMPAT_FLAGS: Final = frozenset({"sse4_2"})


def _build_for(platform_tag: str, flags: frozenset[str]) -> str | None:
    if not platform_tag.endswith("x86_64"):
        return "generic"  # aarch64: armv8-a baseline, runs on every 64-bit ARM board
    if flags >= AVX2_FLAGS:
        return "avx2"
    if flags >= COMPAT_FLAGS:
        return "compat"
    return None


def select_wheel(
    platforms: list[str] | None = None, flags: frozenset[str] | None = None
) -> RuntimeWheel | None:
    """Return the published wheel that fits this machine, or None when none does."""
    available = supported_platforms() if platforms is None else platforms
    for tag in available:
        if tag in WHEEL_PLATFORMS:
            build = _build_for(tag, cpu_flags() if flags is None else flags)
            if build is None:
                return None
            filename = f"llama_cpp_python-{RUNTIME_VERSION}-py3-none-{tag}.whl"
            url = f"{RELEASES_URL}/runtime-{RUNTIME_VERSION}-{build}/{filename}"
            return RuntimeWheel(platform=tag, build=build, url=url)
    return None


def machine_description() -> str:
    """Describe this machine for messages: architecture and C library. Blocking (reads files)."""
    libc, version = platform.libc_ver()
    return f"{platform.machine()} ({libc or 'musl?'} {version})".strip()


def _install_kwargs(config_dir: str) -> dict[str, Any]:
    kwargs = pip_install_kwargs(config_dir)
    kwargs["timeout"] = INSTALL_TIMEOUT
    return kwargs


async def async_install_runtime(hass: HomeAssistant, wheel: RuntimeWheel) -> bool:
    """Install the wheel with Home Assistant's installer; return whether llama_cpp imports now.

    Runs uv in an executor thread (a minute or two on a slow connection).
    """
    kwargs = _install_kwargs(hass.config.config_dir)
    installed = await hass.async_add_executor_job(
        lambda: install_package(wheel.requirement, upgrade=False, **kwargs)
    )
    if not installed:
        return False
    return await hass.async_add_executor_job(llama_cpp_version) is not None
