"""The conversation entity: one per agent subentry, a thin shell around turn/agent.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from typing import Literal

from custom_components.local_agent.runtime.data import LocalAgentConfigEntry
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.const import MATCH_ALL
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback

from .const import SUBENTRY_CONVERSATION
from .entity import LocalAgentEntity
from .entity import subentry_platform_setup
from .runtime.stats import AgentStats
from .safety.confirmation import Ending
from .turn.agent import AgentOptions
from .turn.agent import ConversationAgent
from .turn.home_context import forget_conversations
from .turn.warm_up import HomeWarmUp
from .turn.warm_up import forget_home_list


class LocalAgentConversationEntity(conversation.ConversationEntity, LocalAgentEntity):
    """A conversation agent backed by the entry's loaded model."""

    _attr_supports_streaming = True
    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

    @staticmethod
    @callback
    def forget_subentry(hass: HomeAssistant, subentry_id: str) -> None:
        """Forget what an agent kept across reloads once its subentry is gone."""
        forget_conversations(hass, subentry_id)
        forget_home_list(hass, subentry_id)

    def __init__(self, entry: LocalAgentConfigEntry, subentry: ConfigSubentry) -> None:
        """Describe the entity and its device."""
        super().__init__(entry, subentry)
        self.agent: ConversationAgent | None = None
        self._built_from: tuple[str, dict[str, Any]] = (subentry.title, dict(subentry.data))
        self._warm_up: HomeWarmUp | None = None

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Answer in any language the model speaks."""
        return MATCH_ALL

    async def async_added_to_hass(self) -> None:
        """Create the agent once the entity has its id."""
        await super().async_added_to_hass()
        self.agent = self._new_agent()

        @callback
        def drop_pending(_event: Event | None = None) -> None:
            if self.agent is not None:
                self.agent.gate.async_drop_pending(Ending.RESTARTED)

        self.async_on_remove(drop_pending)
        self.async_on_remove(self.hass.bus.async_listen(EVENT_HOMEASSISTANT_STOP, drop_pending))
        # Its prefix is evaluated before the first command and again when the home changes.
        self._warm_up = HomeWarmUp(self.hass, self.subentry.subentry_id, lambda: self.agent)
        self.async_on_remove(await self._warm_up.async_start())

    def _new_agent(self) -> ConversationAgent:
        data = self.entry.runtime_data
        self._built_from = (self.subentry.title, dict(self.subentry.data))
        return ConversationAgent(
            self.hass,
            data.worker,
            AgentOptions.from_data(self.subentry.data),
            agent_id=self.entity_id,
            subentry_id=self.subentry.subentry_id,
            stats=data.agent_stats.setdefault(self.subentry.subentry_id, AgentStats()),
        )

    @callback
    def async_apply_subentry(self) -> None:
        """Use the subentry's new name and settings; a turn in progress finishes as it began."""
        if self.agent is None or self._built_from == (
            self.subentry.title,
            dict(self.subentry.data),
        ):
            return
        # A held action was asked for under the old settings: it is not run under the new ones.
        self.agent.gate.async_drop_pending(Ending.SETTINGS_CHANGED)
        self.agent = self._new_agent()
        if self._warm_up is not None:
            self._warm_up.attach()
        self._async_follow_title()

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Hand the turn to the agent, in the language as its tag is written in our files."""
        assert self.agent is not None
        language = language_tag(user_input.language)
        if language != user_input.language:
            user_input = replace(user_input, language=language)
        return await self.agent.async_handle(user_input, chat_log)


def language_tag(language: str) -> str:
    """Return "nl" for "NL" and "nl-BE" for "nl_BE"; a region stays as written ("pt-BR").

    A language tag's case does not matter (BCP 47) and a POSIX underscore names the same
    language, as an automation's Conversation: Process may write it; our sentences, words
    and logbook entries are found by the lower-case language.
    """
    primary, dash, rest = language.strip().replace("_", "-").partition("-")
    return primary.lower() + dash + rest


# One conversation entity per agent subentry, following later subentry changes.
async_setup_entry = subentry_platform_setup(SUBENTRY_CONVERSATION, LocalAgentConversationEntity)
