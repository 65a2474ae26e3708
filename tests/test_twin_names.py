"""Twins of one answer told apart by a place that is heard apart, as spoken names are.

**Hole.** Two lamps of one answer, one in "Hallway" and one in "Hall way" (or "Küche" and
"Kuche"), were said "Lamp (Hallway) and Lamp (Hall way)": places were compared by their case
alone, while spoken_names compares them as heard, so a voice said the same lamp twice.
**Found.** A place is compared as it is heard (entity_view.heard): one heard like a twin's is
passed over for the next (floor, device), as spoken_names passes it over.
**Guards (passed at once).** Places heard apart still tell the twins apart.
"""

from __future__ import annotations

from custom_components.local_agent.home.twin_names import told_apart

LAMPS = ("Lamp", "Lamp")
IDS = ("light.lamp", "light.lamp_2")


def test_places_heard_alike_tell_nothing_apart() -> None:
    places = [("Hallway", "Ground", "Desk Lamp"), ("Hall way", "Ground", "Floor Lamp")]
    assert told_apart(LAMPS, IDS, places) == ("Lamp (Desk Lamp)", "Lamp (Floor Lamp)")


def test_accents_are_not_heard_either() -> None:
    places = [("Küche", None, None), ("Kuche", None, None)]
    assert told_apart(LAMPS, IDS, places) == ("Lamp (light.lamp)", "Lamp (light.lamp_2)")


def test_places_heard_apart_still_tell_twins_apart() -> None:
    places = [("Hall", None, None), ("Kitchen", None, None)]
    assert told_apart(LAMPS, IDS, places) == ("Lamp (Hall)", "Lamp (Kitchen)")
