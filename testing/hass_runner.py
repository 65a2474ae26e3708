"""Boot a real Home Assistant in this process, the way its own bootstrap does, minus the UI.

`homeassistant.bootstrap.async_setup_hass` would also start the frontend and every default
integration (and listen on port 8123); this runner loads only the base functionality
(registries, config entries, auth, core config) and the integrations asked for, then starts
Home Assistant for real (start events fire, the HTTP server listens on a free local port).

The integrations of this repository are found because the repository root is on `sys.path`
(run as `python -m scripts.…` from it, or with it on PYTHONPATH): `custom_components` is a
namespace package that Home Assistant's loader scans.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from collections.abc import Iterable
import contextlib
from dataclasses import asdict
from dataclasses import dataclass
import logging
from pathlib import Path
import sys
import tempfile
from typing import Any
from typing import Final

from homeassistant import bootstrap
from homeassistant import loader
from homeassistant.components.http import config as http_config_store
from homeassistant.config_entries import ConfigEntries
from homeassistant.core import HomeAssistant
from homeassistant.core_config import async_process_ha_core_config
from homeassistant.setup import async_setup_component

# Re-exported: scripts/smoke.py takes it from here.
from testing.server_process import free_local_port as free_local_port  # noqa: PLC0414

REPO_ROOT: Final = Path(__file__).resolve().parents[1]

# Integrations every run needs: the core one (exposure settings), conversation (and the http,
# intent and llm integrations it depends on).
BASE_INTEGRATIONS: Final = ("homeassistant", "conversation")

# Loggers that warn about things expected here: a custom integration is loaded, pip is
# skipped, optional native speed-ups (zlib-ng, libturbojpeg for cameras) are missing.
QUIET_LOGGERS: Final = (
    "homeassistant.loader",
    "homeassistant.bootstrap",
    "aiohttp_fast_zlib",
    "homeassistant.components.camera.img_util",
    # llama.cpp's own notes on loading (e.g. "using full-size SWA cache").
    "custom_components.local_agent.engine.local.llama.native",
)


class HarnessError(Exception):
    """Home Assistant could not be set up as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class CoreSettings:
    """The `homeassistant:` section of the configuration."""

    name: str = "Demo Home"
    language: str = "en"
    country: str = "DE"
    time_zone: str = "Europe/Berlin"
    unit_system: str = "metric"
    latitude: float = 52.52
    longitude: float = 13.40
    elevation: int = 34

    def as_config(self) -> dict[str, Any]:
        """Return the section as configuration.yaml would hold it."""
        return asdict(self)


def configure_logging(*, verbose: bool = False) -> None:
    """Log warnings (or everything, when verbose) to stderr, briefly."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )
    if not verbose:
        for name in QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.CRITICAL)


@contextlib.asynccontextmanager
async def async_home_assistant(
    config_dir: Path | None = None,
    *,
    core: CoreSettings | None = None,
    integrations: Iterable[str] = (),
) -> AsyncIterator[HomeAssistant]:
    """Yield a started Home Assistant; stop it (and delete a temporary config dir) after.

    Must be entered in a running event loop. Without `config_dir` a temporary one is used.
    """
    with contextlib.ExitStack() as stack:
        if config_dir is None:
            config_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ha-")))
        hass = await _async_create(config_dir, core or CoreSettings())
        try:
            for domain in (*BASE_INTEGRATIONS, *integrations):
                await async_setup(hass, domain)
            await hass.async_start()
            yield hass
        finally:
            await hass.async_stop()


async def _async_create(config_dir: Path, core: CoreSettings) -> HomeAssistant:
    """Create the instance with its registries, config entries, auth and core config."""
    hass = HomeAssistant(str(config_dir))
    hass.config.skip_pip = True
    hass.config.skip_pip_packages = []
    loader.async_setup(hass)
    hass.config_entries = ConfigEntries(hass, {})
    # Scan custom_components now, as bootstrap does before it loads the registries.
    await loader.async_get_custom_components(hass)
    if not await bootstrap.async_load_base_functionality(hass):
        raise HarnessError("Home Assistant could not load its registries")
    await async_process_ha_core_config(hass, core.as_config())
    await _async_setup_http(hass)
    return hass


async def _async_setup_http(hass: HomeAssistant) -> None:
    """Set up http (conversation depends on it) on a free port of 127.0.0.1, never 8123.

    Home Assistant takes an HTTP config from YAML as a trial that it reverts, restarting
    itself, unless the user confirms it within five minutes: confirm it at once.
    """
    http_config = {"server_host": ["127.0.0.1"], "server_port": free_local_port()}
    await async_setup(hass, "http", {"http": http_config})
    store = await http_config_store.async_get_and_load_store(hass)
    if store.pending is not None:
        await store.async_promote_pending()


async def async_setup(
    hass: HomeAssistant, domain: str, config: dict[str, Any] | None = None
) -> None:
    """Set up an integration from YAML-style config; raise HarnessError if it fails."""
    if not await async_setup_component(hass, domain, config or {}):
        raise HarnessError(f"Home Assistant could not set up the {domain} integration")
