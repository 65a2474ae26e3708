"""Speakers and TVs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.media_player import MediaPlayerEntity
from homeassistant.components.media_player.const import (
    MediaPlayerEntityFeature,
    MediaPlayerState,
)

from .entity import SyntheticEntity, setup_domain

SOURCES = ["Radio", "Spotify", "TV", "Bluetooth"]


class SyntheticMediaPlayer(SyntheticEntity, MediaPlayerEntity):
    """A player with volume, sources and transport controls."""

    _attr_supported_features = (
        MediaPlayerEntityFeature.PLAY
        | MediaPlayerEntityFeature.PAUSE
        | MediaPlayerEntityFeature.STOP
        | MediaPlayerEntityFeature.NEXT_TRACK
        | MediaPlayerEntityFeature.PREVIOUS_TRACK
        | MediaPlayerEntityFeature.VOLUME_SET
        | MediaPlayerEntityFeature.VOLUME_MUTE
        | MediaPlayerEntityFeature.VOLUME_STEP
        | MediaPlayerEntityFeature.SELECT_SOURCE
        | MediaPlayerEntityFeature.TURN_ON
        | MediaPlayerEntityFeature.TURN_OFF
    )
    _attr_source_list = SOURCES

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start idle or playing by index."""
        super().__init__(spec)
        playing = self.index % 2 == 0
        self._attr_state = MediaPlayerState.PLAYING if playing else MediaPlayerState.IDLE
        self._attr_volume_level = 0.3
        self._attr_is_volume_muted = False
        self._attr_source = SOURCES[self.index % len(SOURCES)]
        self._attr_media_title = "Morning News" if playing else None

    def _set(self, state: MediaPlayerState) -> None:
        self._attr_state = state
        self.changed()

    async def async_turn_on(self) -> None:
        """Turn on (idle)."""
        self._set(MediaPlayerState.IDLE)

    async def async_turn_off(self) -> None:
        """Turn off."""
        self._set(MediaPlayerState.OFF)

    async def async_media_play(self) -> None:
        """Play."""
        self._set(MediaPlayerState.PLAYING)

    async def async_media_pause(self) -> None:
        """Pause."""
        self._set(MediaPlayerState.PAUSED)

    async def async_media_stop(self) -> None:
        """Stop."""
        self._set(MediaPlayerState.IDLE)

    async def async_media_next_track(self) -> None:
        """Skip (nothing to skip to)."""
        self.changed()

    async def async_media_previous_track(self) -> None:
        """Go back (nothing to go back to)."""
        self.changed()

    async def async_set_volume_level(self, volume: float) -> None:
        """Set the volume (0..1)."""
        self._attr_volume_level = volume
        self.changed()

    async def async_mute_volume(self, mute: bool) -> None:
        """Mute or unmute."""
        self._attr_is_volume_muted = mute
        self.changed()

    async def async_select_source(self, source: str) -> None:
        """Switch the input."""
        self._attr_source = source
        self.changed()


async_setup_entry = setup_domain("media_player", SyntheticMediaPlayer)
