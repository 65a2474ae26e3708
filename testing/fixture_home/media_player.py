"""Speakers and TVs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from typing import ClassVar

from homeassistant.components.media_player import MediaPlayerEntity
from homeassistant.components.media_player.const import MediaPlayerEntityFeature
from homeassistant.components.media_player.const import MediaPlayerState
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import moves_to
from testing.fixture_home.entity import number
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.entity import stores
from testing.fixture_home.entity import text_list
from testing.fixture_home.entity import whole

_BASE_FEATURES = (
    MediaPlayerEntityFeature.PLAY
    | MediaPlayerEntityFeature.PAUSE
    | MediaPlayerEntityFeature.STOP
    | MediaPlayerEntityFeature.NEXT_TRACK
    | MediaPlayerEntityFeature.PREVIOUS_TRACK
    | MediaPlayerEntityFeature.VOLUME_SET
    | MediaPlayerEntityFeature.VOLUME_MUTE
    | MediaPlayerEntityFeature.VOLUME_STEP
    | MediaPlayerEntityFeature.TURN_ON
    | MediaPlayerEntityFeature.TURN_OFF
)


class FixtureMediaPlayer(FixtureEntity, MediaPlayerEntity):
    """A player with volume, transport controls and (with a source list) sources.

    Next/previous track move `media_track` by one, so skipping is visible in the state.
    """

    HANDLED = frozenset(
        {
            "volume_level", "is_volume_muted", "source", "source_list", "media_title",
            "media_artist", "media_album_name", "media_content_type", "media_track",
            "sound_mode", "sound_mode_list",
        }
    )  # fmt: skip

    STATES = frozenset(state.value for state in MediaPlayerState)
    STATE_FIELD = "_attr_state"
    UNSIMULATED: ClassVar[Mapping[str, str]] = {
        "shuffle": "SHUFFLE_SET",
        "repeat": "REPEAT_SET",
        "media_content_id": "PLAY_MEDIA",
        "media_position": "SEEK",
        "group_members": "GROUPING",
    }

    @classmethod
    def features_type(cls) -> Any:
        """Media player features."""
        return MediaPlayerEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Transport and volume always; sources and sound modes when listed."""
        features = _BASE_FEATURES
        if sources := text_list(attributes.get("source_list")):
            features |= MediaPlayerEntityFeature.SELECT_SOURCE
            self._attr_source_list = sources
        if sound_modes := text_list(attributes.get("sound_mode_list")):
            features |= MediaPlayerEntityFeature.SELECT_SOUND_MODE
            self._attr_sound_mode_list = sound_modes
        self._attr_supported_features = features

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """State, volume, source and what is playing."""
        self._attr_state = MediaPlayerState(state)
        self._attr_volume_level = number(attributes.get("volume_level"))
        muted = attributes.get("is_volume_muted")
        self._attr_is_volume_muted = None if muted is None else bool(muted)
        self.take(
            attributes,
            ("source", "sound_mode", "media_title", "media_artist", "media_album_name",
             "media_content_type"),
        )  # fmt: skip
        self._attr_media_track = whole(attributes.get("media_track"))

    async_turn_on = moves_to(MediaPlayerState.ON, doc="Turn on.")
    async_turn_off = moves_to(MediaPlayerState.OFF, doc="Turn off.")
    async_media_play = moves_to(MediaPlayerState.PLAYING, doc="Play.")
    async_media_pause = moves_to(MediaPlayerState.PAUSED, doc="Pause.")
    async_media_stop = moves_to(MediaPlayerState.IDLE, doc="Stop.")

    async def async_media_next_track(self) -> None:
        """Skip to the next track."""
        self._attr_media_track = (self._attr_media_track or 1) + 1
        self.changed()

    async def async_media_previous_track(self) -> None:
        """Go back a track."""
        self._attr_media_track = max(1, (self._attr_media_track or 1) - 1)
        self.changed()

    async def async_set_volume_level(self, volume: float) -> None:
        """Set the volume (0..1)."""
        self._attr_volume_level = round(volume, 4)
        self.changed()

    async_mute_volume = stores("mute", "is_volume_muted", doc="Mute or unmute.")
    async_select_source = stores("source", doc="Switch the input.")
    async_select_sound_mode = stores("sound_mode", doc="Switch the sound mode.")


async_setup_entry = setup_domain("media_player", FixtureMediaPlayer)
