"""Home Assistant's "Prefer handling commands locally" bypasses every confirmation.

With the option on (the default for a new pipeline) an Assist pipeline sends each sentence to
Home Assistant's built-in intents first; a sentence they match ("unlock the front door") runs
at once and never reaches the agent, so none of its questions is asked. Core's matcher has no
hook, so the user is told: a repair issue is raised while a pipeline that uses one of our agents
has the option on and an entity exposed to Assist is sensitive under that agent's policy. Its
fix turns the option off for those pipelines, or keeps it on knowingly (remembered per
pipeline until its option is seen off again). Checked again whenever pipelines, exposure, the
entity registry or an entry of ours change, and once Home Assistant has started: no polling.

The same watch says which pipelines lost their agent: one of ours that was deleted (its
subentry or entry) while a pipeline used it leaves Assist answering only "an error has
occurred"; a second issue names those pipelines until each has an agent again. An agent whose
entity id is changed in its settings stays the pipelines' agent: core's pipelines keep the old
id, so they are pointed at the new one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Final

from custom_components.local_agent.compat import async_listen_pipelines
from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.runtime.issues import async_clear_gone_agent
from custom_components.local_agent.runtime.issues import async_clear_prefer_local
from custom_components.local_agent.runtime.issues import async_raise_gone_agent
from custom_components.local_agent.runtime.issues import async_raise_prefer_local
from homeassistant.components.homeassistant.exposed_entities import async_listen_entity_updates
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.config_entries import SIGNAL_CONFIG_ENTRY_CHANGED
from homeassistant.const import EVENT_COMPONENT_LOADED
from homeassistant.const import EVENT_HOMEASSISTANT_STARTED
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.storage import Store
from homeassistant.util.hass_dict import HassKey

from .policy import SafetyPolicy

PIPELINE_COMPONENT: Final = "assist_pipeline"
STORE_KEY: Final = f"{DOMAIN}.prefer_local_accepted"
STORE_VERSION: Final = 1
# Sensitive entities named in the issue; the rest are counted.
NAMED_ENTITIES: Final = 5
WATCH: HassKey[LocalIntentsWatch] = HassKey(f"{DOMAIN}_local_intents_watch")


@dataclass(frozen=True, slots=True)
class Bypass:
    """A pipeline that sends sentences to the built-in intents before one of our agents."""

    pipeline_id: str
    pipeline_name: str
    agent: str
    sensitive: tuple[str, ...]


def _pipelines(hass: HomeAssistant) -> list[Any]:
    if PIPELINE_COMPONENT not in hass.config.components:
        return []
    from homeassistant.components.assist_pipeline import async_get_pipelines

    return async_get_pipelines(hass)


def _agent_policy(hass: HomeAssistant, engine: str | None) -> tuple[str, SafetyPolicy] | None:
    """Return the name and policy of our agent behind a pipeline's conversation engine."""
    entry = er.async_get(hass).async_get(engine) if engine else None
    if entry is None or entry.platform != DOMAIN or entry.config_entry_id is None:
        return None
    config_entry = hass.config_entries.async_get_entry(entry.config_entry_id)
    subentry = config_entry.subentries.get(entry.config_subentry_id or "") if config_entry else None
    if subentry is None or subentry.subentry_type != SUBENTRY_CONVERSATION:
        return None
    return subentry.title, SafetyPolicy.from_data(subentry.data)


def find_bypasses(hass: HomeAssistant) -> list[Bypass]:
    """Pipelines with the option on whose agent (ours) has a sensitive entity exposed."""
    candidates = [
        (pipeline, agent)
        for pipeline in _pipelines(hass)
        if pipeline.prefer_local_intents
        and (agent := _agent_policy(hass, pipeline.conversation_engine)) is not None
    ]
    if not candidates:
        return []
    exposed = [
        state.entity_id
        for state in hass.states.async_all()
        if async_should_expose(hass, ASSISTANT, state.entity_id)
    ]
    found: list[Bypass] = []
    for pipeline, (name, policy) in candidates:
        if sensitive := policy.sensitive_entities(hass, exposed):
            found.append(Bypass(pipeline.id, pipeline.name, name, tuple(sensitive)))
    return found


