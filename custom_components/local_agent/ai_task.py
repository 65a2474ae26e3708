"""The AI Task entity: one per ai_task_data subentry, on the loaded model (turn/data_task.py).

It shares the model with the entry's conversation agents and queues behind them (one
generation at a time in process; the server's limit otherwise). It never calls tools.
"""

from __future__ import annotations

from typing import Final

from homeassistant.components import ai_task
from homeassistant.components import conversation
from homeassistant.exceptions import HomeAssistantError

from .const import SUBENTRY_AI_TASK
from .entity import LocalAgentEntity
from .entity import subentry_platform_setup
from .runtime.stand_ins import StandIn
from .runtime.stand_ins import async_not_loaded_text
from .turn.data_task import TaskOptions
from .turn.data_task import async_generate_data

# Requests queue in the model's worker, not in Home Assistant's entity platform.
PARALLEL_UPDATES = 0


class LocalAgentTaskEntity(ai_task.AITaskEntity, LocalAgentEntity):
    """Generates data (text, or the structure asked for) with the entry's model.

    A changed subentry needs nothing applied beyond its name (entity.py): each task reads the
    subentry's settings.
    """

    # Text attachments are read into the prompt; others are refused with a clear error.
    _attr_supported_features = (
        ai_task.AITaskEntityFeature.GENERATE_DATA | ai_task.AITaskEntityFeature.SUPPORT_ATTACHMENTS
    )

    async def _async_generate_data(
        self,
        task: ai_task.GenDataTask,
        chat_log: conversation.ChatLog,
    ) -> ai_task.GenDataTaskResult:
        """Run the task on the model, with this subentry's settings."""
        return await async_generate_data(
            self.hass,
            data=self.entry.runtime_data,
            options=TaskOptions.from_data(self.subentry.data),
            task=task,
            chat_log=chat_log,
            agent_id=self.entity_id,
        )


# One AI Task entity per AI task subentry, following later subentry changes.
async_setup_entry = subentry_platform_setup(SUBENTRY_AI_TASK, LocalAgentTaskEntity)


class NotLoadedTaskEntity(StandIn, ai_task.AITaskEntity):
    """An AI task whose model entry does not load: a task fails saying why, not "not found"."""

    _attr_supported_features = ai_task.AITaskEntityFeature.GENERATE_DATA

    async def _async_generate_data(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        """Fail with the entry's reason, in Home Assistant's language."""
        text = await async_not_loaded_text(
            self.hass, self.entry, self.hass.config.language, "task_model_not_loaded"
        )
        raise HomeAssistantError(text)


# What stands in for an AI task while its model entry does not load (runtime/stand_ins.py).
NOT_LOADED_ENTITY: Final = NotLoadedTaskEntity
