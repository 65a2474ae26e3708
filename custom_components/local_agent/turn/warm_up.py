"""Warming up: an agent's prefix is evaluated before its first command, and after the home changes.

The prefix (instructions, tools, the home list: turn/home_context.py) is most of what a
command's prompt holds, and evaluating it takes minutes for a large home on a small CPU. So
the engine evaluates it in the background (ModelWorker.warm: short batches a command
interrupts) once Home Assistant has started, whenever the agent is (re)created, a few seconds
after the home's structure changes (an entity exposed or hidden, added, removed or renamed,
its aliases, area or device moved, an area renamed), and after a turn stopped at its time
limit or abandoned, which may have left the prefix half-evaluated.

Each minute, while the model is idle, the engine also evaluates the next message's start up to
its time line ("Now: Wednesday 2026-12-02 07:41", most of a short command's tokens): of the
last conversation while its chat session lasts, else of a new one; only over the home list
and the prefix the context already holds (ConversationAgent.async_prepare_this_minute). A home
list that more states outgrew than a message lists is taken again then and evaluated in the
background, at most a quarter of the time, instead of by the next command.

The home list is kept in Home Assistant's storage, so that after a restart the agent writes
the same prefix as before (while no more than CHANGE_LIMIT states differ: those go into the
first message, as always) and the engine restores it from disk instead of evaluating it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from datetime import datetime
import logging
from typing import Any
from typing import Final

from custom_components.local_agent.compat import cancel_pending_save
from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.const import DOMAIN
from homeassistant.components.homeassistant.exposed_entities import async_listen_entity_updates
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import CoreState
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers.debounce import Debouncer
from homeassistant.helpers.event import async_track_time_change
from homeassistant.helpers.start import async_at_started
from homeassistant.helpers.storage import Store
from homeassistant.util.hass_dict import HassKey

from .agent import ConversationAgent
from .home_context import HomeSnapshot

_LOGGER = logging.getLogger(__name__)

# Changes that come together (a device with its entities, an area rename) warm up once.
DEBOUNCE_SECONDS: Final = 5.0
STORAGE_VERSION: Final = 1
SAVE_DELAY_SECONDS: Final = 10.0


_KEPT: HassKey[dict[str, HomeSnapshot]] = HassKey(f"{DOMAIN}_home_lists")
# One store per agent across reloads, so that forgetting the agent cancels its pending save.
_STORES: HassKey[dict[str, Store[dict[str, Any]]]] = HassKey(f"{DOMAIN}_home_list_stores")


def _home_list_store(hass: HomeAssistant, key: str) -> Store[dict[str, Any]]:
    stores = hass.data.setdefault(_STORES, {})
    if (store := stores.get(key)) is None:
        store = stores[key] = Store(hass, STORAGE_VERSION, f"{DOMAIN}.home_list.{key}")
    return store


@callback
def forget_home_list(hass: HomeAssistant, key: str) -> None:
    """Forget the home list of an agent that is gone, in memory and on disk.

    A save still pending is cancelled first, so it cannot write the file again.
    """
    if (kept := hass.data.get(_KEPT)) is not None:
        kept.pop(key, None)
    store = _home_list_store(hass, key)
    del hass.data[_STORES][key]
    cancel_pending_save(store)
    hass.async_create_task(store.async_remove(), f"{DOMAIN} forget home list {key}")


class HomeWarmUp:
    """Warms one agent's prefix up; keeps its home list across restarts."""

    def __init__(
        self, hass: HomeAssistant, key: str, agent: Callable[[], ConversationAgent | None]
    ) -> None:
        """key: the agent's own (its subentry id); agent: the agent as it is now."""
        self.hass = hass
        self._agent = agent
        self._key = key
        self._store = _home_list_store(hass, key)
        self._snapshot: HomeSnapshot | None = None
        self._debouncer = Debouncer(
            hass,
            _LOGGER,
            cooldown=DEBOUNCE_SECONDS,
            immediate=False,
            function=self._async_warm,
            background=True,
        )
        self._started = False
        self._running: set[asyncio.Task[None]] = set()

    async def async_start(self) -> CALLBACK_TYPE:
        """Read the kept home list, warm up once Home Assistant runs; return how to stop."""
        # Kept in memory across reloads of the entry (the store may not have written yet).
        self._snapshot = self.hass.data.setdefault(_KEPT, {}).get(self._key)
        if self._snapshot is None:
            data = await self._store.async_load()
            self._snapshot = HomeSnapshot.from_dict(data) if isinstance(data, dict) else None
        self.attach()
        unsubscribers = [
            async_at_started(self.hass, self._async_started),
            async_listen_entity_updates(self.hass, ASSISTANT, self._changed),
            self.hass.bus.async_listen(
                er.EVENT_ENTITY_REGISTRY_UPDATED, self._on_event, event_filter=self._exposed_entry
            ),
            self.hass.bus.async_listen(dr.EVENT_DEVICE_REGISTRY_UPDATED, self._on_event),
            self.hass.bus.async_listen(ar.EVENT_AREA_REGISTRY_UPDATED, self._on_event),
            self.hass.bus.async_listen(fr.EVENT_FLOOR_REGISTRY_UPDATED, self._on_event),
            self.hass.bus.async_listen(
                EVENT_STATE_CHANGED, self._on_event, event_filter=self._exposed_came_or_went
            ),
            async_track_time_change(self.hass, self._on_minute, second=0),
        ]

        @callback
        def stop() -> None:
            for unsubscribe in unsubscribers:
                unsubscribe()
            self._debouncer.async_shutdown()
            for task in self._running:
                task.cancel()

        return stop

    @callback
    def attach(self) -> None:
        """Give the agent (new, or made again with new settings) the kept home list; warm up."""
        agent = self._agent()
        if agent is None:
            return
        context = agent.home_context
        if context.snapshot is None:
            context.snapshot = self._snapshot
        context.on_snapshot = self._keep
        agent.on_turn_stopped = self._turn_stopped
        if self._started:
            self._warm_now()

    @callback
    def _async_started(self, _hass: HomeAssistant) -> None:
        self._started = True
        self._warm_now()

    @callback
    def _warm_now(self) -> None:
        self.hass.async_create_background_task(self._async_warm(), f"{DOMAIN} warms up an agent")

    @callback
    def _on_event(self, _event: Event[Any]) -> None:
        self._changed()

    @callback
    def _exposed_entry(self, data: er.EventEntityRegistryUpdatedData) -> bool:
        """Tell whether a registry change is of an exposed entity (exposure: its own listener)."""
        return async_should_expose(self.hass, ASSISTANT, data["entity_id"])

    @callback
    def _exposed_came_or_went(self, data: EventStateChangedData) -> bool:
        """Tell whether an exposed entity appeared or disappeared (a state change is no news)."""
        if data["old_state"] is not None and data["new_state"] is not None:
            return False
        return async_should_expose(self.hass, ASSISTANT, data["entity_id"])

    @callback
    def _changed(self) -> None:
        if self._started:
            self._debouncer.async_schedule_call()

    @callback
    def _turn_stopped(self) -> None:
        """Go on warming up after a turn that stopped at its limit or was abandoned."""
        if self._started:
            self._warm_now()

    @callback
    def _on_minute(self, _now: datetime) -> None:
        if self._started:
            self.hass.async_create_background_task(
                self._async_prepare_this_minute(), f"{DOMAIN} prepares this minute's time"
            )

    async def _async_warm(self) -> None:
        await self._async_run(ConversationAgent.async_warm)

    async def _async_prepare_this_minute(self) -> None:
        await self._async_run(ConversationAgent.async_prepare_this_minute)

    async def _async_run(self, work: Callable[[ConversationAgent], Awaitable[None]]) -> None:
        agent = self._agent()
        task = asyncio.current_task()
        # Home Assistant stops without unloading entries: a change just before the stop must
        # not warm up once its executor is gone.
        if agent is None or task is None or self.hass.state is not CoreState.running:
            return
        self._running.add(task)
        try:
            await work(agent)
        finally:
            self._running.discard(task)

    @callback
    def _keep(self, snapshot: HomeSnapshot) -> None:
        if self.hass.data.get(_STORES, {}).get(self._key) is not self._store:
            return  # the agent is gone: a turn that ends after must not save its list again
        self._snapshot = self.hass.data.setdefault(_KEPT, {})[self._key] = snapshot
        self._store.async_delay_save(snapshot.as_dict, SAVE_DELAY_SECONDS)
