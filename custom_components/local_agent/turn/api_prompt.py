"""The LLM API's prompt, split into what every device shares and what this device adds.

Core's Assist API says device-dependent things ("You are in area Kitchen …", "This device is
not able to start timers."): in the home prefix they would give each satellite a prefix of its
own. What depends on the device is read from core's own output, never from its English: the
prompt is built with and without the device, and a line that either says and the other does
not is the device's. Such a line, once seen, stays the device's (for every request: a request
without a device says its own in its block too), so the prefix is the same for every device.
When the split is not clean, the device's prompt stays whole in the prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class SplitPrompt:
    """shared: the prompt's part for the prefix; own: this request's lines for its block."""

    shared: str
    own: str


class DeviceLines:
    """The lines of the API prompt seen to depend on the device, learned from core's output."""

    def __init__(self) -> None:
        self._lines: frozenset[str] = frozenset()

    def split(self, without_device: str, with_device: str) -> SplitPrompt:
        """Split this request's prompt (with_device) by what core says without a device."""
        general = without_device.split("\n")
        own_prompt = with_device.split("\n")
        # Only lines of the general prompt are kept: what is learned stays bounded by it.
        self._lines = frozenset(
            line for line in general if line in self._lines or line not in own_prompt
        )
        shared = [line for line in general if line not in self._lines]
        kept = set(shared)
        own = [line for line in own_prompt if line not in kept]
        if [line for line in own_prompt if line in kept] != shared or "" in own:
            # A shared line said twice or in another order, a blank line of the device's own:
            # no clean split.
            return SplitPrompt(shared=with_device, own="")
        return SplitPrompt(shared="\n".join(shared).strip(), own="\n".join(own))


# Devices whose prompt without them is kept: satellites come and go, a caller names any id.
PROMPTS_KEPT: Final = 16


class PromptsByDevice:
    """Core's prompt without the device, for the devices last asked from (a few at most).

    Each is kept with what it was built for (the key): another key builds it again.
    """

    def __init__(self) -> None:
        self._kept: dict[str, tuple[tuple[object, ...], str]] = {}

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, device_id: str, key: tuple[object, ...]) -> str | None:
        """Return the prompt kept for this device and key, now the device last asked from."""
        kept = self._kept.pop(device_id, None)
        if kept is None or kept[0] != key:
            return None
        self._kept[device_id] = kept
        return kept[1]

    def keep(self, device_id: str, key: tuple[object, ...], prompt: str) -> None:
        """Keep the prompt for this device and key, forgetting the device asked from longest ago."""
        self._kept.pop(device_id, None)
        self._kept[device_id] = (key, prompt)
        while len(self._kept) > PROMPTS_KEPT:
            del self._kept[next(iter(self._kept))]


# Without an LLM API: nothing for the prefix, nothing for the block.
NO_API_PROMPT: Final = SplitPrompt(shared="", own="")