def find_gone_agents(hass: HomeAssistant) -> list[str]:
    """Names of the pipelines whose conversation agent is an entity of ours that was deleted.

    Decided by the entity registry's record of the deleted entity (its platform), never by how
    the pipeline's engine id reads.
    """
    registry = er.async_get(hass)
    gone = {
        deleted.entity_id
        for deleted in registry.deleted_entities.values()
        if deleted.platform == DOMAIN
    }
    return [
        pipeline.name
        for pipeline in _pipelines(hass)
        if (engine := pipeline.conversation_engine) in gone and registry.async_get(engine) is None
    ]


async def async_follow_renamed_agent(hass: HomeAssistant, old: str, new: str) -> None:
    """Point the pipelines that used an agent of ours by its old entity id at its new one."""
    from homeassistant.components.assist_pipeline import async_update_pipeline

    for pipeline in _pipelines(hass):
        if pipeline.conversation_engine == old:
            await async_update_pipeline(hass, pipeline, conversation_engine=new)


@dataclass(slots=True)
class LocalIntentsWatch:
    """Keeps the repair issue in step with the pipelines, exposure and our agents."""

    hass: HomeAssistant
    store: Store[dict[str, list[str]]]
    accepted: set[str] = field(default_factory=set)
    unsubscribe: list[CALLBACK_TYPE] = field(default_factory=list)
    scheduled: bool = False

    @callback
    def async_schedule_check(self, *_args: Any) -> None:
        """Check once after the current burst of changes."""
        if not self.scheduled:
            self.scheduled = True
            self.hass.async_create_task(self._async_check(), f"{DOMAIN} checks pipelines")

    async def _async_check(self) -> None:
        self.scheduled = False
        self.async_check()

    @callback
    def async_check(self) -> None:
        """Raise, update or delete the issue now."""
        bypasses = find_bypasses(self.hass)
        bypassing = {bypass.pipeline_id for bypass in bypasses}
        # A pipeline accepted knowingly is asked about again once its option was off.
        if forgotten := self.accepted - bypassing:
            self.accepted -= forgotten
            self._save()
        shown = [bypass for bypass in bypasses if bypass.pipeline_id not in self.accepted]
        if shown:
            async_raise_prefer_local(self.hass, _placeholders(self.hass, shown))
        else:
            async_clear_prefer_local(self.hass)
        if gone := find_gone_agents(self.hass):
            async_raise_gone_agent(self.hass, gone)
        else:
            async_clear_gone_agent(self.hass)

    async def async_turn_off(self) -> None:
        """Switch the option off in every pipeline the issue names."""
        from homeassistant.components.assist_pipeline import async_update_pipeline

        shown = {b.pipeline_id for b in find_bypasses(self.hass)} - self.accepted
        for pipeline in _pipelines(self.hass):
            if pipeline.id in shown:
                await async_update_pipeline(self.hass, pipeline, prefer_local_intents=False)
        self.async_check()

    @callback
    def async_keep_on(self) -> None:
        """Remember that the user keeps the option on in the pipelines the issue names."""
        self.accepted |= {bypass.pipeline_id for bypass in find_bypasses(self.hass)}
        self._save()
        self.async_check()

    def _save(self) -> None:
        self.store.async_delay_save(lambda: {"pipelines": sorted(self.accepted)}, 1)

    @callback
    def async_stop(self) -> None:
        """Stop following changes and drop the issue (no agent of ours is left)."""
        for unsubscribe in self.unsubscribe:
            unsubscribe()
        self.unsubscribe.clear()
        async_clear_prefer_local(self.hass)
        async_clear_gone_agent(self.hass)


