"""Server-sent events: split a byte stream into the data of each event."""

from __future__ import annotations


class SseDecoder:
    """Feed it bytes as they arrive; it returns the data of each event completed so far.

    Multi-line data are joined with newlines; comments (lines starting with ':') and the
    other fields (event, id, retry) are ignored, as OpenAI-compatible streams only use data.
    """

    def __init__(self) -> None:
        """Start with nothing buffered."""
        self._buffer = b""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[str]:
        """Take the next bytes; return the data of the events they complete."""
        self._buffer += chunk
        events: list[str] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                return events
            line = self._buffer[:end].rstrip(b"\r").decode("utf-8", "replace")
            self._buffer = self._buffer[end + 1 :]
            if not line:
                if self._data:
                    events.append("\n".join(self._data))
                    self._data = []
                continue
            field, _, value = line.partition(":")
            if field == "data":
                self._data.append(value.removeprefix(" "))

    def finish(self) -> list[str]:
        """End of stream: return an event still missing its blank line."""
        events = self.feed(b"\n\n") if self._buffer or self._data else []
        self._buffer = b""
        return events
