"""Turn the entity references a model writes into exposed entity ids, or say why not.

Unexposed entities get the same answer as ones that do not exist, so a refusal
never reveals what the user chose to hide from the assistant.
"""

from __future__ import annotations

from collections.abc import Container
from collections.abc import Mapping
from collections.abc import Sequence
import difflib
from itertools import islice
import json
from typing import Any
from typing import Final

from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.core import valid_entity_id

from .actions import ToolFailure
from .call_texts import Phrase
from .call_texts import Said
from .call_texts import entity_name
from .call_texts import inside_sentence
from .entity_view import entity_info
from .entity_view import one_line

_CLOSE_MATCH_CUTOFF: Final = 0.6
_MAX_LISTED: Final = 10
# Why a reference found nothing, as the person hears it (the same whether it exists or not).
NO_SUCH_ENTITY: Final = "reason_no_such_entity"


class EntityResolver:
    """Resolve references against one turn's exposed entities."""

    def __init__(
        self,
        hass: HomeAssistant,
        assistant: str,
        exposed: Mapping[str, State],
        tool_domains: Container[str],
    ) -> None:
        """Hold the exposed entities; names are computed on first need."""
        self.hass = hass
        self.assistant = assistant
        self._exposed = exposed
        self._tool_domains = tool_domains
        self._names: dict[str, tuple[str, ...]] | None = None

    def resolve(self, raw: Any, domain: str | None) -> tuple[str, ...] | ToolFailure:
        """Resolve one or several references; domain None accepts any domain."""
        references = parse_entity_ids(raw)
        if not references:
            return ToolFailure(f"entity_id is required: {self._known(domain)}")
        resolved: list[str] = []
        for reference in references:
            entity_id = self._resolve_one(reference, domain)
            if isinstance(entity_id, ToolFailure):
                return entity_id
            if entity_id not in resolved:
                resolved.append(entity_id)
        return tuple(resolved)

    def _resolve_one(self, reference: str, domain: str | None) -> str | ToolFailure:
        """Accept an exposed entity id, or a name or alias naming exactly one."""
        candidate = reference.strip().lower()
        if candidate in self._exposed and self._is_exposed(candidate):
            actual = candidate.partition(".")[0]
            if domain is None or actual == domain:
                return candidate
            if actual in self._tool_domains:
                hint = f"use the {actual} tool"
            else:
                hint = "it can only be read with get_state"
            return ToolFailure(f"{candidate} is a {actual} entity, not {domain}: {hint}.")
        names = self._entity_names(domain)
        by_name = self._named(reference, names)
        if len(by_name) == 1:
            return by_name[0]
        if len(by_name) > 1:
            return ToolFailure(
                f"{reference!r} names several entities: {', '.join(by_name)}. Pick one entity_id."
            )
        why_not = self._why_not(reference.strip())  # as written: "iPhone", not "iphone"
        return ToolFailure(self._not_found(reference, domain, names), why_not)

    def _why_not(self, reference: str) -> tuple[Said, ...]:
        """Say why nothing was found, naming the reference as the model wrote it.

        The same for an entity that is not exposed as for one that does not exist, and never
        by Home Assistant's name for it: the sentence goes into the conversation the model
        reads (the person hears what is not exposed in a hint of their own, turn/notices.py).
        """
        return (Phrase(NO_SUCH_ENTITY, {"name": written_name(reference)}),)

    def _is_exposed(self, entity_id: str) -> bool:
        """Check exposure live: it may have changed since this turn started."""
        return self.hass.states.get(entity_id) is not None and async_should_expose(
            self.hass, self.assistant, entity_id
        )

    def _entity_names(self, domain: str | None) -> dict[str, tuple[str, ...]]:
        """Return casefolded names and aliases of the exposed entities (of a domain)."""
        if self._names is None:
            self._names = {}
            for entity_id, state in self._exposed.items():
                info = entity_info(self.hass, state)
                self._names[entity_id] = tuple(n.casefold() for n in (info.name, *info.aliases))
        return {
            entity_id: names
            for entity_id, names in self._names.items()
            if domain is None or entity_id.startswith(f"{domain}.")
        }

    def _not_found(
        self, reference: str, domain: str | None, names: Mapping[str, tuple[str, ...]]
    ) -> str:
        """Say precisely what is missing, naming the closest exposed entities."""
        kind = f"{domain} entity" if domain else "entity"
        message = f"There is no exposed {kind} {reference!r}."
        if close := self._close(reference, names):
            return f"{message} {self._did_you_mean(close)}"
        return f"{message} {self._known(domain)}"

    def suggestion(self, raw: Any, domain: str | None) -> str | None:
        """Return which exposed entities the references written may mean, for a retry.

        For the model only, after its call was refused: what is named (a name, a near id) is
        suggested, never acted on. None: each reference is an exposed id (of any domain: no
        entity of another kind is offered for it), or nothing is near it.
        """
        names = self._entity_names(domain)
        meant: list[str] = []
        for reference in parse_entity_ids(raw):
            if reference.strip().lower() in self._exposed:
                continue  # an id of the domain, or of another (whose tool the resolver names)
            meant += self._named(reference, names) or self._close(reference, names)
        return self._did_you_mean(list(dict.fromkeys(meant))) if meant else None

    def _named(self, reference: str, names: Mapping[str, tuple[str, ...]]) -> list[str]:
        """Return the exposed entities a name or an alias as written names exactly."""
        wanted = reference.strip().casefold()
        return [e for e, known in names.items() if wanted in known and self._is_exposed(e)]

    def _close(self, reference: str, names: Mapping[str, tuple[str, ...]]) -> list[str]:
        # The names are this turn's: one unexposed or gone since is offered no more.
        return [e for e in close_matches(reference, names) if self._is_exposed(e)]

    def _did_you_mean(self, entity_ids: Sequence[str]) -> str:
        named = ", ".join(f"{eid} ({entity_name(self.hass, eid)})" for eid in entity_ids)
        return f"Did you mean: {named}?"

    def _known(self, domain: str | None) -> str:
        exposed = (e for e in sorted(self._entity_names(domain)) if self._is_exposed(e))
        ids = list(islice(exposed, _MAX_LISTED + 1))
        if not ids:
            return "No such entities are exposed."
        shown = ", ".join(ids[:_MAX_LISTED]) + (", …" if len(ids) > _MAX_LISTED else "")
        return f"Exposed: {shown}."