def issue_placeholders(hass: HomeAssistant) -> dict[str, str]:
    """Return what the issue names now: the pipelines and the sensitive entities."""
    watch = hass.data.get(WATCH)
    accepted = watch.accepted if watch is not None else set()
    shown = [b for b in find_bypasses(hass) if b.pipeline_id not in accepted]
    return _placeholders(hass, shown)


def _placeholders(hass: HomeAssistant, shown: list[Bypass]) -> dict[str, str]:
    entities = {e for bypass in shown for e in bypass.sensitive}
    all_names = sorted(_name(hass, entity_id) for entity_id in entities)
    names = all_names[:NAMED_ENTITIES]
    if len(all_names) > NAMED_ENTITIES:
        names.append(f"{len(all_names) - NAMED_ENTITIES} more")
    return {
        "pipelines": ", ".join(f"{b.pipeline_name} ({b.agent})" for b in shown),
        "entities": ", ".join(names),
    }


def _name(hass: HomeAssistant, entity_id: str) -> str:
    state = hass.states.get(entity_id)
    return state.name if state is not None else entity_id


async def async_watch(hass: HomeAssistant) -> LocalIntentsWatch:
    """Start following the changes that decide the issue (once), and check now."""
    if (watch := hass.data.get(WATCH)) is not None:
        watch.async_schedule_check()
        return watch
    store = Store[dict[str, list[str]]](hass, STORE_VERSION, STORE_KEY)
    saved = await store.async_load() or {}
    if (watch := hass.data.get(WATCH)) is not None:  # another entry started it meanwhile
        return watch
    watch = hass.data[WATCH] = LocalIntentsWatch(hass, store, set(saved.get("pipelines", [])))
    schedule = watch.async_schedule_check

    @callback
    def entry_changed(_change: Any, entry: Any) -> None:
        if entry.domain == DOMAIN:
            schedule()

    @callback
    def component_loaded(event: Event[Any]) -> None:
        if event.data.get("component") == PIPELINE_COMPONENT:
            if (unsubscribe := async_listen_pipelines(hass, schedule)) is not None:
                watch.unsubscribe.append(unsubscribe)
            schedule()

    @callback
    def entity_renamed(event: Event[er.EventEntityRegistryUpdatedData]) -> None:
        data = event.data
        if data["action"] != "update" or "old_entity_id" not in data:
            return
        entry = er.async_get(hass).async_get(data["entity_id"])
        if entry is not None and entry.platform == DOMAIN and entry.domain == "conversation":
            hass.async_create_task(
                async_follow_renamed_agent(hass, data["old_entity_id"], data["entity_id"]),
                f"{DOMAIN} follows a renamed agent",
            )

    listeners: list[Callable[[], CALLBACK_TYPE | None]] = [
        lambda: hass.bus.async_listen(er.EVENT_ENTITY_REGISTRY_UPDATED, entity_renamed),
        lambda: async_listen_pipelines(hass, schedule),
        lambda: hass.bus.async_listen(EVENT_COMPONENT_LOADED, component_loaded),
        lambda: async_listen_entity_updates(hass, ASSISTANT, schedule),
        lambda: hass.bus.async_listen(er.EVENT_ENTITY_REGISTRY_UPDATED, _event(schedule)),
        lambda: async_dispatcher_connect(hass, SIGNAL_CONFIG_ENTRY_CHANGED, entry_changed),
    ]
    for listen in listeners:
        if (unsubscribe := listen()) is not None:
            watch.unsubscribe.append(unsubscribe)
    if not hass.is_running:
        # Entities appear during start-up without a registry event when they have no entry.
        hass.bus.async_listen_once(EVENT_HOMEASSISTANT_STARTED, _event(schedule))
    schedule()
    return watch


def _event(schedule: Callable[[], None]) -> Callable[[Event[Any]], None]:
    @callback
    def on_event(_event: Event[Any]) -> None:
        schedule()

    return on_event


@callback
def async_unwatch(hass: HomeAssistant) -> None:
    """Stop following changes: the last entry of ours was unloaded."""
    if (watch := hass.data.pop(WATCH, None)) is not None:
        watch.async_stop()
