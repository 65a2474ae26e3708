"""Create the owner account of a development Home Assistant and mark onboarding done.

Used by `scripts/develop --demo-user`: what the onboarding dialog does (an owner in the admin
group, a username/password login, a person), done before Home Assistant starts, so the first
page is the login. Runs Home Assistant's own auth code on the config folder; an owner that
exists already is left as it is.

Usage: python scripts/lib/demo_user.py CONFIG_DIR USERNAME PASSWORD
"""

from __future__ import annotations

import asyncio
import logging
import sys

from homeassistant import loader
from homeassistant.auth import auth_manager_from_config
from homeassistant.auth.const import GROUP_ID_ADMIN
from homeassistant.auth.providers import homeassistant as hass_auth
from homeassistant.components.onboarding import STORAGE_KEY
from homeassistant.components.onboarding import STORAGE_VERSION
from homeassistant.components.onboarding.const import STEPS
from homeassistant.config_entries import ConfigEntries
from homeassistant.const import EVENT_HOMEASSISTANT_FINAL_WRITE
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.storage import Store


async def create_owner(config_dir: str, username: str, password: str) -> str:
    """Create the owner (unless one exists) and finish onboarding; say what was done."""
    hass = HomeAssistant(config_dir)
    loader.async_setup(hass)
    # As Home Assistant's own `hass --script auth` does: the auth store needs the registries.
    hass.config_entries = ConfigEntries(hass, {})
    await hass.config_entries.async_initialize()
    dr.async_setup(hass)
    await asyncio.gather(dr.async_load(hass), er.async_load(hass))
    hass.auth = await auth_manager_from_config(hass, [{"type": "homeassistant"}], [])
    provider = hass.auth.auth_providers[0]
    assert isinstance(provider, hass_auth.HassAuthProvider)
    await provider.async_initialize()
    assert provider.data is not None
    try:
        owners = [user for user in await hass.auth.async_get_users() if user.is_owner]
        if owners:
            message = f"owner {owners[0].name!r} exists already"
        else:
            provider.data.add_auth(username, password)
            await provider.data.async_save()
            user = await hass.auth.async_create_user(
                username.capitalize(), group_ids=[GROUP_ID_ADMIN]
            )
            credentials = await provider.async_get_or_create_credentials({"username": username})
            await hass.auth.async_link_user(user, credentials)
            message = f"created owner {username!r}"
        store: Store[dict[str, list[str]]] = Store(hass, STORAGE_VERSION, STORAGE_KEY, private=True)
        await store.async_save({"done": list(STEPS)})
        # The auth store saves with a delay: write it now, as a stopping Home Assistant does.
        hass.bus.async_fire(EVENT_HOMEASSISTANT_FINAL_WRITE)
        await hass.async_block_till_done()
    finally:
        logging.getLogger("homeassistant.core").setLevel(logging.WARNING)
        await hass.async_stop()
    return message


def main() -> None:
    """Create the owner from the command line."""
    config_dir, username, password = sys.argv[1:4]
    print(asyncio.run(create_owner(config_dir, username, password)))


if __name__ == "__main__":
    main()
