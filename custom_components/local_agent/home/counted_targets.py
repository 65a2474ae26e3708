"""Many targets of a done action said as a count by kind: "12 lights (Upstairs)".

A voice reading twelve names is no answer. From MIN_COUNTED targets on, a done answer says how
many of each kind it changed ("3 lights and 2 blinds"), with the area or floor every target
shares, as the registries place them (never as the model named the place), in brackets: the
place's name is the user's ("Ground Floor", "Piano terra"), and a noun of ours before it reads
"on floor Ground Floor" or "de la pièce Jardin". A target of a kind the words have no noun for
keeps the names (call_texts.join_few_names). Questions never count: a held action names every
sensitive target.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from homeassistant.const import ATTR_DEVICE_CLASS
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant
from homeassistant.core import split_entity_id

from .call_texts import call_words
from .call_texts import join_names
from .entity_view import hides_its_meaning
from .entity_view import one_line
from .twin_names import places_of

# Two or three names read well; from four on, the answer counts them.
MIN_COUNTED: Final = 4


@dataclass(frozen=True, slots=True)
class TargetKind:
    """What a target is (a key of call_words "kinds") and where it is."""

    kind: str
    area: str | None
    floor: str | None
    device: str | None = None


def target_kinds(hass: HomeAssistant, entity_ids: Sequence[str]) -> tuple[TargetKind, ...]:
    """Return each target's kind and place; empty when one of them is no entity any more.

    Empty too when one is a group (its state lists members): a group beside its own members is
    no more lights than they are, so the targets are named.
    """
    kinds: list[TargetKind] = []
    for entity_id in entity_ids:
        state = hass.states.get(entity_id)
        if state is None or ATTR_ENTITY_ID in state.attributes:
            return ()
        domain = split_entity_id(entity_id)[0]
        device_class = state.attributes.get(ATTR_DEVICE_CLASS)
        kind = f"{domain}.{device_class}" if isinstance(device_class, str) else domain
        area, floor, device = places_of(hass, entity_id)
        kinds.append(TargetKind(kind, area, floor, device))
    return tuple(kinds)


def counted(kinds: Sequence[TargetKind], language: str) -> str | None:
    """Say the targets as counts by kind, in their shared place; None to name them instead."""
    if len(kinds) < MIN_COUNTED:
        return None
    words = call_words(language)
    # By the words: two kinds the language names alike are one ("tende" for blinds, curtains).
    counts: Counter[tuple[str, str]] = Counter()
    for target in kinds:
        noun = target.kind if target.kind in words.kinds else target.kind.partition(".")[0]
        if noun not in words.kinds:
            return None
        counts[words.kinds[noun]] += 1
    things = join_names(
        [(one if count == 1 else more).format(count) for (one, more), count in counts.items()],
        language,
    )
    # The area they all share, else the floor; never one that shows other than it says or
    # holds marks of our sentences ("Hall) and locked Front Door (Porch").
    for places in ({target.area for target in kinds}, {target.floor for target in kinds}):
        if len(places) == 1 and (place := places.pop()) and not hides_its_meaning(place):
            return words.placed.format(things=things, place=one_line(place))
    return things