def written_name(reference: str) -> str:
    """Return a reference as said: "light.attic" reads "attic", a name stays as written."""
    if valid_entity_id(reference):
        return reference.partition(".")[2].replace("_", " ").strip()
    return inside_sentence(one_line(reference))


def parse_entity_ids(raw: Any) -> list[str]:
    """Accept one id, a list, a JSON list in a string, or comma-separated ids."""
    if isinstance(raw, str) and raw.strip().startswith("["):
        try:
            raw = json.loads(raw)
        except ValueError:
            return [raw]
    if isinstance(raw, str):
        return [part.strip() for part in raw.split(",") if part.strip()]
    if isinstance(raw, list):
        return [item.strip() for item in raw if isinstance(item, str) and item.strip()]
    return []


def close_matches(reference: str, names: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Rank entities by how closely their id, object id or names match; best three."""
    wanted = reference.strip().casefold()
    scores: dict[str, float] = {}
    for entity_id, known in names.items():
        keys = (entity_id, entity_id.partition(".")[2], *known)
        scores[entity_id] = max(_similarity(wanted, key) for key in keys)
    ranked = sorted(
        (entity_id for entity_id, score in scores.items() if score >= _CLOSE_MATCH_CUTOFF),
        key=lambda entity_id: (-scores[entity_id], entity_id),
    )
    return ranked[:3]


def _similarity(wanted: str, key: str) -> float:
    if wanted and (wanted in key or key in wanted):
        return 0.9
    return difflib.SequenceMatcher(None, wanted, key).ratio()
