"""To-do and shopping lists; their items are shown as attributes so a test can expect them."""

from __future__ import annotations

from collections.abc import Mapping
import itertools
from typing import Any

from homeassistant.components.todo.const import TodoItemStatus
from homeassistant.components.todo.const import TodoListEntityFeature
from homeassistant.components.todo.entity import TodoItem
from homeassistant.components.todo.entity import TodoListEntity
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import setup_domain

_UIDS = itertools.count(1)


def _items(attributes: Mapping[str, Any]) -> list[TodoItem]:
    """Items from `items` (open) and `completed`: strings, or {summary, status}."""
    items: list[TodoItem] = []
    for key, default in (
        ("items", TodoItemStatus.NEEDS_ACTION),
        ("completed", TodoItemStatus.COMPLETED),
    ):
        for raw in attributes.get(key) or ():
            summary = raw.get("summary") if isinstance(raw, Mapping) else raw
            status = raw.get("status", default) if isinstance(raw, Mapping) else default
            items.append(
                TodoItem(summary=str(summary), uid=str(next(_UIDS)), status=TodoItemStatus(status))
            )
    return items


class FixtureTodoList(FixtureEntity, TodoListEntity):
    """A list; state is the number of open items (Home Assistant's own rule).

    Attributes: `items` (open item summaries, in order) and `completed` (done ones).
    """

    HANDLED = frozenset({"items", "completed"})

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Create, update and delete items (unless supported_features says otherwise)."""
        self._attr_supported_features = (
            TodoListEntityFeature.CREATE_TODO_ITEM
            | TodoListEntityFeature.UPDATE_TODO_ITEM
            | TodoListEntityFeature.DELETE_TODO_ITEM
        )

    @classmethod
    def features_type(cls) -> Any:
        """To-do features."""
        return TodoListEntityFeature

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """The items (the state follows from them)."""
        self._attr_todo_items = _items(attributes)
        self._publish_items()

    def _publish_items(self) -> None:
        items = self._attr_todo_items or []
        extra = dict(self._attr_extra_state_attributes or {})
        extra["items"] = [i.summary for i in items if i.status == TodoItemStatus.NEEDS_ACTION]
        extra["completed"] = [i.summary for i in items if i.status == TodoItemStatus.COMPLETED]
        self._attr_extra_state_attributes = extra

    def _replace(self, items: list[TodoItem]) -> None:
        self._attr_todo_items = items
        self._publish_items()
        self.changed()

    async def async_create_todo_item(self, item: TodoItem) -> None:
        """Append an item."""
        new = TodoItem(
            summary=item.summary,
            uid=str(next(_UIDS)),
            status=item.status or TodoItemStatus.NEEDS_ACTION,
            due=item.due,
            description=item.description,
        )
        self._replace([*(self._attr_todo_items or []), new])

    async def async_update_todo_item(self, item: TodoItem) -> None:
        """Rename an item or change its status."""
        items = [
            TodoItem(
                summary=item.summary or old.summary,
                uid=old.uid,
                status=item.status or old.status,
                due=item.due or old.due,
                description=item.description or old.description,
            )
            if old.uid == item.uid
            else old
            for old in self._attr_todo_items or []
        ]
        self._replace(items)

    async def async_delete_todo_items(self, uids: list[str]) -> None:
        """Remove items."""
        self._replace([item for item in self._attr_todo_items or [] if item.uid not in uids])


async_setup_entry = setup_domain("todo", FixtureTodoList)
